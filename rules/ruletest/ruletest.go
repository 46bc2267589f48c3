// Package ruletest runs a rule over events held in memory, for the rules'
// tests: the events come from parsing log text with the real parsers, and
// the timeline answers queries the way the store does (kinds, nodes, time
// window, range), so a rule reads only what it declares.
package ruletest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// Source is one input file: its display path, the node its path names
// (a debug zip's debug/nodes/N) and its text.
type Source struct {
	Path, Node, Text string
	Format           forensics.Format
}

// Parse reads the sources with their formats and returns every event in
// timeline order. A line the parser rejects fails the test.
func Parse(t testing.TB, srcs ...Source) []forensics.Event {
	t.Helper()
	var out []forensics.Event
	for _, s := range srcs {
		res := parsertest.Parse(s.Format, forensics.Origin{Path: s.Path, Node: s.Node}, []byte(s.Text))
		if len(res.Errors) > 0 {
			t.Fatalf("%s: %v", s.Path, res.Errors)
		}
		for _, e := range res.Events {
			e.Source = s.Path
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Line < b.Line
	})
	return out
}

// Timeline answers queries from events in timeline order.
type Timeline []forensics.Event

func (tl Timeline) Events(_ context.Context, q forensics.Query) ([]forensics.Event, error) {
	var out []forensics.Event
	for _, e := range tl {
		switch {
		case len(q.Kinds) > 0 && !slices.Contains(q.Kinds, e.Kind),
			len(q.Nodes) > 0 && !slices.Contains(q.Nodes, e.Node),
			!q.Since.IsZero() && e.Time.Before(q.Since),
			!q.Until.IsZero() && !e.Time.Before(q.Until),
			q.Range != 0 && e.Range != q.Range:
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Run runs the rule over the events, giving it only the kinds it declares,
// and returns its findings with their rule names and ids set.
func Run(t testing.TB, r *forensics.Rule, evs []forensics.Event) []forensics.Finding {
	t.Helper()
	var own Timeline
	for _, e := range evs {
		if slices.Contains(r.Kinds, e.Kind) {
			own = append(own, e)
		}
	}
	var out []forensics.Finding
	pass := &forensics.Pass{
		Context:  context.Background(),
		Rule:     r,
		Timeline: own,
		Report: func(f forensics.Finding) {
			f.Rule = r.Name
			f.ID = f.Fingerprint()
			out = append(out, f)
		},
	}
	if err := r.Run(pass); err != nil {
		t.Fatalf("rule %s: %v", r.Name, err)
	}
	return out
}

// Describe prints findings for a test failure.
func Describe(fs []forensics.Finding) string {
	s := ""
	for _, f := range fs {
		s += fmt.Sprintf("\n  %s %s %q %+v", f.Rule, f.Severity, f.Title, f.Subject)
	}
	return s
}
