package rules

import (
	"context"
	"iter"
	"testing"
	"time"

	"forensics"
)

type noEvents struct{}

func (noEvents) Events(context.Context, forensics.Query) iter.Seq2[*forensics.Event, error] {
	return forensics.Cursor(nil, nil)
}

// A finding's window spans all its evidence, and its id stays the one its
// rule's own start gives (ids pasted into tickets keep working).
func TestWindowSpansEvidence(t *testing.T) {
	t0 := time.Date(2022, 7, 22, 0, 39, 12, 119e6, time.UTC)
	reported := forensics.Finding{
		Rule: "window-test", Start: t0, End: t0.Add(time.Second),
		Evidence: []forensics.Evidence{
			{Source: "ix.log", Line: 1, Time: t0.Add(-8 * time.Millisecond)},
			{Source: "mc.log", Line: 2, Time: t0.Add(2 * time.Second)},
		},
	}
	wantID := reported.Fingerprint()
	r := &forensics.Rule{Name: "window-test", Run: func(p *forensics.Pass) error {
		p.Report(reported)
		return nil
	}}
	fs, errs := Run(context.Background(), noEvents{}, []*forensics.Rule{r})
	if len(errs) != 0 || len(fs) != 1 {
		t.Fatalf("findings %v, errors %v", fs, errs)
	}
	f := fs[0]
	if !f.Start.Equal(t0.Add(-8*time.Millisecond)) || !f.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("window %s – %s, want the first and the last evidence line", f.Start, f.End)
	}
	if f.ID != wantID {
		t.Errorf("id %s, want %s (from the rule's start)", f.ID, wantID)
	}
}
