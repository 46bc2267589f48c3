package main

import (
	"context"
	"fmt"
	"forensics"

	"github.com/spf13/cobra"

	"forensics/extract"
	"forensics/input"
	"forensics/report"
	"forensics/shell"
	"forensics/store/backends"
)

func newExtractCmd() *cobra.Command {
	var dbPath, incident, out string
	var redact bool
	cmd := &cobra.Command{
		Use:   "extract FINDING --out DIR",
		Short: "Write the minimal evidence that reproduces a finding, as a test case",
		Long: `extract writes into DIR the evidence of a stored finding that still
reproduces it: its evidence lines and the lines of the events its rule reads
around it, in the original file names, folder layout and grammar (small files
such as topology snapshots whole), with an expect.json naming the finding. It
then analyzes DIR on its own and checks that the finding is found again, so
DIR can be attached to a ticket and run with 'forensics test DIR'.

--redact replaces user data the systems mark (Couchbase <ud>…</ud>,
CockroachDB ‹…›) and pseudonymises IPs (TEST-NET addresses), host names,
buckets, keyspaces, tables and workflows: the same name gets the same
pseudonym in every file, path and in expect.json.

Exit status: 0 when the extract reproduces the finding; 1 when it could not
be written or does not reproduce it; 2 for a usage error.`,
		Example: `  forensics extract 849cb6 --out mb-53076-extract
  forensics test mb-53076-extract`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("extract needs exactly one FINDING id")
			}
			if out == "" {
				return usageErrorf("extract needs --out DIR")
			}
			return nil
		},
		ValidArgsFunction: completeFindings,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			sc, err := resolveScope(ctx, db, incident, 0)
			if err != nil {
				return err
			}
			f, err := db.FindingIn(ctx, sc.run, args[0])
			if err != nil {
				return &exitError{exitFailed, err}
			}
			lib := loadLibrary(cmd)
			r, ok := lib.rules.Lookup(f.Rule)
			if !ok {
				return &exitError{exitFailed, fmt.Errorf("finding %s is of rule %s, which this forensics does not have", f.ID, f.Rule)}
			}
			var red *extract.Redactor
			if redact {
				if red, err = extract.NewRedactor(ctx, db, f, r); err != nil {
					return err
				}
			}
			res, err := extract.Write(ctx, db, f, r, out, red)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			w := cmd.OutOrStdout()
			var kept int
			var of int64
			for _, file := range res.Files {
				fmt.Fprintf(w, "  %s  %s of %d\n", file.Path, report.Plural(file.Lines, "line", "lines"), file.Of)
				kept += file.Lines
				of += file.Of
			}
			fmt.Fprintf(w, "%s: %s, %s of %d\n", out, report.Plural(len(res.Files), "file", "files"), report.Plural(kept, "line", "lines"), of)
			if red != nil {
				fmt.Fprintf(w, "redacted: user data, and %s replaced by pseudonyms\n", report.Plural(len(red.Names()), "name", "names"))
			}
			// The extract is a case: analyze it on its own and check it.
			check := func(ctx context.Context, db string, inputs []string) ([]forensics.Finding, error) {
				res, err := analyze(ctx, db, "", inputs, lib, lib.rules.Rules, input.DefaultLimits, nil, true)
				if err != nil {
					return nil, err
				}
				return res.Report.Findings, nil
			}
			if err := extract.Reproduce(ctx, out, f.ID, check); err != nil {
				return &exitError{exitFailed, err}
			}
			_, err = fmt.Fprintf(w, "reproduces %s (%s); run it with: %s\n", f.ID, f.Rule, report.Escape(shell.Command("forensics", "test", out)))
			return err
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	cmd.Flags().StringVar(&out, "out", "", "write the extract into this `DIR` (absent or empty)")
	cmd.Flags().BoolVar(&redact, "redact", false, "replace marked user data, and hosts, IPs, bucket, keyspace, table and workflow names by pseudonyms (the same in every file)")
	addIncidentFlag(cmd, &incident)
	return cmd
}
