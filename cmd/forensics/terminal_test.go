package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"forensics/report"
	"forensics/rules"
)

// TestOutputFitsTheTerminal runs forensics on a terminal of 80 and of 100
// columns, as a user's shell runs it ($COLUMNS unset: the width is the
// terminal's), and checks that no line it prints is wider: the findings, the
// summary of the inputs, the evidence (node and file, and the line as
// logged, wrapped or shortened), show, the documentation of the rules and
// the help.
func TestOutputFitsTheTerminal(t *testing.T) {
	cases := []string{"couchbase/seed", "crdb/debug-requests-seed", "crdb/json-log", "vitess/both-deny", "couchbase/seed-8.0.0"}
	for _, width := range []int{80, 100} {
		for _, c := range cases {
			abs, inputs := caseInputs(t, filepath.Join("../../testdata", c))
			for i := range inputs {
				// Absolute paths, as a user gives them: the evidence still
				// names the node and the file inside its folder.
				inputs[i] = filepath.Join(abs, inputs[i])
			}
			db := filepath.Join(t.TempDir(), "t.db")
			screen := onTerminal(t, width, append([]string{"analyze", "--db", db}, inputs...)...)
			checkWidth(t, c+" analyze", screen, width)
			if strings.Contains(strings.Join(screen, "\n"), abs) {
				t.Errorf("%s at %d columns: the output names the input's absolute path", c, width)
			}
			// The findings are what is left on the screen: the summary of
			// the inputs comes first, and the table of the findings last.
			summary, table := -1, -1
			for i, l := range screen {
				if summary < 0 && strings.Contains(l, " read, ") {
					summary = i
				}
				if table < 0 && strings.HasPrefix(l, "┌") {
					table = i
				}
			}
			if summary < 0 || table < 0 || summary > table {
				t.Errorf("%s at %d columns: the summary of the inputs (line %d) is not before the findings (line %d)", c, width, summary, table)
			}
			var out bytes.Buffer
			if code := run([]string{"findings", "--db", db, "--format", "json"}, &out, io.Discard); code != exitOK {
				t.Fatalf("findings: exit %d", code)
			}
			var fs []struct{ ID string }
			if err := json.Unmarshal(out.Bytes(), &fs); err != nil {
				t.Fatal(err)
			}
			if len(fs) > 1 && !strings.HasPrefix(lastNonEmpty(screen), "└") {
				t.Errorf("%s at %d columns: the table of the findings is not repeated at the end", c, width)
			}
			for _, f := range fs {
				checkWidth(t, c+" show "+f.ID, onTerminal(t, width, "show", "--db", db, f.ID), width)
			}
		}
		for _, args := range [][]string{
			{"rules", "list"}, {"rules", "list", "--full"}, {"timeline", "kinds"}, {"timeline", "schema"},
			{"--help"}, {"analyze", "--help"}, {"show", "--help"}, {"timeline", "query", "--help"}, {"version"},
		} {
			checkWidth(t, strings.Join(args, " "), onTerminal(t, width, args...), width)
		}
	}
}

// Prose is wrapped between words: every word of the rules' documentation
// is whole in rules list at 80 columns.
func TestRulesListWrapsBetweenWords(t *testing.T) {
	screen := onTerminal(t, 80, "rules", "list")
	words := map[string]bool{}
	for _, l := range screen {
		for _, w := range strings.Fields(l) {
			words[w] = true
		}
	}
	for _, r := range rules.All() {
		for _, w := range strings.Fields(firstParagraph(r.Doc.Detects)) {
			if !words[w] && utf8.RuneCountInString(w) < 70 {
				t.Errorf("rules list at 80 columns broke %q (%s)", w, r.Name)
			}
		}
	}
}

// onTerminal runs forensics on a terminal width columns wide and returns
// the lines left on its screen.
func onTerminal(t *testing.T, width int, args ...string) []string {
	t.Helper()
	term := openTerminal(t)
	term.resize(width)
	code, out := term.run(args...)
	if code != exitOK {
		t.Fatalf("forensics %s on a terminal: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return screenLines(out)
}

func checkWidth(t *testing.T, what string, screen []string, width int) {
	t.Helper()
	wide := 0
	for _, l := range screen {
		if n := utf8.RuneCountInString(l); n > width {
			wide++
			if wide <= 3 {
				t.Errorf("%s at %d columns: a line of %d columns:\n%s", what, width, n, l)
			}
		}
	}
	if wide > 3 {
		t.Errorf("%s at %d columns: %d lines wider than the terminal", what, width, wide)
	}
}

func lastNonEmpty(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

// Evidence is never cut where a reader needs it whole: show prints every
// evidence line whole on a narrow terminal (wrapped, nothing left out), and
// analyze --wide, or --no-wrap, writes each one unwrapped on one line.
func TestEvidenceWhole(t *testing.T) {
	abs, inputs := caseInputs(t, "../../testdata/couchbase/seed")
	for i := range inputs {
		inputs[i] = filepath.Join(abs, inputs[i])
	}
	db := filepath.Join(t.TempDir(), "t.db")
	var fs struct {
		Findings []struct {
			ID       string
			Evidence []struct{ Text string }
		}
	}
	if err := json.Unmarshal(analyzeJSON(t, db, inputs...), &fs); err != nil {
		t.Fatal(err)
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	long := 0
	for _, f := range fs.Findings {
		screen := squeeze(strings.Join(onTerminal(t, 80, "show", "--db", db, f.ID), "\n"))
		for _, e := range f.Evidence {
			if utf8.RuneCountInString(e.Text) > 80 {
				long++
			}
			if !strings.Contains(screen, squeeze(report.Escape(e.Text))) {
				t.Errorf("show %s at 80 columns does not print the evidence line whole: %s", f.ID, e.Text)
			}
		}
	}
	if long == 0 {
		t.Fatal("no evidence line is wider than the terminal: the test shows nothing")
	}
	for _, flag := range []string{"--wide", "--no-wrap"} {
		screen := onTerminal(t, 80, append([]string{"analyze", "--db", filepath.Join(t.TempDir(), "w.db"), flag}, inputs...)...)
		lines := strings.Join(screen, "\n")
		for _, f := range fs.Findings {
			for _, e := range f.Evidence {
				if !strings.Contains(lines, report.Escape(e.Text)) {
					t.Errorf("analyze %s at 80 columns does not write the evidence line whole on one line: %s", flag, e.Text)
				}
			}
		}
	}
}

// TestRunSideBySide runs commands side by side in one process, as the
// shared store's load test and a program embedding run do: each prints
// what it prints alone (and the race detector, which CI runs on this
// test, finds no state shared between them).
func TestRunSideBySide(t *testing.T) {
	commands := [][]string{
		{"--help"},
		{"analyze", "--help"},
		{"timeline", "query", "--help"},
		{"rules", "list"},
	}
	alone := make([]string, len(commands))
	for i, args := range commands {
		alone[i] = runOK(t, args...)
	}
	var wg sync.WaitGroup
	for range 4 {
		for i, args := range commands {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var stdout, stderr bytes.Buffer
				if code := run(args, &stdout, &stderr); code != exitOK || stdout.String() != alone[i] {
					t.Errorf("forensics %s side by side: exit %d, %d bytes (alone: %d)\n%s", strings.Join(args, " "), code, stdout.Len(), len(alone[i]), stderr.String())
				}
			}()
		}
	}
	wg.Wait()
}
