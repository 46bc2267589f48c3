package fleet

import (
	"context"
	"encoding/json"
	"time"

	"forensics"
	"forensics/store"
)

// Summary is what a table of findings shows of each: no evidence, no fix.
type Summary struct {
	Incident string
	Run      int64
	ID       string
	Rule     string
	Severity forensics.Severity
	Start    time.Time
	Title    string
}

// Lister lists findings without decoding them. A backend that keeps each
// finding as the JSON json.Marshal wrote hands that over as stored: a
// listing of thousands of findings is then mostly their evidence, and
// decoding it only to encode it again was most of the time the listing
// took.
type Lister interface {
	// ListFindings calls fn with each finding Findings would return, in
	// its order. finding is the finding as json.Marshal writes a
	// forensics.Finding, valid until fn returns.
	ListFindings(ctx context.Context, f Filter, fn func(s *Summary, finding []byte) error) error
}

// List calls fn with each finding the filter selects, in the order of
// Findings: its summary, and its JSON as json.Marshal writes a
// forensics.Finding (valid until fn returns).
func List(ctx context.Context, r store.Reader, f Filter, fn func(s *Summary, finding []byte) error) error {
	if l, ok := r.(Lister); ok {
		return l.ListFindings(ctx, f, fn)
	}
	fs, err := Findings(ctx, r, f)
	if err != nil {
		return err
	}
	return Each(fs, fn)
}

// Each calls fn with the summary and the JSON of each finding.
func Each(fs []Finding, fn func(s *Summary, finding []byte) error) error {
	for i := range fs {
		fi := &fs[i]
		b, err := json.Marshal(&fi.Finding)
		if err != nil {
			return err
		}
		s := Summary{Incident: fi.Incident, Run: fi.Run, ID: fi.ID, Rule: fi.Rule, Severity: fi.Severity, Start: fi.Start, Title: fi.Title}
		if err := fn(&s, b); err != nil {
			return err
		}
	}
	return nil
}
