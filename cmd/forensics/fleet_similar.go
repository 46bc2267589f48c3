package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"forensics/fleet"
	"forensics/report"
	"forensics/store/backends"
)

func newFleetSimilarCmd() *cobra.Command {
	var dbPath string
	format := newFormatFlag("table", "table", "json")
	cmd := &cobra.Command{
		Use:   "similar FINDING",
		Short: "List other incidents with the same kind of finding",
		Long: `fleet similar answers "have we seen this before?": it lists the findings of
other incidents made by the same rule about the same kind of subject (the
same subject fields set: a bucket's vbuckets, a range's replicas), whatever
their values, oldest first. FINDING is an id or a prefix of one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			own, fs, err := fleet.Similar(cmd.Context(), db, args[0])
			if err != nil {
				return err
			}
			if format.String() == "table" {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s %s in %s: %s\n", report.Escape(own.ID), report.Escape(own.Rule), report.Escape(strconv.Quote(own.Incident)), report.Escape(own.Title))
			}
			return writeFleetFindings(cmd.OutOrStdout(), format.String(), 0, func(fn func(*fleet.Summary, []byte) error) error {
				return fleet.Each(fs, fn)
			})
		},
	}
	addDBFlag(cmd, &dbPath, "timeline store: a `FILE`, or postgres://…")
	format.register(cmd)
	return cmd
}
