package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"forensics/report"
	"forensics/store/sqlite"
)

// Damaged and hostile inputs under testdata/hostile/: each must give a clear
// message naming the file, keep every line that can be read, and never stop
// the analysis of the other inputs. Small cases are committed (rewritten
// with -update); large ones are generated here.

const hostileNode = "ns_1@10.1.2.3"
const hostileFolder = "cbcollect_info_" + hostileNode + "_20220722-004733/"

// indexerLog is a short ns_server.indexer.log in the real grammar.
func indexerLog(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "2022-07-21T17:39:%02d.%03d-07:00 [Info] TK StreamEnd MAINT_STREAM test3 %d 77409272469274 %d\n", 10+i/1000, i%1000, 100+i%900, 4000+i)
		fmt.Fprintf(&b, "2022-07-21T17:39:%02d.%03d-07:00 [Info] Indexer::ReadMemstats Time Taken 21.5µs\n", 10+i/1000, i%1000)
	}
	return b.String()
}

type zipMember struct {
	name   string
	data   []byte
	mode   os.FileMode
	stored bool // not compressed, so the content can be damaged in place
}

func buildZip(t *testing.T, members []zipMember) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		if m.stored {
			h.Method = zip.Store
		}
		if m.mode != 0 {
			h.SetMode(m.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipBytes(data []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// hostileCase is one damaged input and what analyze must make of it.
type hostileCase struct {
	name     string
	files    func(t *testing.T) map[string][]byte // file name → content
	generate bool                                 // too large to commit: built at test time
	args     []string                             // extra analyze arguments
	terminal bool                                 // also check findings and show, which print to a terminal
	setup    func(t *testing.T, dir string)       // makes what files cannot hold (FIFOs)
	check    func(t *testing.T, rep *report.Report, stderr string)
}

var hostileCases = []hostileCase{
	{
		name: "truncated-zip",
		files: func(t *testing.T) map[string][]byte {
			z := buildZip(t, []zipMember{
				{name: hostileFolder + "ns_server.indexer.log", data: []byte(indexerLog(200))},
				{name: hostileFolder + "ns_server.projector.log", data: []byte(projectorLog(400))},
			})
			// Cut inside the second member: the central directory is gone.
			second := bytes.LastIndex(z, []byte("PK\x03\x04"))
			return map[string][]byte{"collectinfo-2022-07-22T004733-" + hostileNode + ".zip": z[:second+(len(z)-second)/3]}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "central directory missing or damaged", true)
			wantProblem(t, rep, "the archive ends inside "+hostileFolder+"ns_server.projector.log", true)
			wantSource(t, rep, "ns_server.indexer.log", 400)
			if s := findSource(rep, "ns_server.projector.log"); s == nil || s.Lines == 0 || s.Lines >= 800 {
				t.Errorf("the cut member should keep the lines before the cut: %+v", s)
			}
		},
	},
	{
		name: "bad-crc",
		files: func(t *testing.T) map[string][]byte {
			z := buildZip(t, []zipMember{{name: hostileFolder + "ns_server.indexer.log", data: []byte(indexerLog(50)), stored: true}})
			// Flip one byte of the content: the member no longer matches its CRC-32.
			i := bytes.Index(z, []byte("MAINT_STREAM"))
			z[i] = 'm'
			return map[string][]byte{"collectinfo-2022-07-22T004733-" + hostileNode + ".zip": z}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "checksum mismatch: all 100 lines were read", false)
			wantSource(t, rep, "ns_server.indexer.log", 100)
		},
	},
	{
		name: "truncated-gzip",
		files: func(t *testing.T) map[string][]byte {
			gz := gzipBytes([]byte(indexerLog(300)))
			return map[string][]byte{"ns_server.indexer.log.gz": gz[:len(gz)*2/3]}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "gzip stream cut short", true)
			if s := findSource(rep, "ns_server.indexer.log.gz"); s == nil || s.Lines < 100 {
				t.Errorf("the truncated gzip should keep what was decompressed: %+v", s)
			}
		},
	},
	{
		name: "encrypted-member",
		files: func(t *testing.T) map[string][]byte {
			z := buildZip(t, []zipMember{
				{name: hostileFolder + "ns_server.indexer.log", data: []byte(indexerLog(20))},
				{name: hostileFolder + "ns_server.projector.log", data: []byte(projectorLog(20))},
			})
			setEncrypted(z, hostileFolder+"ns_server.projector.log")
			return map[string][]byte{"collectinfo-2022-07-22T004733-" + hostileNode + ".zip": z}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "encrypted member skipped", true)
			wantSource(t, rep, "ns_server.indexer.log", 40)
		},
	},
	{
		name:     "zip-bomb",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			// Lines of zeros compress about 1000 times, far more than any log.
			bomb := bytes.Repeat(append(bytes.Repeat([]byte("0"), 4095), '\n'), 50000)
			z := buildZip(t, []zipMember{{name: hostileFolder + "ns_server.indexer.log", data: append([]byte(indexerLog(5)), bomb...)}})
			return map[string][]byte{
				"collectinfo-2022-07-22T004733-" + hostileNode + ".zip": z,
				"ns_server.indexer.log":                                 []byte(indexerLog(10)),
			}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "looks like a zip bomb", true)
			wantSource(t, rep, "ns_server.indexer.log", 20) // the other input is still read
		},
	},
	{
		name: "deep-nesting",
		files: func(t *testing.T) map[string][]byte {
			data := buildZip(t, []zipMember{{name: "ns_server.indexer.log", data: []byte(indexerLog(3))}})
			for i := 5; i >= 1; i-- {
				data = buildZip(t, []zipMember{{name: fmt.Sprintf("level%d.zip", i), data: data}})
			}
			return map[string][]byte{"nested.zip": data, "ns_server.indexer.log": []byte(indexerLog(1))}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "archive nested deeper than 4 levels", true)
			wantSource(t, rep, "ns_server.indexer.log", 2)
		},
	},
	{
		name: "hostile-names",
		files: func(t *testing.T) map[string][]byte {
			return map[string][]byte{"names.zip": buildZip(t, []zipMember{
				{name: "../../../tmp/escape/ns_server.indexer.log", data: []byte(indexerLog(2))},
				{name: "/etc/ns_server.indexer.log", data: []byte(indexerLog(3))},
				{name: "evil\x1b[2J\x07.log", data: []byte(indexerLog(4))},
				{name: "link.log", data: []byte("/etc/passwd"), mode: os.ModeSymlink | 0o777},
			})}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantSource(t, rep, "names.zip!../../../tmp/escape/ns_server.indexer.log", 4)
			wantSource(t, rep, "names.zip!/etc/ns_server.indexer.log", 6)
			wantProblem(t, rep, "symbolic link not followed", false)
			if _, err := os.Stat("/tmp/escape"); err == nil {
				t.Error("a member name was used to write a file")
			}
			if strings.Contains(stderr, "\x1b") || strings.Contains(stderr, "\x07") {
				t.Errorf("control characters of a member name reached the terminal: %q", stderr)
			}
		},
	},
	{
		name: "duplicate-names",
		files: func(t *testing.T) map[string][]byte {
			return map[string][]byte{"dup.zip": buildZip(t, []zipMember{
				{name: hostileFolder + "ns_server.indexer.log", data: []byte(indexerLog(2))},
				{name: hostileFolder + "ns_server.indexer.log", data: []byte(indexerLog(3))},
			})}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantSource(t, rep, hostileFolder+"ns_server.indexer.log", 4)
			wantSource(t, rep, hostileFolder+"ns_server.indexer.log (copy 2)", 6)
		},
	},
	{
		name: "corrupt-content",
		files: func(t *testing.T) map[string][]byte {
			log := "2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168\r\n" +
				"2022-07-21T17:39:12.500-07:00 [Info] bad bytes \xff\xfe and a NUL \x00 here\r\n" +
				"a line with no time\r\n" +
				"2022-07-21T17:39:11.000-07:00 [Info] the clock went back\r\n" +
				"\x00\x01\x02\x03 binary garbage after a disk fault \xde\xad\xbe\xef\r\n" +
				"2022-07-21T17:39:13.000-07:00 [Info] TK StreamEnd MAINT_STREAM test3 142 77409272469274 4170\r\n"
			return map[string][]byte{hostileFolder + "ns_server.indexer.log": []byte(log)}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			s := wantSource(t, rep, "ns_server.indexer.log", 6)
			if s != nil && s.Events != 2 {
				t.Errorf("events = %d, want the 2 StreamEnd lines", s.Events)
			}
		},
	},
	{
		name:     "long-line",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			long := "2022-07-21T17:39:12.200-07:00 [Info] stats " + strings.Repeat("{\"k\":1},", 10<<20/8) + "\n"
			return map[string][]byte{"ns_server.indexer.log": []byte(indexerLog(1) + long + indexerLog(1))}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantSource(t, rep, "ns_server.indexer.log", 5)
		},
	},
	{
		// Defect 4: escapes in a member path (the node column), in log lines
		// (evidence), and so in the finding's title, subject and fixes.
		name:     "terminal-escapes",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			out := map[string][]byte{}
			from := "../../testdata/couchbase/seed"
			r := strings.NewReplacer("172.23.100.15", "\x1b[2J\x1b]0;owned\x07172.23.100.15", "test3", "test3\u202e")
			filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
				rel, _ := filepath.Rel(from, p)
				if err != nil || info.IsDir() || strings.HasPrefix(filepath.Base(p), "want.") || filepath.Base(p) == "expect.json" {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				out[r.Replace(rel)] = []byte(r.Replace(string(data)))
				return nil
			})
			return out
		},
		terminal: true,
		check: func(t *testing.T, rep *report.Report, stderr string) {
			if len(rep.Findings) == 0 {
				t.Fatal("no finding: the case does not reach the rule")
			}
			if !strings.Contains(rep.Findings[0].Title, "\x1b") && !strings.Contains(rep.Findings[0].Subject.Node, "\x1b") {
				t.Fatalf("the escape did not reach the finding: %q", rep.Findings[0].Title)
			}
			for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
				if strings.Contains(stderr, bad) {
					t.Errorf("%q reached the terminal", bad)
				}
			}
			if !strings.Contains(stderr, `\x1b[2J`) {
				t.Error("the escape is not shown escaped")
			}
		},
	},
	{
		// Defect 1: a FIFO or a device never ends, or blocks open forever.
		name:     "special-files",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			return map[string][]byte{
				"ns_server.indexer.log":                 []byte(indexerLog(2)),
				hostileFolder + "ns_server.indexer.log": []byte(indexerLog(3)),
			}
		},
		setup: func(t *testing.T, dir string) {
			for _, p := range []string{"named.fifo", hostileFolder + "memcached.log"} {
				if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			}
		},
		args: []string{"named.fifo", "/dev/zero", "/dev/urandom", hostileFolder, "ns_server.indexer.log"},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "a named pipe (FIFO), not a regular file", true)
			wantProblem(t, rep, "a character device, not a regular file", true)
			wantSource(t, rep, "ns_server.indexer.log", 4)
			wantSource(t, rep, hostileFolder+"ns_server.indexer.log", 6)
			skipped := false
			for _, s := range rep.Skipped {
				skipped = skipped || strings.HasSuffix(s.Path, "memcached.log") && strings.Contains(s.Reason, "named pipe")
			}
			if !skipped {
				t.Errorf("the FIFO inside the folder is not counted as skipped: %+v", rep.Skipped)
			}
		},
	},
	{
		name: "not-logs",
		files: func(t *testing.T) map[string][]byte {
			return map[string][]byte{
				"core.12345":            append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0, 1, 2, 3}, 256)...),
				"notes.txt":             []byte("Customer says the indexer was slow after the upgrade.\n"),
				"ns_server.indexer.log": []byte(indexerLog(2)),
			}
		},
		args: []string{"core.12345", "notes.txt", "ns_server.indexer.log"},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "binary file, not a log", true)
			wantProblem(t, rep, "not a format forensics reads", true)
			wantSource(t, rep, "ns_server.indexer.log", 4)
		},
	},
}

func projectorLog(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "2022-07-21T17:39:%02d.%03d-07:00 [Info] KVDT[<-test3<-127.0.0.1:8091 #MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd] ##1 feed started ...\n", 10+i/1000, i%1000)
	}
	return b.String()
}

// setEncrypted sets the encryption flag of a member in both its local and
// central headers, as an encrypting zip tool would.
func setEncrypted(z []byte, name string) {
	for _, sig := range [][]byte{[]byte("PK\x03\x04"), []byte("PK\x01\x02")} {
		for i := 0; ; {
			j := bytes.Index(z[i:], sig)
			if j < 0 {
				break
			}
			at := i + j
			nameOff, flagOff := at+30, at+6
			if sig[2] == 1 {
				nameOff, flagOff = at+46, at+8
			}
			if bytes.HasPrefix(z[nameOff:], []byte(name)) {
				flags := binary.LittleEndian.Uint16(z[flagOff:])
				binary.LittleEndian.PutUint16(z[flagOff:], flags|1)
			}
			i = at + 4
		}
	}
}

func TestHostileInputs(t *testing.T) {
	for _, hc := range hostileCases {
		t.Run(hc.name, func(t *testing.T) {
			dir, _ := filepath.Abs(filepath.Join("../../testdata/hostile", hc.name))
			if hc.generate {
				dir = t.TempDir()
			}
			if hc.generate || *update {
				os.RemoveAll(dir)
				for name, data := range hc.files(t) {
					p := filepath.Join(dir, name)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if hc.setup != nil {
				hc.setup(t, dir)
			}
			t.Chdir(dir)
			args := hc.args
			if len(args) == 0 {
				entries, err := os.ReadDir(".")
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					args = append(args, e.Name())
				}
			}
			db := filepath.Join(t.TempDir(), "t.db")
			var stdout, stderr bytes.Buffer
			code := runBounded(t, append([]string{"analyze", "--db", db, "--format", "json"}, args...), &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var rep report.Report
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.Problems {
				if p.Path == "" || p.Reason == "" {
					t.Errorf("a problem without a path or reason: %+v", p)
				}
			}
			for _, s := range rep.Sources {
				if s.Lines != s.Events+s.Plain+s.Skipped {
					t.Errorf("%s: lines %d != events %d + plain %d + skipped %d", s.Path, s.Lines, s.Events, s.Plain, s.Skipped)
				}
			}
			// The table output goes to a terminal: it must escape what it shows.
			stdout.Reset()
			stderr.Reset()
			run(append([]string{"analyze", "--db", db}, args...), &stdout, &stderr)
			if hc.terminal {
				run([]string{"findings", "--db", db}, &stdout, &stderr)
				for _, f := range rep.Findings {
					run([]string{"show", "--db", db, f.ID}, &stdout, &stderr)
				}
			}
			hc.check(t, &rep, stdout.String()+stderr.String())
		})
	}
}

// Hostile timelines: --db names something that is not forensics' own, or
// is in use.
func TestHostileTimelines(t *testing.T) {
	log := filepath.Join(t.TempDir(), "ns_server.indexer.log")
	os.WriteFile(log, []byte(indexerLog(5)), 0o644)

	t.Run("another-program-db", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "places.sqlite")
		db, err := sql.Open("sqlite3", "file:"+p)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)`, `INSERT INTO meta VALUES ('schema', '1')`, `CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)`} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		before, _ := os.ReadFile(p)
		var stdout, stderr bytes.Buffer
		if code := runBounded(t, []string{"analyze", "--db", p, log}, &stdout, &stderr); code == exitOK {
			t.Fatal("analyze wrote into another program's database")
		}
		if !strings.Contains(stderr.String(), "not a forensics timeline: it is a SQLite database of another application (tables meta, moz_places), left untouched") {
			t.Errorf("stderr: %s", stderr.String())
		}
		for _, args := range [][]string{{"findings", "--db", p}, {"timeline", "query", "--db", p, "--sql", "SELECT 1"}} {
			if code := runBounded(t, args, &stdout, &stderr); code == exitOK {
				t.Errorf("%q opened another program's database", args)
			}
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
			t.Error("the database was changed")
		}
		if _, err := os.Stat(p + "-wal"); err == nil {
			t.Error("a WAL was created next to it")
		}
	})

	t.Run("read-only-media", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "t.db")
		var stdout, stderr bytes.Buffer
		if code := runBounded(t, []string{"analyze", "--db", p, log}, &stdout, &stderr); code != exitOK {
			t.Fatalf("analyze: exit %d: %s", code, stderr.String())
		}
		// chattr +i makes the folder refuse new files even for root, as a
		// read-only mount or a DVD does.
		if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
			t.Skipf("chattr: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
		for _, args := range [][]string{
			{"findings", "--db", p},
			{"timeline", "query", "--db", p, "--sql", "SELECT count(*) AS n FROM sources"},
		} {
			stdout.Reset()
			stderr.Reset()
			if code := runBounded(t, args, &stdout, &stderr); code != exitOK {
				t.Errorf("%q on read-only media: exit %d: %s", args, code, stderr.String())
			}
		}
		if !strings.Contains(stdout.String(), "1") {
			t.Errorf("the query saw no source: %s", stdout.String())
		}
	})

	t.Run("corrupt-block", func(t *testing.T) {
		dir := t.TempDir()
		big := filepath.Join(dir, "ns_server.indexer.log")
		os.WriteFile(big, []byte(indexerLog(2000)), 0o644) // 4,000 lines: a few blocks
		p := filepath.Join(dir, "t.db")
		var stdout, stderr bytes.Buffer
		if code := runBounded(t, []string{"analyze", "--db", p, big}, &stdout, &stderr); code != exitOK {
			t.Fatalf("analyze: exit %d: %s", code, stderr.String())
		}
		db, err := sql.Open("sqlite3", "file:"+p)
		if err != nil {
			t.Fatal(err)
		}
		var lastFirst int64
		if err := db.QueryRow(`SELECT max(first_line) FROM blocks`).Scan(&lastFirst); err != nil || lastFirst < 2 {
			t.Fatalf("the log took one block (last first line %d, %v)", lastFirst, err)
		}
		if _, err := db.Exec(`UPDATE blocks SET data = x'ff00ff00' WHERE first_line = ?`, lastFirst); err != nil {
			t.Fatal(err)
		}
		db.Close()
		stdout.Reset()
		stderr.Reset()
		if code := runBounded(t, []string{"timeline", "query", "--db", p, "--format", "raw"}, &stdout, &stderr); code == exitOK {
			t.Fatal("a query over a corrupt block succeeded")
		}
		if !strings.Contains(stderr.String(), "corrupt block") || !strings.Contains(stderr.String(), "ns_server.indexer.log") {
			t.Errorf("stderr does not say which block of which file: %s", stderr.String())
		}
		// Every line before the damaged block is shown, whole.
		if got := strings.Count(stdout.String(), "\n"); int64(got) != lastFirst-1 || !strings.HasSuffix(stdout.String(), "\n") {
			t.Errorf("%d lines shown before the error, want %d", got, lastFirst-1)
		}
	})

	t.Run("concurrent-analyze", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "t.db")
		holder, err := sqlite.Open(p) // as a running analyze holds it
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := runBounded(t, []string{"analyze", "--db", p, log}, &stdout, &stderr)
		if code == exitOK || !strings.Contains(stderr.String(), fmt.Sprintf("in use by pid %d", os.Getpid())) {
			t.Errorf("second analyze: exit %d: %s", code, stderr.String())
		}
		holder.Close()
		stderr.Reset()
		if code := runBounded(t, []string{"analyze", "--db", p, log}, &stdout, &stderr); code != exitOK {
			t.Errorf("analyze after the first ended: exit %d: %s", code, stderr.String())
		}
	})
}

// hostileDeadline bounds each run of a hostile case: a hang is a failure,
// not a test that never ends. It is far above what any case needs.
const hostileDeadline = 2 * time.Minute

func runBounded(t *testing.T, args []string, stdout, stderr *bytes.Buffer) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileDeadline)
	defer cancel()
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() { done <- run(args, &out, &errb) }()
	select {
	case code := <-done:
		stdout.Write(out.Bytes())
		stderr.Write(errb.Bytes())
		return code
	case <-ctx.Done():
		t.Fatalf("analyze %q did not end within %s", args, hostileDeadline)
		return -1
	}
}

func findSource(rep *report.Report, suffix string) *report.Source {
	for i := range rep.Sources {
		if rep.Sources[i].Path == suffix {
			return &rep.Sources[i]
		}
	}
	for i := range rep.Sources {
		if strings.HasSuffix(rep.Sources[i].Path, suffix) {
			return &rep.Sources[i]
		}
	}
	return nil
}

func wantSource(t *testing.T, rep *report.Report, suffix string, lines int64) *report.Source {
	t.Helper()
	s := findSource(rep, suffix)
	if s == nil {
		var paths []string
		for _, s := range rep.Sources {
			paths = append(paths, s.Path)
		}
		t.Errorf("no source %s among %q", suffix, paths)
		return nil
	}
	if s.Lines != lines {
		t.Errorf("%s: %d lines, want %d", s.Path, s.Lines, lines)
	}
	return s
}

func wantProblem(t *testing.T, rep *report.Report, text string, lost bool) {
	t.Helper()
	for _, p := range rep.Problems {
		if strings.Contains(p.Reason, text) {
			if p.Lost != lost {
				t.Errorf("problem %q: lost = %v, want %v", p.Reason, p.Lost, lost)
			}
			return
		}
	}
	t.Errorf("no problem saying %q; problems: %+v", text, rep.Problems)
}
