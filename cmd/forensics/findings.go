package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/report"
	"forensics/store"
)

func newFindingsCmd() *cobra.Command {
	var dbPath string
	var run int64
	cmd := &cobra.Command{
		Use:   "findings",
		Short: "List the findings stored by the last analysis",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := store.OpenReadOnly(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			fs, err := db.Findings(cmd.Context(), run)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, f := range fs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.ID, f.Severity, f.Rule, f.Start.UTC().Format(report.TimeFormat), report.ClipName(report.SubjectLine(f.Subject), 160))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&dbPath, "db", "forensics.db", "timeline file")
	cmd.Flags().Int64Var(&run, "run", 0, "the analysis run (default: the latest)")
	return cmd
}

func newShowCmd() *cobra.Command {
	var dbPath string
	var window time.Duration
	var limit int
	cmd := &cobra.Command{
		Use:   "show FINDING",
		Short: "Show a finding with its evidence and what every node logged around it",
		Long: `show prints a stored finding (by id or id prefix, see 'forensics findings'):
its explanation, evidence and fixes, then the events recognised on every node
from --window before it starts to --window after it ends, in time order, with
the evidence marked '*'. 'forensics timeline query --around FINDING' shows
every line of that window, recognised or not.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("show needs exactly one FINDING id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := store.OpenReadOnly(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			f, err := db.Finding(cmd.Context(), args[0])
			if err != nil {
				return &exitError{exitFailed, err}
			}
			out := cmd.OutOrStdout()
			if err := report.WriteFindings(out, []forensics.Finding{f.Finding}); err != nil {
				return err
			}
			evidence := map[evidenceKey]bool{}
			for _, e := range f.Evidence {
				evidence[evidenceKey{e.Source, e.Line}] = true
			}
			since, until := f.Start.Add(-window), f.End.Add(window)
			fmt.Fprintf(out, "\n  Context: events on every node, %s to %s (evidence marked *):\n", since.Format(report.TimeFormat), until.Format(report.TimeFormat))
			rw := newRowWriter(out, "table")
			n, more := 0, 0
			filter := store.EventFilter{}
			filter.Since, filter.Until = since, until
			err = db.Events(cmd.Context(), filter, func(e *forensics.Event) error {
				if n >= limit {
					more++
					return nil
				}
				n++
				r := eventRow(e, time.UTC)
				r.Evidence = evidence[evidenceKey{e.Source, e.Line}]
				return rw.write(&r)
			})
			if err != nil {
				return err
			}
			if more > 0 {
				fmt.Fprintf(out, "  … %d more events; see forensics timeline query --around %s --events\n", more, f.ID)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dbPath, "db", "forensics.db", "timeline file")
	cmd.Flags().DurationVar(&window, "window", 2*time.Second, "context before the start and after the end")
	cmd.Flags().IntVar(&limit, "limit", 300, "at most this many context events")
	return cmd
}
