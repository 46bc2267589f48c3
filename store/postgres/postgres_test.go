package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"forensics"
	"forensics/store"
	"forensics/store/postgres"
	"forensics/store/postgres/pgtest"
	"forensics/store/storetest"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC)

// load writes one run of incident with one source per key, each of n
// lines, every other line an event, and one finding.
func load(t testing.TB, db *postgres.DB, incident string, keys []string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{incident + ".zip"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		if _, ok, err := w.Loaded(key); err != nil || ok {
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		src := &forensics.Source{Path: key + "/memcached.log", Node: "n1", Format: "memcached", Component: "memcached", Key: key}
		err := w.BeginSource(src)
		if errors.Is(err, store.ErrLoaded) {
			if _, _, err := w.Loaded(key); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		lb := w.LineBuffer()
		var evs []forensics.Event
		for i := 1; i <= n; i++ {
			at := t0.Add(time.Duration(i) * time.Second)
			text := fmt.Sprintf("line %d of %s", i, key)
			lb.Add(&store.NewLine{N: int64(i), Stamp: forensics.Stamp{Time: at, Offset: 3600}, Text: []byte(text)})
			if lb.Full() {
				if err := w.AddLines(src.ID, lb.Batch()); err != nil {
					t.Fatal(err)
				}
			}
			if i%2 == 0 {
				evs = append(evs, forensics.Event{Stamp: forensics.Stamp{Time: at, Offset: 3600}, Path: src.Path, Line: int64(i), Node: "n1", Kind: "memcached.test",
					Subject: forensics.Subject{VB: i % 7, Bucket: "b"}, Attrs: []forensics.Attr{{Key: "z", Value: "1"}, {Key: "a", Value: `q"uote`}}, Text: text})
			}
		}
		if !lb.Empty() {
			if err := w.AddLines(src.ID, lb.Batch()); err != nil {
				t.Fatal(err)
			}
		}
		lb.Release()
		if err := w.AddEvents(src.ID, evs); err != nil {
			t.Fatal(err)
		}
		src.Lines, src.Events, src.Plain = int64(n), int64(len(evs)), int64(n-len(evs))
		src.First, src.Last = t0.Add(time.Second), t0.Add(time.Duration(n)*time.Second)
		if err := w.EndSource(src); errors.Is(err, store.ErrLoaded) {
			// Another client completed the same content first: the run uses theirs, as ingest does.
			if _, _, err := w.Loaded(key); err != nil {
				t.Fatal(err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
	}
	f := forensics.Finding{Rule: "cb-test", Severity: forensics.High, Title: "test in " + incident, Start: t0, End: t0.Add(time.Minute),
		Explanation: "What happened in " + incident + ".", Subject: forensics.FindingSubject{Node: "n1", Bucket: incident}}
	f.ID = f.Fingerprint()
	if err := w.SaveFindings([]forensics.Finding{f}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetSignature("sig-" + incident); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Run()
}

// onEngines runs test on each server the shared store is tested on.
func onEngines(t *testing.T, test func(*testing.T, pgtest.Engine)) {
	for _, e := range pgtest.Engines {
		t.Run(e.Name, func(t *testing.T) { test(t, e) })
	}
}

func open(t testing.TB, e pgtest.Engine) (*postgres.DB, string) {
	t.Helper()
	dsn := e.Database(t)
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

func collect[T any](t testing.TB, seq func(func(*T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, *v) // a line is reused after the loop body
	}
	return out
}

func TestRoundTrip(t *testing.T) { onEngines(t, testRoundTrip) }

func testRoundTrip(t *testing.T, eng pgtest.Engine) {
	db, dsn := open(t, eng)
	ctx := context.Background()
	run := load(t, db, "inc-a", []string{"k1", "k2"}, 3000)
	other := load(t, db, "inc-b", []string{"k1"}, 10)

	ro, err := postgres.OpenReadOnly(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	srcs, err := ro.Sources(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 || srcs[0].Path != "k1/memcached.log" || srcs[0].Lines != 3000 || srcs[0].Events != 1500 || !srcs[0].First.Equal(t0.Add(time.Second)) {
		t.Fatalf("sources of run %d: %+v", run, srcs)
	}
	// The same content in another incident is that incident's own copy.
	if srcs, _ := ro.Sources(ctx, other); len(srcs) != 1 || srcs[0].Lines != 10 {
		t.Fatalf("sources of run %d: %+v", other, srcs)
	}

	evs := collect(t, ro.Events(ctx, store.EventFilter{Run: run}))
	if len(evs) != 3000 {
		t.Fatalf("%d events, want 3000", len(evs))
	}
	for i := 1; i < len(evs); i++ {
		if forensics.Compare(&evs[i-1], &evs[i]) > 0 {
			t.Fatalf("events out of timeline order at %d: %v then %v", i, evs[i-1].Position(), evs[i].Position())
		}
	}
	e := evs[0]
	if e.Offset != 3600 || e.VB != 2 || e.Bucket != "b" || len(e.Attrs) != 2 || e.Attrs[0].Key != "z" || e.Attrs[1].Value != `q"uote` || !e.Time.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("event read back as %+v", e)
	}
	vb := 3
	if n := len(collect(t, ro.Events(ctx, store.EventFilter{Run: run, Query: forensics.Query{VB: &vb, Since: t0.Add(100 * time.Second)}}))); n == 0 || n > 3000/7 {
		t.Fatalf("vb and time filter: %d events", n)
	}

	since, until := t0.Add(1000*time.Second), t0.Add(1010*time.Second)
	lines := collect(t, ro.Lines(ctx, store.LineFilter{Run: run, Since: since, Until: until}))
	if len(lines) != 20 {
		t.Fatalf("%d lines in the window, want 20 (10 of each source)", len(lines))
	}
	if l := lines[0]; l.N != 1000 || l.Path != "k1/memcached.log" || l.Text != "line 1000 of k1" || len(l.Kinds) != 1 || l.Offset != 3600 {
		t.Fatalf("first line of the window: %+v", l)
	}
	re := regexp.MustCompile(`line 2999 of`)
	if lines := collect(t, ro.Lines(ctx, store.LineFilter{Regexp: re})); len(lines) != 2 {
		t.Fatalf("lines matching across the store: %d, want 2", len(lines))
	}

	fs, err := ro.Findings(ctx, run)
	if err != nil || len(fs) != 1 || fs[0].Title != "test in inc-a" {
		t.Fatalf("findings: %+v %v", fs, err)
	}
	if _, err := ro.FindingIn(ctx, other, fs[0].ID[:6]); err == nil || !strings.Contains(err.Error(), "not in this incident") {
		t.Fatalf("finding of another incident: %v", err)
	}
	if all, err := ro.AllFindings(ctx); err != nil || len(all) != 2 {
		t.Fatalf("all findings: %d %v", len(all), err)
	}
	incs, err := ro.Incidents(ctx)
	if err != nil || len(incs) != 2 || incs[1].Name != "inc-b" || incs[0].Sources != 2 || incs[0].Findings != 1 {
		t.Fatalf("incidents: %+v %v", incs, err)
	}

	var got []string
	err = ro.QuerySQL(ctx, `SELECT kind, time, count(*) FROM events WHERE source = $1 GROUP BY kind, time ORDER BY time LIMIT 1`, []any{"k2/memcached.log"},
		func(cols []string, vals []any) error {
			got = append(got, fmt.Sprint(cols, vals))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[kind time count] [memcached.test 2026-03-01T10:00:02.123456789Z 1]"; len(got) != 1 || got[0] != want {
		t.Fatalf("query: %q, want %q", got, want)
	}
	for _, q := range []string{
		`DELETE FROM forensics.events`,
		`UPDATE sources SET node = 'x'`,
		`SELECT 1; DELETE FROM forensics.events`,
	} {
		err := ro.QuerySQL(ctx, q, nil, func([]string, []any) error { return nil })
		if err == nil {
			t.Errorf("%s: ran", q)
		}
	}
	if err := ro.QuerySQL(ctx, `SET transaction_read_only = off`, nil, func([]string, []any) error { return nil }); err == nil {
		t.Errorf("the query switched its transaction to read-write")
	}
	if evs := collect(t, ro.Events(ctx, store.EventFilter{Run: run})); len(evs) != 3000 {
		t.Fatalf("after refused queries: %d events", len(evs))
	}
}

// A source is visible only once complete; an incomplete one left by a
// writer that stopped is not read, and the content is read again.
func TestIncompleteSourceInvisible(t *testing.T) { onEngines(t, testIncompleteSourceInvisible) }

func testIncompleteSourceInvisible(t *testing.T, eng pgtest.Engine) {
	db, _ := open(t, eng)
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	w.SetIncident("inc")
	src := &forensics.Source{Path: "half.log", Node: "n1", Format: "f", Component: "c", Key: "half"}
	if err := w.BeginSource(src); err != nil {
		t.Fatal(err)
	}
	if err := w.AddEvents(src.ID, []forensics.Event{{Stamp: forensics.Stamp{Time: t0}, Path: "half.log", Line: 1, Kind: "k", Subject: forensics.Subject{VB: forensics.NoVB}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if evs := collect(t, db.Events(ctx, store.EventFilter{})); len(evs) != 0 {
		t.Fatalf("%d events of an incomplete source visible", len(evs))
	}
	keys, _ := db.Keys(ctx)
	if keys["half"] {
		t.Fatal("incomplete source's key listed as loaded")
	}
	w.Close()
	run := load(t, db, "inc", []string{"half"}, 4)
	if evs := collect(t, db.Events(ctx, store.EventFilter{Run: run})); len(evs) != 2 {
		t.Fatalf("%d events after the second load, want 2", len(evs))
	}
}

// Two analyses of the same content and of different content, at once,
// with a reader counting while they load: nothing lost, nothing twice.
func TestConcurrentLoads(t *testing.T) { onEngines(t, testConcurrentLoads) }

func testConcurrentLoads(t *testing.T, eng pgtest.Engine) {
	_, dsn := open(t, eng)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	loaders := []struct {
		incident string
		keys     []string
	}{
		{"shared", []string{"a", "b", "c", "d"}},
		{"shared", []string{"d", "c", "b", "a"}},
		{"other", []string{"a", "e"}},
	}
	for _, l := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			other, err := postgres.Open(ctx, dsn)
			if err != nil {
				errs <- err
				return
			}
			defer other.Close()
			load(t, other, l.incident, l.keys, 2000)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	reader, err := postgres.OpenReadOnly(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		srcs, err := reader.Sources(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want int
		for _, s := range srcs {
			want += int(s.Events)
		}
		// Every complete source is whole: its events are all there.
		var n int
		if err := reader.QuerySQL(ctx, `SELECT count(*) FROM events`, nil, func(_ []string, v []any) error { n = int(v[0].(int64)); return nil }); err != nil {
			t.Fatal(err)
		}
		if n != want && !reading {
			t.Fatalf("%d events visible, complete sources say %d", n, want)
		}
		if n < want {
			t.Fatalf("%d events visible, complete sources say %d", n, want)
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	srcs, err := reader.Sources(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 6 {
		t.Fatalf("%d sources, want 6 (4 shared, 2 other)", len(srcs))
	}
	var n int64
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM forensics.events`).Scan(&n); err != nil || n != 6*1000 {
		t.Fatalf("%d event rows stored, want %d (no copy left behind): %v", n, 6*1000, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM forensics.blocks b WHERE NOT EXISTS (SELECT 1 FROM forensics.sources s WHERE s.incident_id = b.incident_id AND s.id = b.source_id AND s.complete)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d blocks of no complete source: %v", n, err)
	}
	incs, _ := reader.Incidents(ctx)
	for _, inc := range incs {
		for _, r := range inc.Runs {
			srcs, _ := reader.Sources(ctx, r)
			if want := map[string]int{"shared": 4, "other": 2}[inc.Name]; len(srcs) != want {
				t.Errorf("run %d of %s has %d sources, want %d", r, inc.Name, len(srcs), want)
			}
		}
	}
}

// Clients starting together against an empty database all migrate it.
func TestConcurrentMigrations(t *testing.T) { onEngines(t, testConcurrentMigrations) }

func testConcurrentMigrations(t *testing.T, eng pgtest.Engine) {
	dsn := eng.Database(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				errs <- err
				return
			}
			db.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestPasswordNeverPrinted(t *testing.T) {
	const secret = "s3cr3t-Pw"
	for _, dsn := range []string{
		"postgres://analyst:" + secret + "@127.0.0.1:1/timelines?sslmode=disable&connect_timeout=2",
		"host=127.0.0.1 port=1 user=analyst password=" + secret + " dbname=timelines sslmode=disable connect_timeout=2",
		"postgres://analyst:" + secret + "@127.0.0.1:1/timelines?sslmode=bogus",
	} {
		_, err := postgres.Open(context.Background(), dsn)
		if err == nil {
			t.Fatalf("%s: opened", dsn)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error shows the password: %v", err)
		}
		if !strings.Contains(err.Error(), "analyst") {
			t.Errorf("error does not say which DSN: %v", err)
		}
	}
	db, dsn := open(t, pgtest.Engines[0])
	db.Close()
	if strings.Contains(db.Name(), secret) {
		t.Fatal(db.Name())
	}
	// A password the server rejects.
	_, err := postgres.Open(context.Background(), pgtest.WithUser(t, dsn, "nobody", secret))
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("wrong credentials: %v", err)
	}
}

// The roles of roles.sql: the reader reads everything and can change
// nothing, by any path; the writer analyses.
func TestRoles(t *testing.T) { onEngines(t, testRoles) }

func testRoles(t *testing.T, eng pgtest.Engine) {
	db, dsn := open(t, eng)
	ctx := context.Background()
	load(t, db, "inc", []string{"k"}, 10)
	sqlText, err := os.ReadFile("roles.sql")
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(must(url.Parse(dsn)).Path, "/")
	suffix := dbName[len(dbName)-6:] // roles are cluster-wide: one pair per test database
	script := strings.NewReplacer("DATABASE forensics", "DATABASE "+dbName, "forensics_writer", "forensics_writer_"+suffix, "forensics_reader", "forensics_reader_"+suffix).Replace(string(sqlText))
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, script); err != nil {
		t.Fatalf("roles.sql: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, pgtest.WithDatabase(t, dsn, "postgres"))
		if err != nil {
			return
		}
		defer c.Close(ctx)
		for _, r := range []string{"forensics_writer_", "forensics_reader_"} {
			c.Exec(ctx, `DROP OWNED BY `+r+suffix) // in the test database, dropped already: nothing
			c.Exec(ctx, `DROP ROLE IF EXISTS `+r+suffix)
		}
	})
	conn.Exec(ctx, `ALTER DATABASE `+dbName+` OWNER TO CURRENT_USER`)

	writer := pgtest.WithUser(t, dsn, "forensics_writer_"+suffix, "change-me-writer")
	w, err := postgres.Open(ctx, writer)
	if err != nil {
		t.Fatalf("writer: %v", err)
	}
	load(t, w, "inc-2", []string{"k"}, 10)
	w.Close()

	reader := pgtest.WithUser(t, dsn, "forensics_reader_"+suffix, "change-me-reader")
	r, err := postgres.OpenReadOnly(ctx, reader)
	if err != nil {
		t.Fatalf("reader: %v", err)
	}
	defer r.Close()
	if incs, err := r.Incidents(ctx); err != nil || len(incs) != 2 {
		t.Fatalf("reader: incidents %v %v", incs, err)
	}
	if l, err := r.Layout(ctx); err != nil || len(l.Tables) == 0 {
		t.Fatalf("reader: layout %+v %v", l, err)
	}
	if evs := collect(t, r.Events(ctx, store.EventFilter{})); len(evs) != 10 {
		t.Fatalf("reader: %d events", len(evs))
	}
	if _, err := r.NewRun(ctx, []string{"x"}); err == nil {
		t.Fatal("a reader started a run")
	}
	if rw, err := postgres.Open(ctx, reader); err == nil {
		if wr, err := rw.NewRun(ctx, []string{"x"}); err == nil {
			if err := wr.SetIncident("by-reader"); err == nil {
				t.Fatal("the reader role recorded a run")
			}
		}
		rw.Close()
	}
	rc, err := pgx.Connect(ctx, reader)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close(ctx)
	for _, q := range []string{
		`SET default_transaction_read_only = off`, // then even outside forensics' read-only transactions:
		`INSERT INTO forensics.incidents VALUES (1, 'x', 0)`,
		`UPDATE forensics.sources SET node = 'x'`,
		`DELETE FROM forensics.events`,
		`TRUNCATE forensics.blocks`,
		`DROP VIEW forensics_query.events`,
		`CREATE TABLE forensics.mine (x int)`,
		`SELECT nextval('forensics.ids')`,
	} {
		if _, err := rc.Exec(ctx, q); err == nil && !strings.HasPrefix(q, "SET") {
			t.Errorf("reader ran %s", q)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM forensics.events`).Scan(&n); err != nil || n != 10 {
		t.Fatalf("after the reader: %d events (%v)", n, err)
	}

	// Tables a later migration adds, run by the owner or by a writer, get
	// the grants of the tables there now.
	wc, err := pgx.Connect(ctx, writer)
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close(ctx)
	for _, c := range []struct {
		by    *pgx.Conn
		table string
	}{{conn, "forensics.later_by_owner"}, {wc, "forensics.later_by_writer"}} {
		if _, err := c.by.Exec(ctx, `CREATE TABLE `+c.table+` (incident_id BIGINT NOT NULL PRIMARY KEY)`); err != nil {
			t.Fatalf("%s: %v", c.table, err)
		}
		if _, err := wc.Exec(ctx, `INSERT INTO `+c.table+` VALUES (1)`); err != nil {
			t.Errorf("writer cannot write %s: %v", c.table, err)
		}
		if err := rc.QueryRow(ctx, `SELECT count(*) FROM `+c.table).Scan(&n); err != nil || n != 1 {
			t.Errorf("reader cannot read %s: %d %v", c.table, n, err)
		}
		if _, err := rc.Exec(ctx, `INSERT INTO `+c.table+` VALUES (2)`); err == nil {
			t.Errorf("reader wrote %s", c.table)
		}
	}
	// Opened by the owner, the store distributes them on Citus; their
	// grants go to their shards.
	again, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	for _, table := range []string{"forensics.later_by_owner", "forensics.later_by_writer"} {
		if _, err := wc.Exec(ctx, `INSERT INTO `+table+` VALUES (3)`); err != nil {
			t.Errorf("writer cannot write %s: %v", table, err)
		}
		if err := rc.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil || n != 2 {
			t.Errorf("reader reads %d rows of %s: %v", n, table, err)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestSuite runs the behaviour every backend must have against PostgreSQL,
// each subtest in a database of its own.
func TestSuite(t *testing.T) { onEngines(t, testSuite) }

func testSuite(t *testing.T, eng pgtest.Engine) {
	dsns := map[store.Backend]string{}
	storetest.Run(t, func(t *testing.T) store.Backend {
		dsn := eng.Database(t)
		db, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		dsns[db] = dsn
		return db
	}, storetest.Options{NoViews: []string{"lines"}, Unindex: func(t *testing.T, db store.Backend) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsns[db])
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for _, q := range []string{
			`UPDATE forensics.blocks SET gram_segment = NULL, gram_place = NULL WHERE incident_id IS NOT NULL`,
			`DELETE FROM forensics.gram_parts WHERE incident_id IS NOT NULL`,
			`DELETE FROM forensics.gram_segments WHERE incident_id IS NOT NULL`,
		} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}})
}

// Blocks are compressed by store/block; the server must not compress them
// again (migration 0003), nor keep them in the table's pages.
func TestBlocksStoredAsIs(t *testing.T) { onEngines(t, testBlocksStoredAsIs) }

func testBlocksStoredAsIs(t *testing.T, eng pgtest.Engine) {
	db, dsn := open(t, eng)
	load(t, db, "inc", []string{"k"}, 5000)
	db.Close()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var storage string
	if err := conn.QueryRow(ctx, `SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'forensics.blocks'::regclass AND attname = 'data'`).Scan(&storage); err != nil {
		t.Fatal(err)
	}
	if storage != "e" {
		t.Fatalf("blocks.data storage %q, want e (external, uncompressed)", storage)
	}
	var stored, raw int64
	if err := conn.QueryRow(ctx, `SELECT sum(pg_column_size(data)), sum(length(data)) FROM forensics.blocks`).Scan(&stored, &raw); err != nil {
		t.Fatal(err)
	}
	if stored < raw {
		t.Fatalf("blocks take %d bytes for %d of data: compressed again", stored, raw)
	}
}

// Migration 0004 fills the explanation column of findings stored before it.
func TestExplanationMigration(t *testing.T) { onEngines(t, testExplanationMigration) }

func testExplanationMigration(t *testing.T, eng pgtest.Engine) {
	db, dsn := open(t, eng)
	load(t, db, "inc", []string{"k"}, 4)
	db.Close()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var want string
	if err := conn.QueryRow(ctx, `SELECT explanation FROM forensics.findings`).Scan(&want); err != nil || want == "" {
		t.Fatalf("explanation stored: %q %v", want, err)
	}
	// The store as version 3 left it: no explanation column.
	for _, stmt := range []string{`ALTER TABLE forensics.findings DROP COLUMN explanation`, `DELETE FROM forensics.schema_migrations WHERE version >= 4`} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	again, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	var got string
	if err := conn.QueryRow(ctx, `SELECT explanation FROM forensics.findings`).Scan(&got); err != nil || got != want {
		t.Fatalf("after migrating: explanation %q (%v), want %q", got, err, want)
	}
}

// The store says how it lies; on Citus every table with incident_id is
// distributed by it and colocated, so that an incident lives on one
// worker, and a store whose tables were left local (its database got
// Citus later) is distributed when next opened, its rows kept.
func TestLayout(t *testing.T) { onEngines(t, testLayout) }

func testLayout(t *testing.T, eng pgtest.Engine) {
	db, dsn := open(t, eng)
	ctx := context.Background()
	load(t, db, "inc-a", []string{"k1", "k2"}, 500)
	load(t, db, "inc-b", []string{"k1"}, 500)
	l, err := db.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Schema == "" || len(l.Tables) != 11 { // with gram_segments and gram_parts, the index of blocks, and loading_runs
		t.Fatalf("layout %+v", l)
	}
	if eng.Name != "citus" {
		for _, tb := range l.Tables {
			if tb.Kind != "local" || tb.Bytes == 0 {
				t.Errorf("table %+v", tb)
			}
		}
		if l.Engine != "PostgreSQL" || !strings.HasPrefix(l.Version, "1") || len(l.Nodes) != 0 {
			t.Errorf("layout %+v", l)
		}
		return
	}
	if l.Engine != "Citus" || !strings.Contains(l.Version, " on PostgreSQL ") {
		t.Errorf("engine %s %s", l.Engine, l.Version)
	}
	for _, tb := range l.Tables {
		want := store.TableLayout{Name: tb.Name, Kind: "distributed", Column: "incident_id", Shards: 4, Bytes: tb.Bytes}
		if tb.Name == "schema_migrations" {
			want = store.TableLayout{Name: tb.Name, Kind: "reference", Shards: 1, Bytes: tb.Bytes}
		}
		if tb != want || tb.Bytes == 0 {
			t.Errorf("table %+v, want %+v", tb, want)
		}
	}
	workers := 0
	for _, n := range l.Nodes {
		if n.Role == "worker" {
			workers++
			if n.Shards == 0 || n.Bytes == 0 {
				t.Errorf("worker %+v holds nothing", n)
			}
		}
	}
	if workers < 2 || l.Nodes[0].Role != "coordinator" {
		t.Errorf("nodes %+v", l.Nodes)
	}

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var inc int64
	if err := conn.QueryRow(ctx, `SELECT incident_id FROM forensics.incidents WHERE name = 'inc-a'`).Scan(&inc); err != nil {
		t.Fatal(err)
	}
	var places int
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT p.nodeport) FROM unnest($1::text[]) t,
		pg_dist_shard_placement p WHERE p.shardid = get_shard_id_for_distribution_column(('forensics.' || t)::regclass, $2::bigint)`,
		[]string{"incidents", "runs", "sources", "events", "blocks", "run_sources", "findings"}, inc).Scan(&places); err != nil || places != 1 {
		t.Errorf("the rows of one incident are on %d nodes (%v), want 1", places, err)
	}

	count := func() (n int64) {
		if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM forensics.events) + (SELECT count(*) FROM forensics.blocks)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	for _, table := range []string{"forensics.events", "forensics.blocks"} {
		if _, err := conn.Exec(ctx, `SELECT undistribute_table($1)`, table); err != nil {
			t.Fatal(err)
		}
	}
	again, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	var distributed, shell int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_dist_partition WHERE logicalrelid IN ('forensics.events'::regclass, 'forensics.blocks'::regclass)`).Scan(&distributed); err != nil || distributed != 2 {
		t.Errorf("%d of events and blocks distributed again (%v)", distributed, err)
	}
	if after := count(); after != before || before == 0 {
		t.Errorf("%d events and blocks after distributing them again, %d before", after, before)
	}
	if err := conn.QueryRow(ctx, `SELECT pg_relation_size('forensics.events') + pg_relation_size('forensics.blocks')`).Scan(&shell); err != nil || shell != 0 {
		t.Errorf("the coordinator keeps %d bytes of rows it distributed (%v)", shell, err)
	}
	ro, err := postgres.OpenReadOnly(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if evs := collect(t, ro.Events(ctx, store.EventFilter{})); len(evs) != 750 {
		t.Errorf("%d events read after distributing again, want 750", len(evs))
	}
}

// A load that is most of the table gets the planner statistics before the
// rules read it: on Citus, in the shards, where the queries run.
func TestStatisticsAfterLoad(t *testing.T) { onEngines(t, testStatisticsAfterLoad) }

func testStatisticsAfterLoad(t *testing.T, eng pgtest.Engine) {
	db, dsn := open(t, eng)
	ctx := context.Background()
	load(t, db, "inc", []string{"k1"}, 2000)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	q := `SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'forensics.events'::regclass`
	if eng.Name == "citus" {
		q = `SELECT sum(greatest(result::float8, 0)) FROM run_command_on_shards('forensics.events', $$SELECT reltuples FROM pg_class WHERE oid = '%s'::regclass$$)`
	}
	tuples := func() (n float64) {
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := tuples(); n != 0 {
		t.Skipf("the table was analysed before the reader opened (autovacuum): %v rows", n)
	}
	ro, err := db.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if n := tuples(); n != 1000 {
		t.Errorf("statistics of %v events after the load, want 1000", n)
	}
}

// A query of --sql that runs too long is stopped, on Citus on the workers
// too, and says why.
func TestQueryTimeout(t *testing.T) { onEngines(t, testQueryTimeout) }

func testQueryTimeout(t *testing.T, eng pgtest.Engine) {
	db, dsn := open(t, eng)
	ctx := context.Background()
	load(t, db, "inc", []string{"k1"}, 2000)
	defer postgres.SetQueryTimeout("300ms")()
	start := time.Now()
	err := db.QuerySQL(ctx, `SELECT count(*) FROM events WHERE pg_sleep(0.01) IS NOT NULL`, nil, func([]string, []any) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "ran longer than 300ms") {
		t.Fatalf("a query of 10 s: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopped after %s", took)
	}
	if eng.Name != "citus" {
		return
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left []string
	for range 50 {
		rows, err := conn.Query(ctx, `SELECT nodeport || ': ' || result FROM run_command_on_workers($$SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(0.01)%' AND pid <> pg_backend_pid()$$)`)
		if err != nil {
			t.Fatal(err)
		}
		left, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(left, func(s string) bool { return !strings.HasSuffix(s, ": 0") }) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("the shards' queries go on after the coordinator's was stopped: %v", left)
}

// oldTime is how migration 0002 first formatted a time, with to_char,
// which CockroachDB does not document; the views now format it in SQL
// every engine reads alike, and must give the same text.
const oldTime = `to_char(to_timestamp((%[1]s / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((%[1]s %% 1000000000)::text, 9, '0') || 'Z'`

// The views' times are those to_char gave, byte for byte, over the whole
// range of int64 nanoseconds, and for times after 1970 what Go prints.
func TestViewTimes(t *testing.T) { onEngines(t, testViewTimes) }

func testViewTimes(t *testing.T, eng pgtest.Engine) {
	_, dsn := open(t, eng)
	ctx := context.Background()
	times := []int64{0, 1, 999_999_999, 1_000_000_000, -1, -999_999_999, -1_000_000_000, -1_000_000_001,
		951_782_400_000_000_000, 951_868_799_999_999_999, 4_107_542_400_000_000_000, 1_658_449_152_111_000_000,
		86_399_999_999_999, 68_169_600_000_000_000, math.MaxInt64, math.MinInt64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		times = append(times, int64(r.Uint64()))
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{
		`INSERT INTO forensics.sources (incident_id, id, run_id, key, path, node, format, component, first_ns, last_ns, complete, loaded_at)
			SELECT 1, i, 1, 'k' || i, 'p', 'n', 'f', 'c', t, t # 1, true, now() FROM unnest($1::bigint[]) WITH ORDINALITY AS u(t, i)`,
		`INSERT INTO forensics.events (incident_id, source_id, seq, line, t, tz, zone, node, kind, attrs, text)
			SELECT 1, 1, i, i, t, 0, 0, 'n', 'k', '{}', '' FROM unnest($1::bigint[]) WITH ORDINALITY AS u(t, i)`,
		`INSERT INTO forensics.findings (incident_id, run_id, id, rule, severity, rank, node, shape, start_ns, end_ns, title, body)
			SELECT 1, 1, i::text, 'r', 'high', 3, 'n', '', t, t # 1, '', '{}' FROM unnest($1::bigint[]) WITH ORDINALITY AS u(t, i)`,
	} {
		if _, err := conn.Exec(ctx, stmt, times); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ view, key, col, ns string }{
		{"sources", "id", "first", "first_ns"},
		{"sources", "id", "last", "last_ns"},
		{"events", "id", "time", "t"},
		{"findings", "id", "start", "start_ns"},
		{"findings", "id", `"end"`, "end_ns"},
	} {
		table, key := "forensics."+c.view, c.key
		if c.view == "events" {
			key = "seq"
		}
		rows, err := conn.Query(ctx, `SELECT x.`+c.ns+`, v.`+c.col+`, `+fmt.Sprintf(oldTime, "x."+c.ns)+`
			FROM forensics_query.`+c.view+` v JOIN `+table+` x ON x.incident_id = v.incident_id AND x.`+key+` = v.`+c.key)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var ns int64
			var got, want string
			if err := rows.Scan(&ns, &got, &want); err != nil {
				t.Fatal(err)
			}
			n++
			if got != want {
				t.Errorf("%s.%s of %d: %q, to_char gave %q", c.view, c.col, ns, got, want)
			}
			if ns >= 0 && got != time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000000Z") {
				t.Errorf("%s.%s of %d: %q", c.view, c.col, ns, got)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if n != len(times) {
			t.Errorf("%s: %d rows compared, want %d", c.view, n, len(times))
		}
	}
}

// roles.sql run by the database's owner, who may not create or alter
// roles, once an administrator has created the two roles: it makes every
// grant, says what it skipped, and the reader reads.
func TestRolesAsOwner(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	dbName := strings.TrimPrefix(must(url.Parse(dsn)).Path, "/")
	suffix := dbName[len(dbName)-6:]
	owner, writer, reader := "forensics_owner_"+suffix, "forensics_writer_"+suffix, "forensics_reader_"+suffix
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, q := range []string{
		`CREATE ROLE ` + owner + ` LOGIN NOCREATEROLE`,
		`CREATE ROLE ` + writer + ` LOGIN PASSWORD 'change-me-writer'`,
		`CREATE ROLE ` + reader + ` LOGIN PASSWORD 'change-me-reader'`,
		`ALTER DATABASE ` + dbName + ` OWNER TO ` + owner,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, pgtest.WithDatabase(t, dsn, "postgres"))
		if err != nil {
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, `DROP DATABASE IF EXISTS `+dbName+` WITH (FORCE)`)
		for _, r := range []string{writer, reader, owner} {
			c.Exec(ctx, `DROP ROLE IF EXISTS `+r)
		}
	})
	asOwner := pgtest.WithUser(t, dsn, owner, "")
	db, err := postgres.Open(ctx, asOwner)
	if err != nil {
		t.Fatalf("the owner creates the schema: %v", err)
	}
	load(t, db, "inc", []string{"k"}, 10)
	db.Close()
	sqlText, err := os.ReadFile("roles.sql")
	if err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer("DATABASE forensics", "DATABASE "+dbName, "forensics_writer", writer, "forensics_reader", reader).Replace(string(sqlText))
	conn, err := pgx.Connect(ctx, asOwner)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, script); err != nil {
		t.Fatalf("roles.sql as the owner: %v", err)
	}
	r, err := postgres.OpenReadOnly(ctx, pgtest.WithUser(t, dsn, reader, "change-me-reader"))
	if err != nil {
		t.Fatalf("reader: %v", err)
	}
	defer r.Close()
	if incs, err := r.Incidents(ctx); err != nil || len(incs) != 1 {
		t.Fatalf("reader: incidents %v %v", incs, err)
	}
	// A server file is out of the reader's reach, and the message says why.
	err = r.QuerySQL(ctx, `SELECT pg_read_file('/etc/passwd')`, nil, func([]string, []any) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "the role of this connection may not do this") {
		t.Errorf("pg_read_file as the reader: %v", err)
	}
}
