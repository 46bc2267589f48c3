package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	"forensics/fleet"
	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

func newFleetGrepCmd() *cobra.Command {
	var dbPath, since, until string
	var f fleet.GrepFilter
	var limit int
	var ignoreCase, verbose bool
	format := newFormatFlag("table", "table", "json")
	cmd := &cobra.Command{
		Use:   "grep PATTERN",
		Short: "Search the lines of every incident for a regular expression",
		Long: `fleet grep prints the stored lines of every incident's latest analysis that
match PATTERN (Go regular expression syntax), incident by incident, each in
timeline order. --since and --until (RFC 3339) bound the time, --incident
the incidents, and --rule both: only incidents with a finding of that rule,
and of each only the time windows of those findings (start to end). All of
them choose the stored blocks of lines before any is read. The count and
the time taken go to stderr. The store keeps an index of its blocks of
lines: the search reads only the blocks that may hold the strings every
match contains (-v says which).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pattern := args[0]
			if ignoreCase {
				pattern = "(?i)" + pattern
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				return usageErrorf("PATTERN: %v", err)
			}
			f.Regexp = re
			var stats store.SearchStats
			if verbose {
				f.Stats = &stats
			}
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
			out := cmd.OutOrStdout()
			limit := listLimit(cmd, out, limit)
			more := false
			enc := json.NewEncoder(out)
			enc.SetEscapeHTML(false)
			start := time.Now()
			n := 0
			var werr error
			err = fleet.Grep(cmd.Context(), db, f, func(incident string, l *store.Line) bool {
				if limit > 0 && n == limit {
					more = true
					return false
				}
				n++
				if format.String() == "json" {
					werr = enc.Encode(grepLine{incident, l.Path, l.Node, l.N, l.Time, l.Text})
				} else {
					_, werr = fmt.Fprintf(out, "%s\t%s\t%s:%d\t%s\n", report.Escape(incident), l.Time.Format("2006-01-02T15:04:05.000000Z07:00"), report.Escape(l.Path), l.N, report.Escape(l.Text))
				}
				return werr == nil
			})
			if err == nil {
				err = werr
			}
			if err != nil {
				return err
			}
			if more {
				fmt.Fprintf(cmd.ErrOrStderr(), "the first %d lines, in %s; --limit 0 prints every one\n", n, time.Since(start).Round(time.Millisecond))
				return nil
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d lines in %s\n", n, time.Since(start).Round(time.Millisecond))
			if verbose {
				writeSearchStats(cmd.ErrOrStderr(), stats)
			}
			return nil
		},
	}
	addDBFlag(cmd, &dbPath, "timeline store: a `FILE`, or postgres://…")
	cmd.Flags().StringVar(&since, "since", "", "only lines at or after `TIME` (RFC 3339)")
	cmd.Flags().StringVar(&until, "until", "", "only lines before `TIME` (RFC 3339)")
	cmd.Flags().StringSliceVar(&f.Incidents, "incident", nil, "only this `INCIDENT`")
	cmd.Flags().StringSliceVar(&f.Rules, "rule", nil, "only the time windows of the findings of this `RULE`")
	addLimitFlag(cmd, &limit, "lines")
	cmd.Flags().BoolVarP(&ignoreCase, "ignore-case", "i", false, "PATTERN matches letters in either case")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "say on stderr how the search read the store: the strings every match contains, the blocks of lines the index kept")
	format.register(cmd)
	return cmd
}

type grepLine struct {
	Incident string    `json:"incident"`
	Source   string    `json:"source"`
	Node     string    `json:"node"`
	Line     int64     `json:"line"`
	Time     time.Time `json:"time"`
	Text     string    `json:"text"`
}
