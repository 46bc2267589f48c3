package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"forensics/rules"
)

func newRulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules and what they detect",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List every rule with its title",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, r := range rules.All {
				fmt.Fprintf(cmd.OutOrStdout(), "%-32s %s\n", r.Name, r.Doc.Title)
			}
			return nil
		},
	})
	return cmd
}
