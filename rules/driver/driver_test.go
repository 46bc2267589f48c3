package driver

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"
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
			{Path: "ix.log", Line: 1, Time: t0.Add(-8 * time.Millisecond)},
			{Path: "mc.log", Line: 2, Time: t0.Add(2 * time.Second)},
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

// The driver writes the details in the order the rule declares them, and a
// detail the rule does not declare is the rule's error; the finding stays.
func TestDetailsConform(t *testing.T) {
	a := forensics.Detail{Key: "a", Type: forensics.DetailText}
	b := forensics.Detail{Key: "b", Type: forensics.DetailInt}
	r := &forensics.Rule{Name: "details-test", Details: []forensics.Detail{a, b}, Run: func(p *forensics.Pass) error {
		p.Report(forensics.Finding{Title: "in order", Subject: forensics.FindingSubject{Node: "n1", Details: forensics.Details{b.Int(2), a.Text("x")}}})
		p.Report(forensics.Finding{Title: "undeclared", Subject: forensics.FindingSubject{Details: forensics.Details{{Key: "c", Value: "y"}}}})
		return nil
	}}
	fs, errs := Run(context.Background(), noEvents{}, []*forensics.Rule{r})
	if len(fs) != 2 {
		t.Fatalf("%d findings, want both", len(fs))
	}
	i := slices.IndexFunc(fs, func(f forensics.Finding) bool { return f.Title == "in order" })
	if got, _ := json.Marshal(fs[i].Subject); string(got) != `{"node":"n1","a":"x","b":2}` {
		t.Errorf("subject %s, want the declared order", got)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `"c"`) {
		t.Errorf("errors %v, want one naming the undeclared detail", errs)
	}
}
