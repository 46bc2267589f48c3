package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"forensics"
)

// TimeFormat is how times are shown in tables: UTC, to the microsecond.
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// maxText is how much of a log line Markdown's skew lines show; maxWhole
// how much of one any output shows "whole" (a line of 10 MB is kept, and
// shown cut); maxName and maxNode how much of a path and a node name a
// table cell holds.
const (
	maxText  = 240
	maxWhole = 64 << 10
	maxName  = 160
	maxNode  = 60
	// evidenceRows is how many rows of the terminal analyze gives a line
	// of evidence before it shortens it.
	evidenceRows = 3
)

// WriteFindings writes the findings for a reader: a summary table that fits
// the layout's width, then each finding with its explanation, evidence and
// fixes. On a terminal, where the findings of a long run scroll past, the
// table is written again at the end. The rules' declarations say how to
// show their findings' details.
func WriteFindings(w io.Writer, fs []forensics.Finding, rules []*forensics.Rule, l Layout) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	if err := WriteFindingsTable(w, fs, rules, l); err != nil {
		return err
	}
	for _, f := range fs {
		if err := writeFinding(w, f, rules, l); err != nil {
			return err
		}
	}
	if l.Width == 0 || len(fs) < 2 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n")
	writeWrapped(&b, Plural(len(fs), "finding", "findings")+" (forensics show ID prints one with its evidence whole and what every node logged around it):", "", "", l.Width)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return WriteFindingsTable(w, fs, rules, l)
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
func WriteFindingsTable(w io.Writer, fs []forensics.Finding, rules []*forensics.Rule, l Layout) error {
	rows := make([][]string, len(fs))
	for i, f := range fs {
		rows[i] = []string{f.Severity.String(), Escape(f.Rule), Escape(SubjectLine(f, rules)), f.Start.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start)), Escape(f.ID)}
	}
	return fitTable(w, l.Width, findingColumns, rows)
}

func writeFinding(w io.Writer, f forensics.Finding, rules []*forensics.Rule, l Layout) error {
	var b strings.Builder
	width := l.prose()
	b.WriteString("\n")
	writeRows(&b, fmt.Sprintf("[%s] %s  %s  (id %s)", strings.ToUpper(f.Severity.String()), Escape(f.Rule), Escape(f.Title), Escape(f.ID)), "", "  ", l.Width)
	writeRows(&b, "Subject: "+Escape(SubjectLine(f, rules)), "  ", "           ", l.Width)
	writeRows(&b, fmt.Sprintf("Window:  %s – %s (%s)", f.Start.UTC().Format(TimeFormat), f.End.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start))), "  ", "           ", l.Width)
	b.WriteString("\n  What happened:\n")
	for _, para := range strings.Split(f.Explanation, "\n") {
		if strings.TrimSpace(para) == "" {
			b.WriteString("\n")
			continue
		}
		writeWrapped(&b, Escape(para), "    ", "    ", width)
	}
	cut := false
	if len(f.Skew) > 0 {
		b.WriteString("\n  Clock skew:\n")
		for _, s := range f.Skew {
			writeWrapped(&b, fmt.Sprintf("%s reads at least %s ahead of %s: %s", Escape(s.Ahead), Duration(s.By), Escape(s.Behind), Escape(s.Basis)), "    ", "    ", width)
			for _, q := range []struct {
				what string
				e    *forensics.Evidence
			}{{"cause ", s.Cause}, {"effect", s.Effect}} {
				if q.e != nil {
					cut = writeEvidence(&b, *q.e, q.what+" ", "      ", l) || cut
				}
			}
		}
	}
	b.WriteString("\n  Evidence:\n")
	for _, e := range f.Evidence {
		cut = writeEvidence(&b, e, "", "    ", l) || cut
	}
	if cut {
		writeWrapped(&b, "(… marks where a line was cut to fit the terminal: forensics show "+f.ID+" prints every line whole.)", "    ", "     ", width)
	}
	if len(f.Fixes) > 0 {
		b.WriteString("\n  What to do:\n")
		for i, fix := range f.Fixes {
			writeWrapped(&b, fmt.Sprintf("%d. %s", i+1, Escape(fix.Title)), "    ", "       ", width)
			for _, s := range fix.Steps {
				writeWrapped(&b, "- "+Escape(s), "       ", "         ", width)
			}
			for _, c := range fix.Commands {
				writeCommand(&b, Escape(c), "       ", l.Width)
			}
			if ps := placeholders(fix.Commands); len(ps) > 0 {
				b.WriteString("       Fill in:\n")
				var terms []Term
				for _, p := range ps {
					terms = append(terms, Term{p.Name, p.Means})
				}
				writeTerms(&b, terms, "         ", width)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEvidence writes an evidence line: its time, where it is and what it
// shows, then the line as logged, indented under it. It reports whether the
// line was shortened to fit (see Layout.Whole).
func writeEvidence(b *strings.Builder, e forensics.Evidence, what, indent string, l Layout) (cut bool) {
	head := fmt.Sprintf("%s%s  %s:%d", what, e.Time.UTC().Format(TimeFormat), l.where(e), e.Line)
	if e.Note != "" {
		note := "← " + Escape(e.Note)
		if l.Width == 0 || textWidth(indent)+textWidth(head)+2+textWidth(note) <= l.Width {
			head += "  " + note
		} else {
			writeRows(b, head, indent, indent+"    ", l.Width)
			head = ""
			writeWrapped(b, note, indent+"    ", indent+"      ", l.prose())
		}
	}
	if head != "" {
		writeRows(b, head, indent, indent+"    ", l.Width)
	}
	text := strings.TrimSuffix(e.Text, "\n")
	lines := strings.Split(text, "\n")
	maxLines := 2000
	if !l.Whole {
		maxLines = 40
	}
	more := 0
	if len(lines) > maxLines {
		more, lines = len(lines)-maxLines, lines[:maxLines]
	}
	first, next := indent+"  ", indent+"    "
	for _, line := range lines {
		line = Clip(line, maxWhole)
		if !l.Whole && l.Width > 0 {
			line, cut = fitRows(line, first, next, l.Width, evidenceRows)
		}
		writeRows(b, line, first, next, l.Width)
	}
	if more > 0 {
		fmt.Fprintf(b, "%s… [%d more lines]\n", first, more)
	}
	return cut
}

// ContextRow is a row of show's context: an event around a finding.
type ContextRow struct {
	Evidence     bool
	Time         time.Time
	Node, Source string
	Line         int64
	Kind         string
	// A row may stand for several events of one kind at one instant: in
	// one file, up to LastLine, or the same line in Files files.
	Count, Files int
	LastLine     int64
	Text         string // the line, escaped
}

// WriteContextRow writes a row of show's context for a terminal of
// l.Width columns: the mark, the time of day (the context's header gives
// the day), where the line is and the event's kind, then the line,
// shortened to the row under it. (A file or a pipe gets the timeline's
// table, one whole row per event.)
func WriteContextRow(w io.Writer, r ContextRow, l Layout) error {
	var b strings.Builder
	mark := "  "
	if r.Evidence {
		mark = "* "
	}
	where := l.where(forensics.Evidence{Path: r.Source, Node: r.Node})
	lines := strconv.FormatInt(r.Line, 10)
	if r.Count > 1 && r.Files <= 1 {
		lines += "–" + strconv.FormatInt(r.LastLine, 10)
	}
	head := fmt.Sprintf("%s%s  %s:%s  %s", mark, r.Time.UTC().Format("15:04:05.000000Z"), where, lines, r.Kind)
	switch {
	case r.Count > 1 && r.Files > 1:
		head += fmt.Sprintf(" ×%d in %d files", r.Count, r.Files)
	case r.Count > 1:
		head += fmt.Sprintf(" ×%d", r.Count)
	}
	writeRows(&b, head, "", "      ", l.Width)
	text, _ := fitRows(r.Text, "      ", "      ", l.Width, 1)
	writeRows(&b, text, "      ", "      ", l.Width)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCommand writes a fix command after "$ ". One too wide for the
// terminal goes on as many rows as it needs, broken between two words with
// a backslash, so that it still pastes as one command.
func writeCommand(b *strings.Builder, c, indent string, width int) {
	first, next := indent+"$ ", indent+"    "
	if width == 0 || textWidth(first)+textWidth(c) <= width {
		b.WriteString(first + c + "\n")
		return
	}
	row, prefix := "", first
	for _, w := range shellWords(c) {
		if row != "" && textWidth(prefix)+textWidth(row)+1+textWidth(w)+2 > width {
			b.WriteString(prefix + row + " \\\n")
			row, prefix = "", next
		}
		if row != "" {
			row += " "
		}
		row += w
	}
	b.WriteString(prefix + row + "\n")
}

// shellWords splits a command line at the spaces a shell splits it at:
// not those inside single or double quotes.
func shellWords(c string) []string {
	var words []string
	start, quote := 0, byte(0)
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '\\':
			i++
		case ch == ' ':
			if i > start {
				words = append(words, c[start:i])
			}
			start = i + 1
		}
	}
	if start < len(c) {
		words = append(words, c[start:])
	}
	return words
}

// WriteSources writes the accounting of what was read, and what was not:
// one sentence (every file in a table on Verbose), the releases the files
// named, then the files that were skipped and the problems met.
func WriteSources(w io.Writer, r *Report, l Layout) error {
	if len(r.Sources) > 0 && l.Verbose {
		if err := writeSourceFiles(w, r, l); err != nil {
			return err
		}
	}
	var b strings.Builder
	var lines, events int64
	nodes := map[string]bool{}
	for _, s := range r.Sources {
		lines += s.Lines
		events += s.Events
		if s.Node != "" {
			nodes[s.Node] = true
		}
	}
	// What the run covers, read now or before: nodes, lines and events.
	var covers []string
	if len(nodes) > 0 {
		covers = append(covers, Plural(len(nodes), "node", "nodes"))
	}
	if len(r.Sources) > 0 {
		covers = append(covers, Plural(int(lines), "line", "lines"), Plural(int(events), "event", "events"))
	}
	sentence := fmt.Sprintf("%s read, %d already in the timeline", Plural(r.Summary.Read, "source", "sources"), r.Summary.Reused)
	if len(covers) > 0 {
		sentence += " (" + strings.Join(covers, ", ") + ")"
	}
	sentence += fmt.Sprintf(", %s skipped, %s.", Plural(r.Summary.Skipped, "file", "files"), Plural(r.Summary.Problems, "problem", "problems"))
	if !l.Verbose && len(r.Sources) > 0 {
		sentence += " --verbose lists every file."
	}
	writeWrapped(&b, sentence, "", "  ", l.Width)
	if r.Summary.Empty > 0 {
		writeWrapped(&b, fmt.Sprintf("empty: %s put nothing on the timeline (no timed line, no event), such as logs of only cbcollect_info's header", Plural(r.Summary.Empty, "source", "sources")), "  ", "    ", l.Width)
	}
	writeReleases(&b, r.Summary.Releases, l)
	for _, rc := range r.SkippedByReason() {
		writeLines(&b, fmt.Sprintf("skipped %d: %s", rc.Files, EscapeLines(rc.Reason, "")), "  ", "    ", l.Width)
	}
	for _, g := range foldProblems(r.Problems) {
		p := g.first
		if !l.Verbose {
			p.Path = r.rel(p.Path)
		}
		writeLines(&b, "problem: "+EscapeLines(p.Error(), ""), "  ", "    ", l.Width)
		if g.more > 0 {
			fmt.Fprintf(&b, "    … and %d more like it\n", g.more)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeReleases says which release each node's files named: a line per node
// on Verbose, else a line per release with its nodes.
func writeReleases(b *strings.Builder, rs []NodeRelease, l Layout) {
	name := func(node string) string {
		if node == "" {
			return "(no node)"
		}
		return Escape(node)
	}
	if l.Verbose {
		for _, nr := range rs {
			writeWrapped(b, fmt.Sprintf("release: %s %s %s", name(nr.Node), nr.Component, Escape(nr.Release)), "  ", "    ", l.Width)
		}
		return
	}
	type release struct{ component, release string }
	var order []release
	nodes := map[release][]string{}
	for _, nr := range rs {
		k := release{nr.Component, nr.Release}
		if nodes[k] == nil {
			order = append(order, k)
		}
		nodes[k] = append(nodes[k], name(nr.Node))
	}
	for _, k := range order {
		writeWrapped(b, fmt.Sprintf("release: %s %s on %s", k.component, Escape(k.release), strings.Join(nodes[k], ", ")), "  ", "    ", l.Width)
	}
}

// problemGroup is a problem and how many more had the same reason: 42.zip
// yields 65,536 identical problems, which say no more than one.
type problemGroup struct {
	first forensics.Problem
	more  int
}

// foldProblems groups problems by reason, in the order of their first.
func foldProblems(ps []forensics.Problem) []problemGroup {
	var out []problemGroup
	at := map[string]int{}
	for _, p := range ps {
		key := p.Reason
		if p.Lost {
			key = "lost\x00" + key
		}
		if i, ok := at[key]; ok {
			out[i].more++
			continue
		}
		at[key] = len(out)
		out = append(out, problemGroup{first: p})
	}
	return out
}

var sourceColumns = []column{
	{head: "Source", min: 24, tail: true}, {head: "Node", min: 12}, {head: "Format", drop: 1}, {head: "Release", drop: 4}, {head: "Lines"}, {head: "Events"},
	{head: "Plain", drop: 2}, {head: "Skipped", drop: 3}, {head: "Errors"},
}

func writeSourceFiles(w io.Writer, r *Report, l Layout) error {
	var rows [][]string
	for _, s := range r.Sources {
		rows = append(rows, []string{ClipName(s.Path, maxName), ClipName(s.Node, maxNode), Escape(s.Format), Escape(s.Release), strconv.FormatInt(s.Lines, 10), strconv.FormatInt(s.Events, 10),
			strconv.FormatInt(s.Plain, 10), strconv.FormatInt(s.Skipped, 10), strconv.FormatInt(s.Errors, 10)})
	}
	return fitTable(w, l.Width, sourceColumns, rows)
}

// Plural writes a count with its noun: "1 problem", "2 problems".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// SubjectLine writes a finding's subject in one line: the shared fields,
// then the details as the finding's rule (one of rules) declares them. A
// detail no rule there declares (its rule is not in this build, or was
// loaded from elsewhere) is shown by its key.
func SubjectLine(f forensics.Finding, rules []*forensics.Rule) string {
	s := f.Subject
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
	add("keyspace", s.Keyspace)
	add("shards", strings.Join(s.Shards, ","))
	add("tables", strings.Join(s.Tables, ","))
	add("workflow", s.Workflow)
	add("shard", s.Shard)
	add("service", s.Service)
	add("reason", s.Reason)
	add("nodes", strings.Join(s.Nodes, ","))
	decl := declared(rules, f.Rule)
	for _, d := range s.Details {
		doc := detailDoc(decl, d.Key)
		if doc.Show == forensics.ShowInLine {
			add(doc.LabelText(), detailText(doc, d.Value))
		}
	}
	return strings.Join(parts, ", ")
}

// declared returns the details the rule named declares.
func declared(rules []*forensics.Rule, name string) []forensics.Detail {
	for _, r := range rules {
		if r.Name == name {
			return r.Details
		}
	}
	return nil
}

// detailDoc returns the declaration of the detail key, or one that shows
// it by its key.
func detailDoc(decl []forensics.Detail, key string) forensics.Detail {
	for _, d := range decl {
		if d.Key == key {
			return d
		}
	}
	return forensics.Detail{Key: key}
}

// detailText writes a detail's value as its declaration says.
func detailText(d forensics.Detail, v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		if v == 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	case []string:
		return strings.Join(v, cmp.Or(d.Join, ","))
	case []int:
		return intList(v, 8)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// apartDetail is a detail shown apart from the subject's line: its label,
// capitalised, and its items.
type apartDetail struct {
	Label string
	Items []string
}

// detailsApart returns the details of the finding its rule shows apart
// from the subject's line (forensics.ShowApart).
func detailsApart(f forensics.Finding, rules []*forensics.Rule) []apartDetail {
	var out []apartDetail
	decl := declared(rules, f.Rule)
	for _, d := range f.Subject.Details {
		doc := detailDoc(decl, d.Key)
		if doc.Show != forensics.ShowApart {
			continue
		}
		items, ok := d.Value.([]string)
		if !ok {
			if t := detailText(doc, d.Value); t != "" {
				items = []string{t}
			}
		}
		if len(items) > 0 {
			label := doc.LabelText()
			out = append(out, apartDetail{Label: strings.ToUpper(label[:1]) + label[1:], Items: items})
		}
	}
	return out
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
	case d == math.MinInt64: // a finding whose times were changed: -d is d
		return d.String()
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
