package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"forensics"
)

// TimeFormat is how times are shown in tables: UTC, to the microsecond.
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// maxText is how much of a log line a table shows.
const maxText = 240

// WriteFindings writes the findings for a reader: a summary table that fits
// the layout's width, then each finding with its explanation, evidence and
// fixes.
func WriteFindings(w io.Writer, fs []forensics.Finding, l Layout) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	if err := WriteFindingsTable(w, fs, l); err != nil {
		return err
	}
	for _, f := range fs {
		if err := writeFinding(w, f, l); err != nil {
			return err
		}
	}
	return nil
}

// findingColumns are the columns of the findings table. The subject is cut
// first, then the duration, start and severity go; the rule and the id (what
// show takes) stay.
var findingColumns = []column{
	{head: "Severity", drop: 3}, {head: "Rule", last: 16}, {head: "Subject", min: 20},
	{head: "Start (UTC)", drop: 2}, {head: "Duration", drop: 1}, {head: "ID"},
}

// WriteFindingsTable writes the one-row-per-finding table that fits the
// layout's width.
func WriteFindingsTable(w io.Writer, fs []forensics.Finding, l Layout) error {
	rows := make([][]string, len(fs))
	for i, f := range fs {
		rows[i] = []string{f.Severity.String(), f.Rule, SubjectLine(f.Subject), f.Start.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start)), f.ID}
	}
	return fitTable(w, l.Width, findingColumns, rows)
}

func writeFinding(w io.Writer, f forensics.Finding, l Layout) error {
	var b strings.Builder
	wrap := l.wrapWidth(8)
	fmt.Fprintf(&b, "\n[%s] %s  %s  (id %s)\n", strings.ToUpper(f.Severity.String()), f.Rule, f.Title, f.ID)
	fmt.Fprintf(&b, "  Subject: %s\n", SubjectLine(f.Subject))
	fmt.Fprintf(&b, "  Window:  %s – %s (%s)\n", f.Start.UTC().Format(TimeFormat), f.End.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start)))
	b.WriteString("\n  What happened:\n")
	for _, para := range strings.Split(f.Explanation, "\n") {
		writeWrapped(&b, para, "    ", wrap)
	}
	if len(f.Skew) > 0 {
		b.WriteString("\n  Clock skew:\n")
		for _, s := range f.Skew {
			writeWrapped(&b, fmt.Sprintf("%s reads at least %s ahead of %s: %s", s.Ahead, Duration(s.By), s.Behind, s.Basis), "    ", wrap)
			for _, q := range []struct {
				what string
				e    *forensics.Evidence
			}{{"cause ", s.Cause}, {"effect", s.Effect}} {
				if q.e != nil {
					fmt.Fprintf(&b, "      %s %s  %s:%d\n        %s\n", q.what, q.e.Time.UTC().Format(TimeFormat), q.e.Source, q.e.Line, Clip(q.e.Text, maxText))
				}
			}
		}
	}
	b.WriteString("\n  Evidence:\n")
	for _, e := range f.Evidence {
		note := ""
		if e.Note != "" {
			note = "  ← " + e.Note
		}
		fmt.Fprintf(&b, "    %s  %s:%d%s\n      %s\n", e.Time.UTC().Format(TimeFormat), e.Source, e.Line, note, Clip(e.Text, maxText))
	}
	if len(f.Fixes) > 0 {
		b.WriteString("\n  What to do:\n")
		for i, fix := range f.Fixes {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, fix.Title)
			for _, s := range fix.Steps {
				writeWrapped(&b, "- "+s, "       ", wrap)
			}
			for _, c := range fix.Commands {
				fmt.Fprintf(&b, "       $ %s\n", c)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSources writes the accounting of what was read, and what was not:
// one row per node and format (every file on Verbose), then the files that
// were skipped and the problems met.
func WriteSources(w io.Writer, r *Report, l Layout) error {
	if len(r.Sources) > 0 {
		var err error
		if l.Verbose {
			err = writeSourceFiles(w, r, l)
		} else {
			err = writeSourceSummary(w, r, l)
		}
		if err != nil {
			return err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s read, %d already in the timeline, %s skipped, %s.\n",
		Plural(r.Summary.Read, "source", "sources"), r.Summary.Reused, Plural(r.Summary.Skipped, "file", "files"), Plural(r.Summary.Problems, "problem", "problems"))
	for _, rc := range r.SkippedByReason() {
		fmt.Fprintf(&b, "  skipped %d: %s\n", rc.Files, rc.Reason)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "  problem: %s\n", Escape(p.Error()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var sourceColumns = []column{
	{head: "Source", min: 24, tail: true}, {head: "Node", min: 12}, {head: "Format", drop: 1}, {head: "Lines"}, {head: "Events"},
	{head: "Plain", drop: 2}, {head: "Skipped", drop: 3}, {head: "Errors"},
}

func writeSourceFiles(w io.Writer, r *Report, l Layout) error {
	var rows [][]string
	for _, s := range r.Sources {
		rows = append(rows, []string{Escape(s.Path), s.Node, s.Format, strconv.FormatInt(s.Lines, 10), strconv.FormatInt(s.Events, 10),
			strconv.FormatInt(s.Plain, 10), strconv.FormatInt(s.Skipped, 10), strconv.FormatInt(s.Errors, 10)})
	}
	return fitTable(w, l.Width, sourceColumns, rows)
}

var summaryColumns = []column{
	{head: "Node", min: 12}, {head: "Format", min: 10}, {head: "Files"}, {head: "Lines"}, {head: "Events"},
	{head: "Skipped", drop: 2}, {head: "Errors", drop: 1}, {head: "With problems"},
}

// writeSourceSummary writes one row per node and format, in the order the
// sources are listed; --verbose (or JSON) gives every file.
func writeSourceSummary(w io.Writer, r *Report, l Layout) error {
	type group struct {
		node, format                          string
		files, lines, events, skipped, errors int64
		troubled                              map[string]bool
	}
	var order []*group
	groups := map[[2]string]*group{}
	for _, s := range r.Sources {
		k := [2]string{s.Node, s.Format}
		g := groups[k]
		if g == nil {
			g = &group{node: s.Node, format: s.Format, troubled: map[string]bool{}}
			groups[k] = g
			order = append(order, g)
		}
		g.files++
		g.lines += s.Lines
		g.events += s.Events
		g.skipped += s.Skipped
		g.errors += s.Errors
		if s.Errors > 0 {
			g.troubled[s.Path] = true
		}
	}
	for _, p := range r.Problems {
		for _, s := range r.Sources {
			if p.Path == s.Path || strings.HasPrefix(p.Path, s.Path+":") {
				groups[[2]string{s.Node, s.Format}].troubled[s.Path] = true
			}
		}
	}
	var rows [][]string
	for _, g := range order {
		node := g.node
		if node == "" {
			node = "-"
		}
		rows = append(rows, []string{node, g.format, strconv.FormatInt(g.files, 10), strconv.FormatInt(g.lines, 10), strconv.FormatInt(g.events, 10),
			strconv.FormatInt(g.skipped, 10), strconv.FormatInt(g.errors, 10), strconv.Itoa(len(g.troubled))})
	}
	if err := fitTable(w, l.Width, summaryColumns, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(%s from %s; every file with --verbose or --format json)\n",
		Plural(len(rows), "row", "rows"), Plural(len(r.Sources), "file", "files"))
	return err
}

// Plural writes a count with its noun: "1 problem", "2 problems".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// SubjectLine writes a finding's subject in one line.
func SubjectLine(s forensics.FindingSubject) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	add("node", s.Node)
	add("bucket", s.Bucket)
	if len(s.VBuckets) > 0 {
		add("vbuckets", intList(s.VBuckets, 8))
	}
	if s.Range != 0 {
		add("range", "r"+strconv.FormatInt(s.Range, 10))
	}
	add("replicas", strings.Join(s.Replicas, " "))
	if s.Redirects > 0 {
		add("redirects", strconv.Itoa(s.Redirects))
	}
	add("keyspace", s.Keyspace)
	add("shards", strings.Join(s.Shards, ","))
	add("tables", strings.Join(s.Tables, ","))
	add("workflow", s.Workflow)
	return strings.Join(parts, ", ")
}

func intList(xs []int, max int) string {
	var parts []string
	for i, x := range xs {
		if i == max {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(xs)))
			break
		}
		parts = append(parts, strconv.Itoa(x))
	}
	return strings.Join(parts, ",")
}

// Duration writes a duration for people: 1.234s, 250ms, 2m3s.
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + Duration(-d)
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Clip shortens a line for display, saying how much was left out, and
// escapes bytes a terminal would act on.
func Clip(s string, n int) string {
	s = Escape(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d more bytes]", len(s)-cut)
}

// Escape shows control characters and invalid UTF-8 as escapes, so a line
// from a damaged file cannot move the cursor or change the terminal.
func Escape(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func writeWrapped(b *strings.Builder, text, indent string, width int) {
	if text == "" {
		b.WriteString("\n")
		return
	}
	next := indent
	if strings.HasPrefix(text, "- ") {
		next = indent + "  "
	}
	line := indent
	for _, w := range strings.Fields(text) {
		if strings.TrimSpace(line) != "" {
			if len(line)+1+len(w) > width {
				b.WriteString(line + "\n")
				line = next
			} else {
				line += " "
			}
		}
		line += w
	}
	b.WriteString(line + "\n")
}
