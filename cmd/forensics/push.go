package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"forensics/fleet"
	"forensics/store/backends"
)

func newPushCmd() *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   "push TIMELINE --to STORE",
		Short: "Copy a local timeline, every incident of it, into a shared store",
		Long: `push copies every analysis run of a timeline (a SQLite file written by
analyze) into another store, typically the team's PostgreSQL database
(--to postgres://…, or FORENSICS_STORE): sources, events, lines and
findings, under the same incident names. Pushing again copies nothing: a
run the store already has is recognised by its sources and findings, and
content the store holds for the incident is reused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageErrorf("push needs --to STORE (or FORENSICS_STORE)")
			}
			from, err := backends.OpenReader(args[0])
			if err != nil {
				return err
			}
			defer from.Close()
			dst, err := backends.Open(to)
			if err != nil {
				return err
			}
			defer dst.Close()
			p, err := fleet.Push(cmd.Context(), from, dst)
			if err != nil {
				return fmt.Errorf("push %s to %s: %w", args[0], dst.Name(), err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%d runs copied (%d sources, %d reused), %d already in %s\n", p.Runs, p.Sources, p.Reused, p.Present, dst.Name())
			return err
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the `STORE` to copy into (postgres://…; default: $"+envStore+")")
	return cmd
}
