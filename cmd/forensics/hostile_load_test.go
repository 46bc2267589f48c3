package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"forensics/store/postgres/pgtest"
)

// Load on the shared store: 200 small incidents analysed into one
// timeline, pushed to PostgreSQL while fleet findings, similar and grep
// run against it, over and over: no query fails, and once the push is
// done every incident is there once, with every finding, no more; a second
// push copies nothing. The times are printed for the closing table
// (bench/hostile.sh), not checked.
func TestHostileLoad(t *testing.T) {
	slowHostile(t)
	const incidents = 200
	seed := filepath.Join(wd(t), "../../testdata/couchbase/seed")
	local := filepath.Join(t.TempDir(), "local.db")
	dir := t.TempDir()
	start := time.Now()
	for i := range incidents {
		// Each incident has the seed and a file of its own, so that each
		// run reads something new.
		own := filepath.Join(dir, fmt.Sprintf("incident-%03d", i), "notes.log")
		os.MkdirAll(filepath.Dir(own), 0o755)
		os.WriteFile(own, []byte(strings.Repeat(fmt.Sprintf("incident %d: what the customer said\n", i), i+1)), 0o644)
		runOK(t, "analyze", "-q", "--db", local, "--incident", fmt.Sprintf("load-%03d", i), seed, filepath.Dir(own))
	}
	analyzed := time.Since(start)
	var local1 []map[string]any
	if err := json.Unmarshal([]byte(runOK(t, "fleet", "findings", "--db", local, "--format", "json")), &local1); err != nil {
		t.Fatal(err)
	}
	if len(local1) != 2*incidents {
		t.Fatalf("%d findings in the local timeline, want %d", len(local1), 2*incidents)
	}

	pg := pgtest.Database(t)
	// One incident is in the store before, so that the queries have
	// something to find from the start.
	runOK(t, "analyze", "-q", "--db", pg, "--incident", "load-first", seed)
	id := "849cb65fdd33"
	queries := [][]string{
		{"fleet", "findings", "--db", pg, "--format", "json"},
		{"fleet", "findings", "--db", pg, "--rule", "kv-stream-before-traffic"},
		{"fleet", "similar", id, "--db", pg, "--format", "json"},
		{"fleet", "grep", "rollback", "--db", pg, "--format", "json"},
	}
	var (
		done     atomic.Bool
		mu       sync.Mutex
		latency  []time.Duration
		failures []string
		wg       sync.WaitGroup
	)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := w; !done.Load(); n++ {
				args := queries[n%len(queries)]
				var stdout, stderr bytes.Buffer
				began := time.Now()
				code := run(args, &stdout, &stderr)
				took := time.Since(began)
				mu.Lock()
				latency = append(latency, took)
				if code != exitOK {
					failures = append(failures, fmt.Sprintf("%s: exit %d: %s", strings.Join(args[:2], " "), code, stderr.String()))
				}
				mu.Unlock()
			}
		}()
	}
	start = time.Now()
	var stdout, stderr bytes.Buffer
	code := run([]string{"push", local, "--to", pg}, &stdout, &stderr)
	pushed := time.Since(start)
	done.Store(true)
	wg.Wait()
	if code != exitOK {
		t.Fatalf("push: exit %d: %s", code, stderr.String())
	}
	for _, f := range failures {
		t.Error(f)
	}
	// Every incident once, every finding once.
	incs := storedIncidents(t, pg)
	if len(incs) != incidents+1 {
		t.Errorf("%d incidents in the store, want %d", len(incs), incidents+1)
	}
	for _, inc := range incs {
		if len(inc.Runs) != 1 || inc.Findings != 2 {
			t.Errorf("incident %s: %d runs, %d findings; want 1 and 2", inc.Name, len(inc.Runs), inc.Findings)
		}
	}
	count := func() int {
		var rows []map[string]any
		json.Unmarshal([]byte(runOK(t, "timeline", "query", "--db", pg, "--sql", "SELECT run_id, id FROM findings", "--format", "json")), &rows)
		return len(rows)
	}
	if n := count(); n != 2*(incidents+1) {
		t.Errorf("%d finding rows in the store, want %d", n, 2*(incidents+1))
	}
	start = time.Now()
	runOK(t, "push", local, "--to", pg)
	again := time.Since(start)
	if n := count(); n != 2*(incidents+1) {
		t.Errorf("a second push: %d finding rows, want %d", n, 2*(incidents+1))
	}
	slices.Sort(latency)
	if len(latency) == 0 {
		t.Fatal("no query ran during the push")
	}
	t.Logf("| %d incidents analysed into one SQLite timeline | %.1f s |", incidents, analyzed.Seconds())
	t.Logf("| push of them to PostgreSQL, with fleet queries running | %.1f s |", pushed.Seconds())
	t.Logf("| fleet findings/similar/grep during the push: %d queries, %d errors | median %.2f s, max %.2f s |",
		len(latency), len(failures), latency[len(latency)/2].Seconds(), latency[len(latency)-1].Seconds())
	t.Logf("| the same push again (nothing to copy) | %.1f s |", again.Seconds())
}
