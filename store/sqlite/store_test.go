package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/storetest"
)

// newRun opens a new timeline, closed when the test ends, and starts a run.
func newRun(t *testing.T) (*DB, store.Writer) {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w, err := db.NewRun(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return db, w
}

// fill writes one source with n lines one second apart starting at base.
func fill(t *testing.T, db *DB, path string, base time.Time, n int) {
	t.Helper()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	src := &forensics.Source{Path: path, Node: "n1", Format: "test", Component: "test", Key: path}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	b := w.LineBuffer()
	defer b.Release()
	for i := 1; i <= n; i++ {
		st := forensics.Stamp{Time: base.Add(time.Duration(i) * time.Second), Zone: forensics.ZoneUTC}
		b.Add(&store.NewLine{N: int64(i), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC}, Text: fmt.Appendf(nil, "%s line %d", path, i)})
		if b.Full() || i%100 == 0 {
			if err := w.AddLines(src.ID, b.Batch()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !b.Empty() {
		w.AddLines(src.ID, b.Batch())
	}
	ev := forensics.Event{Line: 50, Kind: "test.event", Node: "n1", Text: path + " line 50"}
	ev.VB = 7
	ev.Stamp = forensics.Stamp{Time: base.Add(50 * time.Second), Zone: forensics.ZoneUTC}
	ev.Set("k", "v \"quoted\"")
	if err := w.AddEvents(src.ID, []forensics.Event{ev}); err != nil {
		t.Fatal(err)
	}
	src.Lines = int64(n)
	src.Release = "7.6.4-5146"
	if err := w.EndSource(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSuite runs the behaviour every backend must have against SQLite.
func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Backend {
		db, err := Open(filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		return db
	}, storetest.Options{Unindex: func(t *testing.T, b store.Backend) {
		for _, q := range []string{`DELETE FROM main.block_grams`, `DELETE FROM main.gram_parts`, `DELETE FROM main.gram_segments`} {
			if _, err := b.(*DB).sql.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}})
}

// The views in SQLite's own SQL: lines decoded from their blocks with their
// time and zone, and an event's attributes as JSON.
func TestViewsInSQL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{"a.log"})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	src := &forensics.Source{Path: "a.log", Node: "n1", Format: "test", Component: "test", Key: "a.log"}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	b := w.LineBuffer()
	for i := 1; i <= 300; i++ {
		st := forensics.Stamp{Time: base.Add(time.Duration(i) * time.Second), Zone: forensics.ZoneUTC}
		b.Add(&store.NewLine{N: int64(i), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC}, Text: fmt.Appendf(nil, "a.log line %d", i)})
	}
	if err := w.AddLines(src.ID, b.Batch()); err != nil {
		t.Fatal(err)
	}
	b.Release()
	ev := forensics.Event{Line: 50, Kind: "test.event", Node: "n1", Text: "a.log line 50"}
	ev.VB = 7
	ev.Stamp = forensics.Stamp{Time: base.Add(50 * time.Second), Zone: forensics.ZoneUTC}
	ev.Set("k", "v \"quoted\"")
	if err := w.AddEvents(src.ID, []forensics.Event{ev}); err != nil {
		t.Fatal(err)
	}
	src.Lines, src.Events, src.Plain = 300, 1, 299
	if err := w.EndSource(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var got [][]any
	err = ro.QuerySQL(ctx, `SELECT line, time, text, zone FROM lines WHERE t >= ? ORDER BY line LIMIT 2`,
		[]any{time.Date(2022, 7, 22, 0, 4, 59, 0, time.UTC).UnixNano()},
		func(cols []string, vals []any) error { got = append(got, append([]any(nil), vals...)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[[299 2022-07-22T00:04:59.000000000Z a.log line 299 utc] [300 2022-07-22T00:05:00.000000000Z a.log line 300 utc]]" {
		t.Errorf("lines view = %v", got)
	}
	var n []any
	err = ro.QuerySQL(ctx, `SELECT count(*), min(json_extract(attrs, '$.k')) FROM events WHERE vb = 7`, nil, func(_ []string, vals []any) error { n = append(n, vals...); return nil })
	if err != nil || fmt.Sprint(n) != `[1 v "quoted"]` {
		t.Errorf("events view = %v, %v", n, err)
	}
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, db, "a.log", time.Unix(0, 0), 10)
	db.Close()

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, q := range []string{
		`DELETE FROM events`,
		`INSERT INTO meta(key, value) VALUES ('x', 'y')`,
		`DROP TABLE blocks`,
		`ATTACH DATABASE '` + filepath.Join(t.TempDir(), "other.db") + `' AS other`,
		`PRAGMA journal_mode = DELETE`,
	} {
		if _, err := ro.sql.Exec(q); err == nil {
			t.Errorf("%s: succeeded on a read-only timeline", q)
		}
	}
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "none.db")); err == nil || !strings.Contains(err.Error(), "analyze first") {
		t.Errorf("opening a missing timeline: %v", err)
	}
}

// A full disk stops the load with a message that says so, and leaves the
// timeline readable with every source completed before it.
func TestFullDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	fill(t, db, "before.log", base, 100)
	// The writer's one connection may grow the file by only a few pages more.
	var pages int64
	db.sql.QueryRow(`PRAGMA page_count`).Scan(&pages)
	if _, err := db.sql.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+4)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{"big.log"})
	if err != nil {
		t.Fatal(err)
	}
	src := &forensics.Source{Path: "big.log", Format: "test", Component: "test", Key: "big"}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	b := w.LineBuffer()
	defer b.Release()
	var werr error
	for i := int64(1); i < 200000 && werr == nil; i++ {
		b.Add(&store.NewLine{N: i, Stamp: forensics.Stamp{Time: base.Add(time.Duration(i))}, Text: fmt.Appendf(nil, "line %d %x", i, i*7919)})
		if b.Full() {
			werr = w.AddLines(src.ID, b.Batch())
		}
	}
	if werr == nil {
		werr = w.Commit()
	}
	if werr == nil || !strings.Contains(werr.Error(), "the disk is full") {
		t.Fatalf("error = %v, want one saying the disk is full", werr)
	}
	w.Rollback()
	db.Close()

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var check string
	ro.sql.QueryRow(`PRAGMA integrity_check`).Scan(&check)
	if check != "ok" {
		t.Errorf("integrity_check = %q", check)
	}
	srcs, err := ro.Sources(ctx, 0)
	if err != nil || len(srcs) != 1 || srcs[0].Path != "before.log" {
		t.Errorf("sources after the failed load = %+v, %v; want only before.log", srcs, err)
	}
}

func TestAttrsRoundTrip(t *testing.T) {
	for _, attrs := range [][]forensics.Attr{
		nil,
		{{Key: "consumer", Value: "secidx:proj-test3-MAINT_STREAM_TOPIC_0765/1"}, {Key: "rollback_seqno", Value: "4109"}},
		{{Key: "reason", Value: `consumer ahead of producer - "quoted" \\ back`}, {Key: "empty", Value: ""}, {Key: "uni", Value: "héllo ‹x›"}},
		{{Key: "ctl", Value: "tab\there\nnewline\x01"}, {Key: "k", Value: "v"}},
	} {
		var b strings.Builder
		store.AppendAttrsJSON(&b, attrs)
		got, err := store.ParseAttrsJSON(b.String())
		if err != nil || fmt.Sprint(got) != fmt.Sprint(attrs) {
			t.Errorf("store.ParseAttrsJSON(%s) = %v, %v; want %v", b.String(), got, err, attrs)
		}
	}
}

// TestRelease checks that a source's release is kept, and that a timeline
// written before sources had a release column still opens: read-only it
// reads "" for it, read-write it gains the column.
func TestRelease(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, db, "a.log", time.Unix(0, 0), 10)
	srcs, err := db.Sources(ctx, 0)
	if err != nil || len(srcs) != 1 || srcs[0].Release != "7.6.4-5146" {
		t.Fatalf("sources = %+v, %v; want release 7.6.4-5146", srcs, err)
	}
	// A timeline of the first schema: no release column.
	if _, err := db.sql.Exec(`ALTER TABLE main.sources DROP COLUMN release`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err = ro.Sources(ctx, 0)
	if err != nil || len(srcs) != 1 || srcs[0].Release != "" || srcs[0].Path != "a.log" {
		t.Errorf("old timeline, read-only: sources = %+v, %v", srcs, err)
	}
	var rel []any
	if err := ro.QuerySQL(ctx, `SELECT path, release FROM sources`, nil, func(_ []string, vals []any) error { rel = append(rel, vals...); return nil }); err != nil {
		t.Errorf("old timeline: sources view: %v", err)
	}
	if fmt.Sprint(rel) != "[a.log ]" {
		t.Errorf("old timeline: sources view = %v", rel)
	}
	ro.Close()

	db, err = Open(path)
	if err != nil {
		t.Fatalf("old timeline, read-write: %v", err)
	}
	defer db.Close()
	fill(t, db, "b.log", time.Unix(100, 0), 10)
	srcs, err = db.Sources(ctx, 0)
	if err != nil || len(srcs) != 2 || srcs[0].Release != "" || srcs[1].Release != "7.6.4-5146" {
		t.Errorf("old timeline after a new load: sources = %+v, %v", srcs, err)
	}
}

// A run interrupted as its transaction begins can be rolled back, and the
// timeline takes the next run.
func TestRollbackAfterCancel(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := db.NewRun(ctx, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := w.BeginSource(&forensics.Source{Path: "x.log", Key: "x"}); err == nil {
		t.Error("BeginSource after the run was cancelled succeeded")
	}
	w.Rollback()
	w.Rollback()
	fill(t, db, "a.log", time.Unix(0, 0), 10)
	if srcs, err := db.Sources(context.Background(), 0); err != nil || len(srcs) != 1 {
		t.Errorf("sources after the cancelled run = %+v, %v", srcs, err)
	}
}

// TestLineQueriesReadOnlyTheIndex checks that choosing the blocks of a line
// query reads only an index of blocks, whichever way in SQLite takes (the
// time index, or a source of the run): a table row brings its blob, and a
// window query on a 10 GiB timeline read gigabytes of blocks it did not use.
func TestLineQueriesReadOnlyTheIndex(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	fill(t, db, "a/memcached.log", base, 500)
	fill(t, db, "b/diag.log", base, 20)
	since, until := base.Add(100*time.Second), base.Add(110*time.Second)
	for name, f := range map[string]store.LineFilter{
		"window":             {Since: since, Until: until},
		"window of a run":    {Since: since, Until: until, Run: 1},
		"since, of a node":   {Since: since, Nodes: []string{"n1"}},
		"until, of a source": {Until: until, Paths: []string{"diag"}},
		"every line":         {},
	} {
		q, args := candidateQuery(f, int64(time.Hour), true)
		rows, err := db.sql.Query("EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var step string
			if err := rows.Scan(&id, &parent, &unused, &step); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, step)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		for _, step := range plan {
			if strings.Contains(step, " b ") && !strings.Contains(step, "COVERING INDEX") {
				t.Errorf("%s: SQLite reads the rows of blocks: %s (plan %q)", name, step, plan)
			}
		}
	}
}

// TestOlderIndexesRebuilt checks that a timeline whose indexes of blocks
// hold only t_min, as earlier releases wrote them, gets the indexes of
// schema.sql at its first writing open, and keeps its lines; a read-only
// open changes nothing.
func TestOlderIndexesRebuilt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	fill(t, db, "a/memcached.log", base, 300)
	db.Close()
	raw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP INDEX blocks_t`, `CREATE INDEX blocks_t ON blocks(t_min)`,
		`DROP INDEX event_blocks_source`, `CREATE INDEX event_blocks_source ON event_blocks(source_id, min_line)`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	indexes := func(db *DB) map[string]string {
		t.Helper()
		rows, err := db.sql.Query(`SELECT name, sql FROM main.sqlite_master WHERE type = 'index' AND name IN ('blocks_t', 'event_blocks_source')`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				t.Fatal(err)
			}
			_, out[name], _ = strings.Cut(def, " ON ")
		}
		return out
	}
	lines := func(db store.Reader) int {
		t.Helper()
		n := 0
		for _, err := range db.Lines(context.Background(), store.LineFilter{Since: base.Add(100 * time.Second), Until: base.Add(110 * time.Second)}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := indexes(ro)["blocks_t"]; got != "blocks(t_min)" {
		t.Errorf("a read-only open changed blocks_t to %s", got)
	}
	if n := lines(ro); n != 10 {
		t.Errorf("the old index gives %d lines of the window, want 10", n)
	}
	ro.Close()

	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string]string{"blocks_t": "blocks(t_min, t_max, source_id, first_line)", "event_blocks_source": "event_blocks(source_id, min_line, max_line)"}
	if got := indexes(db); !maps.Equal(got, want) {
		t.Errorf("indexes after a writing open: %v, want %v", got, want)
	}
	if n := lines(db); n != 10 {
		t.Errorf("the rebuilt index gives %d lines of the window, want 10", n)
	}
}

// TestSearchAcrossSources checks that a search (text or regular expression)
// over many blocks of several sources, or of one, decoded on several
// goroutines,
// gives the lines that match in the order of the whole timeline filtered,
// and that a loop that stops early leaves no goroutine behind.
func TestSearchAcrossSources(t *testing.T) {
	ctx := context.Background()
	db, w := newRun(t)
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	for s := range 5 {
		path := fmt.Sprintf("n%d/memcached.log", s)
		const n = 4000 // about four blocks a source
		writeSource(t, w, path, fmt.Sprintf("n%d", s), n, func(i int) (time.Time, string) {
			d := time.Duration(i*(7+s)) * time.Millisecond
			if s == 2 && i > n/2 {
				d -= 10 * time.Second // the clock goes back: the file's order stays
			}
			text := fmt.Sprintf("%s INFO (default) DCP (Producer) eq_dcpq:replication - (vb:%d) Creating stream %d of %s", base.Add(d).Format(time.RFC3339Nano), i%1024, i, path)
			if i%(300+50*s) == 0 {
				text += " Stream request requires rollback"
			}
			// n2's line 3050 (17.45 s) is placed at 18 s, the time of its
			// line 2000 three blocks back, after n0's line 2540 (17.78 s).
			if s == 2 && i == 3050 || s == 0 && i == 2540 {
				text += " janitor marker"
			}
			return base.Add(d), text
		})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var blocks int
	if err := db.sql.QueryRow(`SELECT count(*) FROM main.blocks`).Scan(&blocks); err != nil || blocks < 15 {
		t.Fatalf("%d blocks (%v), want several a source", blocks, err)
	}
	read := func(f store.LineFilter, most int) []string {
		t.Helper()
		var out []string
		for l, err := range db.Lines(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			if out = append(out, fmt.Sprintf("%s:%d", l.Path, l.N)); len(out) == most {
				break
			}
		}
		return out
	}
	var all []store.Line
	for l, err := range db.Lines(ctx, store.LineFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, *l)
	}
	for name, tc := range map[string]struct {
		f     store.LineFilter
		match func(string) bool
	}{
		"text":    {store.LineFilter{Text: "requires rollback"}, func(s string) bool { return strings.Contains(s, "requires rollback") }},
		"regexp":  {store.LineFilter{Regexp: regexp.MustCompile(`stream 1[0-9]{3} of n[13]`)}, regexp.MustCompile(`stream 1[0-9]{3} of n[13]`).MatchString},
		"nothing": {store.LineFilter{Text: "no such text"}, func(string) bool { return false }},
		// A block's place starts from the blocks before it that the index
		// ruled out.
		"after the clock went back": {store.LineFilter{Text: "janitor marker"}, func(s string) bool { return strings.Contains(s, "janitor marker") }},
		// One source's blocks, decoded side by side, in its file's order.
		"one source": {store.LineFilter{Text: "Creating stream", Paths: []string{"n2/memcached.log"}}, func(s string) bool {
			return strings.Contains(s, "Creating stream") && strings.Contains(s, " of n2/")
		}},
	} {
		var want []string
		for _, l := range all {
			if tc.match(l.Text) {
				want = append(want, fmt.Sprintf("%s:%d", l.Path, l.N))
			}
		}
		if got := read(tc.f, 0); !slices.Equal(got, want) {
			t.Errorf("%s: %d lines, want %d in timeline order; first difference at %d", name, len(got), len(want), firstDiff(got, want))
		}
	}
	before := runtime.NumGoroutine()
	if got := read(store.LineFilter{Text: "requires rollback"}, 3); len(got) != 3 {
		t.Fatalf("stopped after %d lines, want 3", len(got))
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after a search stopped early, %d before", after, before)
	}
}

// TestSearchFirstPage checks that the first page of a search waits only
// for the lines before its matches: a source with no match is read up to
// the time of the page's last line, not to its end.
func TestSearchFirstPage(t *testing.T) {
	ctx := context.Background()
	db, w := newRun(t)
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	pad := strings.Repeat("memcached noise ", 60)
	for _, src := range []struct {
		path  string
		lines int
	}{{"a/memcached.log", 6000}, {"b/diag.log", 100}} {
		writeSource(t, w, src.path, "n1", src.lines, func(i int) (time.Time, string) {
			text := fmt.Sprintf("%s line %d %s", src.path, i, pad)
			if src.path == "b/diag.log" && i == 10 {
				text += " x123y"
			}
			return base.Add(time.Duration(i) * time.Second), text
		})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// No string of 4 bytes: the index rules out no block.
	f := store.LineFilter{Regexp: regexp.MustCompile(`x[0-9]{3}y`)}
	var got []string
	res, err := db.Search(ctx, store.Search{LineFilter: f, Limit: 1}, func(l *store.Line) bool {
		got = append(got, fmt.Sprintf("%s:%d", l.Path, l.N))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "b/diag.log:10" {
		t.Fatalf("first page %v, want b/diag.log:10", got)
	}
	if res.Stats.Blocks < 30 || res.Stats.Read > res.Stats.Blocks/3 {
		t.Errorf("the first page read %d of %d blocks, want a few: those before its line and the read-ahead's", res.Stats.Read, res.Stats.Blocks)
	}
}

// writeSource writes a source of n lines to w's run: line i is logged at
// the time line(i) gives, with its text.
func writeSource(t *testing.T, w store.Writer, path, node string, n int, line func(i int) (time.Time, string)) {
	t.Helper()
	src := &forensics.Source{Path: path, Node: node, Format: "test", Component: "test", Key: path}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	b := w.LineBuffer()
	defer b.Release()
	for i := 1; i <= n; i++ {
		at, text := line(i)
		b.Add(&store.NewLine{N: int64(i), Stamp: forensics.Stamp{Time: at, Zone: forensics.ZoneUTC}, Flags: store.LineFlags{Zone: forensics.ZoneUTC}, Text: []byte(text)})
		if b.Full() {
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
	src.Lines = int64(n)
	if err := w.EndSource(src); err != nil {
		t.Fatal(err)
	}
}
