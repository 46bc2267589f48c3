// Package ruletest runs a rule over events built in a test, the way the
// store serves them: by kind, within the query's time range, in timeline
// order. Only the rule's declared kinds are served, so a rule that reads a
// kind it did not declare sees nothing, as it would not be planned for.
package ruletest

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"forensics"
)

// Timeline serves a fixed list of events.
type Timeline struct {
	events []forensics.Event
	allow  map[forensics.Kind]bool
}

// Events implements forensics.Timeline.
func (tl *Timeline) Events(_ context.Context, q forensics.Query) ([]forensics.Event, error) {
	want := map[forensics.Kind]bool{}
	for _, k := range q.Kinds {
		want[k] = true
	}
	var out []forensics.Event
	for _, e := range tl.events {
		if !tl.allow[e.Kind] || len(want) > 0 && !want[e.Kind] {
			continue
		}
		if !q.Since.IsZero() && e.Time.Before(q.Since) || !q.Until.IsZero() && !e.Time.Before(q.Until) {
			continue
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Line < b.Line
	})
	return out, nil
}

// Run runs r over evs and returns its findings, failing the test if the
// rule fails. Events without a source or line get one, so that evidence
// is told apart.
func Run(t testing.TB, r *forensics.Rule, evs []forensics.Event) []forensics.Finding {
	t.Helper()
	tl := &Timeline{allow: map[forensics.Kind]bool{}}
	for _, k := range r.Kinds {
		tl.allow[k] = true
	}
	for i, e := range evs {
		if e.Source == "" {
			e.Source = fmt.Sprintf("%s/test.log", e.Node)
		}
		if e.Line == 0 {
			e.Line = int64(i + 1)
		}
		if e.Text == "" {
			e.Text = string(e.Kind)
		}
		tl.events = append(tl.events, e)
	}
	var out []forensics.Finding
	p := &forensics.Pass{Context: context.Background(), Rule: r, Timeline: tl, Report: func(f forensics.Finding) {
		f.Rule = r.Name
		out = append(out, f)
	}}
	if err := r.Run(p); err != nil {
		t.Fatalf("rule %s: %v", r.Name, err)
	}
	return out
}

// Event builds an event; attrs are key, value pairs.
func Event(kind forensics.Kind, node string, at forensics.Stamp, attrs ...string) forensics.Event {
	e := forensics.Event{Stamp: at, Node: node, Kind: kind, Subject: forensics.Subject{VB: forensics.NoVB}}
	for i := 0; i+1 < len(attrs); i += 2 {
		e.Set(attrs[i], attrs[i+1])
	}
	return e
}
