package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"forensics/report"
	"forensics/store/backends"
	"forensics/store/postgres/pgtest"
)

// bigLines is the number of lines of each file of the big bundle: enough
// that analyze, once it has committed its first lines, has most of the
// bundle still to write when it is interrupted (the first commit comes
// after 50,000 events, about a third of the way).
const bigLines = 80_000

// writeBigBundle writes a cbcollect_info folder whose memcached.log is large
// enough that analyze is still writing when it is interrupted, and an
// indexer log, of the given numbers of lines.
func writeBigBundle(t *testing.T, dir string, memcached, indexer int) string {
	t.Helper()
	folder := filepath.Join(dir, "cbcollect_info_ns_1@10.9.9.9_20220722-004733")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, lines := range map[string]int{"memcached.log": memcached, "ns_server.indexer.log": indexer} {
		f, err := os.Create(filepath.Join(folder, name))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		t0 := time.Date(2022, 7, 21, 17, 0, 0, 0, time.FixedZone("", -7*3600))
		for i := 0; i < lines; i++ {
			ts := t0.Add(time.Duration(i) * 7 * time.Millisecond)
			if name == "memcached.log" {
				fmt.Fprintf(w, "%s INFO %d: (test3) DCP (Producer) eq_dcpq:replication:ns_1@10.9.9.9->ns_1@10.9.9.8:test3 - (vb:%d) Creating stream with start seqno %d and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{%d,%d} collections-filter-size:0 sid:none\n",
					ts.Format("2006-01-02T15:04:05.000000-07:00"), 100+i%50, i%1024, i, i, i)
			} else {
				fmt.Fprintf(w, "%s [Info] TK StreamEnd MAINT_STREAM test3 %d 77409272469274 %d\n", ts.Format("2006-01-02T15:04:05.000-07:00"), i%1024, i)
			}
		}
		w.Flush()
		f.Close()
	}
	return folder
}

// An analyze killed (SIGKILL) or interrupted (SIGINT) while it writes
// leaves a consistent timeline; the next analyze of the same input finishes
// the job, and the timeline then holds exactly what one clean run gives.
func TestInterruptedAnalyze(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 60 MB")
	}
	dir := t.TempDir()
	folder := writeBigBundle(t, dir, bigLines, bigLines)

	// The clean run goes on while the two interrupted ones run: each
	// analyze leaves a core mostly idle for its single writer.
	clean := filepath.Join(dir, "clean.db")
	type output struct {
		json   []byte
		stderr string
		code   int
	}
	done := make(chan output, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		code := run([]string{"analyze", "--db", clean, "--format", "json", folder}, &stdout, &stderr)
		done <- output{stdout.Bytes(), stderr.String(), code}
	}()
	cleanRun := sync.OnceValue(func() output { return <-done })

	for _, sig := range []os.Signal{syscall.SIGKILL, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "t.db")
			cmd := exec.Command(os.Args[0], "analyze", "-q", "--db", db, folder)
			cmd.Args[0] = "forensics" // run as the forensics command (see TestMain)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForBlocks(t, db)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if err == nil {
				t.Fatalf("analyze finished before it was interrupted; make the input larger")
			}
			if sig == os.Interrupt && !bytes.Contains(stderr.Bytes(), []byte("run the same command again to finish")) {
				t.Errorf("interrupted analyze said %q", stderr.String())
			}

			ro, err := backends.OpenReader(db)
			if err != nil {
				t.Fatal(err)
			}
			var check string
			ro.QuerySQL(context.Background(), `PRAGMA integrity_check`, nil, func(_ []string, v []any) error { check = fmt.Sprint(v[0]); return nil })
			srcs, _ := ro.Sources(context.Background(), 0)
			ro.Close()
			if check != "ok" {
				t.Errorf("integrity_check after %s = %q", sig, check)
			}
			for _, s := range srcs {
				if s.Lines != s.Events+s.Plain+s.Skipped || s.Lines == 0 {
					t.Errorf("a source visible after %s is not whole: %+v", sig, s)
				}
			}

			got := analyzeJSON(t, db, folder)
			want := cleanRun()
			if want.code != exitOK {
				t.Fatalf("clean analyze: exit %d\n%s", want.code, want.stderr)
			}
			var a, b report.Report
			json.Unmarshal(want.json, &a)
			json.Unmarshal(got, &b)
			if fmt.Sprint(a.Sources) != fmt.Sprint(b.Sources) || fmt.Sprint(a.Findings) != fmt.Sprint(b.Findings) {
				t.Errorf("after %s and a re-run, the timeline differs from a clean run:\n%v\nwant\n%v", sig, b.Sources, a.Sources)
			}
			if b.Summary.Read+b.Summary.Reused != 2 {
				t.Errorf("re-run read %d and reused %d sources, want 2 in all", b.Summary.Read, b.Summary.Reused)
			}
			assertEventCount(t, db, clean)
		})
	}
}

// waitForBlocks waits until the analyze under way has stored some lines.
func waitForBlocks(t *testing.T, db string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ro, err := backends.OpenReader(db); err == nil {
			var n int64
			ro.QuerySQL(context.Background(), `SELECT count(*) FROM main.blocks`, nil, func(_ []string, v []any) error { n, _ = v[0].(int64); return nil })
			ro.Close()
			if n > 0 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("analyze stored nothing within 20 s")
}

// assertEventCount checks that two timelines hold the same number of events:
// an interrupted run followed by a re-run must not duplicate any.
func assertEventCount(t *testing.T, a, b string) {
	t.Helper()
	count := func(path string) int64 {
		ro, err := backends.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		var n int64
		ro.QuerySQL(context.Background(), `SELECT count(*) FROM events`, nil, func(_ []string, v []any) error { n, _ = v[0].(int64); return nil })
		return n
	}
	if x, y := count(a), count(b); x != y {
		t.Errorf("events: %d after the interrupted run and a re-run, %d after a clean run", x, y)
	}
}

// storeBigLines makes a memcached.log of which the shared store commits
// part before the source is complete: the writer commits every 200,000
// events (or 64 MiB), and the source's events become visible only once
// it is whole.
const storeBigLines = 240_000

// An analyze into a shared store killed (SIGKILL) after it committed part
// of a source shows nothing of that source; the next analyze of the same
// input finishes the job, and the store then reads as a clean run does.
func TestStoreInterruptedAnalyze(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 75 MB")
	}
	folder := writeBigBundle(t, t.TempDir(), storeBigLines, 1000)
	local := filepath.Join(t.TempDir(), "clean.db")
	var want report.Report
	json.Unmarshal(analyzeJSON(t, local, folder), &want)
	onEngines(t, func(t *testing.T, eng pgtest.Engine) {
		ctx := context.Background()
		dsn := eng.Database(t)
		cmd := exec.Command(os.Args[0], "analyze", "-q", "--store", dsn, folder)
		cmd.Args[0] = "forensics" // run as the forensics command (see TestMain)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		conn := waitForHalfSource(t, dsn)
		cmd.Process.Kill()
		if err := cmd.Wait(); err == nil {
			t.Fatalf("analyze finished before it was killed; make the input larger")
		}

		ro, err := backends.OpenReader(dsn)
		if err != nil {
			t.Fatal(err)
		}
		srcs, err := ro.Sources(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		var complete int64
		for _, s := range srcs {
			complete += s.Events
			if s.Lines != s.Events+s.Plain+s.Skipped || s.Lines == 0 {
				t.Errorf("a source visible after SIGKILL is not whole: %+v", s)
			}
		}
		var visible, stored int64
		ro.QuerySQL(ctx, `SELECT count(*) FROM events`, nil, func(_ []string, v []any) error { visible, _ = v[0].(int64); return nil })
		ro.Close()
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM forensics.events`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if visible != complete || stored <= visible {
			t.Errorf("after SIGKILL: %d events visible, %d in complete sources, %d stored (the half source's too)", visible, complete, stored)
		}

		var got report.Report
		json.Unmarshal([]byte(runOK(t, "analyze", "--store", dsn, "--format", "json", folder)), &got)
		if fmt.Sprint(got.Sources) != fmt.Sprint(want.Sources) || fmt.Sprint(got.Findings) != fmt.Sprint(want.Findings) {
			t.Errorf("after SIGKILL and a re-run, the store differs from a clean run:\n%v\n%v\nwant\n%v\n%v", got.Sources, got.Findings, want.Sources, want.Findings)
		}
		if got.Summary.Read+got.Summary.Reused != 2 {
			t.Errorf("re-run read %d and reused %d sources, want 2 in all", got.Summary.Read, got.Summary.Reused)
		}
	})
}

// waitForHalfSource waits until the analyze under way has committed events
// of a source it has not completed, and returns a connection to the store.
func waitForHalfSource(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := pgx.Connect(ctx, dsn)
		if err == nil {
			var n int64
			err := conn.QueryRow(ctx, `SELECT count(*) FROM forensics.events e JOIN forensics.sources s ON s.incident_id = e.incident_id AND s.id = e.source_id WHERE NOT s.complete`).Scan(&n)
			if err == nil && n > 0 {
				t.Cleanup(func() { conn.Close(ctx) })
				return conn
			}
			conn.Close(ctx)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("analyze committed no part of a source within 60 s")
	return nil
}
