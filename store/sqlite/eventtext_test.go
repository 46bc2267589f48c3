package sqlite

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

// loadShared writes one source of n lines ("PATH line I"), long lines cut
// in two pieces at every line divisible by 7, with an event on every line
// from 1 to n (the event's text is its line) and one event whose text is
// not a line. Events on whole lines are passed as on their line.
func loadShared(t *testing.T, db *DB, path string, n int) {
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
	base := time.Unix(1000, 0)
	var evs []forensics.Event
	var onLine []bool
	for i := 1; i <= n; i++ {
		st := forensics.Stamp{Time: base.Add(time.Duration(i) * time.Second), Zone: forensics.ZoneUTC}
		text := fmt.Sprintf("%s line %d", path, i)
		if i%7 == 0 {
			b.Add(&store.NewLine{N: int64(i), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC, Cut: true}, Text: []byte(text[:5])})
			b.Add(&store.NewLine{N: int64(i), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC}, Text: []byte(text[5:])})
			text = text[5:] // the parser saw the pieces: the event is on the last one
		} else {
			b.Add(&store.NewLine{N: int64(i), Stamp: st, Flags: store.LineFlags{Zone: forensics.ZoneUTC}, Text: []byte(text)})
		}
		if b.Full() || i%300 == 0 {
			if err := w.AddLines(src.ID, b.Batch()); err != nil {
				t.Fatal(err)
			}
		}
		ev := forensics.Event{Line: int64(i), Kind: "test.line", Node: "n1", Stamp: st, Text: text}
		ev.VB = forensics.NoVB
		ev.Set("i", fmt.Sprint(i))
		ev.Set("quote", `"q" ‹x›`)
		evs = append(evs, ev)
		onLine = append(onLine, i%7 != 0)
	}
	if !b.Empty() {
		if err := w.AddLines(src.ID, b.Batch()); err != nil {
			t.Fatal(err)
		}
	}
	ev := forensics.Event{Line: 3, Kind: "test.entry", Node: "n1", Stamp: forensics.Stamp{Time: base.Add(3 * time.Second), Zone: forensics.ZoneUTC}, Text: "an entry of lines 3 to 4"}
	ev.VB = forensics.NoVB
	evs = append(evs, ev)
	if err := w.(store.LineTextWriter).AddEventsOnLines(src.ID, evs, onLine); err != nil {
		t.Fatal(err)
	}
	src.Lines, src.Events = int64(n), int64(n)
	if err := w.EndSource(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkEvents reads every event of path back and checks its text and attributes.
func checkEvents(t *testing.T, r store.Reader, path string, n int) {
	t.Helper()
	ctx := context.Background()
	got := 0
	for e, err := range r.Events(ctx, store.EventFilter{Paths: []string{path}, Query: forensics.Query{Kinds: []forensics.Kind{"test.line"}}}) {
		if err != nil {
			t.Fatal(err)
		}
		got++
		want := fmt.Sprintf("%s line %d", path, e.Line)
		if e.Line%7 == 0 {
			want = want[5:]
		}
		if e.Text != want || e.Attr("i") != fmt.Sprint(e.Line) || e.Attr("quote") != `"q" ‹x›` {
			t.Fatalf("event on line %d: text %q, attrs %v; want %q", e.Line, e.Text, e.Attrs, want)
		}
	}
	if got != n {
		t.Errorf("%d events of %s, want %d", got, path, n)
	}
	var entry []string
	for e, err := range r.Events(ctx, store.EventFilter{Paths: []string{path}, Query: forensics.Query{Kinds: []forensics.Kind{"test.entry"}}}) {
		if err != nil {
			t.Fatal(err)
		}
		entry = append(entry, e.Text)
	}
	if fmt.Sprint(entry) != "[an entry of lines 3 to 4]" {
		t.Errorf("entry events = %q", entry)
	}
}

// TestEventTextFromLines checks that events whose text is their line,
// stored once in the line's block, read back with that text: through the
// cursor of a timeline open for writing and of a read-only one, through a
// text filter with a limit, and through the events view of --sql.
// It does so in a timeline of this schema (events in blocks) and of
// schema 2 (a row each).
func TestEventTextFromLines(t *testing.T) {
	for _, version := range []string{"2", schemaVersion} {
		t.Run("schema"+version, func(t *testing.T) { testEventTextFromLines(t, version) })
	}
}

func testEventTextFromLines(t *testing.T, version string) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	if version == "2" {
		createOld(t, path, schema2, version)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := strconv.Itoa(db.schema); got != version {
		t.Fatalf("schema %s, want %s", got, version)
	}
	const n = 20000 // several blocks
	loadShared(t, db, "a.log", n)
	loadShared(t, db, "b.log", 50)
	if want := n/7 + 1 + 50/7 + 1; storedTexts(t, db) != want {
		stored := storedTexts(t, db)
		t.Errorf("%d events store their text, want %d (the pieces of cut lines and the entries)", stored, want)
	}
	checkEvents(t, db, "a.log", n)
	checkEvents(t, db, "b.log", 50)

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	checkEvents(t, ro, "a.log", n)

	var texts []string
	for e, err := range ro.Events(ctx, store.EventFilter{Text: "line 19", Limit: 3, Offset: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, e.Text)
	}
	if want := "[b.log line 19 a.log line 190 a.log line 191]"; fmt.Sprint(texts) != want {
		t.Errorf("text filter with limit and offset = %q, want %s", texts, want)
	}

	var rows []string
	err = ro.QuerySQL(ctx, `SELECT line, text, attrs, json_extract(attrs, '$.i') FROM events WHERE source = 'a.log' AND line IN (1, 7, 19998) ORDER BY line`, nil,
		func(_ []string, vals []any) error { rows = append(rows, fmt.Sprint(vals...)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`1a.log line 1{"i":"1","quote":"\"q\" ‹x›"}1`,
		`7 line 7{"i":"7","quote":"\"q\" ‹x›"}7`,
		`19998a.log line 19998{"i":"19998","quote":"\"q\" ‹x›"}19998`,
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("events view:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

//go:embed testdata/schema1.sql
var schema1 string

//go:embed testdata/schema2.sql
var schema2 string

// createOld creates an empty timeline of an earlier schema, as the
// release that wrote that schema did.
func createOld(t *testing.T, path, schema, version string) {
	t.Helper()
	old, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	for _, q := range []string{`PRAGMA page_size = 65536`, `PRAGMA journal_mode = WAL`, schema,
		fmt.Sprintf(`PRAGMA application_id = %d`, applicationID), `INSERT INTO meta(key, value) VALUES ('schema', '` + version + `')`} {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// storedTexts counts the events that keep their own text, not their line's.
func storedTexts(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if db.schema < 3 {
		if err := db.sql.QueryRow(`SELECT count(*) FROM main.events WHERE text IS NOT NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows, err := db.sql.Query(`SELECT data FROM main.event_blocks`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		_, err := block.DecodeEvents(data, nil, nil, func(se *block.StoredEvent) error {
			if !se.OnLine {
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSchema1StillOpens checks that a timeline of schema 1 (attributes as
// JSON, every event's text in its row) is read, and written to in its own
// schema, so that the release that wrote it can still read it.
func TestSchema1StillOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	createOld(t, path, schema1, "1")

	db, err := Open(path)
	if err != nil {
		t.Fatalf("schema 1, read-write: %v", err)
	}
	loadShared(t, db, "a.log", 500)
	var nulls, packed int
	var version string
	if err := db.sql.QueryRow(`SELECT count(*) FILTER (WHERE text IS NULL), count(*) FILTER (WHERE attrs NOT LIKE '{%') FROM main.events`).Scan(&nulls, &packed); err != nil {
		t.Fatal(err)
	}
	if err := db.sql.QueryRow(`SELECT value FROM main.meta WHERE key = 'schema'`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if nulls != 0 || packed != 0 || version != "1" {
		t.Errorf("schema 1 timeline after a load: %d events without text, %d with packed attributes, schema %s; want 0, 0, 1", nulls, packed, version)
	}
	checkEvents(t, db, "a.log", 500)
	db.Close()

	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("schema 1, read-only: %v", err)
	}
	checkEvents(t, ro, "a.log", 500)
	ro.Close()
}

// TestNewerSchemaRefused checks that a timeline of a schema this program
// does not know is refused with a message, not misread.
func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.Exec(`UPDATE main.meta SET value = '9' WHERE key = 'schema'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for name, open := range map[string]func(string) (*DB, error){"read-write": Open, "read-only": OpenReadOnly} {
		if db, err := open(path); err == nil || !strings.Contains(err.Error(), "timeline schema version 9, this forensics reads versions 1 to "+schemaVersion) {
			t.Errorf("%s: open = %v; want a refusal naming the versions", name, err)
			if db != nil {
				db.Close()
			}
		}
	}
}

func TestPackedAttrsRoundTrip(t *testing.T) {
	for _, attrs := range [][]forensics.Attr{
		nil,
		{{Key: "consumer", Value: "secidx:proj-test3-MAINT_STREAM_TOPIC_0765/1"}, {Key: "rollback_seqno", Value: "4109"}},
		{{Key: "reason", Value: `consumer ahead of producer - "quoted" \\ back`}, {Key: "empty", Value: ""}, {Key: "uni", Value: "héllo ‹x›"}},
		{{Key: "long", Value: strings.Repeat("x", 300)}, {Key: "", Value: "no key"}},
	} {
		raw := appendAttrs(nil, attrs)
		got, err := decodeAttrs(raw)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(attrs) {
			t.Errorf("decodeAttrs(%q) = %v, %v; want %v", raw, got, err, attrs)
		}
		var b strings.Builder
		store.AppendAttrsJSON(&b, attrs)
		if j, err := attrsJSON(raw); err != nil || j != b.String() {
			t.Errorf("attrsJSON(%q) = %s, %v; want %s", raw, j, err, b.String())
		}
		if j, err := attrsJSON([]byte(b.String())); err != nil || j != b.String() {
			t.Errorf("attrsJSON of schema 1 = %s, %v; want it as it is", j, err)
		}
	}
	for _, bad := range []string{"\x01\x05ab", "\x01\x02ab\x09"} {
		if _, err := decodeAttrs([]byte(bad)); err == nil {
			t.Errorf("decodeAttrs(%q) did not fail", bad)
		}
	}
}
