// Package ruletest runs a rule over events held in memory, for the rules'
// tests: the events come from parsing log text with the real parsers (or
// are built in the test), the timeline answers every query the way the
// stores do, and the rule runs through the driver of real runs, so its
// findings are what a run reports.
package ruletest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
	"forensics/rules/driver"
)

// Source is one input file read with a given format: its display path,
// the node its path names (a debug zip's debug/nodes/N) and its text.
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
			e.Path = s.Path
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b forensics.Event) int { return forensics.Compare(&a, &b) })
	return out
}

// File is one input whose format is detected: its display path, its
// content and modification time.
type File struct {
	Path    string
	Text    string
	ModTime time.Time
}

// Read parses files with the format of each (the one of formats whose
// Detect is surest) and returns their events, with Source set to the path.
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
			e.Path = f.Path
			out = append(out, e)
		}
	}
	return out
}

// Event builds an event; attrs are key, value pairs.
func Event(kind forensics.Kind, node string, at forensics.Stamp, attrs ...string) forensics.Event {
	e := forensics.Event{Stamp: at, Node: node, Kind: kind, Subject: forensics.Subject{VB: forensics.NoVB}}
	for i := 0; i+1 < len(attrs); i += 2 {
		e.Set(forensics.AttrKey(attrs[i]), attrs[i+1])
	}
	return e
}

// Timeline answers queries from the events it holds, as the stores do:
// every field of the query (forensics.Query.Match), in timeline order,
// each event the caller's to keep. storetest.Queries checks it against
// the same cases as the stores.
type Timeline []forensics.Event

func (tl Timeline) Events(_ context.Context, q forensics.Query) iter.Seq2[*forensics.Event, error] {
	var out []forensics.Event
	for _, e := range tl {
		if q.Match(&e) {
			e.Attrs = slices.Clone(e.Attrs)
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b forensics.Event) int { return forensics.Compare(&a, &b) })
	return forensics.Cursor(out, nil)
}

// Run runs the rule over the events through the driver of real runs
// (rules/driver), which gives the rule only the kinds it declares, and
// returns its findings as a run reports them: in the driver's order, with
// their rule names, details in order, ids, and windows that span their
// evidence. Events built without a path, line or text get one, so that
// evidence is told apart. An error of the rule fails the test.
func Run(t testing.TB, r *forensics.Rule, evs []forensics.Event) []forensics.Finding {
	t.Helper()
	tl := make(Timeline, 0, len(evs))
	for i, e := range evs {
		if e.Path == "" {
			e.Path = fmt.Sprintf("%s/test.log", e.Node)
		}
		if e.Line == 0 {
			e.Line = int64(i + 1)
		}
		if e.Text == "" {
			e.Text = string(e.Kind)
		}
		tl = append(tl, e)
	}
	fs, errs := driver.Run(context.Background(), tl, []*forensics.Rule{r})
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	return fs
}

// Lines joins log lines into a file's text, each ending in a newline.
func Lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// Commands joins the commands of a finding's fixes, one a line.
func Commands(f forensics.Finding) string {
	var out []string
	for _, fx := range f.Fixes {
		out = append(out, fx.Commands...)
	}
	return strings.Join(out, "\n")
}

// Subject is a finding's subject as the JSON output writes it, details
// and all, in their order.
func Subject(f forensics.Finding) string {
	b, err := json.Marshal(f.Subject)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// Describe prints findings for a test failure.
func Describe(fs []forensics.Finding) string {
	s := ""
	for _, f := range fs {
		s += fmt.Sprintf("\n  %s %s %q %s", f.Rule, f.Severity, f.Title, Subject(f))
	}
	return s
}
