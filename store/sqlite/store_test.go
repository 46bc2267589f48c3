package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forensics"
)

func TestBlockRoundTrip(t *testing.T) {
	b := NewBlockBuilder()
	defer b.Release()
	base := time.Date(2022, 7, 22, 0, 39, 12, 0, time.UTC).UnixNano()
	type rec struct {
		n     int64
		t     int64
		off   int32
		flags LineFlags
		text  string
	}
	recs := []rec{
		{1, base, -7 * 3600, LineFlags{Zone: forensics.ZoneLogged}, "first"},
		{2, base, 0, LineFlags{Zone: forensics.ZoneInherited}, ""},
		{3, base - 5e6, 0, LineFlags{Zone: forensics.ZoneUTC, Backwards: true, CR: true}, "back\x00\xff"},
		{4, base + 1e9, 0, LineFlags{Zone: forensics.ZoneUTC, Cut: true}, "piece one"},
		{4, base + 1e9, 0, LineFlags{Zone: forensics.ZoneUTC, Error: true}, "piece two"},
		{5, base + 2e9, 19800, LineFlags{Zone: forensics.ZoneLogged}, "last"},
	}
	for _, r := range recs {
		b.Add(r.n, r.t, r.off, r.flags, []byte(r.text))
	}
	blk := b.Finish()
	if blk.FirstLine != 1 || blk.Lines != 6 || blk.TMin != base-5e6 || blk.TMax != base+2e9 {
		t.Fatalf("block header = %+v", blk)
	}
	var got []rec
	_, err := decodeBlock(blk.FirstLine, blk.Data, nil, func(l *StoredLine) error {
		got = append(got, rec{l.N, l.Time, l.Offset, l.Flags, string(l.Text)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(recs) {
		t.Errorf("decoded\n%v\nwant\n%v", got, recs)
	}
	if _, err := decodeBlock(1, blk.Data[:len(blk.Data)/2], nil, func(*StoredLine) error { return nil }); err == nil {
		t.Error("a truncated block decoded without error")
	}
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
	b := NewBlockBuilder()
	defer b.Release()
	for i := 1; i <= n; i++ {
		b.Add(int64(i), base.Add(time.Duration(i)*time.Second).UnixNano(), 0, LineFlags{Zone: forensics.ZoneUTC}, []byte(fmt.Sprintf("%s line %d", path, i)))
		if b.Full() || i%100 == 0 {
			if err := w.AddBlock(src.ID, b.Finish()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !b.Empty() {
		w.AddBlock(src.ID, b.Finish())
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

func TestLinesMergeAcrossSources(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	fill(t, db, "a.log", base, 1000)
	fill(t, db, "b.log", base.Add(500*time.Millisecond), 1000)

	ctx := context.Background()
	var got []string
	var kinds []forensics.Kind
	err = db.Lines(ctx, LineFilter{Since: base.Add(49 * time.Second), Until: base.Add(52 * time.Second)}, func(l *Line) error {
		got = append(got, l.Text)
		kinds = append(kinds, l.Kinds...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "a.log line 49|b.log line 49|a.log line 50|b.log line 50|a.log line 51|b.log line 51"
	if strings.Join(got, "|") != want {
		t.Errorf("window = %q\nwant     %q", strings.Join(got, "|"), want)
	}
	if len(kinds) != 2 || kinds[0] != "test.event" {
		t.Errorf("kinds on the window's lines = %v, want test.event twice", kinds)
	}

	var evs []forensics.Event
	db.Events(ctx, EventFilter{Query: forensics.Query{VB: ptr(7)}}, func(e *forensics.Event) error { evs = append(evs, *e); return nil })
	if len(evs) != 2 || evs[0].Attr("k") != `v "quoted"` || evs[0].VB != 7 || evs[0].Source != "a.log" {
		t.Errorf("events = %+v", evs)
	}
}

func ptr[T any](v T) *T { return &v }

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

func TestViews(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, db, "a.log", time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC), 300)
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ctx := context.Background()
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
	ro.QuerySQL(ctx, `SELECT count(*), min(json_extract(attrs, '$.k')) FROM events WHERE vb = 7`, nil, func(_ []string, vals []any) error { n = append(n, vals...); return nil })
	if fmt.Sprint(n) != `[1 v "quoted"]` {
		t.Errorf("events view = %v", n)
	}
	for _, v := range Views {
		cols := map[string]bool{}
		if err := ro.QuerySQL(ctx, "SELECT * FROM "+v.Name+" LIMIT 0", nil, nil); err != nil {
			t.Errorf("view %s: %v", v.Name, err)
		}
		ro.QuerySQL(ctx, "SELECT name FROM pragma_table_info('"+v.Name+"')", nil, func(_ []string, vals []any) error {
			cols[fmt.Sprint(vals[0])] = true
			return nil
		})
		for _, c := range v.Columns {
			if !cols[c.Name] {
				t.Errorf("view %s has no column %s, but it is documented", v.Name, c.Name)
			}
		}
		if len(cols) != len(v.Columns) {
			t.Errorf("view %s has %d columns, %d documented", v.Name, len(cols), len(v.Columns))
		}
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
	b := NewBlockBuilder()
	defer b.Release()
	var werr error
	for i := int64(1); i < 200000 && werr == nil; i++ {
		b.Add(i, base.UnixNano()+i, 0, LineFlags{}, []byte(fmt.Sprintf("line %d %x", i, i*7919)))
		if b.Full() {
			werr = w.AddBlock(src.ID, b.Finish())
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

// A query runs while a load is writing, and sees only complete sources.
func TestQueryWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	fill(t, db, "done.log", base, 50)
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{"loading.log"})
	if err != nil {
		t.Fatal(err)
	}
	src := &forensics.Source{Path: "loading.log", Format: "test", Component: "test", Key: "loading"}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	b := NewBlockBuilder()
	b.Add(1, base.UnixNano(), 0, LineFlags{}, []byte("half-loaded line"))
	if err := w.AddBlock(src.ID, b.Finish()); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil { // committed, but the source is not complete
		t.Fatal(err)
	}
	b.Add(2, base.UnixNano(), 0, LineFlags{}, []byte("line in an open transaction"))
	if err := w.AddBlock(src.ID, b.Finish()); err != nil {
		t.Fatal(err)
	}
	b.Release()

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var paths []string
	err = ro.Lines(ctx, LineFilter{}, func(l *Line) error {
		if len(paths) == 0 || paths[len(paths)-1] != l.Source {
			paths = append(paths, l.Source)
		}
		return nil
	})
	if err != nil || fmt.Sprint(paths) != "[done.log]" {
		t.Errorf("query during the load saw %v (%v); want only the complete done.log", paths, err)
	}
	w.Rollback()
}

func TestAttrsRoundTrip(t *testing.T) {
	for _, attrs := range [][]forensics.Attr{
		nil,
		{{Key: "consumer", Value: "secidx:proj-test3-MAINT_STREAM_TOPIC_0765/1"}, {Key: "rollback_seqno", Value: "4109"}},
		{{Key: "reason", Value: `consumer ahead of producer - "quoted" \\ back`}, {Key: "empty", Value: ""}, {Key: "uni", Value: "héllo ‹x›"}},
		{{Key: "ctl", Value: "tab\there\nnewline\x01"}, {Key: "k", Value: "v"}},
	} {
		var b strings.Builder
		encodeAttrs(&b, attrs)
		got, err := decodeAttrs(b.String())
		if err != nil || fmt.Sprint(got) != fmt.Sprint(attrs) {
			t.Errorf("decodeAttrs(%s) = %v, %v; want %v", b.String(), got, err, attrs)
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
