package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/expect"
	"forensics/parsers"
	"forensics/report"
	"forensics/rules/rulefile"
	"forensics/yamldoc"
)

func newRulesTestCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "test DIR...",
		Short: "Test rule files against the cases beside them",
		Long: `test loads the format files and rule files in each DIR (NAME.yaml; a
file that does not load fails with its file, line and field), and runs each
rule alone over each case under the folder beside it, DIR/NAME/: a folder
holding the evidence of one incident and an expect.json, as forensics test
reads them. Every expected finding must be found and rules listed as absent
must stay silent. Each rule needs a case that must find and a near-miss (a
case listing the rule under "absent").

  team-rules/
    cb-view-timeouts.yaml           the rule
    cb-view-timeouts/
      storm/expect.json + evidence  must find
      one-slow-query/expect.json …  near-miss
    views.yaml                      a format file the rule reads

See docs/rules.md. It prints one line per case and a summary, and exits 1
when any case fails.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("rules test needs at least one DIR of rule files")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			lib := loadLibrary(cmd)
			lib.warn(cmd.ErrOrStderr())
			scratch, err := os.MkdirTemp("", "forensics-rules-test-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(scratch)
			t := &ruleTester{cmd: cmd, scratch: scratch, fail: func(what string, problems ...string) {
				fmt.Fprintf(out, "FAIL %s\n", what)
				for _, p := range problems {
					fmt.Fprintf(out, "       %s\n", report.EscapeLines(p, "       "))
				}
			}}
			for _, dir := range args {
				t.dir(dir, lib)
			}
			fmt.Fprintf(out, "%d passed, %d failed\n", t.passed, t.failed)
			if t.failed > 0 || len(lib.errs) > 0 {
				return &exitError{exitFailed, nil}
			}
			return nil
		},
	}
}

type ruleTester struct {
	cmd            *cobra.Command
	scratch        string
	passed, failed int
	fail           func(what string, problems ...string)
}

func (t *ruleTester) failf(what string, problems ...string) {
	t.failed++
	t.fail(what, problems...)
}

// dir tests the rule files of one folder, with its format files.
func (t *ruleTester) dir(dir string, lib *library) {
	files, errs := yamldoc.ReadDirs([]string{dir})
	for _, err := range errs {
		t.failf(dir, err.Error())
	}
	var formatFiles, ruleFiles []yamldoc.File
	for _, f := range files {
		if yamldoc.Declares(f.Data, "format") {
			formatFiles = append(formatFiles, f)
		} else {
			ruleFiles = append(ruleFiles, f)
		}
	}
	formats, formatsID, errs := parsers.LoadFiles(formatFiles)
	// The library's own format files (--formats-dir) come too.
	for _, f := range lib.formats {
		if !slices.ContainsFunc(formats, func(o forensics.Format) bool { return o.Name == f.Name }) {
			formats = append(formats, f)
		}
	}
	for _, err := range errs {
		t.failf(dir, err.Error())
	}
	vocab := rulefile.Vocab(parsers.KindsOf(formats))
	for _, file := range ruleFiles {
		rf, err := rulefile.Parse(file.Path, file.Data, vocab)
		if err != nil {
			t.failf(file.Path, strings.Split(err.Error(), "\n")...)
			continue
		}
		caseLib := &library{rules: lib.rules, formats: formats, formatsID: formatsID}
		t.rule(rf, caseLib)
	}
	if len(ruleFiles) == 0 {
		t.failf(dir, "no rule files (NAME.yaml) in the folder")
	}
}

// rule runs one rule alone over the cases beside its file.
func (t *ruleTester) rule(rf *rulefile.File, lib *library) {
	r := rf.Rule
	casesDir := strings.TrimSuffix(rf.Path, filepath.Ext(rf.Path))
	dirs, err := expect.Find(casesDir)
	if err != nil || len(dirs) == 0 {
		t.failf(rf.Path, fmt.Sprintf("no cases: put each in a folder under %s/, with its evidence and an expect.json (a case that must find the rule and a near-miss listing it under \"absent\")", casesDir))
		return
	}
	finds, misses := false, false
	for i, dir := range dirs {
		c, err := expect.Load(dir)
		if err != nil {
			t.failf(dir, err.Error())
			continue
		}
		finds = finds || slices.ContainsFunc(c.Findings, func(f expect.Finding) bool { return f.Rule == r.Name })
		misses = misses || slices.Contains(c.Absent, r.Name)
		inputs, err := c.InputPaths()
		if err != nil {
			t.failf(dir, err.Error())
			continue
		}
		db := filepath.Join(t.scratch, fmt.Sprintf("%s-%d.db", r.Name, i))
		found, problems := checkCase(t.cmd.Context(), c, inputs, db, lib, []*forensics.Rule{r})
		if len(problems) > 0 {
			t.failf(dir, problems...)
			continue
		}
		t.passed++
		fmt.Fprintf(t.cmd.OutOrStdout(), "ok   %s (%s)\n", dir, report.Plural(found, "finding", "findings"))
	}
	switch {
	case !finds:
		t.failf(rf.Path, fmt.Sprintf("no case expects a finding of %s: add one that must find", r.Name))
	case !misses:
		t.failf(rf.Path, fmt.Sprintf("no near-miss: add a case that must not find %s (\"absent\": [%q] in its expect.json)", r.Name, r.Name))
	}
}
