package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/analysis"
	"forensics/parsers"
	"forensics/report"
	"forensics/rules"
	"forensics/rules/rulefile"
)

// The environment variables that name folders of the user's rule and
// format files, as PATH does (DIR:DIR), before the flags' folders.
const (
	rulesPathEnv   = "FORENSICS_RULES_PATH"
	formatsPathEnv = "FORENSICS_FORMATS_PATH"
)

// library is the rules and formats a command uses: the built-in ones and
// the user's files (--rules-dir, --formats-dir and the environment).
type library struct {
	rules     *rules.Set
	formats   []forensics.Format
	formatsID string
	errs      []error // files that did not load; the rest are in use
}

// addLibraryFlags adds the flags every command shares to name the user's
// rules and formats.
func addLibraryFlags(root *cobra.Command) {
	root.PersistentFlags().StringArray("rules-dir", nil, "also use the rule files (NAME.yaml) in this `DIR` (repeatable; and "+rulesPathEnv+"=DIR:DIR); see docs/rules.md")
	root.PersistentFlags().StringArray("formats-dir", nil, "also read logs with the format files (NAME.yaml) in this `DIR` (repeatable; and "+formatsPathEnv+"=DIR:DIR); see docs/rules.md")
}

// loadLibrary reads the user's rule and format files named on the command
// line and in the environment. A file that does not load is in errs; the
// others are used.
func loadLibrary(cmd *cobra.Command) *library { return loadLibraryWith(cmd) }

// loadLibraryWith is loadLibrary with more folders of both rule and
// format files.
func loadLibraryWith(cmd *cobra.Command, more ...string) *library {
	dirs := func(env, flag string) []string {
		out := rules.SplitPath(os.Getenv(env))
		if f := cmd.Flags().Lookup(flag); f != nil {
			v, _ := cmd.Flags().GetStringArray(flag)
			out = append(out, v...)
		}
		return append(out, more...)
	}
	lib := &library{}
	var errs []error
	lib.formats, lib.formatsID, errs = parsers.Load(dirs(formatsPathEnv, "formats-dir"))
	lib.errs = append(lib.errs, errs...)
	lib.rules = rules.Load(dirs(rulesPathEnv, "rules-dir"), rulefile.Vocab(parsers.KindsOf(lib.formats)))
	lib.errs = append(lib.errs, lib.rules.Errors...)
	return lib
}

// warn prints the problems of the files that did not load, each with its
// file, line and field.
func (l *library) warn(w io.Writer) {
	for _, err := range l.errs {
		fmt.Fprintf(w, "forensics: %s\n", report.EscapeLines(err.Error(), "  "))
	}
}

// rulesID names the rules and formats in use, so findings of unchanged
// content are reused only when both are the same.
func (l *library) rulesID(selected []*forensics.Rule) string {
	return analysis.RulesID(selected) + "," + l.rules.ID() + "," + l.formatsID
}

// selectRules returns the rules named by --rules, or all of them.
func (l *library) selectRules(names []string) ([]*forensics.Rule, error) {
	if len(names) == 0 {
		return l.rules.Rules, nil
	}
	var out []*forensics.Rule
	for _, n := range names {
		r, ok := l.rules.Lookup(n)
		if !ok {
			return nil, usageErrorf("--rules: no rule named %q (see forensics rules list)", n)
		}
		out = append(out, r)
	}
	return out, nil
}
