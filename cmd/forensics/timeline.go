package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/parsers"
	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

func newTimelineCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "timeline",
		Short: "Query the timeline that analyze stored",
		Long: `The timeline is a SQLite file (--db, default forensics.db) holding every line
of every file analyze read, merged across nodes by UTC time, with the lines
forensics recognised stored as events.`,
	}
	cmd.AddCommand(newTimelineQueryCmd(), newTimelineKindsCmd(), newTimelineSchemaCmd(), newTimelineExportCmd(), newTimelineReindexCmd())
	return cmd
}

type queryOptions struct {
	db         string
	nodes      []string
	systems    []string
	sources    []string
	kinds      []string
	since      string
	until      string
	at         string
	window     time.Duration
	around     string
	grep       string
	regex      string
	ignoreCase bool
	verbose    bool
	bucket     string
	vb         optionalInt
	rangeID    int64
	keyspace   string
	table      string
	eventsOnly bool
	limit      int
	tz         *enumFlag
	format     *enumFlag
	sql        string
	incident   string
}

func newTimelineQueryCmd() *cobra.Command {
	opts := &queryOptions{}
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Print lines from every node and file, merged in time order",
		Long: `query prints the timeline: every line of every file read, from every node, in
UTC time order, each row naming its node, file and line. Filters combine (AND);
a filter given several values (--node a,b) matches any of them.

Event filters (--kind, --bucket, --vb, --range, --keyspace, --table, --events)
select recognised lines only; see 'forensics timeline kinds' for the kinds.

The latest incident is read (see 'forensics incidents'); --incident NAME reads
another, --incident all every one. --sql reads every incident.

Times: --since/--until take RFC 3339 times (2022-07-22T00:39:12Z,
2022-07-21T17:39:12-07:00) or offsets from --at (-30s, +2m). --at T with
--window W selects T-W to T+W. --around FINDING selects the finding's window
widened by --window on each side, with the finding's evidence marked '*'.

--grep TEXT and --regex REGEXP search every line (-i: letters in either
case). The timeline keeps an index of its blocks of lines, and a search
reads only the blocks that may hold the strings every match contains (4
bytes or more); -v says which strings, and how many blocks were read.

--sql runs a query of your own over the views (see 'forensics timeline
schema') on a read-only connection: nothing can change the timeline.`,
		Example: `  forensics timeline query --node ns_1@172.23.100.15 \
      --since 2022-07-22T00:39:10Z --until 2022-07-22T00:39:20Z
  forensics timeline query --around 3f2a9c --window 5s
  forensics timeline query --kind memcached.stream_rollback --vb 141
  forensics timeline query --grep 'Stream request' --format jsonl
  forensics timeline query --sql "SELECT node, count(*) FROM events GROUP BY 1"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTimelineQuery(cmd, opts)
		},
	}
	f := cmd.Flags()
	addDBFlag(cmd, &opts.db, "timeline `FILE` written by analyze")
	f.StringSliceVar(&opts.nodes, "node", nil, "only these `NODES`")
	cmd.RegisterFlagCompletionFunc("node", completeNodes)
	f.StringSliceVar(&opts.systems, "system", nil, "only these `COMPONENTS` (memcached, ns_server, indexer, projector, distsender, vtctld, topo, …)")
	f.StringSliceVar(&opts.sources, "source", nil, "only files whose path contains `TEXT`")
	f.StringSliceVar(&opts.kinds, "kind", nil, "only events of these `KINDS` (see forensics timeline kinds)")
	cmd.RegisterFlagCompletionFunc("kind", completeKinds)
	f.StringVar(&opts.since, "since", "", "from this `TIME` (RFC 3339, or an offset from --at such as -30s)")
	f.StringVar(&opts.until, "until", "", "before this `TIME` (RFC 3339, or an offset from --at such as +30s)")
	f.StringVar(&opts.at, "at", "", "a `TIME` (RFC 3339) for --window and relative --since/--until")
	f.DurationVar(&opts.window, "window", 10*time.Second, "half-width of the window with --at or --around (a `DURATION` such as 5s)")
	f.StringVar(&opts.around, "around", "", "the window of this `FINDING` (id or id prefix), evidence marked")
	cmd.RegisterFlagCompletionFunc("around", completeFindings)
	f.StringVar(&opts.grep, "grep", "", "only lines containing this `TEXT`")
	f.StringVar(&opts.regex, "regex", "", "only lines matching this `REGEXP` (RE2 syntax)")
	f.BoolVarP(&opts.ignoreCase, "ignore-case", "i", false, "--grep and --regex match letters in either case")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "say on stderr how a --grep or --regex read the timeline: the strings every match contains, the blocks of lines the index kept")
	f.StringVar(&opts.bucket, "bucket", "", "only events about this Couchbase `BUCKET`")
	f.Var(&opts.vb, "vb", "only events about this vbucket")
	f.Int64Var(&opts.rangeID, "range", 0, "only events about this CockroachDB range (`ID`)")
	f.StringVar(&opts.keyspace, "keyspace", "", "only events about this Vitess `KEYSPACE`")
	f.StringVar(&opts.table, "table", "", "only events about this Vitess `TABLE`")
	f.BoolVar(&opts.eventsOnly, "events", false, "only recognised lines (events)")
	f.IntVar(&opts.limit, "limit", -1, fmt.Sprintf("at most `N` rows (0: no limit; default %d on a terminal, none otherwise)", terminalLimit))
	opts.tz = &enumFlag{value: "UTC", allowed: []string{"UTC", "Local", "original"}, meta: "ZONE"}
	f.Var(opts.tz, "tz", "show times in UTC, Local, or original (as each node logged them)")
	cmd.RegisterFlagCompletionFunc("tz", cobra.FixedCompletions(opts.tz.allowed, cobra.ShellCompDirectiveNoFileComp))
	opts.format = newFormatFlag("table", report.RowFormats...)
	opts.format.register(cmd)
	f.StringVar(&opts.sql, "sql", "", "run this `SQL` over the documented views instead of the filters (every incident)")
	addIncidentFlag(cmd, &opts.incident)
	return cmd
}

func runTimelineQuery(cmd *cobra.Command, opts *queryOptions) error {
	loc, err := parseTZ(opts.tz.String())
	if err != nil {
		return err
	}
	var re *regexp.Regexp
	if opts.regex != "" {
		pattern := opts.regex
		if opts.ignoreCase {
			pattern = "(?i)" + pattern
		}
		if re, err = regexp.Compile(pattern); err != nil {
			return usageErrorf("--regex: %v", err)
		}
	}
	if opts.window < 0 {
		return usageErrorf("--window %s: want a duration such as 10s", opts.window)
	}
	win, err := parseWindow(opts)
	if err != nil {
		return err
	}
	db, err := backends.OpenReader(opts.db)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := cmd.Context()
	out := report.NewRowWriter(cmd.OutOrStdout(), opts.format.String(), isTerminal(cmd.OutOrStdout()), true)
	defer out.Flush() // the rows before an error are shown

	if opts.sql != "" {
		if err := db.QuerySQL(ctx, opts.sql, nil, out.SQLRow); err != nil {
			return fmt.Errorf("--sql: %w", err)
		}
		return out.Close()
	}

	sc, err := resolveScope(ctx, db, opts.incident, 0)
	if err != nil {
		return err
	}
	sc.note(cmd.ErrOrStderr())
	since, until, evidence, err := win.resolve(ctx, db, sc.run)
	if err != nil {
		return err
	}
	opts.limit = listLimit(cmd, cmd.OutOrStdout(), opts.limit)
	stamps := &stamper{loc: loc}
	show := func(r *report.Row) error {
		if opts.limit > 0 && out.Rows() >= opts.limit {
			return errLimit
		}
		return out.Write(r)
	}
	eventQuery := len(opts.kinds) > 0 || opts.bucket != "" || opts.vb.set || opts.rangeID != 0 ||
		opts.keyspace != "" || opts.table != "" || opts.eventsOnly
	if eventQuery {
		f := store.EventFilter{Paths: opts.sources, Components: opts.systems, Text: opts.grep, Run: sc.run}
		var fold *regexp.Regexp // --grep in either case, matched here: the stores' text filter is exact
		if opts.ignoreCase && opts.grep != "" {
			f.Text, fold = "", regexp.MustCompile("(?i)"+regexp.QuoteMeta(opts.grep))
		}
		f.Nodes, f.Since, f.Until = opts.nodes, since, until
		for _, k := range opts.kinds {
			f.Kinds = append(f.Kinds, forensics.Kind(k))
		}
		f.Bucket, f.Range, f.Keyspace, f.Table = opts.bucket, opts.rangeID, opts.keyspace, opts.table
		if opts.vb.set {
			vb := opts.vb.n
			f.VB = &vb
		}
		err = each(db.Events(ctx, f), func(e *forensics.Event) error {
			if re != nil && !re.MatchString(e.Text) || fold != nil && !fold.MatchString(e.Text) {
				return nil
			}
			r := eventRow(e, stamps)
			r.Evidence = evidence[evidenceKey{e.Path, e.Line}]
			return show(&r)
		})
	} else {
		raw := opts.format.String() == "raw"
		s := store.Search{LineFilter: store.LineFilter{Run: sc.run, Since: since, Until: until, Nodes: opts.nodes, Paths: opts.sources,
			Components: opts.systems, Text: opts.grep, Fold: opts.ignoreCase, Regexp: re, NoKinds: raw}, Limit: opts.limit}
		var werr error
		var res store.SearchResult
		res, err = db.Search(ctx, s, func(l *store.Line) bool {
			if raw { // the text alone: no row to build
				werr = out.Raw(l.Text)
			} else {
				r := lineRow(l, stamps)
				r.Evidence = evidence[evidenceKey{l.Path, l.N}]
				werr = out.Write(&r)
			}
			return werr == nil
		})
		if err == nil {
			err = werr
		}
		if opts.verbose && (opts.grep != "" || re != nil) {
			writeSearchStats(cmd.ErrOrStderr(), res.Stats)
		}
	}
	if err != nil && err != errLimit {
		return err
	}
	if err == errLimit {
		defer fmt.Fprintf(cmd.ErrOrStderr(), "the first %d rows; --limit 0 prints every one\n", opts.limit)
	}
	return out.Close()
}

var errLimit = fmt.Errorf("limit reached")

// each calls fn for each item of a cursor, and stops at the first error,
// the cursor's or fn's.
func each[T any](seq iter.Seq2[T, error], fn func(T) error) error {
	for x, err := range seq {
		if err != nil {
			return err
		}
		if err := fn(x); err != nil {
			return err
		}
	}
	return nil
}

type evidenceKey struct {
	source string
	line   int64
}

// window is the time window of a query, from --at, --window, --around,
// --since and --until. The flags are read before the timeline is opened, so
// a bad value is a usage error whatever the state of the timeline.
type window struct {
	at, since, until   time.Time
	sinceRel, untilRel *time.Duration // offsets from --at (or the finding's start)
	width              time.Duration
	around             string
}

func parseWindow(opts *queryOptions) (*window, error) {
	w := &window{width: opts.window, around: opts.around}
	var err error
	if opts.at != "" {
		if w.at, err = parseTime("--at", opts.at); err != nil {
			return nil, err
		}
	}
	bound := func(flag, v string) (time.Time, *time.Duration, error) {
		if v == "" {
			return time.Time{}, nil, nil
		}
		if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
			d, err := time.ParseDuration(v)
			if err != nil {
				return time.Time{}, nil, usageErrorf("%s %q: want an RFC 3339 time or an offset such as -30s", flag, v)
			}
			if w.at.IsZero() && w.around == "" {
				return time.Time{}, nil, usageErrorf("%s %q is relative: give --at (or --around) too", flag, v)
			}
			return time.Time{}, &d, nil
		}
		t, err := parseTime(flag, v)
		return t, nil, err
	}
	if w.since, w.sinceRel, err = bound("--since", opts.since); err != nil {
		return nil, err
	}
	if w.until, w.untilRel, err = bound("--until", opts.until); err != nil {
		return nil, err
	}
	return w, nil
}

// resolve fixes the window, reading the finding named by --around.
func (w *window) resolve(ctx context.Context, db store.Reader, run int64) (since, until time.Time, evidence map[evidenceKey]bool, err error) {
	at := w.at
	if !at.IsZero() {
		since, until = at.Add(-w.width), at.Add(w.width)
	}
	if w.around != "" {
		f, ferr := db.FindingIn(ctx, run, w.around)
		if ferr != nil {
			return since, until, nil, &exitError{exitFailed, fmt.Errorf("--around: %w", ferr)}
		}
		if f.End.Before(f.Start) {
			return since, until, nil, &exitError{exitFailed, fmt.Errorf("--around: finding %s ends (%s) before it starts (%s): its times were changed by something else than forensics", f.ID, f.End.Format(time.RFC3339Nano), f.Start.Format(time.RFC3339Nano))}
		}
		since, until = f.Start.Add(-w.width), f.End.Add(w.width)
		evidence = map[evidenceKey]bool{}
		for _, e := range f.Evidence {
			evidence[evidenceKey{e.Path, e.Line}] = true
		}
		if at.IsZero() {
			at = f.Start
		}
	}
	switch {
	case w.sinceRel != nil:
		since = at.Add(*w.sinceRel)
	case !w.since.IsZero():
		since = w.since
	}
	switch {
	case w.untilRel != nil:
		until = at.Add(*w.untilRel)
	case !w.until.IsZero():
		until = w.until
	}
	if !since.IsZero() && !until.IsZero() && !until.After(since) {
		err = usageErrorf("--until %s is not after --since %s", until.Format(time.RFC3339Nano), since.Format(time.RFC3339Nano))
	}
	return since, until, evidence, err
}

func parseTime(flag, v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, usageErrorf("%s %q: want an RFC 3339 time such as 2022-07-22T00:39:12Z", flag, v)
}

// tzOriginal marks --tz original: each line in the offset its node logged.
var tzOriginal = time.FixedZone("original", 0)

func parseTZ(v string) (*time.Location, error) {
	switch strings.ToLower(v) {
	case "utc":
		return time.UTC, nil
	case "local":
		return time.Local, nil
	case "original":
		return tzOriginal, nil
	}
	return nil, usageErrorf("--tz %q: want UTC, Local or original", v)
}

func lineRow(l *store.Line, st *stamper) report.Row {
	r := report.Row{
		Time: st.format(l.Stamp()), Node: l.Node, Source: l.Path, Line: l.N,
		Zone: l.Flags.Zone.String(), Text: l.Text,
	}
	for _, k := range l.Kinds {
		r.Kinds = append(r.Kinds, string(k))
	}
	if l.Flags.Backwards {
		r.Flags = append(r.Flags, "backwards")
	}
	if l.Flags.Cut {
		r.Flags = append(r.Flags, "cut")
	}
	if l.Flags.Error {
		r.Flags = append(r.Flags, "parse-error")
	}
	return r
}

func eventRow(e *forensics.Event, st *stamper) report.Row {
	r := report.Row{
		Time: st.format(e.Stamp), Node: e.Node, Source: e.Path, Line: e.Line, Zone: e.Zone.String(),
		Kinds: []string{string(e.Kind)}, Bucket: e.Bucket, Range: e.Range, Keyspace: e.Keyspace, Shard: e.Shard,
		Table: e.Table, Text: e.Text,
	}
	if e.VB != forensics.NoVB {
		vb := e.VB
		r.VB = &vb
	}
	if len(e.Attrs) > 0 {
		r.Attrs = map[string]string{}
		for _, a := range e.Attrs {
			r.Attrs[a.Key] = a.Value
		}
	}
	return r
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

func newTimelineKindsCmd() *cobra.Command {
	format := newFormatFlag("table")
	var withAttrs bool
	cmd := &cobra.Command{
		Use:   "kinds [KIND...]",
		Short: "List the event kinds forensics recognises, with their meaning and attributes",
		Long: `List the event kinds forensics recognises, with their meaning. --attrs, or naming
kinds, also lists each kind's attributes: their key (as in --format json's attrs
and the events view of --sql), how their values are spelled, and what they hold.
--format json always carries the attributes.`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds := parsers.Kinds()
			sort.Slice(kinds, func(i, j int) bool { return kinds[i].Kind < kinds[j].Kind })
			if len(args) > 0 {
				byKind := map[forensics.Kind]forensics.KindDoc{}
				for _, k := range kinds {
					byKind[k.Kind] = k
				}
				kinds = kinds[:0]
				for _, a := range args {
					k, ok := byKind[forensics.Kind(a)]
					if !ok {
						return fmt.Errorf("no kind %q; forensics timeline kinds lists them", a)
					}
					kinds = append(kinds, k)
				}
				withAttrs = true
			}
			out := cmd.OutOrStdout()
			if format.String() == "json" {
				type attrDoc struct {
					Key  string `json:"key"`
					Type string `json:"type"`
					Doc  string `json:"doc"`
				}
				type kindDoc struct {
					Kind      string    `json:"kind"`
					Doc       string    `json:"doc"`
					Component string    `json:"component"`
					Category  string    `json:"category"`
					Label     string    `json:"label"`
					Attrs     []attrDoc `json:"attrs"`
				}
				list := make([]kindDoc, len(kinds))
				for i, k := range kinds {
					list[i] = kindDoc{Kind: string(k.Kind), Doc: k.Doc, Component: k.Component, Category: string(k.Category), Label: k.Label, Attrs: []attrDoc{}}
					for _, a := range k.Attrs {
						list[i].Attrs = append(list[i].Attrs, attrDoc{string(a.Key), string(a.Type), a.Doc})
					}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(list)
			}
			var terms []report.Term
			for _, k := range kinds {
				terms = append(terms, report.Term{Name: string(k.Kind), Doc: k.Doc})
				if withAttrs {
					for _, a := range k.Attrs {
						terms = append(terms, report.Term{Name: fmt.Sprintf("  %s (%s)", a.Key, a.Type), Doc: a.Doc})
					}
				}
			}
			return report.WriteTerms(out, terms, "", widthOf(out))
		},
	}
	format.register(cmd)
	cmd.Flags().BoolVar(&withAttrs, "attrs", false, "also list each kind's attributes")
	return cmd
}

func newTimelineSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Describe the views that timeline query --sql reads",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			width := proseWidth(out)
			var b strings.Builder
			for i, para := range schemaIntro {
				if i > 0 {
					b.WriteString("\n")
				}
				report.WriteProse(&b, para, "", "", width)
			}
			b.WriteString("\n")
			report.WriteProse(&b, "Example: how many lines each node logged during each finding, by rule and node; findings.start_ns and end_ns compare with lines.t and events.t as numbers:", "", "", width)
			b.WriteString("  forensics timeline query --sql \"" + schemaExample + "\"\n")
			io.WriteString(out, b.String())
			for _, v := range store.Views {
				b.Reset()
				b.WriteString("\n")
				report.WriteProse(&b, v.Name+" — "+v.Doc, "", "    ", width)
				io.WriteString(out, b.String())
				terms := make([]report.Term, len(v.Columns))
				for i, c := range v.Columns {
					terms[i] = report.Term{Name: c.Name, Doc: c.Doc}
				}
				if err := report.WriteTerms(out, terms, "  ", width); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
