package main

import (
	"os"

	"github.com/spf13/cobra"
)

// envStore names the timeline store when --db (--store) is not given: a
// team sets it once to its PostgreSQL database.
const envStore = "FORENSICS_STORE"

// storeFromEnv returns FORENSICS_STORE, or def when it is unset.
func storeFromEnv(def string) string {
	if s := os.Getenv(envStore); s != "" {
		return s
	}
	return def
}

func newFleetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Ask across every incident of a shared store",
		Long: `fleet reads every incident of a timeline store at once, usually the team's
PostgreSQL database (--db postgres://…, or FORENSICS_STORE): findings by rule,
severity, node, time and text; incidents with the same kind of finding as
one at hand ("have we seen this before?"); lines matching a pattern. Each
incident is read at its latest analysis.`,
	}
	cmd.AddCommand(newFleetFindingsCmd(), newFleetSimilarCmd(), newFleetGrepCmd())
	return cmd
}
