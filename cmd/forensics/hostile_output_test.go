package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"forensics/store/postgres/pgtest"
)

// Output injection: evidence whose names and lines carry what a terminal
// acts on (ANSI escapes, OSC titles and hyperlinks, bells, carriage
// returns, C1 controls), what makes text read as something else
// (bidirectional overrides) and what shows as nothing (zero-width
// characters, the soft hyphen, tag characters). Every command that prints
// from a timeline, in every format, run on a real terminal (a
// pseudo-terminal), on both stores, must show them escaped.

// injected replaces names and words of the seed with hostile ones: the
// node's address (in folder names, so in paths and node names too), the
// bucket (in the subject, titles and fix commands), and words of the
// log lines.
var injected = strings.NewReplacer(
	"172.23.100.15", "\x1b[2J\x1b]0;owned\x07\x1b]8;;https:evil.example\x07172.23.100.15\x1b]8;;\x07",
	"test3", "test3\u202e\u200b\u2060\u00ad\u180e\U000e0041\u009b31m\u200c\u200d",
)

// forbidden finds what must never reach a terminal raw.
var forbidden = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\U000e0000-\U000e007f]")

// injectedSeed writes the seed incident with the injected names into dir.
func injectedSeed(t *testing.T, dir string) {
	t.Helper()
	from := "../../testdata/couchbase/seed"
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || strings.HasPrefix(info.Name(), "want.") || info.Name() == "expect.json" {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		to := filepath.Join(dir, injected.Replace(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, []byte(injected.Replace(string(data))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkTerminal(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8 reached the terminal", what)
	}
	if m := forbidden.FindStringIndex(out); m != nil {
		from := max(0, m[0]-60)
		t.Errorf("%s: %q reached the terminal raw: …%q…", what, out[m[0]:m[1]], out[from:min(len(out), m[1]+20)])
	}
}

func TestHostileOutputsOnTerminal(t *testing.T) {
	dir := t.TempDir()
	injectedSeed(t, dir)
	var inputs []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		inputs = append(inputs, filepath.Join(dir, e.Name()))
	}
	incident := "incident\x1b[31m\u202e\u200b"
	local := filepath.Join(t.TempDir(), "t.db")
	runOK(t, append([]string{"analyze", "--db", local, "--incident", incident, "--format", "json"}, inputs...)...)
	out := runOK(t, "findings", "--db", local, "--format", "json")
	id := regexp.MustCompile(`"id": "([0-9a-f]{12})"`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no finding: the injected seed does not reach the rule:\n%s", out)
	}
	term := openTerminal(t)
	code, got := term.run(append([]string{"analyze", "-q", "--db", filepath.Join(t.TempDir(), "a.db"), "--incident", incident}, inputs...)...)
	if code != exitOK {
		t.Fatalf("analyze on a terminal: exit %d\n%s", code, got)
	}
	checkTerminal(t, "analyze", got)
	if !strings.Contains(got, `\x1b[2J`) || !strings.Contains(got, `\u202e`) || !strings.Contains(got, `\U000e0041`) {
		t.Errorf("analyze does not show the escapes escaped:\n%s", got)
	}
	for _, name := range []string{"sqlite", "postgres"} {
		db := local
		t.Run(name, func(t *testing.T) {
			if name == "postgres" {
				db = pgtest.Database(t)
				runOK(t, "push", local, "--to", db)
			}
			for _, args := range [][]string{
				{"findings"}, {"findings", "--format", "json"}, {"show", id[1]}, {"incidents"}, {"incidents", "--format", "json"},
				{"report", "--html", "-"},
				{"fleet", "findings"}, {"fleet", "findings", "--format", "json"},
				{"fleet", "similar", id[1]}, {"fleet", "similar", id[1], "--format", "json"},
				{"fleet", "grep", "Stream"}, {"fleet", "grep", "Stream", "--format", "json"},
				{"timeline", "query", "--incident", "all"},
				{"timeline", "query", "--incident", "all", "--format", "csv"},
				{"timeline", "query", "--incident", "all", "--format", "json"},
				{"timeline", "query", "--incident", "all", "--format", "jsonl"},
				{"timeline", "query", "--incident", "all", "--format", "raw"},
				{"timeline", "query", "--incident", "all", "--events", "--format", "csv"},
				{"timeline", "query", "--sql", "SELECT node, source, text FROM events"},
				{"timeline", "query", "--sql", "SELECT node, source, text FROM events", "--format", "csv"},
				{"timeline", "query", "--sql", "SELECT node, source, text FROM events", "--format", "raw"},
				{"timeline", "query", "--sql", "SELECT title, body FROM findings", "--format", "json"},
			} {
				args := append(append([]string{}, args...), "--db", db)
				code, got := term.run(args...)
				what := name + ": " + strings.Join(args[:len(args)-2], " ")
				if code != exitOK {
					t.Errorf("%s: exit %d\n%s", what, code, got)
					continue
				}
				if strings.Count(got, "\n") < 1 {
					t.Errorf("%s printed nothing", what)
				}
				checkTerminal(t, what, got)
			}
		})
	}
	for _, format := range []string{"markdown", "sarif", "json", "html"} {
		code, got := term.run(append([]string{"analyze", "-q", "--db", local, "--incident", incident, "--format", format}, inputs...)...)
		if code != exitOK {
			t.Errorf("analyze --format %s: exit %d\n%s", format, code, got)
		}
		checkTerminal(t, "analyze --format "+format, got)
	}
}
