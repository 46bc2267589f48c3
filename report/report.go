// Package report puts the result of an analysis together (Build) and
// writes it for people (a table, Markdown, a self-contained HTML page) and
// for programs (JSON, SARIF). The JSON field names are a contract with
// users' scripts: add fields, never rename or remove them.
package report

import (
	"sort"
	"time"

	"forensics"
)

// Report is what `forensics analyze` found and read.
type Report struct {
	Findings []forensics.Finding `json:"findings"`
	Sources  []Source            `json:"sources"`
	Skipped  []Skipped           `json:"skipped"`
	Problems []forensics.Problem `json:"problems"`
	Summary  Summary             `json:"summary"`

	// Rules are the rules whose findings the report holds: their
	// declarations say how the writers show each finding's details.
	Rules []*forensics.Rule `json:"-"`

	// Root is the folder the inputs were given in (InputRoot): Markdown,
	// SARIF and HTML name files relative to it, so that a ticket names the
	// evidence as the bundle does, not as the analyst's machine stored it.
	// JSON keeps every path as stored.
	Root string `json:"-"`
}

// rel writes a display path relative to the inputs' folder.
func (r *Report) rel(p string) string {
	if r == nil {
		return p
	}
	return RelativePath(r.Root, p)
}

// Source is the accounting of one file read: lines = events + plain + skipped.
type Source struct {
	Path      string     `json:"path"`
	Node      string     `json:"node,omitempty"`
	Format    string     `json:"format"`
	Component string     `json:"component"`
	Release   string     `json:"release,omitempty"` // the release that wrote it, as the file says
	Bytes     int64      `json:"bytes"`
	Lines     int64      `json:"lines"`
	Events    int64      `json:"events"`
	Plain     int64      `json:"plain"`
	Skipped   int64      `json:"skipped"`
	Errors    int64      `json:"errors"`
	First     *time.Time `json:"first,omitempty"`
	Last      *time.Time `json:"last,omitempty"`
}

// Skipped is a file that was not read, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Summary counts what the run did.
type Summary struct {
	Read     int            `json:"read"`               // sources read in this run
	Reused   int            `json:"reused"`             // sources already in the timeline
	Skipped  int            `json:"skipped"`            // files not read
	Problems int            `json:"problems"`           // problems with inputs that did not stop the run
	Findings map[string]int `json:"findings"`           // findings by severity
	Releases []NodeRelease  `json:"releases,omitempty"` // the releases recognised, by node
	Empty    int            `json:"empty,omitempty"`    // sources read that put nothing on the timeline: no timed line, no event
}

// EmptySources counts the sources that were recognised but hold no entry
// (a log of only cbcollect_info's header, an empty file): read, and so not
// skipped, but nothing in them.
func EmptySources(srcs []Source) int {
	n := 0
	for _, s := range srcs {
		if s.First == nil && s.Events == 0 {
			n++
		}
	}
	return n
}

// NodeRelease is a release recognised on a node: the release one of its
// components' files named.
type NodeRelease struct {
	Node      string `json:"node"`
	Component string `json:"component"`
	Release   string `json:"release"`
}

// NodeReleases lists the releases the sources named, one per node,
// component and release, in that order. A node that names two releases of
// one component (an upgrade during the files' span) lists both.
func NodeReleases(srcs []Source) []NodeRelease {
	seen := map[NodeRelease]bool{}
	var out []NodeRelease
	for _, s := range srcs {
		nr := NodeRelease{Node: s.Node, Component: s.Component, Release: s.Release}
		if s.Release == "" || seen[nr] {
			continue
		}
		seen[nr] = true
		out = append(out, nr)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		if a.Component != b.Component {
			return a.Component < b.Component
		}
		return a.Release < b.Release
	})
	return out
}

// ReasonCount is how many files were skipped for one reason.
type ReasonCount struct {
	Reason string
	Files  int
}

// SkippedByReason counts the skipped files by reason, in reason order.
func (r *Report) SkippedByReason() []ReasonCount {
	counts := map[string]int{}
	for _, s := range r.Skipped {
		counts[s.Reason]++
	}
	out := make([]ReasonCount, 0, len(counts))
	for reason, n := range counts {
		out = append(out, ReasonCount{reason, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// NewSource converts a source's accounting for output.
func NewSource(s forensics.Source) Source {
	out := Source{
		Path: s.Path, Node: s.Node, Format: s.Format, Component: s.Component, Release: s.Release,
		Bytes: s.Bytes, Lines: s.Lines, Events: s.Events, Plain: s.Plain, Skipped: s.Skipped, Errors: s.Errors,
	}
	if !s.First.IsZero() {
		first, last := s.First, s.Last
		out.First, out.Last = &first, &last
	}
	return out
}

// Reading is what a run read, as its report lists it.
type Reading struct {
	Read     int // sources read by the run
	Reused   int // sources already in the timeline
	Skipped  []Skipped
	Problems []forensics.Problem // met while reading; the sources' own are added by Build
	Rules    []*forensics.Rule   // the rules run (Report.Rules)
}

// Build puts the report of a run together: its findings, the accounting of
// its sources, and what was skipped or went wrong. A source keeps the
// problems it was read with, so one read by an earlier run reports them
// too (analysing it again must not make them disappear for --strict); a
// problem is listed once.
func Build(findings []forensics.Finding, srcs []forensics.Source, rd Reading) *Report {
	rep := &Report{Findings: findings, Problems: rd.Problems, Rules: rd.Rules}
	seen := map[string]bool{}
	for _, p := range rd.Problems {
		seen[p.Error()] = true
	}
	for _, s := range srcs {
		rep.Sources = append(rep.Sources, NewSource(s))
		for _, p := range s.Problems {
			if !seen[p.Error()] {
				seen[p.Error()] = true
				rep.Problems = append(rep.Problems, p)
			}
		}
	}
	rep.Skipped = rd.Skipped
	rep.Summary = Summary{
		Read: rd.Read, Reused: rd.Reused, Skipped: len(rd.Skipped), Problems: len(rep.Problems),
		Findings: map[string]int{},
	}
	for _, f := range findings {
		rep.Summary.Findings[f.Severity.String()]++
	}
	rep.Summary.Releases = NodeReleases(rep.Sources)
	rep.Summary.Empty = EmptySources(rep.Sources)
	return rep
}
