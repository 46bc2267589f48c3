package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"forensics"
	"forensics/expect"
	"forensics/report"
	"forensics/shell"
)

// The tools fix commands call (shell.Tools). Each is replaced by a stub
// that records its arguments, so running a command shows exactly what a
// pasted command would run, and nothing of the real cluster (or network)
// is touched. A command whose program is not among them is not run at all.
var stubbedTools = shell.Tools

// TestFixCommandsRunOnlyTheirTool pastes every command of every finding of
// every bundled case, and of cases whose names were made hostile, into
// bash, its placeholders filled in: as JSON gives it, and as the terminal
// shows it at 80 columns (where a long command goes on over several rows).
// Each must run its tool and nothing else, with the arguments the command
// shows and the flags the tool cannot run without, and no injected command
// may run.
func TestFixCommandsRunOnlyTheirTool(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dirs, err := expect.Find("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	// The cases beside the built-in rule files too.
	ruleDirs, err := expect.Find("../../rules")
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, ruleDirs...)
	type tcase struct {
		name   string
		inputs func(t *testing.T) (dir string, inputs []string)
	}
	var cases []tcase
	for _, dir := range dirs {
		name, err := filepath.Rel("../../testdata", dir)
		if err != nil || strings.HasPrefix(name, "..") {
			name, _ = filepath.Rel("../..", dir)
		}
		abs, _ := filepath.Abs(dir)
		cases = append(cases, tcase{name, func(t *testing.T) (string, []string) {
			c, err := expect.Load(abs)
			if err != nil {
				t.Fatal(err)
			}
			inputs, err := c.InputPaths()
			if err != nil {
				t.Fatal(err)
			}
			return abs, inputs
		}})
	}
	for _, h := range hostileNameCases {
		h := h
		cases = append(cases, tcase{"hostile/" + h.name, func(t *testing.T) (string, []string) {
			dir := t.TempDir()
			copyReplacing(t, filepath.Join("../../testdata", h.from), dir, h.replace, h.only)
			entries, _ := os.ReadDir(dir)
			var inputs []string
			for _, e := range entries {
				inputs = append(inputs, filepath.Join(dir, e.Name()))
			}
			return dir, inputs
		}})
	}

	total := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, inputs := tc.inputs(t)
			db := filepath.Join(t.TempDir(), "t.db")
			out := analyzeJSON(t, db, inputs...)
			var rep report.Report
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatal(err)
			}
			var md bytes.Buffer
			if code := run(append([]string{"analyze", "--db", db, "--format", "markdown"}, inputs...), &md, &bytes.Buffer{}); code != exitOK && code != exitFindings {
				t.Fatalf("analyze --format markdown: exit %d", code)
			}
			var page bytes.Buffer
			if code := run(append([]string{"analyze", "--db", db, "--format", "html"}, inputs...), &page, &bytes.Buffer{}); code != exitOK && code != exitFindings {
				t.Fatalf("analyze --format html: exit %d", code)
			}
			t.Setenv("COLUMNS", "80")
			var table bytes.Buffer
			if code := run(append([]string{"analyze", "-q", "--db", db}, inputs...), &table, &bytes.Buffer{}); code != exitOK && code != exitFindings {
				t.Fatalf("analyze: exit %d", code)
			}
			shown := terminalCommands(table.String())
			for _, f := range rep.Findings {
				for _, fx := range f.Fixes {
					for _, c := range fx.Commands {
						total++
						if !strings.Contains(md.String(), c) {
							t.Errorf("the Markdown report does not show the command as JSON gives it: %s", c)
						}
						// The copy button copies the text of the code element.
						if !strings.Contains(page.String(), "<code>"+html.EscapeString(c)+"</code>") {
							t.Errorf("the HTML report's copy button does not hold the command as JSON gives it: %s", c)
						}
						checkCommand(t, bash, c, c)
						for _, p := range shell.PlaceholdersIn(c) {
							if !strings.Contains(md.String(), "- `"+p.Name+"`: ") {
								t.Errorf("the Markdown report does not say what to put in place of %s", p.Name)
							}
							if !strings.Contains(table.String(), " "+p.Name+"  ") {
								t.Errorf("the table does not say what to put in place of %s", p.Name)
							}
						}
					}
				}
			}
			// As shown in a terminal of 80 columns, every command pastes
			// into bash as the command JSON gives.
			var all []string
			for _, f := range rep.Findings {
				for _, fx := range f.Fixes {
					all = append(all, fx.Commands...)
				}
			}
			if len(shown) != len(all) {
				t.Fatalf("the table shows %d commands, JSON has %d", len(shown), len(all))
			}
			for i, c := range shown {
				checkCommand(t, bash, c, all[i])
			}
			for _, h := range hostileNameCases {
				if "hostile/"+h.name == tc.name {
					h.check(t, &rep)
				}
			}
		})
	}
	if total == 0 {
		t.Fatal("no command was checked")
	}
}

// terminalCommands returns the fix commands of analyze's table output as
// a person would copy them from the terminal: each "$ " row, and the rows
// it goes on over after a backslash.
func terminalCommands(out string) []string {
	var cmds []string
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		_, c, ok := strings.Cut(lines[i], "       $ ")
		if !ok || strings.TrimSpace(lines[i][:strings.Index(lines[i], "$ ")]) != "" {
			continue
		}
		for strings.HasSuffix(c, "\\") && i+1 < len(lines) {
			i++
			c += "\n" + lines[i]
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// fillPlaceholders puts a value of the right shape in place of each
// placeholder, as the person running the command does.
func fillPlaceholders(command string) string {
	for _, p := range shell.Placeholders {
		command = regexp.MustCompile(`\b`+p.Name+`\b`).ReplaceAllString(command, p.Example)
	}
	return command
}

// upperWord is a word in upper case, which in a command is a placeholder
// unless it is a value the tool takes in upper case.
var upperWord = regexp.MustCompile(`(^|[^A-Za-z0-9_])([A-Z][A-Z0-9_]*[A-Z0-9])($|[^A-Za-z0-9_])`)

// upperValues are the values tools take in upper case (Vitess tablet types).
var upperValues = map[string]bool{"PRIMARY": true, "REPLICA": true, "RDONLY": true}

// checkCommand pastes pasted (a command as shown, placeholders and all)
// into bash and checks that it runs what command (as JSON gives it) says.
func checkCommand(t *testing.T, bash, pasted, command string) {
	t.Helper()
	want, err := splitCommand(fillPlaceholders(command))
	if err != nil {
		t.Errorf("%s: %v", command, err)
		return
	}
	for _, argv := range want {
		for i, w := range argv {
			if i > 0 && argv[i-1] == "-e" && argv[0] == "cockroach" {
				continue // SQL, in upper case by custom
			}
			for _, m := range upperWord.FindAllStringSubmatch(w, -1) {
				if !upperValues[m[2]] {
					t.Errorf("%s: %s is in upper case but is not a placeholder the fix lists (shell.Placeholders)", command, m[2])
				}
			}
		}
	}
	for _, argv := range want {
		if !slices.Contains(stubbedTools, argv[0]) {
			t.Errorf("%s: %s has no stub in stubbedTools: add one (the test never runs a real tool)", command, argv[0])
			return
		}
	}
	work := t.TempDir()
	stubs := t.TempDir()
	log := filepath.Join(work, "argv.log")
	for _, tool := range stubbedTools {
		// One file per invocation (the commands of a pipeline run at
		// once), its arguments NUL-separated; then what the real tool
		// refuses to run without.
		script := "#!" + bash + "\nprintf '%s\\0' \"${0##*/}\" \"$@\" > \"$STUB_LOG.$$\"\n" + toolNeeds[tool]
		if err := os.WriteFile(filepath.Join(stubs, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bash, "--noprofile", "--norc", "-c", fillPlaceholders(pasted))
	cmd.Dir = work
	// The real PATH stays after the stubs: an injected command would really run.
	cmd.Env = []string{"PATH=" + stubs + string(os.PathListSeparator) + os.Getenv("PATH"), "STUB_LOG=" + log, "HOME=" + work}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: %v: %s", pasted, err, out)
	}
	logs, _ := filepath.Glob(log + ".*")
	var got [][]string
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		got = append(got, strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00"))
	}
	// The commands of a pipeline start together, in no set order.
	if a, b := invocations(got), invocations(want); a != b {
		t.Errorf("%s\nran   %q\nwant  %q", command, got, want)
	}
	entries, _ := os.ReadDir(work)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "argv.log.") {
			t.Errorf("%s: created %s: something else than its tool ran", command, e.Name())
		}
	}
}

// toolNeeds are what the clients refuse to run without, checked by their
// stubs: vtctldclient every command without --server (vitessio/vitess
// go/cmd/vtctldclient/command/root.go, errNoServer); a cockroach client
// command a node to connect to and the client certificates, or --insecure
// (cockroachdb/cockroach pkg/cli/cliflags); cockroach sql a statement.
var toolNeeds = map[string]string{
	"vtctldclient": `[[ " $* " == *" --server "?* || " $* " == *" --server="?* ]] || { echo "please specify --server <vtctld_host:vtctld_port>" >&2; exit 1; }
`,
	"cockroach": `[[ " $* " == *" --host="?* ]] || { echo "cockroach $1: no --host: this would connect to localhost" >&2; exit 1; }
[[ " $* " == *" --certs-dir="?* || " $* " == *" --insecure "* ]] || { echo "cockroach $1: no --certs-dir or --insecure" >&2; exit 1; }
[[ $1 != sql || " $* " == *" -e "?* ]] || { echo "cockroach sql: no -e statement: it would wait for input" >&2; exit 1; }
`,
}

func invocations(argvs [][]string) string {
	s := make([]string, len(argvs))
	for i, a := range argvs {
		s[i] = fmt.Sprintf("%q", a)
	}
	sort.Strings(s)
	return strings.Join(s, "\n")
}

// splitCommand reads a command line as forensics writes it (shell.Split).
func splitCommand(s string) ([][]string, error) { return shell.Split(s, false) }

// hostileNameCase is a bundled case with names replaced by hostile ones
// throughout its evidence.
type hostileNameCase struct {
	name    string
	from    string // testdata folder
	replace []string
	only    string // when set, the replacements apply only to files of this name
	check   func(t *testing.T, rep *report.Report)
}

var hostileNameCases = []hostileNameCase{
	{
		name: "vitess-workflow-injection",
		from: "vitess/both-deny",
		replace: []string{
			"legacy2payments", "legacy2payments$(touch${IFS}PWNED)",
			`"refund"`, `"refund;id"`,
		},
		check: func(t *testing.T, rep *report.Report) {
			f := findingOf(t, rep, "vitess-denied-tables-routing")
			if f == nil {
				return
			}
			said := false
			for _, fx := range f.Fixes {
				if len(fx.Commands) > 0 {
					t.Errorf("a fix with an invalid name still has commands: %q", fx.Commands)
				}
				for _, s := range fx.Steps {
					said = said || strings.Contains(s, "No command is given") && strings.Contains(s, "not a valid")
				}
			}
			if !said {
				t.Error("no fix says why its commands were left out")
			}
		},
	},
	{
		// A valid name that needs quoting: a /regexp/ entry of a denied
		// tables list holds ^ and $, which a shell would act on.
		name:    "vitess-regexp-entry",
		from:    "vitess/both-deny",
		replace: []string{`"refund"`, `"/^refund$/"`},
		only:    "shards.txt",
		check: func(t *testing.T, rep *report.Report) {
			f := findingOf(t, rep, "vitess-denied-tables-routing")
			if f == nil {
				return
			}
			want := "'--denied-tables=invoice,payment,/^refund$/'"
			for _, fx := range f.Fixes {
				for _, c := range fx.Commands {
					if strings.Contains(c, want) {
						return
					}
				}
			}
			t.Errorf("no command carries the quoted entry %s", want)
		},
	},
	{
		name:    "couchbase-bucket-backticks",
		from:    "couchbase/seed",
		replace: []string{"test3", "te`touch PWNED`st3"},
		check: func(t *testing.T, rep *report.Report) {
			f := findingOf(t, rep, "kv-stream-before-traffic")
			if f == nil {
				return
			}
			said := false
			for _, fx := range f.Fixes {
				for _, c := range fx.Commands {
					if strings.Contains(c, "PWNED") {
						t.Errorf("a command carries the invalid bucket name: %s", c)
					}
				}
				for _, s := range fx.Steps {
					said = said || strings.Contains(s, "No command is given") && strings.Contains(s, "not a valid Couchbase bucket name")
				}
			}
			if !said {
				t.Error("no fix says why its commands were left out")
			}
		},
	},
}

func findingOf(t *testing.T, rep *report.Report, rule string) *forensics.Finding {
	t.Helper()
	for i := range rep.Findings {
		if rep.Findings[i].Rule == rule {
			return &rep.Findings[i]
		}
	}
	t.Errorf("no %s finding", rule)
	return nil
}

// copyReplacing copies the case's evidence (not its goldens) with the
// replacements applied to every file's content.
func copyReplacing(t *testing.T, from, to string, replace []string, only string) {
	t.Helper()
	r := strings.NewReplacer(replace...)
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		base := filepath.Base(p)
		if info.IsDir() || strings.HasPrefix(base, "want.") || base == "expect.json" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, r.Replace(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if only != "" && base != only {
			return os.WriteFile(filepath.Join(to, rel), data, 0o644)
		}
		return os.WriteFile(dst, []byte(r.Replace(string(data))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
