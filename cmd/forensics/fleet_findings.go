package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/store/backends"
	"forensics/store/fleet"
)

func newFleetFindingsCmd() *cobra.Command {
	var dbPath, severity, since, until string
	var f fleet.Filter
	format := newFormatFlag("table", "table", "json")
	cmd := &cobra.Command{
		Use:   "findings",
		Short: "List the findings of every incident, filtered",
		Long: `fleet findings lists the findings of every incident's latest analysis,
oldest first: --rule, --severity (at least), --node (the subject's node),
--since and --until (the finding's window overlaps them, RFC 3339), --text
(in the title or the explanation, any case), --incident.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if severity != "" {
				s, err := forensics.ParseSeverity(severity)
				if err != nil {
					return usageErrorf("--severity: %v", err)
				}
				f.MinRank = s.Rank()
			}
			var err error
			if f.Since, err = parseFleetTime("--since", since); err != nil {
				return err
			}
			if f.Until, err = parseFleetTime("--until", until); err != nil {
				return err
			}
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			fs, err := fleet.Findings(cmd.Context(), db, f)
			if err != nil {
				return err
			}
			return writeFleetFindings(cmd.OutOrStdout(), fs, format.String())
		},
	}
	addDBFlag(cmd, &dbPath, "timeline store: a `FILE`, or postgres://…")
	cmd.Flags().StringSliceVar(&f.Rules, "rule", nil, "only findings of this `RULE` (repeat or comma-separate)")
	cmd.Flags().StringVar(&severity, "severity", "", "only findings of this `SEVERITY` or higher")
	cmd.Flags().StringSliceVar(&f.Nodes, "node", nil, "only findings about this `NODE`")
	cmd.Flags().StringVar(&since, "since", "", "only findings whose window ends at or after `TIME` (RFC 3339)")
	cmd.Flags().StringVar(&until, "until", "", "only findings whose window starts before `TIME` (RFC 3339)")
	cmd.Flags().StringVar(&f.Text, "text", "", "only findings whose title or explanation contains `TEXT`")
	cmd.Flags().StringSliceVar(&f.Incidents, "incident", nil, "only this `INCIDENT`")
	cmd.Flags().IntVar(&f.Limit, "limit", 0, "at most `N` findings (0: all)")
	format.register(cmd)
	return cmd
}

func parseFleetTime(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, usageErrorf("%s: want an RFC 3339 time such as 2026-03-01T10:00:00Z", flag)
	}
	return t, nil
}

func writeFleetFindings(out io.Writer, fs []fleet.Finding, format string) error {
	if format == "json" {
		if fs == nil {
			fs = []fleet.Finding{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(fs)
	}
	if len(fs) == 0 {
		_, err := fmt.Fprintln(out, "No findings.")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INCIDENT\tID\tSEVERITY\tRULE\tSTART\tTITLE")
	for _, f := range fs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Incident, f.ID, f.Severity, f.Rule, f.Start.UTC().Format(time.RFC3339), f.Title)
	}
	return tw.Flush()
}
