package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Completion works in a bash without the bash-completion package: an
// interactive bash started with --norc on a terminal, the script sourced,
// and Tab pressed as a user presses it.
func TestBashCompletionWithoutPackage(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("forensics"); err != nil {
		t.Fatalf("forensics is not on PATH: %v", err)
	}
	dir := t.TempDir()
	for _, f := range []string{"timeline.db", "timeline.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	term := openTerminal(t)
	term.resize(120)
	term.start(dir, bash, "--norc", "--noprofile", "-i")
	term.send("PS1='ready> '; source <(forensics completion bash); declare -F _get_comp_words_by_ref _filedir || echo no-package\n")
	term.wait(0, `no-package\r?\nready> $`)

	for _, c := range []struct{ typed, want string }{
		{"forensics an", "forensics analyze "},
		{"forensics analyze --format=ma", "forensics analyze --format=markdown "},
		{"forensics rules explain kv-str", "forensics rules explain kv-stream-before-traffic "},
		{"forensics timeline sch", "forensics timeline schema "},
		{"forensics findings --db time", "forensics findings --db timeline.db "}, // SQLite files only
	} {
		from := len(term.output())
		term.send(c.typed + "\t")
		out := term.wait(from, regexp.QuoteMeta(c.want)+`$`)
		if strings.Contains(out, "command not found") {
			t.Errorf("%q + Tab: %s", c.typed, out)
		}
		term.send("\x15") // Ctrl-U clears the line for the next one
	}
	term.send("exit\n")
}
