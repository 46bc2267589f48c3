// Package ruletest runs a rule over events read from text by the real
// parsers, the way the store would serve them, for the rules' tests.
package ruletest

import (
	"context"
	"path"
	"slices"
	"sort"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// Timeline serves events filtered by kind, in time order, then source,
// then line, as the store does.
type Timeline []forensics.Event

func (tl Timeline) Events(_ context.Context, q forensics.Query) ([]forensics.Event, error) {
	var out []forensics.Event
	for _, e := range tl {
		if len(q.Kinds) == 0 || slices.Contains(q.Kinds, e.Kind) {
			out = append(out, e)
		}
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

// File is one input: its display path, its content and modification time.
type File struct {
	Path    string
	Text    string
	ModTime time.Time
}

// Read parses files with the format of each (the first of formats whose
// Detect takes it) and returns their events, with Source set to the path.
func Read(t testing.TB, formats []forensics.Format, files ...File) Timeline {
	t.Helper()
	var out Timeline
	for _, f := range files {
		name := path.Base(f.Path)
		best, score := -1, 0
		for i, fm := range formats {
			if s := fm.Detect(name, []byte(f.Text)); s > score {
				best, score = i, s
			}
		}
		if best < 0 {
			t.Fatalf("%s: no format detects it", f.Path)
		}
		res := parsertest.Parse(formats[best], forensics.Origin{Path: f.Path, Name: name, ModTime: f.ModTime}, []byte(f.Text))
		if len(res.Errors) > 0 || res.EndErr != nil {
			t.Fatalf("%s: %v %v", f.Path, res.Errors, res.EndErr)
		}
		for _, e := range res.Events {
			e.Source = f.Path
			out = append(out, e)
		}
	}
	return out
}

// Run runs the rule over the timeline and returns its findings.
func Run(t testing.TB, r *forensics.Rule, tl Timeline) []forensics.Finding {
	t.Helper()
	var got []forensics.Finding
	pass := &forensics.Pass{Context: context.Background(), Rule: r, Timeline: tl, Report: func(f forensics.Finding) { got = append(got, f) }}
	if err := r.Run(pass); err != nil {
		t.Fatal(err)
	}
	return got
}
