package main

import (
	"os"

	"github.com/spf13/cobra"

	"forensics/store/backends"
)

// envStore names the timeline store when --db (--store) is not given: a
// team sets it once to its PostgreSQL database.
const envStore = "FORENSICS_STORE"

// storeFlags are the flags that name a timeline store, each with its
// other names. Unless given, they take FORENSICS_STORE, which is read when
// the command runs: a default taken from the environment would show in
// --help, password and all.
var storeFlags = [][]string{{"db", "store"}, {"to"}}

// resolveStores fills the store flags not given from FORENSICS_STORE, and
// refuses a password in a store named on the command line: every user of
// the machine reads the command lines of its processes (ps,
// /proc/PID/cmdline). A password goes in ~/.pgpass (PGPASSFILE),
// PGPASSWORD or FORENSICS_STORE.
func resolveStores(cmd *cobra.Command, args []string) error {
	for _, names := range storeFlags {
		given := false
		for _, name := range names {
			f := cmd.Flags().Lookup(name)
			if f == nil || !f.Changed {
				continue
			}
			given = true
			if err := noPassword("--"+name, f.Value.String()); err != nil {
				return err
			}
		}
		if f := cmd.Flags().Lookup(names[0]); f != nil && !given {
			if s := os.Getenv(envStore); s != "" {
				f.Value.Set(s)
			}
		}
	}
	if cmd.Name() == "push" {
		for _, a := range args {
			if err := noPassword("TIMELINE", a); err != nil {
				return err
			}
		}
	}
	return nil
}

func noPassword(what, dsn string) error {
	if backends.Password(dsn) == "" {
		return nil
	}
	return usageErrorf("%s: the store's address holds a password, which every user of this machine can read in the list of processes; "+
		"leave it out, and put it in ~/.pgpass (or the file PGPASSFILE names), in PGPASSWORD, or give the whole address in %s", what, envStore)
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
