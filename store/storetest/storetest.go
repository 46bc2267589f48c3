// Package storetest is the behaviour every timeline backend must have,
// as a suite of tests run against the store interfaces. A backend's tests
// call Run with a function that opens a new, empty timeline of that backend.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/store"
)

// Options says what of the documented behaviour a backend leaves out.
type Options struct {
	// NoViews names documented views the backend cannot serve to --sql
	// (PostgreSQL cannot decode line blocks in SQL: it has no lines view).
	NoViews []string
	// Unindex forgets the index of blocks of lines, as in a timeline
	// written before the backend kept one.
	Unindex func(t *testing.T, db store.Backend)
}

// Run runs the suite. open returns a new, empty timeline open for writing;
// the suite closes it. The SQL dialect of the views is the backend's own,
// so the suite queries them only in SQL every engine reads alike.
func Run(t *testing.T, open func(t *testing.T) store.Backend, opts Options) {
	t.Run("LinesMergeAcrossSources", func(t *testing.T) { testLinesMerge(t, open(t)) })
	t.Run("KindsOnEveryLine", func(t *testing.T) { testKindsOnEveryLine(t, open(t)) })
	t.Run("EventsCursor", func(t *testing.T) { testEventsCursor(t, open(t)) })
	t.Run("Views", func(t *testing.T) { testViews(t, open(t), opts) })
	t.Run("QueryWhileWriting", func(t *testing.T) { testQueryWhileWriting(t, open(t)) })
	t.Run("SameContentIsLoadedOnce", func(t *testing.T) { testLoadedOnce(t, open(t)) })
	t.Run("FindingsAndIncidents", func(t *testing.T) { testFindings(t, open(t)) })
	t.Run("TimelineQueries", func(t *testing.T) {
		db := open(t)
		defer db.Close()
		Queries(t, func(t *testing.T, evs []forensics.Event) forensics.Timeline { return storedTimeline(t, db, evs) })
	})
	t.Run("SearchPages", func(t *testing.T) { testSearchPages(t, open(t)) })
	t.Run("Reindex", func(t *testing.T) { testReindex(t, open(t), opts) })
}

var base = time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)

// incident names every run of the suite, as analysis names each run's:
// content is reused within an incident.
const incident = "incident-a"

// fill writes one run of one source with n lines one second apart from
// start, and an event on line 50, and returns the run.
func fill(t *testing.T, db store.Backend, path string, start time.Time, n int) int64 {
	t.Helper()
	w, src := begin(t, db, path)
	b := w.LineBuffer()
	defer b.Release()
	for i := 1; i <= n; i++ {
		st := forensics.Stamp{Time: start.Add(time.Duration(i) * time.Second), Zone: forensics.ZoneUTC}
		b.Add(&store.NewLine{N: int64(i), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC}, Text: fmt.Appendf(nil, "%s line %d", path, i)})
		if b.Full() || i%100 == 0 {
			if err := w.AddLines(src.ID, b.Batch()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !b.Empty() {
		if err := w.AddLines(src.ID, b.Batch()); err != nil {
			t.Fatal(err)
		}
	}
	ev := forensics.Event{Line: 50, Kind: "test.event", Node: "n1", Text: path + " line 50"}
	ev.VB = 7
	ev.Stamp = forensics.Stamp{Time: start.Add(50 * time.Second), Zone: forensics.ZoneUTC}
	ev.Set("k", "v \"quoted\"")
	if err := w.AddEvents(src.ID, []forensics.Event{ev}); err != nil {
		t.Fatal(err)
	}
	src.Lines, src.Events, src.Plain = int64(n), 1, int64(n-1)
	src.First, src.Last = start.Add(time.Second), start.Add(time.Duration(n)*time.Second)
	src.Release = "7.6.4-5146"
	return end(t, w, src)
}

// begin starts a run of the incident with one source, path.
func begin(t *testing.T, db store.Backend, path string) (store.Writer, *forensics.Source) {
	t.Helper()
	w, err := db.NewRun(context.Background(), []string{path})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	src := &forensics.Source{Path: path, Node: "n1", Format: "test", Component: "test", Key: path}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	return w, src
}

// end ends the source and its run, and returns the run.
func end(t *testing.T, w store.Writer, src *forensics.Source) int64 {
	t.Helper()
	if err := w.EndSource(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Run()
}

func reader(t *testing.T, db store.Backend) store.Reader {
	t.Helper()
	ro, err := db.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	return ro
}

func ptr[T any](v T) *T { return &v }

func testLinesMerge(t *testing.T, db store.Backend) {
	defer db.Close()
	fill(t, db, "a.log", base, 1000)
	fill(t, db, "b.log", base.Add(500*time.Millisecond), 1000)
	ctx := context.Background()
	var got []string
	var kinds []forensics.Kind
	for l, err := range db.Lines(ctx, store.LineFilter{Since: base.Add(49 * time.Second), Until: base.Add(52 * time.Second)}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l.Text)
		kinds = append(kinds, l.Kinds...)
	}
	want := "a.log line 49|b.log line 49|a.log line 50|b.log line 50|a.log line 51|b.log line 51"
	if strings.Join(got, "|") != want {
		t.Errorf("window = %q\nwant     %q", strings.Join(got, "|"), want)
	}
	if len(kinds) != 2 || kinds[0] != "test.event" {
		t.Errorf("kinds on the window's lines = %v, want test.event twice", kinds)
	}
	var bare []string
	for l, err := range db.Lines(ctx, store.LineFilter{Since: base.Add(49 * time.Second), Until: base.Add(52 * time.Second), NoKinds: true}) {
		if err != nil {
			t.Fatal(err)
		}
		bare = append(bare, l.Text)
		if len(l.Kinds) > 0 {
			t.Errorf("NoKinds: %q has kinds %v", l.Text, l.Kinds)
		}
	}
	if strings.Join(bare, "|") != want {
		t.Errorf("window without kinds = %q\nwant     %q", strings.Join(bare, "|"), want)
	}
	n := 0
	for _, err := range db.Lines(ctx, store.LineFilter{Paths: []string{"b.log"}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1000 {
		t.Errorf("b.log has %d lines stored, want 1000", n)
	}
}

// Every line read carries the kinds of its events, in stored order, where
// events are dense (many blocks of events to a block of lines) and where
// they are sparse (one block of events over many blocks of lines).
func testKindsOnEveryLine(t *testing.T, db store.Backend) {
	defer db.Close()
	const n = 40000
	want := map[string][]forensics.Kind{}
	for _, path := range []string{"a.log", "b.log"} {
		w, src := begin(t, db, path)
		b := w.LineBuffer()
		var evs []forensics.Event
		for i := 1; i <= n; i++ {
			st := forensics.Stamp{Time: base.Add(time.Duration(i) * time.Millisecond), Zone: forensics.ZoneUTC}
			text := fmt.Sprintf("%s line %d", path, i)
			b.Add(&store.NewLine{N: int64(i), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC}, Text: []byte(text)})
			if b.Full() {
				if err := w.AddLines(src.ID, b.Batch()); err != nil {
					t.Fatal(err)
				}
			}
			var kinds []forensics.Kind
			switch {
			case i <= 3000:
				kinds = []forensics.Kind{"test.dense"}
			case i%997 == 0:
				kinds = []forensics.Kind{"test.sparse", "test.second"}
			}
			for _, k := range kinds {
				ev := forensics.Event{Line: int64(i), Kind: k, Node: "n1", Text: text}
				ev.VB, ev.Stamp = forensics.NoVB, st
				evs = append(evs, ev)
			}
			want[text] = kinds
		}
		if !b.Empty() {
			if err := w.AddLines(src.ID, b.Batch()); err != nil {
				t.Fatal(err)
			}
		}
		b.Release()
		if err := w.AddEvents(src.ID, evs); err != nil {
			t.Fatal(err)
		}
		src.Lines, src.Events, src.Plain = n, int64(len(evs)), n-3000-37
		src.First, src.Last = base.Add(time.Millisecond), base.Add(n*time.Millisecond)
		end(t, w, src)
	}
	read, wrong := 0, 0
	for l, err := range db.Lines(context.Background(), store.LineFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		read++
		if w := want[l.Text]; !slices.Equal(l.Kinds, w) {
			t.Errorf("%s: kinds %v, want %v", l.Text, l.Kinds, w)
			if wrong++; wrong == 10 {
				t.FailNow()
			}
		}
	}
	if read != 2*n {
		t.Errorf("read %d lines, want %d", read, 2*n)
	}
}

func testEventsCursor(t *testing.T, db store.Backend) {
	defer db.Close()
	fill(t, db, "b.log", base, 100)
	fill(t, db, "a.log", base, 100) // the same time: a.log comes first
	fill(t, db, "c.log", base.Add(-time.Second), 100)
	ctx := context.Background()
	var evs []*forensics.Event
	for e, err := range db.Events(ctx, store.EventFilter{Query: forensics.Query{VB: ptr(7)}}) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e) // the events are the caller's to keep
	}
	var order []string
	for i, e := range evs {
		order = append(order, e.Path)
		if i > 0 && forensics.Compare(evs[i-1], e) > 0 {
			t.Errorf("event %d comes before event %d in timeline order", i, i-1)
		}
	}
	if fmt.Sprint(order) != "[c.log a.log b.log]" {
		t.Errorf("events in order %v, want [c.log a.log b.log]", order)
	}
	if len(evs) > 0 && (evs[0].Attr("k") != `v "quoted"` || evs[0].VB != 7 || evs[0].Kind != "test.event" || evs[0].Line != 50) {
		t.Errorf("event = %+v", evs[0])
	}
	// A loop that stops early stops the cursor, and the store stays usable.
	for range db.Events(ctx, store.EventFilter{}) {
		break
	}
	n := 0
	for _, err := range db.Events(ctx, store.EventFilter{Query: forensics.Query{Kinds: []forensics.Kind{"test.event"}, Since: base.Add(50 * time.Second)}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d events from %s, want 2", n, base.Add(50*time.Second))
	}
}

func testViews(t *testing.T, db store.Backend, opts Options) {
	defer db.Close()
	run := fill(t, db, "a.log", base, 300)
	saveFinding(t, db, run)
	ro := reader(t, db)
	ctx := context.Background()
	var n []any
	err := ro.QuerySQL(ctx, `SELECT count(*) FROM events WHERE vb = 7`, nil, func(_ []string, vals []any) error { n = append(n, vals...); return nil })
	if err != nil || fmt.Sprint(n) != `[1]` {
		t.Errorf("events view = %v, %v", n, err)
	}
	for _, v := range store.Views {
		if slices.Contains(opts.NoViews, v.Name) {
			continue
		}
		var cols []string
		err := ro.QuerySQL(ctx, "SELECT * FROM "+v.Name+" LIMIT 1", nil, func(c []string, _ []any) error { cols = c; return nil })
		if err != nil {
			t.Errorf("view %s: %v", v.Name, err)
			continue
		}
		var doc []string
		for _, c := range v.Columns {
			doc = append(doc, c.Name)
		}
		// A backend may add columns after the documented ones (a shared
		// store's incident_id), never change or reorder them.
		if len(cols) < len(doc) || strings.Join(cols[:len(doc)], ",") != strings.Join(doc, ",") {
			t.Errorf("view %s has columns %v, documented %v first", v.Name, cols, doc)
		}
	}
	if err := ro.QuerySQL(ctx, `DELETE FROM events`, nil, func([]string, []any) error { return nil }); err == nil {
		t.Error("DELETE succeeded through QuerySQL")
	}
}

// A query runs while a load is writing, and sees only complete sources.
func testQueryWhileWriting(t *testing.T, db store.Backend) {
	defer db.Close()
	fill(t, db, "done.log", base, 50)
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{"loading.log"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	src := &forensics.Source{Path: "loading.log", Format: "test", Component: "test", Key: "loading"}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	b := w.LineBuffer()
	b.Add(&store.NewLine{N: 1, Stamp: forensics.Stamp{Time: base}, Text: []byte("half-loaded line")})
	if err := w.AddLines(src.ID, b.Batch()); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil { // committed, but the source is not complete
		t.Fatal(err)
	}
	b.Add(&store.NewLine{N: 2, Stamp: forensics.Stamp{Time: base}, Text: []byte("line in an open transaction")})
	if err := w.AddLines(src.ID, b.Batch()); err != nil {
		t.Fatal(err)
	}
	b.Release()

	ro := reader(t, db)
	var paths []string
	for l, err := range ro.Lines(ctx, store.LineFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) == 0 || paths[len(paths)-1] != l.Path {
			paths = append(paths, l.Path)
		}
	}
	if fmt.Sprint(paths) != "[done.log]" {
		t.Errorf("query during the load saw %v; want only the complete done.log", paths)
	}
	w.Rollback()
}

// The same content is stored once: a second source with a key already
// complete is refused with ErrLoaded, and Loaded adds the first to the run.
func testLoadedOnce(t *testing.T, db store.Backend) {
	defer db.Close()
	fill(t, db, "a.log", base, 10)
	ctx := context.Background()
	keys, err := db.Keys(ctx)
	if err != nil || !keys["a.log"] {
		t.Fatalf("keys = %v, %v; want a.log", keys, err)
	}
	w, err := db.NewRun(ctx, []string{"again"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	if err := w.BeginSource(&forensics.Source{Path: "copy.log", Key: "a.log"}); !errors.Is(err, store.ErrLoaded) {
		t.Errorf("BeginSource of a stored key: %v, want ErrLoaded", err)
	}
	src, ok, err := w.Loaded("a.log")
	if err != nil || !ok || src.Path != "a.log" || src.Lines != 10 || src.Release != "7.6.4-5146" {
		t.Errorf("Loaded = %+v, %v, %v", src, ok, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	srcs, err := db.Sources(ctx, w.Run())
	if err != nil || len(srcs) != 1 || srcs[0].Path != "a.log" {
		t.Errorf("sources of the second run = %+v, %v", srcs, err)
	}
}

func saveFinding(t *testing.T, db store.Backend, run int64) forensics.Finding {
	t.Helper()
	f := forensics.Finding{Rule: "test-rule", Severity: forensics.High, Title: "a test finding",
		Start: base.Add(50 * time.Second), End: base.Add(51 * time.Second),
		Evidence: []forensics.Evidence{{Path: "a.log", Line: 50, Time: base.Add(50 * time.Second), Text: "a.log line 50"}}}
	f.ID = f.Fingerprint()
	w, err := db.NewRun(context.Background(), []string{"a.log"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Loaded("a.log"); err != nil {
		t.Fatal(err)
	}
	// As an analysis does: the sources are committed before the signature
	// is read, and the findings saved after.
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	sig, err := db.Signature(context.Background(), w.Run(), "rules")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SaveFindings([]forensics.Finding{f}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetSignature(sig); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

func testFindings(t *testing.T, db store.Backend) {
	defer db.Close()
	first := fill(t, db, "a.log", base, 100)
	f := saveFinding(t, db, first)
	ctx := context.Background()
	run, err := db.LatestRun(ctx)
	if err != nil || run == 0 {
		t.Fatalf("latest run %d, %v", run, err)
	}
	fs, err := db.Findings(ctx, 0)
	if err != nil || len(fs) != 1 || fs[0].ID != f.ID || fs[0].Run != run || fs[0].Severity != forensics.High {
		t.Fatalf("findings = %+v, %v", fs, err)
	}
	got, err := db.FindingIn(ctx, 0, f.ID[:4])
	if err != nil || got.ID != f.ID || len(got.Evidence) != 1 {
		t.Errorf("FindingIn(%s) = %+v, %v", f.ID[:4], got, err)
	}
	if _, err := db.FindingIn(ctx, 0, "zzzz"); err == nil {
		t.Error("FindingIn of an unknown id found one")
	}
	// The same content analysed again with the same rules reuses the findings.
	w, err := db.NewRun(ctx, []string{"a.log"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Loaded("a.log"); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	sig, err := db.Signature(ctx, w.Run(), "rules")
	if err != nil {
		t.Fatal(err)
	}
	prior, ok, err := db.PriorFindings(ctx, w.Run(), sig)
	if err != nil || !ok || len(prior) != 1 || prior[0].ID != f.ID {
		t.Errorf("prior findings = %+v, %v, %v", prior, ok, err)
	}
	if _, ok, _ := db.PriorFindings(ctx, w.Run(), sig+"x"); ok {
		t.Error("findings reused under another signature")
	}
	w.Close()
	incs, err := db.Incidents(ctx)
	if err != nil || len(incs) == 0 {
		t.Fatalf("incidents = %+v, %v", incs, err)
	}
	var names []string
	for _, inc := range incs {
		names = append(names, inc.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "incident-a") {
		t.Errorf("incidents %v, want incident-a among them", names)
	}
	all, err := db.AllFindings(ctx)
	if err != nil || len(all) != 1 {
		t.Errorf("all findings = %+v, %v", all, err)
	}
}

// writeLines writes one run of one source with the given lines, the n-th
// logged at times[n] seconds from base.
func writeLines(t *testing.T, db store.Backend, path string, texts []string, secs []float64) {
	t.Helper()
	w, src := begin(t, db, path)
	b := w.LineBuffer()
	defer b.Release()
	for i, text := range texts {
		st := forensics.Stamp{Time: base.Add(time.Duration(secs[i] * float64(time.Second))), Zone: forensics.ZoneUTC}
		b.Add(&store.NewLine{N: int64(i + 1), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC, Backwards: i > 0 && secs[i] < secs[i-1]}, Text: []byte(text)})
		if b.Full() || i%50 == 49 {
			if err := w.AddLines(src.ID, b.Batch()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !b.Empty() {
		if err := w.AddLines(src.ID, b.Batch()); err != nil {
			t.Fatal(err)
		}
	}
	src.Lines, src.Plain = int64(len(texts)), int64(len(texts))
	src.First, src.Last = base, base.Add(time.Hour)
	end(t, w, src)
}

// A search read a page at a time gives the lines one search gives, in the
// same order, whatever the page's size: across sources, with a clock that
// goes back, and in a window.
func testSearchPages(t *testing.T, db store.Backend) {
	defer db.Close()
	for f, path := range []string{"a.log", "b.log", "c.log"} {
		var texts []string
		var secs []float64
		for i := range 400 {
			sec := float64(i) + float64(f)/4
			if f == 2 && i >= 200 && i < 260 {
				sec -= 150 // the clock went back for a while
			}
			word := "quiet"
			if i%3 == f%3 || i%17 == 0 {
				word = "Stream request requires rollback"
			}
			texts = append(texts, fmt.Sprintf("%s %d %s to seqno:%d", path, i, word, i*7))
			secs = append(secs, sec)
		}
		writeLines(t, db, path, texts, secs)
	}
	ctx := context.Background()
	ro := reader(t, db)
	for _, f := range []store.LineFilter{
		{Text: "requires rollback"},
		{Text: "requires rollback", Nodes: []string{"n1"}},
		{Regexp: regexp.MustCompile(`(?i)ROLLBACK to seqno:\d*7$`)},
		{Text: "rollback", Since: base.Add(100 * time.Second), Until: base.Add(300 * time.Second)},
		{Text: "rollback", Since: base.Add(100 * time.Second)},
	} {
		var all []string
		res, err := ro.Search(ctx, store.Search{LineFilter: f}, func(l *store.Line) bool {
			all = append(all, l.Text)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Next != "" || len(all) < 40 || res.Stats.Lines != len(all) {
			t.Fatalf("%+v: %d lines, next %q, stats %+v", f, len(all), res.Next, res.Stats)
		}
		var want []string
		for l, err := range ro.Lines(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, l.Text)
		}
		if !slices.Equal(all, want) {
			t.Fatalf("%+v: Search and Lines differ", f)
		}
		for _, limit := range []int{1, 7, 100} {
			var paged []string
			after := ""
			for pages := 0; ; pages++ {
				if pages > len(all)+1 {
					t.Fatalf("%+v, %d a page: the pages do not end", f, limit)
				}
				n := 0
				res, err := ro.Search(ctx, store.Search{LineFilter: f, After: after, Limit: limit}, func(l *store.Line) bool {
					paged = append(paged, l.Text)
					n++
					return true
				})
				if err != nil {
					t.Fatal(err)
				}
				if n > limit {
					t.Fatalf("%+v: a page of %d lines, limit %d", f, n, limit)
				}
				if res.Next == "" {
					break
				}
				after = res.Next
			}
			if !slices.Equal(paged, all) {
				t.Errorf("%+v, %d a page: %d lines paged, %d searched; first difference at %d", f, limit, len(paged), len(all), firstDiff(paged, all))
			}
		}
	}
	// A rare string: the index of blocks keeps the block that holds it,
	// and few others.
	var found []string
	res, err := ro.Search(ctx, store.Search{LineFilter: store.LineFilter{Text: "c.log 333 "}}, func(l *store.Line) bool {
		found = append(found, l.Text)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !res.Stats.Indexed || res.Stats.Chosen > res.Stats.Blocks/4 || res.Stats.Unindexed > 0 {
		t.Errorf("search for one line: %q, stats %+v; want the line, from the index", found, res.Stats)
	}
	if _, err := ro.Search(ctx, store.Search{LineFilter: store.LineFilter{Text: "x"}, After: "%%"}, func(*store.Line) bool { return true }); !errors.Is(err, store.ErrBadMark) {
		t.Errorf("a search after a place no search gave: %v, want ErrBadMark", err)
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A timeline without the index of blocks searches by reading every block;
// Reindex indexes them all, after which the same searches give the same
// lines from the blocks the index keeps; a second Reindex has nothing to do.
func testReindex(t *testing.T, db store.Backend, opts Options) {
	defer db.Close()
	for f, path := range []string{"a.log", "b.log"} {
		var texts []string
		var secs []float64
		for i := range 600 {
			texts = append(texts, fmt.Sprintf("%s %d vb:%d seqno:%d uuid:%08x", path, i, i%1024, i*7, uint32(i*2654435761+f)))
			secs = append(secs, float64(i))
		}
		writeLines(t, db, path, texts, secs)
	}
	ctx := context.Background()
	search := func(f store.LineFilter) ([]string, store.SearchStats) {
		t.Helper()
		ro := reader(t, db)
		var out []string
		res, err := ro.Search(ctx, store.Search{LineFilter: f}, func(l *store.Line) bool {
			out = append(out, fmt.Sprintf("%s:%d %s", l.Path, l.N, l.Text))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return out, res.Stats
	}
	filters := []store.LineFilter{
		{Text: "b.log 333 "},
		{Text: "UUID:000", Fold: true},
		{Regexp: regexp.MustCompile(`seqno:\d+1 uuid`)},
	}
	var before [][]string
	for _, f := range filters {
		lines, st := search(f)
		if !st.Indexed || st.Unindexed != 0 {
			t.Fatalf("%+v on a timeline written with the index: %+v", f, st)
		}
		before = append(before, lines)
	}
	opts.Unindex(t, db)
	for i, f := range filters {
		lines, st := search(f)
		if !slices.Equal(lines, before[i]) || st.Unindexed != st.Blocks || st.Chosen != st.Blocks {
			t.Errorf("%+v without the index: %d lines (want %d), %+v", f, len(lines), len(before[i]), st)
		}
	}
	done, err := db.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if done.Blocks == 0 || done.Blocks != done.Total || done.Bytes == 0 || done.Skipped != 0 {
		t.Errorf("reindex: %+v", done)
	}
	for i, f := range filters {
		lines, st := search(f)
		if !slices.Equal(lines, before[i]) || !st.Indexed || st.Unindexed != 0 {
			t.Errorf("%+v after reindex: %d lines (want %d), %+v", f, len(lines), len(before[i]), st)
		}
		if i == 0 && (len(lines) != 1 || st.Chosen > st.Blocks/4) {
			t.Errorf("%+v after reindex: the index kept %d of %d blocks for one line", f, st.Chosen, st.Blocks)
		}
	}
	if again, err := db.Reindex(ctx); err != nil || again.Blocks != 0 || again.Total != done.Total {
		t.Errorf("reindex again: %+v, %v", again, err)
	}
}
