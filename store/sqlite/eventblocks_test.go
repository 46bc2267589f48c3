package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"forensics"
	"forensics/store"
)

// TestEventBlocksMerge checks that events kept in many blocks of several
// sources, with clocks that go back inside a block and across blocks,
// entries emitted late and blocks that overlap in time, come back in
// timeline order (time, path, line, the order stored), through every
// filter the blocks are chosen by: kinds, a window, and a limit.
func TestEventBlocksMerge(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.schema < 3 {
		t.Fatalf("a new timeline has schema %d", db.schema)
	}
	w, err := db.NewRun(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	type key struct {
		t    int64
		path string
		line int64
		seq  int
		kind forensics.Kind
	}
	var all []key
	kinds := []forensics.Kind{"a.one", "a.two", "b.three"}
	for s, path := range []string{"b.log", "a.log", "c.log"} {
		src := &forensics.Source{Path: path, Node: "n1", Format: "test", Component: "test", Key: path}
		if err := w.BeginSource(src); err != nil {
			t.Fatal(err)
		}
		var evs []forensics.Event
		n := 1300 + 400*s // three or four blocks each
		for i := range n {
			line := int64(i + 1)
			if i%50 == 49 {
				line -= 30 // an entry emitted late
			}
			// Times advance by source in steps that interleave, go back every
			// so often, and repeat, so that ties need the path and line.
			d := time.Duration(i*(3+s)) * time.Millisecond
			if i%17 == 0 {
				d -= 400 * time.Millisecond
			}
			if i%5 == 0 && i > 0 {
				d = time.Duration((i-1)*(3+s)) * time.Millisecond
			}
			e := forensics.Event{Stamp: forensics.Stamp{Time: base.Add(d), Zone: forensics.ZoneUTC}, Node: "n1", Line: line,
				Kind: kinds[i%len(kinds)], Subject: forensics.Subject{VB: i % 4}, Text: fmt.Sprintf("%s %d", path, i)}
			evs = append(evs, e)
			all = append(all, key{e.Time.UnixNano(), path, line, len(all), e.Kind})
		}
		// In batches of an odd size, as a parser's flushes come.
		for len(evs) > 0 {
			k := min(len(evs), 700)
			if err := w.AddEvents(src.ID, evs[:k]); err != nil {
				t.Fatal(err)
			}
			evs = evs[k:]
		}
		src.Lines, src.Events = int64(n), int64(n)
		if err := w.EndSource(src); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	var blocks int
	if err := db.sql.QueryRow(`SELECT count(*) FROM main.event_blocks`).Scan(&blocks); err != nil {
		t.Fatal(err)
	}
	if blocks < 9 {
		t.Fatalf("%d blocks of events, want several a source", blocks)
	}
	slices.SortStableFunc(all, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.seq, b.seq))
	})
	wantOf := func(keep func(i int, k key) bool) []string {
		var out []string
		for i, k := range all {
			if keep(i, k) {
				out = append(out, fmt.Sprintf("%d %s:%d", k.t, k.path, k.line))
			}
		}
		return out
	}
	got := func(f store.EventFilter) []string {
		var out []string
		for e, err := range db.Events(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d %s:%d", e.Time.UnixNano(), e.Path, e.Line))
		}
		return out
	}
	check := func(name string, f store.EventFilter, want []string) {
		t.Helper()
		if len(want) == 0 {
			t.Fatalf("%s: the test selects no events", name)
		}
		g := got(f)
		if len(g) != len(want) {
			t.Errorf("%s: %d events, want %d", name, len(g), len(want))
			return
		}
		for i := range g {
			if g[i] != want[i] {
				t.Errorf("%s: event %d is %s, want %s", name, i, g[i], want[i])
				return
			}
		}
	}
	check("all", store.EventFilter{}, wantOf(func(int, key) bool { return true }))

	since, until := base.Add(2*time.Second), base.Add(3*time.Second)
	check("window", store.EventFilter{Query: forensics.Query{Since: since, Until: until}}, wantOf(func(_ int, k key) bool {
		return k.t >= since.UnixNano() && k.t < until.UnixNano()
	}))
	full := wantOf(func(int, key) bool { return true })
	check("limit and offset", store.EventFilter{Limit: 25, Offset: 1000}, full[1000:1025])

	check("kind in a window", store.EventFilter{Query: forensics.Query{Kinds: []forensics.Kind{"a.two"}, Since: since, Until: until}},
		wantOf(func(_ int, k key) bool { return k.kind == "a.two" && k.t >= since.UnixNano() && k.t < until.UnixNano() }))
}

// TestLateEventsStoredApart checks that events emitted long after their
// time (memcached's unnamed DCP producers) go to blocks of their own, so
// that no block spans the lag, and that the timeline still gives every
// event back in timeline order, ties in the order they were stored.
func TestLateEventsStoredApart(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	lag := 40 * time.Minute
	for _, tc := range []struct {
		name string
		late func(i int) bool
	}{
		{"every tenth event late", func(i int) bool { return i%10 == 9 }},
		{"late events in a run", func(i int) bool { return i >= 300 && i < 340 }},
		{"in time", func(int) bool { return false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, w := newRun(t)
			src := &forensics.Source{Path: "memcached.log", Node: "n1", Format: "test", Component: "test", Key: "k"}
			if err := w.BeginSource(src); err != nil {
				t.Fatal(err)
			}
			const n = 1200 // a second apart: 20 minutes of events, in batches of 400
			var evs []forensics.Event
			var want []string
			for i := range n {
				at := base.Add(lag + time.Duration(i)*time.Second)
				line := int64(i + 1)
				if tc.late(i) {
					at, line = at.Add(-lag), int64(i/2+1) // logged that long before, on an earlier line
				}
				// Two events on some lines, to check that ties keep their order.
				for j := range 1 + i%7/6 {
					evs = append(evs, forensics.Event{Stamp: forensics.Stamp{Time: at, Zone: forensics.ZoneUTC}, Node: "n1",
						Line: line, Kind: "t.ev", Text: fmt.Sprintf("%d.%d", i, j)})
				}
			}
			for _, e := range evs {
				want = append(want, fmt.Sprintf("%d:%d %s", e.Time.Unix(), e.Line, e.Text))
			}
			slices.SortStableFunc(want, func(a, b string) int {
				var ta, la, tb, lb int64
				fmt.Sscanf(a, "%d:%d", &ta, &la)
				fmt.Sscanf(b, "%d:%d", &tb, &lb)
				return cmp.Or(cmp.Compare(ta, tb), cmp.Compare(la, lb))
			})
			for b := evs; len(b) > 0; b = b[min(len(b), 400):] {
				if err := w.AddEvents(src.ID, b[:min(len(b), 400)]); err != nil {
					t.Fatal(err)
				}
			}
			src.Lines, src.Events = n, int64(len(evs))
			if err := w.EndSource(src); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			var span int64
			if err := db.sql.QueryRow(`SELECT max(t_max - t_min) FROM main.event_blocks`).Scan(&span); err != nil {
				t.Fatal(err)
			}
			// A batch of 400 spans 400 s in time; with its late events, it would span the lag.
			if most := 400*time.Second + time.Minute; time.Duration(span) > most {
				t.Errorf("a block spans %v, want at most %v", time.Duration(span), most)
			}
			var got []string
			for e, err := range db.Events(ctx, store.EventFilter{}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%d:%d %s", e.Time.Unix(), e.Line, e.Text))
			}
			if !slices.Equal(got, want) {
				t.Errorf("read back %d events, want %d in timeline order; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
		})
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
