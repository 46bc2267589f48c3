package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"forensics"
	"forensics/report"
	"forensics/shell"
	"forensics/store"
)

// contextAround is how many rows show puts before and after each evidence
// line.
const contextAround = 3

// contextRow is a row of show's context: one event, or a flood of events of
// one kind on one node at one instant, folded into the first of them.
type contextRow struct {
	e        forensics.Event
	evidence bool
	count    int   // events folded into the row
	lastLine int64 // the line of the last folded event
	files    int   // the files they came from: cluster-wide logs repeat a line on every node
	keep     bool
}

// writeContext writes what every node logged around a finding, chosen for
// relevance: every evidence line, the events around each of them, and floods
// of one kind at one instant (a thousand restart timestamps in the same
// millisecond) folded into one row with their count, so the story is not
// buried under the loudest component.
func writeContext(ctx context.Context, out io.Writer, db store.Reader, f store.StoredFinding, window time.Duration, limit int, l report.Layout) error {
	evidence := map[evidenceKey]bool{}
	for _, e := range f.Evidence {
		evidence[evidenceKey{e.Path, e.Line}] = true
	}
	since, until := f.Start.Add(-window), f.End.Add(window)
	type floodKey struct {
		node string
		kind forensics.Kind
		ms   int64
	}
	var rows []*contextRow
	open := map[floodKey][]*contextRow{}
	filter := store.EventFilter{Run: f.Run}
	filter.Since, filter.Until = since, until
	total := 0
	err := each(db.Events(ctx, filter), func(e *forensics.Event) error {
		total++
		if evidence[evidenceKey{e.Path, e.Line}] {
			rows = append(rows, &contextRow{e: *e, evidence: true, count: 1, lastLine: e.Line})
			return nil
		}
		k := floodKey{e.Node, e.Kind, e.Time.UnixNano() / int64(time.Millisecond)}
		for _, r := range open[k] {
			if r.e.Path == e.Path || r.e.Text == e.Text {
				r.count++
				if r.e.Path == e.Path {
					r.lastLine = e.Line
				} else {
					r.files++
				}
				return nil
			}
		}
		r := &contextRow{e: *e, count: 1, lastLine: e.Line, files: 1}
		open[k] = append(open[k], r)
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return err
	}
	// Every evidence line, and the rows around it.
	for i, r := range rows {
		if !r.evidence {
			continue
		}
		for j := max(0, i-contextAround); j <= min(len(rows)-1, i+contextAround); j++ {
			rows[j].keep = true
		}
	}
	if len(f.Evidence) == 0 {
		for _, r := range rows {
			r.keep = true
		}
	}
	var head strings.Builder
	head.WriteString("\n")
	report.WriteProse(&head, fmt.Sprintf("Context: the evidence (marked *) and the events around it, %s to %s; floods of one kind at one instant folded (×N):",
		since.Format(report.TimeFormat), until.Format(report.TimeFormat)), "  ", "    ", l.Width)
	io.WriteString(out, head.String())
	rw := report.NewRowWriter(out, "table", isTerminal(out), false)
	shown, hidden, gap := 0, 0, 0
	for _, r := range rows {
		if !r.keep || shown >= limit {
			hidden += r.count
			gap += r.count
			continue
		}
		if gap > 0 {
			fmt.Fprintf(out, "      ⋮ %s\n", report.Plural(gap, "event", "events"))
			gap = 0
		}
		row := eventRow(&r.e, &stamper{loc: time.UTC})
		row.Evidence = r.evidence
		var err error
		if l.Width > 0 {
			err = report.WriteContextRow(out, report.ContextRow{Evidence: r.evidence, Time: r.e.Time, Node: r.e.Node, Source: r.e.Path,
				Line: r.e.Line, Kind: string(r.e.Kind), Count: r.count, Files: r.files, LastLine: r.lastLine, Text: report.Escape(row.Text)}, l)
		} else {
			switch {
			case r.count > 1 && r.files > 1:
				row.Text = fmt.Sprintf("(×%d in %d files) %s", r.count, r.files, row.Text)
			case r.count > 1:
				row.Text = fmt.Sprintf("(×%d, lines %d–%d) %s", r.count, r.e.Line, r.lastLine, row.Text)
			}
			err = rw.Write(&row)
		}
		if err != nil {
			return err
		}
		shown++
	}
	if hidden > 0 {
		var b strings.Builder
		report.WriteProse(&b, fmt.Sprintf("%s in the window, %d not shown; every one: %s",
			report.Plural(total, "event", "events"), hidden, report.Escape(shell.Command("forensics", "timeline", "query", "--around", f.ID, "--events"))), "  ", "    ", l.Width)
		_, err = io.WriteString(out, b.String())
	}
	return err
}
