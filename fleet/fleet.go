// Package fleet answers questions across the incidents of one timeline
// store: which findings match, which incidents had the same kind of
// finding before, which lines match a pattern anywhere; and copies a
// timeline into another store. It reads through the store interfaces, so
// any backend serves it; a backend that can filter findings in its own
// query language implements store.Finder (and store.Lister).
package fleet

import (
	"context"
	"slices"
	"sort"

	"forensics"
	"forensics/store"
)

// The filter and the findings of the fleet's questions are store's, so a
// backend answers them in its own query language (store.Finder,
// store.Lister) without importing this package.
type (
	Filter  = store.FindingFilter
	Finding = store.IncidentFinding
	Summary = store.FindingSummary
)

// Shape names the fields of a finding's subject that are set (store.SubjectShape).
func Shape(s forensics.FindingSubject) string { return store.SubjectShape(s) }

// Sort puts findings in time order, then rule, id and incident.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Incident < b.Incident
	})
}

// Findings returns the findings the filter selects, in time order.
func Findings(ctx context.Context, r store.Reader, f Filter) ([]Finding, error) {
	if fd, ok := r.(store.Finder); ok {
		return fd.FleetFindings(ctx, f)
	}
	incs, err := incidents(ctx, r, f.Incidents)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, inc := range incs {
		fs, err := r.Findings(ctx, inc.Latest)
		if err != nil {
			return nil, err
		}
		for _, fi := range fs {
			if f.Match(&fi.Finding) {
				out = append(out, Finding{Incident: inc.Name, Run: fi.Run, Finding: fi.Finding})
			}
		}
	}
	Sort(out)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

func incidents(ctx context.Context, r store.Reader, names []string) ([]store.Incident, error) {
	incs, err := r.Incidents(ctx)
	if err != nil || len(names) == 0 {
		return incs, err
	}
	var out []store.Incident
	for _, inc := range incs {
		if slices.Contains(names, inc.Name) {
			out = append(out, inc)
		}
	}
	return out, nil
}

// Similar returns the findings of other incidents with the same rule and
// subject shape as the finding whose id starts with id: "have we seen this
// before?". It returns the finding itself first.
func Similar(ctx context.Context, r store.Reader, id string) (Finding, []Finding, error) {
	sf, err := r.FindingIn(ctx, 0, id)
	if err != nil {
		return Finding{}, nil, err
	}
	own := Finding{Run: sf.Run, Finding: sf.Finding}
	incs, err := r.Incidents(ctx)
	if err != nil {
		return Finding{}, nil, err
	}
	for _, inc := range incs {
		if slices.Contains(inc.Runs, sf.Run) {
			own.Incident = inc.Name
		}
	}
	fs, err := Findings(ctx, r, Filter{Rules: []string{sf.Rule}, Shape: Shape(sf.Subject)})
	if err != nil {
		return Finding{}, nil, err
	}
	var out []Finding
	for _, f := range fs {
		if f.Incident != own.Incident {
			out = append(out, f)
		}
	}
	return own, out, nil
}
