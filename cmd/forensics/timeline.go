package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/report"
	"forensics/store"
)

func newTimelineCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "timeline",
		Short: "Query the timeline that analyze stored",
	}
	cmd.AddCommand(newTimelineQueryCmd())
	return cmd
}

type queryOptions struct {
	db     string
	nodes  []string
	kinds  []string
	since  string
	until  string
	grep   string
	limit  int
	format string
}

func newTimelineQueryCmd() *cobra.Command {
	opts := &queryOptions{}
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Print timeline events across nodes, in time order",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTimelineQuery(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.db, "db", "forensics.db", "timeline file")
	f.StringSliceVar(&opts.nodes, "node", nil, "only these nodes")
	f.StringSliceVar(&opts.kinds, "kind", nil, "only these event kinds")
	f.StringVar(&opts.since, "since", "", "from this time (RFC 3339)")
	f.StringVar(&opts.until, "until", "", "up to this time (RFC 3339)")
	f.StringVar(&opts.grep, "grep", "", "only lines containing this text")
	f.IntVar(&opts.limit, "limit", 0, "at most this many rows (0: all)")
	f.StringVar(&opts.format, "format", "table", "output format: table or json")
	return cmd
}

func runTimelineQuery(cmd *cobra.Command, opts *queryOptions) error {
	if opts.format != "table" && opts.format != "json" {
		return usageErrorf("--format %q: want table or json", opts.format)
	}
	filter := store.EventFilter{Text: opts.grep, Limit: opts.limit}
	for _, k := range opts.kinds {
		filter.Kinds = append(filter.Kinds, forensics.Kind(k))
	}
	filter.Nodes = opts.nodes
	var err error
	if filter.Since, err = parseTimeFlag("--since", opts.since); err != nil {
		return err
	}
	if filter.Until, err = parseTimeFlag("--until", opts.until); err != nil {
		return err
	}
	db, err := store.OpenReadOnly(opts.db)
	if err != nil {
		return err
	}
	defer db.Close()
	out := cmd.OutOrStdout()
	enc := json.NewEncoder(out)
	return db.Events(cmd.Context(), filter, func(e *forensics.Event) error {
		if opts.format == "json" {
			return enc.Encode(e)
		}
		_, err := fmt.Fprintf(out, "%s  %-22s %-28s %s:%d  %s\n", e.Time.Format(report.TimeFormat), e.Node, e.Kind, e.Source, e.Line, report.Clip(e.Text, 240))
		return err
	})
}

func parseTimeFlag(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, usageErrorf("%s %q: want an RFC 3339 time such as 2022-07-22T00:39:12Z", name, v)
	}
	return t, nil
}
