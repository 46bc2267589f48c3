package fleet

import (
	"context"
	"encoding/json"

	"forensics/store"
)

// List calls fn with each finding the filter selects, in the order of
// Findings: its summary, and its JSON as json.Marshal writes a
// forensics.Finding (valid until fn returns).
func List(ctx context.Context, r store.Reader, f Filter, fn func(s *Summary, finding []byte) error) error {
	if l, ok := r.(store.Lister); ok {
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
