package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"forensics/rules"
)

func newRulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules and explain what they detect",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List every rule with its title",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, r := range rules.All {
				fmt.Fprintf(tw, "%s\t%s\n", r.Name, r.Doc.Title)
			}
			return tw.Flush()
		},
	}, &cobra.Command{
		Use:   "explain RULE",
		Short: "Explain a rule: what it detects, why it matters, how to confirm it, what to do",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("explain needs exactly one RULE name (see forensics rules list)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			r, ok := rules.Lookup(args[0])
			if !ok {
				return usageErrorf("no rule named %q (see forensics rules list)", args[0])
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s — %s\n", r.Name, r.Doc.Title)
			for _, sec := range []struct{ head, text string }{
				{"What it detects", r.Doc.Detects},
				{"Why it matters", r.Doc.Why},
				{"How to confirm it by hand", r.Doc.Confirm},
				{"Evidence it needs", r.Doc.Inputs},
				{"What to do", r.Doc.Fixes},
			} {
				if sec.text == "" {
					continue
				}
				fmt.Fprintf(&b, "\n%s\n", sec.head)
				for _, para := range strings.Split(strings.TrimSpace(sec.text), "\n") {
					fmt.Fprintf(&b, "  %s\n", para)
				}
			}
			if len(r.Kinds) > 0 {
				var kinds []string
				for _, k := range r.Kinds {
					kinds = append(kinds, string(k))
				}
				fmt.Fprintf(&b, "\nEvent kinds read\n  %s\n", strings.Join(kinds, ", "))
			}
			_, err := fmt.Fprint(cmd.OutOrStdout(), b.String())
			return err
		},
	})
	return cmd
}
