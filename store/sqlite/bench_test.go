package sqlite

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

// benchTimeline is a timeline of 5 million lines: 8 nodes logging for two
// hours, built once for the query benchmarks.
var benchTimeline = sync.OnceValues(func() (string, error) {
	dir, err := mkdirTemp()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "bench.db")
	db, err := Open(path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{"bench"})
	if err != nil {
		return "", err
	}
	const nodes, perNode = 8, 625_000
	b := block.NewBuilder()
	defer b.Release()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range nodes {
		src := &forensics.Source{Path: fmt.Sprintf("node%d/memcached.log", n), Node: fmt.Sprintf("ns_1@10.0.0.%d", n), Format: "memcached", Component: "memcached", Key: fmt.Sprint(n)}
		if err := w.BeginSource(src); err != nil {
			return "", err
		}
		t := benchStart
		var events []forensics.Event
		for i := int64(1); i <= perNode; i++ {
			t = t.Add(time.Duration(rng.IntN(23_000)) * time.Microsecond) // ~87 lines/s per node
			text := fmt.Sprintf("%s INFO 4%d: (default) DCP (Producer) eq_dcpq:replication:ns_1@10.0.0.%d->ns_1@10.0.0.%d:default - (vb:%d) Creating stream with start seqno %d and end seqno 18446744073709551615",
				t.Format("2006-01-02T15:04:05.000000-07:00"), n, n, (n+1)%nodes, i%1024, i)
			if i%5000 == 0 {
				text += " Stream request requires rollback" // a rare message for --grep
			}
			b.Add(i, t.UnixNano(), 0, store.LineFlags{Zone: forensics.ZoneLogged}, []byte(text), 0)
			if b.Full() {
				if err := w.AddLines(src.ID, &block.Batch{Block: b.Finish()}); err != nil {
					return "", err
				}
			}
			if i%50 == 0 {
				e := forensics.Event{Line: i, Kind: "memcached.stream_created", Node: src.Node, Text: text}
				e.VB = int(i % 1024)
				e.Stamp = forensics.Stamp{Time: t, Zone: forensics.ZoneLogged}
				events = append(events, e)
			}
		}
		if !b.Empty() {
			w.AddLines(src.ID, &block.Batch{Block: b.Finish()})
		}
		if err := w.AddEvents(src.ID, events); err != nil {
			return "", err
		}
		src.Lines = perNode
		if err := w.EndSource(src); err != nil {
			return "", err
		}
	}
	// diag.log's few lines span the whole collection in one block: a window
	// query must not read every block that starts within that span.
	diag := &forensics.Source{Path: "node0/diag.log", Node: "ns_1@10.0.0.0", Format: "nsserver-diag", Component: "ns_server", Key: "diag"}
	if err := w.BeginSource(diag); err != nil {
		return "", err
	}
	for i := int64(1); i <= 200; i++ {
		t := benchStart.Add(time.Duration(i) * 36 * time.Second)
		b.Add(i, t.UnixNano(), 0, store.LineFlags{Zone: forensics.ZoneLogged}, []byte(t.Format(time.RFC3339)+" ns_1@10.0.0.0:ns_log: bucket default loaded"), 0)
	}
	if err := w.AddLines(diag.ID, &block.Batch{Block: b.Finish()}); err != nil {
		return "", err
	}
	diag.Lines = 200
	if err := w.EndSource(diag); err != nil {
		return "", err
	}
	return path, w.Close()
})

var benchStart = time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)

// mkdirTemp makes a fresh folder that outlives one benchmark, so the
// 5-million-line timeline is built once per process.
func mkdirTemp() (string, error) {
	dir := filepath.Join(os.TempDir(), "forensics-store-bench")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

func benchDB(b *testing.B) *DB {
	b.Helper()
	path, err := benchTimeline()
	if err != nil {
		b.Fatal(err)
	}
	db, err := OpenReadOnly(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkWindowQuery reads a 10-second window across all nodes of a
// 5-million-line timeline, next to a full decode of the timeline (the
// baseline: what a query that ignores the time index would cost), and
// reports the ratio. It prints the plan of the block query, which reads only
// an index of blocks (TestLineQueriesReadOnlyTheIndex).
func BenchmarkWindowQuery(b *testing.B) {
	db := benchDB(b)
	ctx := context.Background()
	at := benchStart.Add(time.Hour)
	// Of the run, as timeline query asks: the run's sources are another way
	// in for SQLite's planner.
	window := store.LineFilter{Since: at, Until: at.Add(10 * time.Second), Run: 1}

	span, _ := db.metaInt(ctx, "max_block_span")
	q, args := candidateQuery(window, span, true)
	var plan []string
	db.QuerySQL(ctx, "EXPLAIN QUERY PLAN "+q, args,
		func(_ []string, vals []any) error { plan = append(plan, fmt.Sprint(vals[3])); return nil })
	b.Logf("block query plan: %v", plan)

	count := func(f store.LineFilter) (int, time.Duration) {
		start := time.Now()
		n := 0
		if err := countLines(db.Lines(ctx, f), &n); err != nil {
			b.Fatal(err)
		}
		return n, time.Since(start)
	}
	total, full := count(store.LineFilter{})
	b.ResetTimer()
	var n int
	for b.Loop() {
		n, _ = count(window)
	}
	b.StopTimer()
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(n), "lines/window")
	b.ReportMetric(full.Seconds()/per.Seconds(), "x-faster-than-full-scan")
	b.Logf("10 s window: %d of %d lines in %s; full decode of the timeline: %s", n, total, per, full)
}

// BenchmarkGrep searches every line of the 5-million-line timeline for a
// rare message.
func BenchmarkGrep(b *testing.B) {
	db := benchDB(b)
	ctx := context.Background()
	var n int
	for b.Loop() {
		n = 0
		if err := countLines(db.Lines(ctx, store.LineFilter{Text: "Stream request requires rollback"}), &n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "matches")
	b.ReportMetric(5e6/(b.Elapsed().Seconds()/float64(b.N)), "lines/s")
}

func countLines(seq iter.Seq2[*store.Line, error], n *int) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
		*n++
	}
	return nil
}
