package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"

	"forensics/store/postgres/pgtest"
)

// The memory the worst hostile inputs cost, each command run as its own
// process and measured by the kernel (peak resident set size): an archive
// within 512 MB, a timeline someone else wrote within 256 MB. The time is
// printed, not checked. Slow (it writes a gigabyte of zeros and a timeline
// of a million findings): bench/hostile.sh runs it, and prints the table.

// measured runs forensics as a process and returns its exit code, peak RSS
// in MB, wall time and stderr. The process is started by /usr/bin/time,
// which reports its peak: a child forked by this test would report this
// test's own peak (Linux carries the largest RSS of the memory a process
// had before exec into its rusage, and Go forks sharing its memory).
func measured(t *testing.T, args ...string) (code int, rss int64, wall time.Duration, stderr string) {
	t.Helper()
	cmd, report := timedCommand(t, args)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	start := time.Now()
	cmd.Run()
	wall = time.Since(start)
	if cmd.ProcessState == nil {
		t.Fatalf("%s: did not start", strings.Join(args, " "))
	}
	return cmd.ProcessState.ExitCode(), peakRSS(report), wall, errb.String()
}

// timedCommand is forensics with args, run by /usr/bin/time, which writes
// the peak RSS to report.
func timedCommand(t *testing.T, args []string) (cmd *exec.Cmd, report string) {
	t.Helper()
	const timeCmd = "/usr/bin/time"
	if _, err := os.Stat(timeCmd); err != nil {
		t.Fatal("no /usr/bin/time to measure peak memory with: apt-get install time")
	}
	dir := t.TempDir()
	report = filepath.Join(dir, "rss")
	// Named forensics, the test binary runs as the command (see TestMain).
	self := filepath.Join(dir, "forensics")
	if err := os.Symlink(os.Args[0], self); err != nil {
		t.Fatal(err)
	}
	return exec.Command(timeCmd, append([]string{"-f", "%M", "-o", report, self}, args...)...), report
}

// peakRSS reads /usr/bin/time's report, in MB.
func peakRSS(report string) (rss int64) {
	data, _ := os.ReadFile(report)
	lines := strings.Fields(string(data))
	if len(lines) > 0 {
		fmt.Sscan(lines[len(lines)-1], &rss)
		rss >>= 10 // KB
	}
	return rss
}

// measuredServe runs the explorer on db as a process, asks it each query
// (/api/QUERY) in turn, stops it as a user would (an interrupt) and
// returns its peak RSS in MB, the statuses of its answers, its wall time
// and stderr. A query it did not answer is status 0.
func measuredServe(t *testing.T, db string, queries []string) (rss int64, statuses []int, wall time.Duration, stderr string) {
	t.Helper()
	cmd, report := timedCommand(t, []string{"serve", "--db", db, "--addr", "127.0.0.1:0"})
	var errb bytes.Buffer
	cmd.Stderr = &errb
	// time ignores an interrupt and waits for its child, which gets it too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, _ := bufio.NewReader(out).ReadString('\n')
	_, url, ok := strings.Cut(strings.TrimSpace(first), " at ")
	client := &http.Client{Timeout: 2 * time.Minute}
	for _, q := range queries {
		status := 0
		if ok {
			if res, err := client.Get(url + "api/" + q); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				status = res.StatusCode
			}
		}
		statuses = append(statuses, status)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	cmd.Wait()
	return peakRSS(report), statuses, time.Since(start), errb.String()
}

// attack is one hostile input and a command run on it.
type attack struct {
	name  string
	args  []string
	bound int64 // MB
}

func runAttacks(t *testing.T, attacks []attack) {
	t.Helper()
	for _, a := range attacks {
		code, rss, wall, stderr := measured(t, a.args...)
		verdict := "refused"
		if code == exitOK {
			verdict = "ran"
		}
		t.Logf("| %s | `%s` | %s | %d MB | %.1f s |", a.name, commandLabel(a.args), verdict, rss, wall.Seconds())
		if rss > a.bound {
			t.Errorf("%s: %s took %d MB, more than %d MB\n%s", a.name, strings.Join(a.args, " "), rss, a.bound, stderr)
		}
		if code != exitOK && code != exitFailed {
			t.Errorf("%s: %s: exit %d\n%s", a.name, strings.Join(a.args, " "), code, stderr)
		}
		if strings.Contains(stderr, "fatal error") || strings.Contains(stderr, "panic:") {
			t.Errorf("%s: %s crashed:\n%s", a.name, strings.Join(a.args, " "), stderr)
		}
	}
}

// commandLabel is a command as the table shows it: the store's address as
// STORE, a file by its name.
func commandLabel(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "postgres://"):
			a = "STORE"
		case strings.Contains(a, "/") && !strings.Contains(a, " "):
			a = filepath.Base(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// zeroTarGz writes a tar.gz of n members of size bytes of zeros.
func zeroTarGz(t *testing.T, path string, n int, size int64, level int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, level)
	tw := tar.NewWriter(zw)
	zeros := make([]byte, 1<<20)
	for i := 0; i < n; i++ {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("logs/memcached.log.%d", i), Mode: 0o644, Size: size, Typeflag: tar.TypeReg})
		for w := int64(0); w < size; w += int64(len(zeros)) {
			tw.Write(zeros[:min(int64(len(zeros)), size-w)])
		}
	}
	tw.Close()
	zw.Close()
}

func TestHostileMemoryArchives(t *testing.T) {
	slowHostile(t)
	dir := t.TempDir()
	other := filepath.Join(dir, "ns_server.indexer.log")
	os.WriteFile(other, []byte(indexerLog(10)), 0o644)
	var attacks []attack
	for _, level := range []int{gzip.BestSpeed, gzip.BestCompression} {
		p := filepath.Join(dir, fmt.Sprintf("two-500MB-zeros-level%d.tar.gz", level))
		zeroTarGz(t, p, 2, 500<<20, level)
		db := filepath.Join(t.TempDir(), "t.db")
		attacks = append(attacks, attack{fmt.Sprintf("tar.gz of two 500 MB members of zeros (gzip -%d)", level), []string{"analyze", "-q", "--db", db, p, other}, 512})
	}
	runAttacks(t, attacks)
	// The other input is read whatever the bomb did.
	for _, a := range attacks {
		out := runOK(t, "timeline", "query", "--db", a.args[3], "--source", "ns_server.indexer.log", "--format", "raw")
		if strings.Count(out, "\n") != 20 {
			t.Errorf("%s: the other input's lines: %d, want 20", a.name, strings.Count(out, "\n"))
		}
	}
}

// sqliteShell runs SQL on a timeline with the sqlite3 shell, which holds a
// value of hundreds of megabytes that forensics' own connections refuse.
func sqliteShell(t *testing.T, db, sql string) {
	t.Helper()
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("no sqlite3 shell: apt-get install sqlite3")
	}
	if out, err := exec.Command(shell, db, sql).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v %s", err, out)
	}
}

func TestHostileMemoryTimelines(t *testing.T) {
	slowHostile(t)
	out := t.TempDir()
	// A finding of 300 MB.
	body, id := seedTimeline(t)
	sqliteShell(t, body, `UPDATE findings SET body = json_set(body, '$.explanation', printf('%.*c', 300000000, 'x')) WHERE id = '`+id+`'`)
	// A million findings.
	many, _ := seedTimeline(t)
	sqliteShell(t, many, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000)
		INSERT INTO findings SELECT f.run_id, printf('%012x', x), f.rule, f.severity, f.start_ns + x, f.end_ns + x,
			json_object('id', printf('%012x', x), 'rule', f.rule, 'severity', f.severity, 'title', 'a finding', 'subject', json_object('node', 'n'),
				'start', json_extract(f.body, '$.start'), 'end', json_extract(f.body, '$.end'), 'explanation', '', 'evidence', json('[]'), 'fixes', json('[]'))
		FROM c, (SELECT * FROM findings LIMIT 1) f`)
	// Blocks that decode to gigabytes, or to millions of empty records.
	bomb, _ := seedTimeline(t)
	var empty []byte
	for i := 0; i < 20_000_000; i++ {
		empty = append(empty, 0, 0, 0)
	}
	db, err := sql.Open("sqlite3", "file:"+bomb)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []struct {
		sql  string
		data []byte
	}{
		{`UPDATE blocks SET data = ? WHERE id = (SELECT min(id) FROM blocks)`, s2.Encode(nil, make([]byte, 256<<20))},
		{`UPDATE blocks SET data = ? WHERE id = (SELECT max(id) FROM blocks)`, s2.Encode(nil, empty)},
		{`UPDATE event_blocks SET data = ?`, s2.Encode(nil, make([]byte, 256<<20))},
	} {
		if _, err := db.Exec(stmt.sql, stmt.data); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	pg := pgtest.Database(t)
	var attacks []attack
	for _, c := range []struct{ name, db string }{{"a finding of 300 MB", body}, {"a million findings", many}} {
		for _, args := range [][]string{
			{"findings", "--db", c.db},
			{"findings", "--db", c.db, "--format", "json"},
			{"show", id, "--db", c.db},
			{"report", "--db", c.db, "--html", filepath.Join(out, "r.html")},
			{"fleet", "findings", "--db", c.db, "--format", "json"},
			{"timeline", "query", "--db", c.db, "--sql", "SELECT id, length(body) FROM findings"},
			{"analyze", "-q", "--db", c.db, "--incident", "seed", "../../testdata/couchbase/seed"},
			{"push", c.db, "--to", pg},
		} {
			attacks = append(attacks, attack{c.name, args, 256})
		}
	}
	for _, args := range [][]string{
		{"timeline", "query", "--db", bomb, "--format", "raw"},
		{"timeline", "query", "--db", bomb, "--events"},
		{"timeline", "query", "--db", bomb, "--sql", "SELECT count(*) FROM lines"},
		{"timeline", "query", "--db", bomb, "--sql", "SELECT count(*) FROM events"},
		{"show", id, "--db", bomb},
		{"extract", id, "--db", bomb, "--out", filepath.Join(out, "extract")},
		{"push", bomb, "--to", pg},
	} {
		attacks = append(attacks, attack{"blocks of 256 MiB and 20 M empty records", args, 256})
	}
	runAttacks(t, attacks)
	// The explorer, asked what its page asks: the same bound.
	for _, c := range []struct{ name, db string }{
		{"a finding of 300 MB", body}, {"a million findings", many}, {"blocks of 256 MiB and 20 M empty records", bomb},
	} {
		queries := []string{"incidents", "summary", "histogram", "findings", "finding?id=" + id, "lines", "lines?q=rollback",
			"lines?mode=regexp&q=%5Ezz%5B0-9%5D%24", "lines?kind=memcached.stream_rollback", "kinds"}
		rss, statuses, wall, stderr := measuredServe(t, c.db, queries)
		t.Logf("| %s | `serve` and %d queries | answered | %d MB | %.1f s |", c.name, len(queries), rss, wall.Seconds())
		if rss > 256 {
			t.Errorf("%s: the explorer took %d MB, more than 256 MB\n%s", c.name, rss, stderr)
		}
		for i, st := range statuses {
			if st == 0 {
				t.Errorf("%s: the explorer did not answer %s\n%s", c.name, queries[i], stderr)
			}
		}
		if strings.Contains(stderr, "fatal error") || strings.Contains(stderr, "panic:") {
			t.Errorf("%s: the explorer crashed:\n%s", c.name, stderr)
		}
	}
	attacks = attacks[:0]
	attacks = append(attacks,
		attack{"--sql of a 1 GB value", []string{"timeline", "query", "--db", body, "--sql", "SELECT zeroblob(1000000000)"}, 256},
		attack{"--sql of a 1 GB value", []string{"timeline", "query", "--db", pg, "--sql", "SELECT repeat('x', 1000000000)"}, 256},
	)
	runAttacks(t, attacks)
}
