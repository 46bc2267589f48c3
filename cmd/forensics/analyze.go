package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/analysis"
	"forensics/ingest"
	"forensics/input"
	"forensics/profile"
	"forensics/report"
	"forensics/store/backends"
)

type analyzeOptions struct {
	db       string
	format   *enumFlag
	failOn   string
	rules    []string
	strict   bool
	quiet    bool
	verbose  bool
	wide     bool
	incident string
	fresh    bool
	profile  string
	limits   input.Limits
	stdout   io.Writer
	stderr   io.Writer
}

func newAnalyzeCmd() *cobra.Command {
	opts := &analyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze PATH...",
		Short: "Read evidence into the timeline and report the failures found",
		Long: `analyze reads each PATH — a cbcollect_info zip, a cockroach debug zip, a
snapshot folder, a tarball, a .gz or plain log file, or a folder of any of
these — into the timeline (--db), runs the rules over what was read, and
prints the findings.

Zips are read in place, never extracted. Content already in the timeline is
recognised and not read again, so analyze can be re-run on the same input;
the findings of the same content and rules are reused unless --fresh.

` + analyzeFormatsHelp() + `
Exit status: 0 when the analysis ran, whatever it found; 1 when nothing could
be analysed (or, with --strict, when anything could not be read); 2 for a
usage error; 3 when --fail-on is given and a finding is at or above that
severity (the output is written all the same).`,
		Example: `  forensics analyze collectinfo-*.zip
  forensics analyze --format json snapshot-2024-12-02T164500Z/ > findings.json
  forensics analyze --format markdown collectinfo-*.zip > ticket.md
  forensics analyze --format sarif --fail-on high incidents/ > forensics.sarif
  forensics analyze --format html collectinfo-*.zip > report.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("analyze needs at least one PATH to read")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.stdout, opts.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runAnalyze(cmd, opts, args)
		},
	}
	addDBFlag(cmd, &opts.db, "`FILE` to keep the timeline in, for findings, show and timeline query")
	opts.format = newFormatFlag("table", analyzeFormatNames()...)
	opts.format.register(cmd)
	cmd.Flags().StringVar(&opts.failOn, "fail-on", "", "exit 3 when a finding is at or above this `SEVERITY`: low, medium (= warning), high or critical")
	cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"low", "medium", "warning", "high", "critical"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().StringSliceVar(&opts.rules, "rules", nil, "run only these `RULES` (comma-separated; see forensics rules list)")
	cmd.RegisterFlagCompletionFunc("rules", completeRules)
	cmd.Flags().BoolVarP(&opts.quiet, "quiet", "q", false, "no progress display and no summary of the inputs on stderr")
	cmd.Flags().StringVar(&opts.incident, "incident", "", "name the `INCIDENT` this evidence belongs to (default: named after the inputs); see forensics incidents")
	cmd.Flags().BoolVar(&opts.fresh, "fresh", false, "run the rules even when the timeline holds findings of the same content and rules (a timeline someone else wrote: its findings are not reused)")
	cmd.Flags().BoolVarP(&opts.verbose, "verbose", "v", false, "list every file read on stderr, not a one-line summary, and name evidence by its full path")
	addWideFlag(cmd, &opts.wide)
	cmd.Flags().StringVar(&opts.profile, "cpuprofile", "", "write a CPU profile of the run to this `FILE` (for go tool pprof)")
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "exit 1 when any input could not be read in full")
	opts.limits = input.DefaultLimits
	cmd.Flags().Var(sizeFlag{&opts.limits.MaxTotal}, "max-bytes", "stop reading after the inputs decompress to this `SIZE` in all (1TiB, 500MiB, 2GB)")
	cmd.Flags().Int64Var(&opts.limits.MaxRatio, "max-ratio", input.DefaultLimits.MaxRatio, "stop reading a member that decompresses to more than `N` times its compressed size (zip bombs)")
	cmd.Flags().IntVar(&opts.limits.MaxDepth, "max-depth", input.DefaultLimits.MaxDepth, "read archives nested at most `N` deep")
	cmd.Flags().Var(sizeFlag{&opts.limits.MaxMember}, "max-member", "largest zip inside an archive that is read, as a `SIZE` (it is held in memory: a zip needs random access)")
	cmd.Flags().Int64Var(&opts.limits.MaxExpansion, "max-expansion", input.DefaultLimits.MaxExpansion, "stop reading an archive whose members, nested archives included, decompress to more than `N` times its size (at least 256 MiB; nested zip bombs)")
	return cmd
}

// analyzeOutput is one value of analyze --format: what it is for (the help
// lists it) and how the report is written in it.
type analyzeOutput struct {
	name  string
	use   string
	write func(ctx context.Context, opts *analyzeOptions, res *analysis.Result, selected []*forensics.Rule) error
	// readsTimeline keeps the progress display up while the output is
	// written: the HTML report reads the timeline again.
	readsTimeline bool
}

// analyzeFormats are analyze's outputs, in the order --help lists them; the
// first is the default.
var analyzeFormats = []analyzeOutput{
	{name: "table", use: "for a terminal", write: writeAnalyzeTable},
	{name: "json", use: "for programs; the field names are a contract", write: func(_ context.Context, opts *analyzeOptions, res *analysis.Result, _ []*forensics.Rule) error {
		return report.WriteJSON(opts.stdout, res.Report)
	}},
	{name: "markdown", use: "to paste into a ticket or issue", write: func(_ context.Context, opts *analyzeOptions, res *analysis.Result, _ []*forensics.Rule) error {
		return report.WriteMarkdown(opts.stdout, res.Report)
	}},
	{name: "sarif", use: "SARIF 2.1.0, for code-scanning dashboards: one result per finding, fingerprinted by the finding's id", write: func(_ context.Context, opts *analyzeOptions, res *analysis.Result, selected []*forensics.Rule) error {
		return report.WriteSARIF(opts.stdout, res.Report, selected)
	}},
	{name: "html", use: "the self-contained report of 'forensics report', with a swimlane timeline per finding", write: func(ctx context.Context, opts *analyzeOptions, res *analysis.Result, _ []*forensics.Rule) error {
		return analyzeHTML(ctx, opts, res.Run, res.Report)
	}, readsTimeline: true},
}

func analyzeFormatNames() []string {
	var out []string
	for _, f := range analyzeFormats {
		out = append(out, f.name)
	}
	return out
}

func lookupAnalyzeFormat(name string) analyzeOutput {
	for _, f := range analyzeFormats {
		if f.name == name {
			return f
		}
	}
	return analyzeFormats[0] // the flag allows only the names above
}

// analyzeFormatsHelp is the paragraph of analyze --help that lists the
// formats.
func analyzeFormatsHelp() string {
	var parts []string
	for _, f := range analyzeFormats {
		parts = append(parts, f.name+" ("+f.use+")")
	}
	var b strings.Builder
	report.WriteProse(&b, "Formats: "+strings.Join(parts, ", ")+".", "", "", 76)
	return b.String()
}

// writeAnalyzeTable writes, unless -q, the summary of the inputs on stderr,
// then the findings on stdout: last, so that they are what a terminal shows
// when the run ends.
func writeAnalyzeTable(_ context.Context, opts *analyzeOptions, res *analysis.Result, _ []*forensics.Rule) error {
	if !opts.quiet {
		if err := report.WriteSources(opts.stderr, res.Report, opts.layout(opts.stderr)); err != nil {
			return err
		}
		fmt.Fprintln(opts.stderr)
	}
	l := opts.layout(opts.stdout)
	l.Root = res.Report.Root
	return report.WriteFindings(opts.stdout, res.Report.Findings, res.Report.Rules, l)
}

// layout is how the table output fits w.
func (opts *analyzeOptions) layout(w io.Writer) report.Layout {
	l := layoutFor(w, opts.verbose)
	if opts.wide {
		l.Width, l.Wide = 0, true
	}
	return l
}

func runAnalyze(cmd *cobra.Command, opts *analyzeOptions, paths []string) error {
	var threshold *forensics.Severity
	if opts.failOn != "" {
		s, err := forensics.ParseSeverity(opts.failOn)
		if err != nil {
			return usageErrorf("--fail-on: %v", err)
		}
		threshold = &s
	}
	lib := loadLibrary(cmd)
	lib.warn(opts.stderr)
	selected, err := lib.selectRules(opts.rules)
	if err != nil {
		return err
	}
	if opts.profile != "" {
		f, err := os.Create(opts.profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	defer profile.Done()
	var prog *ingest.Progress
	stop := func() {}
	if !opts.quiet {
		prog = &ingest.Progress{}
		stop = showProgress(opts.stderr, prog)
		defer stop()
	}
	format := lookupAnalyzeFormat(opts.format.String())
	res, err := analyze(cmd.Context(), opts.db, opts.incident, paths, lib, selected, opts.limits, prog, opts.fresh)
	if !format.readsTimeline {
		stop() // the output follows; the HTML report still reads the timeline
	}
	if err != nil {
		return err
	}
	rep, ruleErrs := res.Report, res.RuleErrors
	for _, err := range ruleErrs {
		fmt.Fprintf(opts.stderr, "forensics: %s\n", report.EscapeLines(err.Error(), "  "))
	}
	if !res.Analysed() {
		// Say why, not "No findings.": nothing was looked at.
		if !opts.quiet {
			if err := report.WriteSources(opts.stderr, rep, opts.layout(opts.stderr)); err != nil {
				return err
			}
		}
		return &exitError{exitFailed, fmt.Errorf("nothing could be analysed in %s", strings.Join(paths, ", "))}
	}
	if err := format.write(cmd.Context(), opts, res, selected); err != nil {
		return err
	}
	if len(ruleErrs) > 0 {
		return &exitError{exitFailed, fmt.Errorf("%s failed", report.Plural(len(ruleErrs), "rule", "rules"))}
	}
	if opts.strict {
		lost := 0
		for _, p := range rep.Problems {
			if p.Lost {
				lost++
			}
		}
		if lost > 0 {
			// Point to where the problems are: -q hid them from stderr.
			where := "see the problems above"
			switch {
			case opts.format.String() == "json":
				where = `listed under "problems" in the output`
			case opts.quiet:
				where = "run without -q to see which and why"
			}
			what := "inputs"
			if lost == 1 {
				what = "input"
			}
			return &exitError{exitFailed, fmt.Errorf("--strict: %d %s could not be read in full (%s)", lost, what, where)}
		}
	}
	if threshold != nil {
		n := 0
		for _, f := range rep.Findings {
			if f.Severity >= *threshold {
				n++
			}
		}
		if n > 0 {
			what := "findings are"
			if n == 1 {
				what = "finding is"
			}
			return &exitError{exitFindings, fmt.Errorf("--fail-on %s: %d %s at or above %s", opts.failOn, n, what, threshold)}
		}
	}
	return nil
}

// analyzeHTML writes the HTML report of the run just analysed, reading the
// swimlanes' events back from the timeline.
func analyzeHTML(ctx context.Context, opts *analyzeOptions, run int64, rep *report.Report) error {
	db, err := backends.OpenReader(opts.db)
	if err != nil {
		return err
	}
	defer db.Close()
	return writeHTML(ctx, opts.stdout, db, run, rep)
}

// analyze reads paths into the timeline at dbPath with the library's
// formats, runs the selected rules over what was read, and stores and
// returns the findings.
func analyze(ctx context.Context, dbPath, incident string, paths []string, lib *library, selected []*forensics.Rule, limits input.Limits, prog *ingest.Progress, fresh bool) (*analysis.Result, error) {
	db, err := backends.Open(dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return analysis.Run(ctx, analysis.Config{
		Store: db, Inputs: paths, Incident: incident,
		Formats: lib.formats, Rules: selected, Limits: limits, Progress: prog, Fresh: fresh,
		RulesID: lib.rulesID(selected),
	})
}
