package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"forensics/store/postgres/pgtest"
)

// The shared store's address holds a password: it is never printed (errors,
// --help, the process list), whatever characters it holds; libpq's keyword
// form of an address reaches PostgreSQL, never a local file.

func TestStorePasswordNeverShown(t *testing.T) {
	const secret = "S3cr3tPw"
	for _, pw := range []string{secret, "a#" + secret, "a/" + secret + "?x", secret + "%zz", "a@" + secret, "it's " + secret} {
		for _, dsn := range []string{
			"postgres://analyst:" + pw + "@127.0.0.1:1/timelines?sslmode=disable&connect_timeout=2",
			"postgres://analyst:" + url.PathEscape(pw) + "@127.0.0.1:1/timelines?sslmode=disable&connect_timeout=2",
			"postgres://analyst:" + pw + "@db host/timelines?connect_timeout=2",
			"postgres://analyst@127.0.0.1:1/timelines?password=" + url.QueryEscape(pw) + "&connect_timeout=2",
			"host=127.0.0.1 port=1 user=analyst password='" + strings.ReplaceAll(pw, "'", `\'`) + "' dbname=timelines connect_timeout=2",
		} {
			// From the environment: it is used, and errors mask it.
			t.Setenv(envStore, dsn)
			for _, args := range [][]string{{"findings"}, {"fleet", "findings", "--format", "json"}, {"push", "x.db"}, {"findings", "--help"}, {"analyze", "--help"}} {
				var stdout, stderr bytes.Buffer
				code := run(args, &stdout, &stderr)
				if out := stdout.String() + stderr.String(); strings.Contains(out, secret) {
					t.Errorf("%s with %s=%s: exit %d, the password is shown:\n%s", strings.Join(args, " "), envStore, dsn, code, out)
				}
			}
			t.Setenv(envStore, "")
			// On the command line: refused, before anything is opened.
			for _, args := range [][]string{{"findings", "--db", dsn}, {"analyze", "--store", dsn, "x.log"}, {"push", "x.db", "--to", dsn}, {"push", dsn, "--to", "y.db"}} {
				var stdout, stderr bytes.Buffer
				code := run(args, &stdout, &stderr)
				out := stdout.String() + stderr.String()
				if code != exitUsage || !strings.Contains(out, "~/.pgpass") || strings.Contains(out, secret) {
					t.Errorf("%q: exit %d:\n%s", args, code, out)
				}
			}
		}
	}
}

func TestStoreKeywordDSN(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// Nothing listens on port 1: the address is tried, not written as a file.
	var stdout, stderr bytes.Buffer
	code := run([]string{"analyze", "--store", "host=127.0.0.1 port=1 dbname=timelines user=analyst connect_timeout=2", filepath.Join(wd(t), "../../testdata/couchbase/seed")}, &stdout, &stderr)
	if code == exitOK || !strings.Contains(stderr.String(), "127.0.0.1") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("a keyword address was written as a file: %v", entries)
	}
	// To a real server, in keyword form: the analysis is there.
	u, _ := url.Parse(pgtest.Database(t))
	kw := "host=" + u.Hostname() + " port=" + u.Port() + " dbname=" + strings.TrimPrefix(u.Path, "/") + " user=" + u.User.Username() + " sslmode=disable"
	runOK(t, "analyze", "--store", kw, "--incident", "seed", filepath.Join(wd(t), "../../testdata/couchbase/seed"))
	if out := runOK(t, "findings", "--db", kw); !strings.Contains(out, "kv-stream-before-traffic") {
		t.Errorf("findings through the keyword address:\n%s", out)
	}
	// A file whose name looks like one is still a file with ./ before it.
	runOK(t, "analyze", "--db", "./host=x.db", filepath.Join(wd(t), "../../testdata/couchbase/seed"))
	if _, err := os.Stat(filepath.Join(dir, "host=x.db")); err != nil {
		t.Error(err)
	}
}

// wd is the package's folder, for tests that change directory.
func wd(t *testing.T) string {
	t.Helper()
	if pkgDir == "" {
		t.Fatal("no package directory")
	}
	return pkgDir
}

var pkgDir, _ = os.Getwd()

// A re-analysis killed (SIGKILL) at any point leaves the previous analysis
// of the incident in view, in findings and fleet findings, on both stores;
// the next analysis completes it.
func TestKilledReanalysisKeepsFindings(t *testing.T) {
	slowHostile(t)
	seed := filepath.Join(wd(t), "../../testdata/couchbase/seed")
	big := writeBigBundle(t, t.TempDir(), bigLines, bigLines)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "t.db")
			if backend == "postgres" {
				db = pgtest.Database(t)
			}
			runOK(t, "analyze", "-q", "--db", db, "--incident", "inc", seed)
			want := runOK(t, "findings", "--db", db, "--incident", "inc", "--format", "json")
			if !strings.Contains(want, `"id": "849cb65fdd33"`) {
				t.Fatalf("the seed has no finding:\n%s", want)
			}
			for _, after := range []time.Duration{30 * time.Millisecond, 80 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond} {
				cmd := exec.Command(os.Args[0], "analyze", "-q", "--fresh", "--db", db, "--incident", "inc", seed, big)
				cmd.Args[0] = "forensics" // run as the forensics command (see TestMain)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(after)
				cmd.Process.Kill()
				cmd.Wait()
				for _, args := range [][]string{
					{"findings", "--db", db, "--incident", "inc", "--format", "json"},
					{"fleet", "findings", "--db", db, "--format", "json"},
					{"findings", "--db", db, "--format", "json"},
				} {
					if got := runOK(t, args...); !strings.Contains(got, `"id": "849cb65fdd33"`) {
						t.Errorf("killed %s in: %s shows no finding of the incident:\n%s", after, strings.Join(args, " "), got)
					}
				}
			}
			runOK(t, "analyze", "-q", "--db", db, "--incident", "inc", seed, big)
			if got := runOK(t, "findings", "--db", db, "--incident", "inc", "--format", "json"); got != want {
				t.Errorf("after the runs were killed and one completed, findings differ:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// storedIncidents lists the incidents of a store, with their runs and
// findings, as incidents --format json gives them.
func storedIncidents(t *testing.T, db string) []struct {
	Name     string
	Runs     []int64
	Findings int
} {
	t.Helper()
	var incs []struct {
		Name     string
		Runs     []int64
		Findings int
	}
	if err := json.Unmarshal([]byte(runOK(t, "incidents", "--db", db, "--format", "json")), &incs); err != nil {
		t.Fatal(err)
	}
	return incs
}

// Pushes of one timeline into one store at once give one copy of each
// incident: one run, its findings once.
func TestConcurrentPushes(t *testing.T) {
	local := filepath.Join(t.TempDir(), "local.db")
	for _, c := range []string{"couchbase/seed", "crdb/clock-offset"} {
		runOK(t, "analyze", "-q", "--db", local, filepath.Join(wd(t), "../../testdata", c))
	}
	pg := pgtest.Database(t)
	runOK(t, "timeline", "schema") // loads the package's commands before the goroutines
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			if code := run([]string{"push", local, "--to", pg}, &stdout, &stderr); code != exitOK {
				t.Errorf("push: exit %d: %s", code, stderr.String())
			}
		}()
	}
	wg.Wait()
	incs := storedIncidents(t, pg)
	if len(incs) != 2 {
		t.Fatalf("%d incidents after the pushes, want 2: %+v", len(incs), incs)
	}
	for _, inc := range incs {
		if len(inc.Runs) != 1 {
			t.Errorf("incident %s: %d runs after 4 pushes at once, want 1", inc.Name, len(inc.Runs))
		}
	}
	var fs []map[string]any
	json.Unmarshal([]byte(runOK(t, "timeline", "query", "--db", pg, "--sql", "SELECT id, run_id FROM findings", "--format", "json")), &fs)
	want := 0
	for _, inc := range incs {
		want += inc.Findings
	}
	if len(fs) != want || want == 0 {
		t.Errorf("%d finding rows in the store, want %d", len(fs), want)
	}
}

// Invalid UTF-8, a latin-1 é and NUL bytes in event lines, in a file name
// and so in a node name: SQLite keeps the bytes; PostgreSQL, which takes
// only valid UTF-8 without NUL in text, must keep them too, and give back
// the same lines and events, byte for byte, analysed or pushed.
func TestStoreBytesLossless(t *testing.T) {
	dir := t.TempDir()
	bad := strings.NewReplacer("test3", "test3\xff", "Stream request", "Stream r\xe9quest\x00", "ns_1@172.23.100.15", "ns_1@172.23.100.15\xfe")
	from := filepath.Join(wd(t), "../../testdata/couchbase/seed")
	filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || strings.HasPrefix(info.Name(), "want.") || info.Name() == "expect.json" {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, _ := os.ReadFile(p)
		to := filepath.Join(dir, bad.Replace(rel))
		os.MkdirAll(filepath.Dir(to), 0o755)
		return os.WriteFile(to, []byte(bad.Replace(string(data))), 0o644)
	})
	local := filepath.Join(t.TempDir(), "t.db")
	runOK(t, "analyze", "-q", "--db", local, "--incident", "bytes", dir)
	analysed, pushed := pgtest.Database(t), pgtest.Database(t)
	runOK(t, "analyze", "-q", "--db", analysed, "--incident", "bytes", dir)
	runOK(t, "push", local, "--to", pushed)
	for _, args := range [][]string{
		{"timeline", "query", "--format", "raw"},
		{"timeline", "query", "--format", "jsonl", "--events"},
		{"timeline", "query", "--format", "csv"},
		{"findings", "--format", "json"},
	} {
		want := runOK(t, append(args, "--db", local)...)
		if !strings.Contains(want, "\xff") && args[len(args)-1] == "raw" {
			t.Fatal("the bytes did not reach the timeline")
		}
		for _, db := range []string{analysed, pushed} {
			if got := runOK(t, append(args, "--db", db)...); storeIDs.ReplaceAllString(got, "") != storeIDs.ReplaceAllString(want, "") {
				t.Errorf("%s on PostgreSQL differs from SQLite:\n%.600q\nwant\n%.600q", strings.Join(args, " "), got, want)
			}
		}
	}
}

// slowHostile skips a hostile case that takes most of a minute unless
// FORENSICS_HOSTILE_SLOW=1: bench/hostile.sh runs them (and .ci/run runs
// it), with the cases that measure memory.
func slowHostile(t *testing.T) {
	t.Helper()
	if os.Getenv("FORENSICS_HOSTILE_SLOW") != "1" {
		t.Skip("slow: bench/hostile.sh runs it (FORENSICS_HOSTILE_SLOW=1)")
	}
}

// A zip whose member holds other content under the genuine member's
// CRC-32 and size, analysed first; then the genuine zip under the same
// incident: its lines are read and served, not the poisoned ones. Content
// is keyed by what was read, on both stores.
func TestPoisonedContentNotReused(t *testing.T) {
	genuine := []byte(indexerLog(50))
	poisoned := bytes.Replace(genuine, []byte("MAINT_STREAM"), []byte("POISON_STRM!"), 1) // same length
	name := hostileFolder + "ns_server.indexer.log"
	good := buildZip(t, []zipMember{{name: name, data: genuine, stored: true}})
	bad := bytes.Replace(good, genuine, poisoned, 1) // the headers keep the genuine CRC-32
	dir := t.TempDir()
	zipName := "collectinfo-2022-07-22T004733-" + hostileNode + ".zip"
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "t.db")
			if backend == "postgres" {
				db = pgtest.Database(t)
			}
			for i, z := range [][]byte{bad, good} {
				p := filepath.Join(dir, backend, strconv.Itoa(i), zipName)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, z, 0o644)
				runOK(t, "analyze", "-q", "--db", db, "--incident", "inc", p)
			}
			out := runOK(t, "timeline", "query", "--db", db, "--incident", "inc", "--format", "raw")
			if strings.Contains(out, "POISON") || !strings.Contains(out, "MAINT_STREAM") {
				t.Errorf("the genuine zip analysed after the poisoned one serves its lines:\n%.300s", out)
			}
		})
	}
}

// --sql on both stores: a value or a row of the answer too large to hold
// is refused as it comes, not held; a role that may not read a file says
// so (not that the query would change the timeline).
func TestQuerySQLBounds(t *testing.T) {
	local := filepath.Join(t.TempDir(), "t.db")
	seed := filepath.Join(wd(t), "../../testdata/couchbase/seed")
	runOK(t, "analyze", "-q", "--db", local, seed)
	pg := pgtest.Database(t)
	runOK(t, "push", local, "--to", pg)
	for _, c := range []struct{ db, sql, want string }{
		{local, "SELECT zeroblob(1000000000)", "larger than 128 MiB"},
		{pg, "SELECT repeat('x', 200000000)", "larger than 64 MiB"},
	} {
		var stdout, stderr bytes.Buffer
		code := runBounded(t, []string{"timeline", "query", "--db", c.db, "--sql", c.sql}, &stdout, &stderr)
		if code == exitOK || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: exit %d: %s", c.sql, code, stderr.String())
		}
	}
}
