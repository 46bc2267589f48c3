package store

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"forensics"
)

// What a backend implements to answer package fleet's questions across
// incidents in its own query language: the filter, the findings it returns
// and, for listings, their summaries. fleet names them Filter, Finding and
// Summary.

// FindingFilter selects findings across incidents (package fleet). Each finding is taken from the
// latest run of its incident, as `forensics findings` shows it.
type FindingFilter struct {
	Incidents []string // incident names; all when empty
	Rules     []string
	MinRank   int      // forensics.Severity.Rank at least
	Nodes     []string // subject.node is one of these
	Since     time.Time
	Until     time.Time // the finding's window overlaps [Since, Until)
	Text      string    // in the title or the explanation, any case
	Shape     string    // the subject's shape (SubjectShape), for fleet.Similar
	Limit     int
}

// IncidentFinding is a finding with the incident and run that found it.
type IncidentFinding struct {
	Incident string `json:"incident"`
	Run      int64  `json:"run"`
	forensics.Finding
}

// Finder filters findings in the backend. Its answers must be those of
// FindingFilter.Match over each incident's latest run, in the order of fleet.Sort.
type Finder interface {
	FleetFindings(ctx context.Context, f FindingFilter) ([]IncidentFinding, error)
}

// Match reports whether the filter selects a finding (incident aside).
func (f *FindingFilter) Match(fi *forensics.Finding) bool {
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
	if f.Shape != "" && SubjectShape(fi.Subject) != f.Shape {
		return false
	}
	return true
}

// FindingSummary is what a table of findings shows of each: no evidence, no fix.
type FindingSummary struct {
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
	// ListFindings calls fn with each finding fleet.Findings would return, in
	// its order. finding is the finding as json.Marshal writes a
	// forensics.Finding, valid until fn returns.
	ListFindings(ctx context.Context, f FindingFilter, fn func(s *FindingSummary, finding []byte) error) error
}

// SubjectShape names the fields of a finding's subject that are set, sorted: two
// findings of one rule with the same shape are about the same kind of
// thing (a bucket's vbuckets, a range's replicas), whatever the values.
func SubjectShape(s forensics.FindingSubject) string {
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
