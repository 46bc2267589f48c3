// Package fleet answers questions across the incidents of one timeline
// store: which findings match, which incidents had the same kind of
// finding before, which lines match a pattern anywhere; and copies a
// timeline into another store. It reads through the store interfaces, so
// any backend serves it; a backend that can filter findings in its own
// query language implements Finder.
package fleet

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/store"
)

// Filter selects findings across incidents. Each finding is taken from the
// latest run of its incident, as `forensics findings` shows it.
type Filter struct {
	Incidents []string // incident names; all when empty
	Rules     []string
	MinRank   int      // forensics.Severity.Rank at least
	Nodes     []string // subject.node is one of these
	Since     time.Time
	Until     time.Time // the finding's window overlaps [Since, Until)
	Text      string    // in the title or the explanation, any case
	Shape     string    // the subject's shape (Shape), for Similar
	Limit     int
}

// Finding is a finding with the incident and run that found it.
type Finding struct {
	Incident string `json:"incident"`
	Run      int64  `json:"run"`
	forensics.Finding
}

// Finder filters findings in the backend. Its answers must be those of
// Filter.Match over each incident's latest run, in the order of Sort.
type Finder interface {
	FleetFindings(ctx context.Context, f Filter) ([]Finding, error)
}

// Match reports whether the filter selects a finding (incident aside).
func (f *Filter) Match(fi *forensics.Finding) bool {
	if len(f.Rules) > 0 && !slices.Contains(f.Rules, fi.Rule) {
		return false
	}
	if fi.Severity.Rank() < f.MinRank {
		return false
	}
	if len(f.Nodes) > 0 && !slices.Contains(f.Nodes, fi.Subject.Node) {
		return false
	}
	if !f.Since.IsZero() && fi.End.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && !fi.Start.Before(f.Until) {
		return false
	}
	if f.Text != "" {
		t := strings.ToLower(f.Text)
		if !strings.Contains(strings.ToLower(fi.Title), t) && !strings.Contains(strings.ToLower(fi.Explanation), t) {
			return false
		}
	}
	if f.Shape != "" && Shape(fi.Subject) != f.Shape {
		return false
	}
	return true
}

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
	if fd, ok := r.(Finder); ok {
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

// Shape names the fields of a finding's subject that are set, sorted: two
// findings of one rule with the same shape are about the same kind of
// thing (a bucket's vbuckets, a range's replicas), whatever the values.
func Shape(s forensics.FindingSubject) string {
	b, _ := json.Marshal(s)
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
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
