// Package analysis is the use case of forensics: read evidence into a
// timeline, run the rules over what was read, keep the findings, and put
// the report together. The commands are a shell around it: they parse
// flags, open the timeline, call Run and print the Result.
package analysis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"forensics"
	"forensics/ingest"
	"forensics/input"
	"forensics/profile"
	"forensics/report"
	"forensics/rules/driver"
	"forensics/store"
)

// Config is one analysis.
type Config struct {
	Store    store.Backend // the timeline; the caller opens and closes it
	Inputs   []string      // paths to read
	Incident string        // the incident the evidence belongs to; "" names it after the inputs
	Formats  []forensics.Format
	Rules    []*forensics.Rule
	Limits   input.Limits
	Progress *ingest.Progress // may be nil
	// Fresh runs the rules even when an earlier run of the same content and
	// rules left findings to reuse.
	Fresh bool
	// RulesID names the rules and the build that runs them, so findings of
	// unchanged content are reused only when both are the same; "" means
	// RulesID(Rules).
	RulesID string
}

// Result is what an analysis read and found.
type Result struct {
	Run        int64
	Ingest     ingest.Result
	Report     *report.Report
	RuleErrors []error // rules that failed; the findings of the others are kept
}

// Analysed reports whether anything was read or found already read: a run
// that read nothing is not an analysis.
func (r *Result) Analysed() bool { return r.Ingest.Read+r.Ingest.Reused > 0 }

// Run reads the inputs into the timeline, runs the rules over what this
// run covers (or reuses the findings of an earlier run over the same
// content with the same rules), stores the findings and builds the report.
// A run that reads nothing is discarded, so the latest run stays the latest
// analysis, and its Result says so (Analysed).
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	defer func() {
		// Interrupted after the reading: what was read is stored whole, and
		// the next run reads none of it again.
		if err != nil && errors.Is(err, context.Canceled) && !errors.As(err, new(interrupted)) {
			res, err = nil, interrupted{fmt.Errorf("analyze interrupted (%w) while the rules ran: every file read is stored; run the same command again to finish, it reads none of them again", err)}
		}
	}()
	return run(ctx, cfg)
}

// interrupted is an analysis stopped by its context, said in words.
type interrupted struct{ error }

func (e interrupted) Unwrap() error { return e.error }

func run(ctx context.Context, cfg Config) (*Result, error) {
	db := cfg.Store
	// The live heap of the reading is small (blocks of lines on their way
	// to the database): collecting half as often saves CPU and costs little
	// memory. The rules' live heap is what they hold, and a tighter
	// collection keeps their peak near it.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	profile.Mark("ingest")
	w, err := db.NewRun(ctx, cfg.Inputs)
	if err != nil {
		return nil, err
	}
	incident := cfg.Incident
	if incident == "" {
		incident = store.IncidentName(cfg.Inputs)
	}
	if err := w.SetIncident(incident); err != nil {
		return nil, err
	}
	res, err := ingest.Run(ctx, db, w, cfg.Inputs, ingest.Options{Formats: cfg.Formats, Limits: cfg.Limits, Progress: cfg.Progress})
	out := &Result{Run: res.Run, Ingest: res}
	if err == nil && res.Read+res.Reused == 0 {
		if err := w.Discard(); err != nil {
			return nil, err
		}
		out.Report = &report.Report{Problems: res.Problems, Summary: report.Summary{Skipped: len(res.Skipped), Problems: len(res.Problems)}, Root: report.InputRoot(cfg.Inputs)}
		for _, s := range res.Skipped {
			out.Report.Skipped = append(out.Report.Skipped, report.Skipped(s))
		}
		return out, nil
	}
	if errors.Is(err, context.Canceled) {
		return nil, interrupted{fmt.Errorf("analyze interrupted (%w): the files stored whole so far are kept; run the same command again to finish", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	setStep(cfg.Progress, ingest.Rules)
	// The reading's buffers are garbage now: handing them back to the
	// system keeps the rules' peak from stacking on the reading's.
	debug.FreeOSMemory()
	debug.SetGCPercent(50)
	profile.Mark("rules")
	id := cfg.RulesID
	if id == "" {
		id = RulesID(cfg.Rules)
	}
	sig, err := db.Signature(ctx, res.Run, id)
	if err != nil {
		return nil, err
	}
	var findings []forensics.Finding
	reused := false
	if !cfg.Fresh {
		if findings, reused, err = db.PriorFindings(ctx, res.Run, sig); err != nil {
			return nil, fmt.Errorf("%w (--fresh runs the rules instead of reading the earlier run's findings)", err)
		}
	}
	if !reused {
		// The rules run side by side on a read-only view of their own.
		ro, err := db.OpenReader()
		if err != nil {
			return nil, err
		}
		findings, out.RuleErrors = driver.Run(ctx, store.Timeline(ro, res.Run), cfg.Rules)
		ro.Close()
		if err := context.Cause(ctx); err != nil {
			return nil, err // the findings of rules cut short are not kept
		}
	}
	if err := w.SaveFindings(findings); err != nil {
		return nil, err
	}
	if len(out.RuleErrors) == 0 {
		if err := w.SetSignature(sig); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	setStep(cfg.Progress, ingest.Report)
	profile.Mark("report")
	srcs, err := db.Sources(ctx, res.Run)
	if err != nil {
		return nil, err
	}
	rd := report.Reading{Read: res.Read, Reused: res.Reused, Problems: res.Problems, Rules: cfg.Rules}
	for _, s := range res.Skipped {
		rd.Skipped = append(rd.Skipped, report.Skipped(s))
	}
	out.Report = report.Build(findings, srcs, rd)
	out.Report.Root = report.InputRoot(cfg.Inputs)
	return out, nil
}

// Report rebuilds the report of a stored run (the latest when run is 0)
// from the timeline: its findings, its sources and their problems. Files
// that were skipped are not stored, so the report does not list them. It
// returns the run reported. The rules' declarations say how the report
// shows their findings' details.
func Report(ctx context.Context, r store.Reader, run int64, rules []*forensics.Rule) (*report.Report, int64, error) {
	if run == 0 {
		latest, err := r.LatestRun(ctx)
		if err != nil {
			return nil, 0, err
		}
		if latest == 0 {
			return nil, 0, fmt.Errorf("%s holds no analysis; run forensics analyze first", r.Name())
		}
		run = latest
	}
	stored, err := r.Findings(ctx, run)
	if err != nil {
		return nil, 0, err
	}
	srcs, err := r.Sources(ctx, run)
	if err != nil {
		return nil, 0, err
	}
	if len(srcs) == 0 && len(stored) == 0 {
		return nil, 0, fmt.Errorf("%s has no run %d with sources or findings; forensics findings --run N lists a run's findings", r.Name(), run)
	}
	var findings []forensics.Finding
	for _, f := range stored {
		findings = append(findings, f.Finding)
	}
	return report.Build(findings, srcs, report.Reading{Reused: len(srcs), Rules: rules}), run, nil
}

func setStep(p *ingest.Progress, ph ingest.Step) {
	if p != nil {
		p.Step.Store(int32(ph))
	}
}

// RulesID names the rules and the build of forensics that runs them: the
// findings of unchanged content are reused only if both are the same.
func RulesID(rs []*forensics.Rule) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Name + ",")
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				b.WriteString(s.Value + ",")
			}
		}
	}
	// An unversioned or modified build is told apart by its executable.
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			fmt.Fprintf(&b, "%d,%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}
