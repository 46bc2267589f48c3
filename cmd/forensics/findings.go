package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

func newFindingsCmd() *cobra.Command {
	var dbPath, incident string
	var run int64
	format := newFormatFlag("table")
	cmd := &cobra.Command{
		Use:   "findings",
		Short: "List the findings of the latest analysis of an incident",
		Long: `findings lists the findings of the latest analysis of the latest incident
(--incident picks another, see 'forensics incidents'; --run a run by id).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			sc, err := resolveScope(cmd.Context(), db, incident, run)
			if err != nil {
				return err
			}
			sc.note(cmd.ErrOrStderr())
			var fs []store.StoredFinding
			if sc.run != 0 || sc.name != allIncidents {
				if fs, err = db.Findings(cmd.Context(), sc.run); err != nil {
					return err
				}
			} else if fs, err = db.AllFindings(cmd.Context()); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format.String() == "json" {
				list := make([]forensics.Finding, 0, len(fs))
				for _, f := range fs {
					list = append(list, f.Finding)
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(list)
			}
			if len(fs) == 0 {
				_, err := fmt.Fprintln(out, "No findings.")
				return err
			}
			list := make([]forensics.Finding, len(fs))
			for i, f := range fs {
				list[i] = f.Finding
			}
			return report.WriteFindingsTable(out, list, loadLibrary(cmd).rules.Rules, layoutFor(out, false))
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	cmd.Flags().Int64Var(&run, "run", 0, "the analysis run, by `ID` (default: the latest of the incident)")
	addIncidentFlag(cmd, &incident)
	format.register(cmd)
	return cmd
}

func newShowCmd() *cobra.Command {
	var dbPath, incident string
	var window time.Duration
	var limit int
	var wide, verbose bool
	cmd := &cobra.Command{
		Use:   "show FINDING",
		Short: "Show a finding, its evidence whole, and what the nodes logged around it",
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
		ValidArgsFunction: completeFindings,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			sc, err := resolveScope(cmd.Context(), db, incident, 0)
			if err != nil {
				return err
			}
			f, err := db.FindingIn(cmd.Context(), sc.run, args[0])
			if err != nil {
				return &exitError{exitFailed, err}
			}
			out := cmd.OutOrStdout()
			l := layoutFor(out, verbose)
			l.Whole, l.Root = true, sc.root()
			if wide {
				l.Width, l.Wide = 0, true
			}
			if err := report.WriteFindings(out, []forensics.Finding{f.Finding}, loadLibrary(cmd).rules.Rules, l); err != nil {
				return err
			}
			return writeContext(cmd.Context(), out, db, f, window, limit, l)
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	cmd.Flags().DurationVar(&window, "window", 2*time.Second, "context before the start and after the end (a `DURATION` such as 5s)")
	cmd.Flags().IntVar(&limit, "limit", 300, "at most `N` rows of context")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "name evidence by its full path")
	addWideFlag(cmd, &wide)
	addIncidentFlag(cmd, &incident)
	return cmd
}
