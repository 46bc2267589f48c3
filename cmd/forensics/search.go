package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

// writeSearchStats says how a search read the timeline (--verbose): the
// strings every match contains, the blocks the index kept of those the
// other filters chose, and why every block was read when none was ruled
// out.
func writeSearchStats(w io.Writer, st store.SearchStats) {
	blocks := report.Plural(st.Blocks, "block", "blocks") + " of lines"
	switch {
	case st.Query == "":
		fmt.Fprintf(w, "search: no string of 3 bytes or more is in every match, so no block is ruled out: each of the %s was read\n", blocks)
	case !st.Indexed && st.Unindexed == st.Blocks && st.Blocks > 0:
		fmt.Fprintf(w, "search: every match contains %s; this timeline has no index of its blocks (written before forensics kept one): each of the %s was searched; forensics timeline reindex adds the index\n", st.Query, blocks)
	case !st.Indexed:
		fmt.Fprintf(w, "search: every match contains %s, but no string of 4 bytes or more, which the index of blocks needs: each of the %s was searched\n", st.Query, blocks)
	default:
		fmt.Fprintf(w, "search: every match contains %s; the index of blocks kept %d of the %s", st.Query, st.Chosen, blocks)
		if st.Unindexed > 0 {
			fmt.Fprintf(w, " (%d of them written before the index: forensics timeline reindex adds it)", st.Unindexed)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "search: %s read line by line, %s\n", report.Plural(st.Read, "block", "blocks"), report.Plural(st.Lines, "line", "lines"))
}

func newTimelineReindexCmd() *cobra.Command {
	var dbPath string
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Index the blocks of lines of a timeline written before forensics kept an index of them",
		Long: `A timeline keeps an index of its blocks of lines, so that --grep and --regex
read only the blocks that may hold a match. A timeline written by an older
forensics has none: it opens and searches, reading every block, and
'timeline query -v' says so. reindex adds the index to every block that lacks
it, in place, a thousand blocks a transaction: run it again after an
interruption and it carries on. Analyzing into the timeline again is not
needed.`,
		Example: `  forensics timeline reindex --db incident.db
  forensics timeline query --db incident.db --grep 'Stream request requires rollback' -v`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Opened for reading first: a --db that is not there is an
			// error, not a new empty timeline.
			r, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			r.Close()
			db, err := backends.Open(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			done, err := db.Reindex(cmd.Context())
			if err != nil {
				return &exitError{exitFailed, err}
			}
			w := cmd.ErrOrStderr()
			if done.Blocks == 0 && done.Skipped == 0 {
				fmt.Fprintf(w, "Every one of the %s is indexed already.\n", report.Plural(done.Total, "block of lines", "blocks of lines"))
				return nil
			}
			fmt.Fprintf(w, "Indexed %s of %d (%s of index).\n", report.Plural(done.Blocks, "block of lines", "blocks of lines"), done.Total, mib(done.Bytes))
			if done.Skipped > 0 {
				fmt.Fprintf(w, "Left %s out of the index: they do not decode, and every search reads them and says so; the first: %v\n",
					report.Plural(done.Skipped, "block", "blocks"), done.Problem)
			}
			return nil
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	return cmd
}
