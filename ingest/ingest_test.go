package ingest

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/logtime"
	"forensics/store"
	"forensics/store/sqlite"
)

// testFormat reads lines that start with an RFC 3339 time; a line holding
// "EVENT" is an event. It stands in for the real parsers, which have their
// own tests.
var testFormat = forensics.Format{
	Name:      "test",
	Component: "test",
	Detect: func(name string, head []byte) int {
		if strings.HasSuffix(name, ".log") && !bytes.Contains(head, []byte{0}) {
			return 10
		}
		return 0
	},
	New:   func(forensics.Origin) forensics.Parser { return &testParser{} },
	Kinds: []forensics.KindDoc{{Kind: "test.event", Doc: "a test event"}},
}

type testParser struct {
	ev      forensics.Event
	release string // what follows "RELEASE " on the last line that has it
}

// Release makes the test format a forensics.Releaser.
func (p *testParser) Release() string { return p.release }

func (p *testParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	st, _, ok := logtime.ISO(text)
	if !ok {
		return forensics.Stamp{}, nil
	}
	if _, r, ok := bytes.Cut(text, []byte("RELEASE ")); ok {
		p.release = string(r)
	}
	if bytes.Contains(text, []byte("EVENT")) {
		p.ev.Reset()
		p.ev.Line = n
		p.ev.Kind = "test.event"
		p.ev.Text = string(text)
		emit(&p.ev)
	}
	return st, nil
}

func (p *testParser) End(forensics.Emit) error { return nil }

const node = "ns_1@10.0.0.1"
const folder = "cbcollect_info_" + node + "_20220722-004733/"

const logA = `==============================================================================
Test logs
cat test.log
==============================================================================
2022-07-21T17:39:12.120-07:00 INFO first
2022-07-21T17:39:13.000-07:00 INFO EVENT one
  continuation of the event
2022-07-21T17:39:14.000-07:00 INFO plain RELEASE 7.6.4-5146
`

func gz(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func writeZip(t *testing.T, path string, members map[string][]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, data := range members {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func analyze(t *testing.T, db store.Backend, paths ...string) Result {
	t.Helper()
	ctx := context.Background()
	w, err := db.NewRun(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, db, w, paths, Options{Formats: []forensics.Format{testFormat}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunReadsZipMembersOnce(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "collectinfo-2022-07-22T004733-"+node+".zip")
	truncated := gz(t, "2022-07-21T17:40:00.000-07:00 INFO EVENT rotated\n2022-07-21T17:40:01.000-07:00 INFO after\n")
	writeZip(t, zipPath, map[string][]byte{
		folder + "test.log":         []byte(logA),
		folder + "old.log.gz":       gz(t, "2022-07-21T17:30:00.000-07:00 INFO EVENT older\n"),
		folder + "cut.log.gz":       truncated[:len(truncated)-12],
		folder + "core.bin":         {0x7f, 'E', 'L', 'F', 0, 0, 0, 1, 2, 3, 0, 0},
		folder + "couchbase.ini":    []byte("[section]\nkey=value\n"),
		folder + "empty/":           nil,
		folder + "nested/inner.zip": innerZip(t),
	})
	db, err := sqlite.Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	first := analyze(t, db, zipPath)
	if first.Read != 4 || first.Reused != 0 {
		t.Fatalf("first run read %d reused %d, want 4 and 0; skipped %v problems %v", first.Read, first.Reused, first.Skipped, first.Problems)
	}
	skipped := map[string]string{}
	for _, s := range first.Skipped {
		skipped[filepath.Base(s.Path)] = s.Reason
	}
	if !strings.Contains(skipped["core.bin"], "binary") || !strings.Contains(skipped["couchbase.ini"], "not a format") {
		t.Errorf("skipped = %v", skipped)
	}
	var cut bool
	for _, p := range first.Problems {
		if strings.HasSuffix(p.Path, "cut.log.gz") && p.Lost && strings.Contains(p.Reason, "lines before are kept") {
			cut = true
		}
	}
	if !cut {
		t.Errorf("no problem reported for the truncated gzip: %v", first.Problems)
	}

	ctx := context.Background()
	srcs, err := db.Sources(ctx, first.Run)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range srcs {
		if s.Lines != s.Events+s.Plain+s.Skipped {
			t.Errorf("%s: lines %d != events %d + plain %d + skipped %d", s.Path, s.Lines, s.Events, s.Plain, s.Skipped)
		}
		if strings.HasSuffix(s.Path, "test.log") && (s.Lines != 8 || s.Events != 1 || s.Plain != 7) {
			t.Errorf("%s: lines %d events %d plain %d, want 8, 1, 7", s.Path, s.Lines, s.Events, s.Plain)
		}
		if want := map[bool]string{true: "7.6.4-5146"}[strings.HasSuffix(s.Path, "test.log")]; s.Release != want {
			t.Errorf("%s: release %q, want %q (asked of the parser after End)", s.Path, s.Release, want)
		}
		if !strings.HasSuffix(s.Path, "inner.log") && s.Node != node {
			t.Errorf("%s: node %q, want %q", s.Path, s.Node, node)
		}
	}

	var got []string
	for l, err := range db.Lines(ctx, store.LineFilter{Run: first.Run, Paths: []string{"test.log"}}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l.Time.Format("15:04:05")+" "+l.Text)
	}
	want := strings.Split(strings.TrimSuffix(logA, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasSuffix(got[i], " "+want[i]) {
			t.Errorf("line %d = %q, want text %q", i+1, got[i], want[i])
		}
	}
	// The header block before the first time takes that time; the
	// continuation takes the time of its entry.
	if !strings.HasPrefix(got[0], "00:39:12 ") || !strings.HasPrefix(got[6], "00:39:13 ") {
		t.Errorf("inherited times wrong:\n%s", strings.Join(got, "\n"))
	}

	countEvents := func() int {
		n := 0
		for _, err := range db.Events(ctx, store.EventFilter{}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	before := countEvents()
	if before != 4 {
		t.Errorf("events = %d, want 4", before)
	}
	second := analyze(t, db, zipPath)
	if second.Read != 0 || second.Reused != 4 {
		t.Errorf("second run read %d reused %d, want 0 and 4", second.Read, second.Reused)
	}
	if after := countEvents(); after != before {
		t.Errorf("events after re-run = %d, want %d", after, before)
	}
	srcs2, _ := db.Sources(ctx, second.Run)
	if len(srcs2) != len(srcs) {
		t.Errorf("second run has %d sources, want %d", len(srcs2), len(srcs))
	}
}

func innerZip(t *testing.T) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("inner.log")
	w.Write([]byte("2022-07-21T17:39:12.120-07:00 INFO EVENT nested\n"))
	zw.Close()
	return b.Bytes()
}

func TestRunFolderAndPlainFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, folder)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "test.log"), []byte(logA), 0o644)
	db, err := sqlite.Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res := analyze(t, db, dir, filepath.Join(dir, "missing.log"))
	if res.Read != 1 {
		t.Fatalf("read %d sources, want 1; problems %v", res.Read, res.Problems)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Path, "missing.log") {
		t.Errorf("problems = %v, want one for missing.log", res.Problems)
	}
	srcs, _ := db.Sources(context.Background(), res.Run)
	if srcs[0].Node != node {
		t.Errorf("node = %q, want %q from the folder name", srcs[0].Node, node)
	}
}

// TestStoredLinesAreLinesRead reads each source's lines and events back from
// the store, and checks them against the accounting the reading recorded:
// the lines stored are the lines read, and the lines with an event are the
// events counted.
func TestStoredLinesAreLinesRead(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, folder)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "test.log"), []byte(logA), 0o644)
	// A long line is stored in pieces, under one number; CR-only endings
	// are lines too.
	long := "2022-07-21T17:39:13.000-07:00 INFO EVENT long " + strings.Repeat("x", 200<<10) + "\n"
	os.WriteFile(filepath.Join(sub, "long.log"), []byte(logA+long+"tail\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "cr.log"), []byte("2022-07-21T17:39:12.120-07:00 INFO EVENT a\r2022-07-21T17:39:12.130-07:00 INFO b\r"), 0o644)
	db, err := sqlite.Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res := analyze(t, db, dir)
	ctx := context.Background()
	srcs, err := db.Sources(ctx, res.Run)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 3 {
		t.Fatalf("%d sources, want 3", len(srcs))
	}
	for _, s := range srcs {
		stored := map[int64]bool{}
		withEvent := map[int64]bool{}
		for l, err := range db.Lines(ctx, store.LineFilter{Run: res.Run, Paths: []string{s.Path}}) {
			if err != nil {
				t.Fatal(err)
			}
			if l.Path != s.Path {
				continue // a path containing this one
			}
			stored[l.N] = true
			if len(l.Kinds) > 0 {
				withEvent[l.N] = true
			}
		}
		if int64(len(stored)) != s.Lines {
			t.Errorf("%s: %d lines in the store, %d read", s.Path, len(stored), s.Lines)
		}
		if int64(len(withEvent)) != s.Events {
			t.Errorf("%s: %d lines with events in the store, %d counted", s.Path, len(withEvent), s.Events)
		}
		if s.Lines != s.Events+s.Plain+s.Skipped {
			t.Errorf("%s: lines %d != events %d + plain %d + skipped %d", s.Path, s.Lines, s.Events, s.Plain, s.Skipped)
		}
	}
}

// sharing records which events ingest hands to the writer as on their line.
type sharing struct {
	store.LineTextWriter
	onLine map[string]bool // by "path:line"
}

func (s *sharing) AddEventsOnLines(src int64, evs []forensics.Event, onLine []bool) error {
	for i, e := range evs {
		s.onLine[fmt.Sprintf("%s:%d", e.Path, e.Line)] = i < len(onLine) && onLine[i]
	}
	return s.LineTextWriter.AddEventsOnLines(src, evs, onLine)
}

// TestEventsOnTheirLines checks that events are handed to the writer as on
// their line only when their kind is dense in the block of lines, and that
// every event reads back with the text of its line. (Lines cut in pieces
// are store/sqlite's test: they take lines.MaxLine.)
func TestEventsOnTheirLines(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("EVENT header before any time\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "2022-07-21T17:39:%02d.%03d-07:00 INFO EVENT stream %d\n", i/1000, i%1000, i)
	}
	long := "2022-07-21T17:39:13.000-07:00 INFO EVENT long " + strings.Repeat("x", 200<<10)
	b.WriteString(long + "\n")
	os.WriteFile(filepath.Join(dir, "dense.log"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "rare.log"), []byte("2022-07-21T17:39:12.120-07:00 INFO EVENT once\n2022-07-21T17:39:12.130-07:00 INFO plain\n"), 0o644)
	db, err := sqlite.Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rec := &sharing{LineTextWriter: w.(store.LineTextWriter), onLine: map[string]bool{}}
	if _, err := Run(ctx, db, rec, []string{dir}, Options{Formats: []forensics.Format{testFormat}}); err != nil {
		t.Fatal(err)
	}
	dense, rare := filepath.Join(dir, "dense.log"), filepath.Join(dir, "rare.log")
	for key, want := range map[string]bool{
		dense + ":2":    false, // the first events of the kind in the block
		dense + ":20":   true,
		dense + ":3001": true,
		dense + ":3002": true, // a long line, whole (lines.MaxLine)
		rare + ":1":     false,
	} {
		if got, ok := rec.onLine[key]; !ok || got != want {
			t.Errorf("event %s handed as on its line: %v (seen %v), want %v", key, got, ok, want)
		}
	}
	if n := len(rec.onLine); n != 3002 {
		t.Errorf("%d events handed to the writer, want 3002", n)
	}

	lines := map[string]string{}
	for l, err := range db.Lines(ctx, store.LineFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		lines[fmt.Sprintf("%s:%d", l.Path, l.N)] += l.Text
	}
	n := 0
	for e, err := range db.Events(ctx, store.EventFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		key := fmt.Sprintf("%s:%d", e.Path, e.Line)
		if want := lines[key]; e.Text != want {
			t.Fatalf("event %s: text %.80q, want its line %.80q", key, e.Text, want)
		}
	}
	if n != 3002 {
		t.Errorf("%d events read back, want 3002", n)
	}
}

// TestZipMembersKeepTheirDeflate reads the same log as a deflate member of
// a zip and as a plain file, and checks that both read back line for line
// alike, events with the text of their lines, while the member's blocks
// keep its compressed bytes (store/block's deflate spans) and take less
// room than the lines compressed again.
func TestZipMembersKeepTheirDeflate(t *testing.T) {
	var b strings.Builder
	b.WriteString(logA)
	for i := range 60000 {
		fmt.Fprintf(&b, "2022-07-21T17:%02d:%02d.%03d-07:00 INFO EVENT stream %d of vb %d\n", 40+i/6000, i/100%60, i%1000, i, i%1024)
		if i%5000 == 0 {
			b.WriteString("2022-07-21T17:39:13.000-07:00 INFO a long one " + strings.Repeat("x", 200<<10) + "\r\n")
		}
	}
	text := b.String()
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "collectinfo-2022-07-22T004733-"+node+".zip")
	writeZip(t, zipPath, map[string][]byte{folder + "zipped.log": []byte(text)})
	plain := filepath.Join(dir, folder)
	os.MkdirAll(plain, 0o755)
	os.WriteFile(filepath.Join(plain, "plain.log"), []byte(text), 0o644)
	dbPath := filepath.Join(dir, "t.db")
	db, err := sqlite.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	analyze(t, db, zipPath, plain)
	ctx := context.Background()
	read := map[string][]string{}
	for l, err := range db.Lines(ctx, store.LineFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		read[filepath.Base(l.Path)] = append(read[filepath.Base(l.Path)], fmt.Sprintf("%d %s %s", l.N, l.Time.Format(time.RFC3339Nano), l.Text))
	}
	z, p := read["zipped.log"], read["plain.log"]
	if len(z) < 60000 || len(z) != len(p) {
		t.Fatalf("%d lines from the zip, %d from the file", len(z), len(p))
	}
	for i := range z {
		if z[i] != p[i] {
			t.Fatalf("line %d from the zip:\n%.200s\nfrom the file:\n%.200s", i, z[i], p[i])
		}
	}
	events := 0
	for e, err := range db.Events(ctx, store.EventFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		if line := read[filepath.Base(e.Path)][e.Line-1]; !strings.HasSuffix(line, " "+e.Text) {
			t.Fatalf("event %s:%d has text %.100q, its line is %.100q", e.Path, e.Line, e.Text, line)
		}
		events++
	}
	if events != 2*60001 {
		t.Errorf("%d events, want %d", events, 2*60001)
	}

	raw, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT s.path, count(*), sum(substr(b.data, 1, 2) = x'005a'), sum(length(b.data))
		FROM blocks b JOIN sources s ON s.id = b.source_id GROUP BY s.path`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	size := map[string]int{}
	for rows.Next() {
		var path string
		var blocks, spans, bytes int
		if err := rows.Scan(&path, &blocks, &spans, &bytes); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		size[name] = bytes
		switch {
		case name == "zipped.log" && spans < blocks-1:
			t.Errorf("%d of the zip member's %d blocks keep its deflate", spans, blocks)
		case name == "plain.log" && spans > 0:
			t.Errorf("%d blocks of a plain file are deflate spans", spans)
		}
	}
	if size["zipped.log"] == 0 || size["zipped.log"] >= size["plain.log"] {
		t.Errorf("blocks of the zip member take %d bytes, of the file %d", size["zipped.log"], size["plain.log"])
	}
}

// TestToolPrefixes reads logs as tools hand them over — grep with the file
// and line numbers, kubectl logs --prefix --timestamps — as the log they
// hold: the format is detected, and the parser reads, without the prefix,
// while the store keeps each line as it was read.
func TestToolPrefixes(t *testing.T) {
	// timedFormat is testFormat detected by its content: lines that start
	// with a time and a level.
	timedFormat := testFormat
	timedFormat.Detect = func(name string, head []byte) int {
		if _, n, ok := logtime.ISO(head); ok && bytes.HasPrefix(head[n:], []byte(" INFO")) {
			return 50
		}
		return 0
	}
	files := map[string]string{
		"grep.txt": "app.log-11-2022-07-21T17:39:11.000-07:00 INFO before\n" +
			"app.log:12:2022-07-21T17:39:12.120-07:00 INFO EVENT one\n" +
			"--\n" +
			"app.log:20:2022-07-21T17:39:14.000-07:00 INFO EVENT two\n",
		"kubectl.txt": "[pod/app-0/app] 2022-07-22T00:39:12.120000000Z 2022-07-21T17:39:12.120-07:00 INFO EVENT three\n" +
			"[pod/app-0/app] 2022-07-22T00:39:13.000000000Z 2022-07-21T17:39:13.000-07:00 INFO plain\n",
	}
	dir := t.TempDir()
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	db, err := sqlite.Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, db, w, []string{dir}, Options{Formats: []forensics.Format{timedFormat}})
	if err != nil {
		t.Fatal(err)
	}
	srcs, _ := db.Sources(ctx, res.Run)
	if len(srcs) != 2 {
		t.Fatalf("%d sources read, want 2; skipped %v", len(srcs), res.Skipped)
	}
	events := map[string][]string{}
	for e, err := range db.Events(ctx, store.EventFilter{Run: res.Run}) {
		if err != nil {
			t.Fatal(err)
		}
		events[filepath.Base(e.Path)] = append(events[filepath.Base(e.Path)], e.Text)
	}
	want := map[string][]string{
		"grep.txt":    {"2022-07-21T17:39:12.120-07:00 INFO EVENT one", "2022-07-21T17:39:14.000-07:00 INFO EVENT two"},
		"kubectl.txt": {"2022-07-21T17:39:12.120-07:00 INFO EVENT three"},
	}
	for name, texts := range want {
		if fmt.Sprint(events[name]) != fmt.Sprint(texts) {
			t.Errorf("%s: events %q, want %q", name, events[name], texts)
		}
	}
	for _, s := range srcs {
		var got []string
		for l, err := range db.Lines(ctx, store.LineFilter{Run: res.Run, Paths: []string{s.Path}}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(l.Text))
		}
		if text := strings.Join(got, "\n") + "\n"; text != files[filepath.Base(s.Path)] {
			t.Errorf("%s: stored lines\n%s\nwant the lines as read\n%s", s.Path, text, files[filepath.Base(s.Path)])
		}
		if s.Lines != s.Events+s.Plain+s.Skipped {
			t.Errorf("%s: lines %d != events %d + plain %d + skipped %d", s.Path, s.Lines, s.Events, s.Plain, s.Skipped)
		}
	}
}
