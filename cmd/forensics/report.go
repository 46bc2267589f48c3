package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/analysis"
	"forensics/parsers"
	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

func newReportCmd() *cobra.Command {
	var dbPath, htmlPath, incident string
	var run int64
	cmd := &cobra.Command{
		Use:   "report --html OUT.html",
		Short: "Write the findings of an analysis as a self-contained HTML report",
		Long: `report writes the findings an analysis stored in the timeline (--db; the
latest run unless --run says which) as one HTML file: the inputs and nodes
analysed, each finding with its explanation, evidence and fixes (with copy
buttons for the commands), and a swimlane timeline of the events around
each finding, one lane per node and component, that can be zoomed and
whose markers show their log lines.

The file loads nothing from the network: styles, script and data are inside
it, so it can be attached to a ticket and opened anywhere.

It says on stderr where it wrote the report. Exit status: 0 when the
report was written; 1 when it could not be (no timeline, no such run); 2 for
a usage error.`,
		Example: `  forensics analyze collectinfo-*.zip
  forensics report --html incident.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if htmlPath == "" {
				return usageErrorf("report needs --html OUT.html")
			}
			return writeReportFile(cmd.Context(), dbPath, incident, run, htmlPath, loadLibrary(cmd).rules.Rules, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	cmd.Flags().StringVar(&htmlPath, "html", "", "write the HTML report to this `FILE` (- for stdout)")
	cmd.Flags().Int64Var(&run, "run", 0, "the analysis run to report, by `ID` (default: the latest of the incident)")
	addIncidentFlag(cmd, &incident)
	return cmd
}

// writeReportFile writes the HTML report of a stored run to path, through a
// temporary file so an interrupted run leaves no half-written report.
func writeReportFile(ctx context.Context, dbPath, incident string, run int64, path string, known []*forensics.Rule, stdout, stderr io.Writer) error {
	db, err := backends.OpenReader(dbPath)
	if err != nil {
		return &exitError{exitFailed, err}
	}
	defer db.Close()
	sc, err := resolveScope(ctx, db, incident, run)
	if err != nil {
		return err
	}
	if sc.name == allIncidents {
		return usageErrorf("report --incident all: a report is about one incident; pick one (forensics incidents)")
	}
	sc.note(stderr)
	run = sc.run
	rep, run, err := analysis.Report(ctx, db, run, known)
	if err != nil {
		return &exitError{exitFailed, err}
	}
	rep.Root = sc.root()
	if path == "-" {
		return writeHTML(ctx, stdout, db, run, rep)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return &exitError{exitFailed, fmt.Errorf("write report: %w", err)}
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := writeHTML(ctx, w, db, run, rep); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return &exitError{exitFailed, fmt.Errorf("write report %s: %w", path, err)}
	}
	if err := tmp.Close(); err != nil {
		return &exitError{exitFailed, fmt.Errorf("write report %s: %w", path, err)}
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return &exitError{exitFailed, fmt.Errorf("write report %s: %w", path, err)}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &exitError{exitFailed, fmt.Errorf("write report: %w", err)}
	}
	// Say where it went: a report written without a word looks like one
	// that was not written.
	where := path
	if abs, err := filepath.Abs(path); err == nil {
		where = abs
	}
	_, err = fmt.Fprintf(stderr, "Wrote the report of %s to %s\n", report.Plural(len(rep.Findings), "finding", "findings"), report.Escape(where))
	return err
}

// writeHTML writes the HTML report, reading the swimlanes' events of the
// run's sources from the timeline.
func writeHTML(ctx context.Context, w io.Writer, db store.Reader, run int64, rep *report.Report) error {
	return report.WriteHTML(ctx, w, rep, report.HTMLOptions{Timeline: store.Timeline(db, run), Kinds: parsers.Kinds()})
}
