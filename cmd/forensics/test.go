package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/expect"
	"forensics/input"
	"forensics/report"
)

func newTestCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "test DIR...",
		Short: "Run a library of incident cases as a regression suite",
		Long: `test finds every case under each DIR — a folder holding the evidence of one
incident and an expect.json — analyzes the case into a scratch timeline, and
checks the findings against expect.json: every expected finding must be
found, rules listed as absent must stay silent, and (unless "others" is true)
no other finding may appear. A case in the folder beside a rule file
(RULE.yaml next to RULE/, see forensics rules test) is analysed with that
rule and the format files beside it.

expect.json:
  {
    "description": "what the case is",
    "findings": [{"rule": "kv-stream-before-traffic", "severity": "critical",
                  "subject": {"node": "ns_1@10.0.0.15", "vbuckets": [141]}}],
    "absent": ["crdb-nlhe-pingpong"]
  }

It prints one line per case and a summary, and exits 1 when any case fails.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("test needs at least one DIR of cases")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			lib := loadLibrary(cmd)
			lib.warn(cmd.ErrOrStderr())
			dirs, err := expect.Find(args...)
			if err != nil {
				return err
			}
			if len(dirs) == 0 {
				return fmt.Errorf("no cases (folders with %s) under %v", expect.File, args)
			}
			scratch, err := os.MkdirTemp("", "forensics-test-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(scratch)
			passed, failed := 0, 0
			for i, dir := range dirs {
				c, err := expect.Load(dir)
				if err != nil {
					fmt.Fprintf(out, "FAIL %s: %v\n", dir, err)
					failed++
					continue
				}
				inputs, err := c.InputPaths()
				if err != nil {
					fmt.Fprintf(out, "FAIL %s: %v\n", dir, err)
					failed++
					continue
				}
				db := filepath.Join(scratch, fmt.Sprintf("case%d.db", i))
				caseLib := lib
				if rf := expect.RuleFile(dir); rf != "" {
					// A rule file's case: the rule and the formats beside it.
					if caseLib = loadLibraryWith(cmd, filepath.Dir(rf)); len(caseLib.errs) > 0 {
						fmt.Fprintf(out, "FAIL %s: %v\n", dir, errors.Join(caseLib.errs...))
						failed++
						continue
					}
				}
				found, problems := checkCase(cmd.Context(), c, inputs, db, caseLib, caseLib.rules.Rules)
				if len(problems) == 0 {
					fmt.Fprintf(out, "ok   %s (%s)\n", dir, report.Plural(found, "finding", "findings"))
					passed++
					continue
				}
				failed++
				fmt.Fprintf(out, "FAIL %s\n", dir)
				for _, p := range problems {
					fmt.Fprintf(out, "       %s\n", p)
				}
			}
			fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
			if len(lib.errs) > 0 {
				return &exitError{exitFailed, fmt.Errorf("%s did not load (see above)", report.Plural(len(lib.errs), "rule or format file", "rule or format files"))}
			}
			if failed > 0 {
				return &exitError{exitFailed, nil}
			}
			return nil
		},
	}
}

// checkCase analyzes a case's inputs into the scratch timeline db with the
// library's formats and the given rules, and returns the number of
// findings and what does not match its expect.json.
func checkCase(ctx context.Context, c *expect.Case, inputs []string, db string, lib *library, rs []*forensics.Rule) (int, []string) {
	res, err := analyze(ctx, db, "", inputs, lib, rs, input.DefaultLimits, nil, true)
	if err != nil {
		return 0, []string{err.Error()}
	}
	var problems []string
	for _, e := range res.RuleErrors {
		problems = append(problems, e.Error())
	}
	return len(res.Report.Findings), append(problems, c.Check(res.Report.Findings)...)
}
