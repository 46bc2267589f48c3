package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"forensics"
)

// TimeFormat is how times are shown in tables: UTC, to the microsecond.
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// maxText is how much of a log line a table shows; maxName and maxNode
// how much of a path and a node name.
const (
	maxText = 240
	maxName = 160
	maxNode = 60
)

// WriteFindings writes the findings for a reader: a summary table that fits
// the layout's width, then each finding with its explanation, evidence and
// fixes. The rules' declarations say how to show their findings' details.
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
func WriteFindingsTable(w io.Writer, fs []forensics.Finding, rules []*forensics.Rule, l Layout) error {
	rows := make([][]string, len(fs))
	for i, f := range fs {
		rows[i] = []string{f.Severity.String(), f.Rule, Escape(SubjectLine(f, rules)), f.Start.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start)), f.ID}
	}
	return fitTable(w, l.Width, findingColumns, rows)
}

func writeFinding(w io.Writer, f forensics.Finding, rules []*forensics.Rule, l Layout) error {
	var b strings.Builder
	wrap := l.wrapWidth(8)
	fmt.Fprintf(&b, "\n[%s] %s  %s  (id %s)\n", strings.ToUpper(f.Severity.String()), f.Rule, Escape(f.Title), f.ID)
	fmt.Fprintf(&b, "  Subject: %s\n", Escape(SubjectLine(f, rules)))
	fmt.Fprintf(&b, "  Window:  %s – %s (%s)\n", f.Start.UTC().Format(TimeFormat), f.End.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start)))
	b.WriteString("\n  What happened:\n")
	for _, para := range strings.Split(f.Explanation, "\n") {
		writeWrapped(&b, Escape(para), "    ", wrap)
	}
	if len(f.Skew) > 0 {
		b.WriteString("\n  Clock skew:\n")
		for _, s := range f.Skew {
			writeWrapped(&b, fmt.Sprintf("%s reads at least %s ahead of %s: %s", Escape(s.Ahead), Duration(s.By), Escape(s.Behind), Escape(s.Basis)), "    ", wrap)
			for _, q := range []struct {
				what string
				e    *forensics.Evidence
			}{{"cause ", s.Cause}, {"effect", s.Effect}} {
				if q.e != nil {
					fmt.Fprintf(&b, "      %s %s  %s:%d\n        %s\n", q.what, q.e.Time.UTC().Format(TimeFormat), Escape(q.e.Source), q.e.Line, Clip(q.e.Text, maxText))
				}
			}
		}
	}
	b.WriteString("\n  Evidence:\n")
	for _, e := range f.Evidence {
		note := ""
		if e.Note != "" {
			note = "  ← " + Escape(e.Note)
		}
		fmt.Fprintf(&b, "    %s  %s:%d%s\n      %s\n", e.Time.UTC().Format(TimeFormat), ClipName(e.Source, maxName), e.Line, note, clipLines(e.Text, maxText, "      "))
	}
	if len(f.Fixes) > 0 {
		b.WriteString("\n  What to do:\n")
		for i, fix := range f.Fixes {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, Escape(fix.Title))
			for _, s := range fix.Steps {
				writeWrapped(&b, "- "+Escape(s), "       ", wrap)
			}
			for _, c := range fix.Commands {
				fmt.Fprintf(&b, "       $ %s\n", Escape(c))
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
	if r.Summary.Empty > 0 {
		fmt.Fprintf(&b, "  empty: %s put nothing on the timeline (no timed line, no event), such as logs of only cbcollect_info's header\n", Plural(r.Summary.Empty, "source", "sources"))
	}
	for _, nr := range r.Summary.Releases {
		node := nr.Node
		if node == "" {
			node = "(no node)"
		}
		fmt.Fprintf(&b, "  release: %s %s %s\n", Escape(node), nr.Component, Escape(nr.Release))
	}
	for _, rc := range r.SkippedByReason() {
		fmt.Fprintf(&b, "  skipped %d: %s\n", rc.Files, EscapeLines(rc.Reason, "    "))
	}
	for _, g := range foldProblems(r.Problems) {
		fmt.Fprintf(&b, "  problem: %s\n", EscapeLines(g.first.Error(), "    "))
		if g.more > 0 {
			fmt.Fprintf(&b, "    … and %d more like it\n", g.more)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// clipLines is Clip for evidence that spans lines (a JSON document of a
// topology snapshot): each line on its own, indented, up to n bytes in all.
func clipLines(s string, n int, indent string) string {
	if !strings.Contains(strings.TrimSuffix(s, "\n"), "\n") {
		return Clip(s, n)
	}
	const maxLines = 40
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	more := 0
	if len(lines) > maxLines {
		more = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	for i, l := range lines {
		lines[i] = Clip(l, n)
	}
	out := strings.Join(lines, "\n"+indent)
	if more > 0 {
		out += fmt.Sprintf("\n%s… [%d more lines]", indent, more)
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
		rows = append(rows, []string{ClipName(node, maxNode), Escape(g.format), strconv.FormatInt(g.files, 10), strconv.FormatInt(g.lines, 10), strconv.FormatInt(g.events, 10),
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
