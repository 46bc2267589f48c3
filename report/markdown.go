package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"forensics"
	"forensics/shell"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown, to paste
// into a ticket or an issue: a summary table, then each finding with its
// explanation, the evidence lines in a code block and the fix commands in a
// shell block, then what was read. The output depends only on the report, so
// the same analysis gives the same text.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	b.WriteString(markdownTitle + countFindings(r.Findings) + "\n\n")
	writeScope(&b, r)

	if len(r.Findings) > 0 {
		b.WriteString("| # | Severity | Rule | Subject | Start (UTC) | Duration | ID |\n")
		b.WriteString("|---|---|---|---|---|---|---|\n")
		for i, f := range r.Findings {
			fmt.Fprintf(&b, "| %d | **%s** | %s | %s | %s | %s | %s |\n", i+1, f.Severity, mdCodeCell(f.Rule),
				mdCell(SubjectLine(f, r.Rules)), f.Start.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start)), mdCodeCell(f.ID))
		}
		for i, f := range r.Findings {
			writeMarkdownFinding(&b, r, i+1, f)
		}
	}
	writeMarkdownInputs(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

func countFindings(fs []forensics.Finding) string {
	switch len(fs) {
	case 0:
		return "no findings"
	case 1:
		return "1 finding"
	}
	return strconv.Itoa(len(fs)) + " findings"
}

// writeScope says in one sentence what the findings were drawn from.
func writeScope(b *strings.Builder, r *Report) {
	nodes := nodeList(r.Sources)
	first, last := span(r.Sources)
	fmt.Fprintf(b, "From %s", Plural(len(r.Sources), "source", "sources"))
	if len(nodes) > 0 {
		fmt.Fprintf(b, " on %s (%s)", Plural(len(nodes), "node", "nodes"), mdEscape(strings.Join(nodes, ", ")))
	}
	if !first.IsZero() {
		fmt.Fprintf(b, ", logged from %s to %s UTC", first.UTC().Format(TimeFormat), last.UTC().Format(TimeFormat))
	}
	b.WriteString(".")
	if len(r.Findings) > 0 {
		b.WriteString(" By severity: " + severityCounts(r.Findings) + ".")
	}
	b.WriteString("\n\n")
}

// severityCounts lists the findings by severity, the most severe first.
func severityCounts(fs []forensics.Finding) string {
	counts := map[forensics.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var sevs []forensics.Severity
	for s := range counts {
		sevs = append(sevs, s)
	}
	sort.Slice(sevs, func(i, j int) bool { return sevs[i] > sevs[j] })
	var parts []string
	for _, s := range sevs {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	return strings.Join(parts, ", ")
}

// nodeList returns the nodes the sources were logged by, sorted.
func nodeList(srcs []Source) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range srcs {
		if s.Node != "" && !seen[s.Node] {
			seen[s.Node] = true
			out = append(out, s.Node)
		}
	}
	sort.Strings(out)
	return out
}

func span(srcs []Source) (first, last time.Time) {
	for _, s := range srcs {
		if s.First == nil {
			continue
		}
		if first.IsZero() || s.First.Before(first) {
			first = *s.First
		}
		if s.Last.After(last) {
			last = *s.Last
		}
	}
	return first, last
}

func writeMarkdownFinding(b *strings.Builder, r *Report, n int, f forensics.Finding) {
	rules := r.Rules
	fmt.Fprintf(b, "\n## %d. %s: %s\n\n", n, strings.ToUpper(f.Severity.String()), mdEscape(f.Title))
	fmt.Fprintf(b, "- **Rule:** %s\n", mdCode(f.Rule))
	fmt.Fprintf(b, "- **ID:** %s (%s)\n", mdCode(f.ID), mdCode(shell.Command("forensics", "show", f.ID)))
	if s := SubjectLine(f, rules); s != "" {
		fmt.Fprintf(b, "- **Subject:** %s\n", mdEscape(s))
	}
	for _, d := range detailsApart(f, rules) {
		fmt.Fprintf(b, "- **%s:** %s\n", mdEscape(d.Label), mdCodeList(d.Items))
	}
	fmt.Fprintf(b, "- **Window:** %s to %s UTC (%s)\n", f.Start.UTC().Format(TimeFormat), f.End.UTC().Format(TimeFormat), Duration(f.End.Sub(f.Start)))

	b.WriteString("\n### What happened\n\n")
	for _, para := range strings.Split(strings.TrimSpace(f.Explanation), "\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		b.WriteString(mdEscape(para) + "\n\n")
	}

	if len(f.Skew) > 0 {
		b.WriteString("### Clock skew\n\n")
		for _, s := range f.Skew {
			fmt.Fprintf(b, "- %s reads at least %s ahead of %s (%s)\n", mdEscape(s.Ahead), Duration(s.By), mdEscape(s.Behind), mdEscape(s.Basis))
			for _, q := range []struct {
				what string
				e    *forensics.Evidence
			}{{"cause", s.Cause}, {"effect", s.Effect}} {
				if q.e != nil {
					fmt.Fprintf(b, "  - %s, `%s:%d`: `%s`\n", q.what, mdCode(r.rel(q.e.Path)), q.e.Line, mdCode(Clip(q.e.Text, maxText)))
				}
			}
		}
		b.WriteString("\n")
	}

	if len(f.Evidence) > 0 {
		b.WriteString("### Evidence\n\n")
		var code strings.Builder
		for i, e := range f.Evidence {
			if i > 0 {
				code.WriteString("\n")
			}
			fmt.Fprintf(&code, "# %d. %s  %s:%d", i+1, e.Time.UTC().Format(TimeFormat), Escape(r.rel(e.Path)), e.Line)
			if e.Note != "" {
				code.WriteString("  (" + Escape(e.Note) + ")")
			}
			code.WriteString("\n" + escapeLines(clipRaw(e.Text, 4000)) + "\n")
		}
		writeFence(b, "text", code.String())
	}

	if len(f.Fixes) > 0 {
		b.WriteString("### What to do\n")
		for i, fix := range f.Fixes {
			fmt.Fprintf(b, "\n%d. **%s**\n", i+1, mdEscape(fix.Title))
			for _, s := range fix.Steps {
				b.WriteString("   - " + mdEscape(s) + "\n")
			}
			if len(fix.Commands) > 0 {
				var code strings.Builder
				for _, c := range fix.Commands {
					code.WriteString(Escape(c) + "\n")
				}
				b.WriteString("\n")
				writeIndentedFence(b, "   ", "sh", code.String())
				if ps := placeholders(fix.Commands); len(ps) > 0 {
					b.WriteString("\n   Fill in:\n")
					for _, p := range ps {
						fmt.Fprintf(b, "   - `%s`: %s\n", p.Name, mdEscape(p.Means))
					}
				}
			}
		}
	}
}

func writeMarkdownInputs(b *strings.Builder, r *Report) {
	b.WriteString("\n## Inputs\n\n")
	if len(r.Sources) > 0 {
		b.WriteString("| Source | Node | Format | Release | Lines | Events | First (UTC) | Last (UTC) |\n")
		b.WriteString("|---|---|---|---|---:|---:|---|---|\n")
		for _, s := range r.Sources {
			first, last := "", ""
			if s.First != nil {
				first, last = s.First.UTC().Format(TimeFormat), s.Last.UTC().Format(TimeFormat)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d | %s | %s |\n", mdCodeCell(r.rel(s.Path)), mdCell(s.Node), s.Format, mdCell(s.Release), s.Lines, s.Events, first, last)
		}
		b.WriteString("\n")
	}
	if len(r.Skipped) > 0 {
		for _, rc := range r.SkippedByReason() {
			fmt.Fprintf(b, "- Skipped %s: %s\n", Plural(rc.Files, "file", "files"), mdEscape(rc.Reason))
		}
		b.WriteString("\n")
	}
	if len(r.Problems) > 0 {
		b.WriteString("Problems with the inputs:\n\n")
		for _, p := range r.Problems {
			where := r.rel(p.Path)
			if p.Line > 0 {
				where += ":" + strconv.FormatInt(p.Line, 10)
			}
			lost := ""
			if p.Lost {
				lost = " (content lost)"
			}
			fmt.Fprintf(b, "- %s: %s%s\n", mdCode(where), mdEscape(p.Reason), lost)
		}
		b.WriteString("\n")
	}
}

// writeFence writes code in a fenced block whose fence is longer than any
// run of backticks in the code, so a log line cannot close it early.
func writeFence(b *strings.Builder, lang, code string) {
	writeIndentedFence(b, "", lang, code)
	b.WriteString("\n")
}

func writeIndentedFence(b *strings.Builder, indent, lang, code string) {
	fence := strings.Repeat("`", max(3, longestRun(code, '`')+1))
	b.WriteString(indent + fence + lang + "\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(code, "\n"), "\n") {
		b.WriteString(indent + strings.TrimSuffix(line, "\n") + "\n")
	}
	b.WriteString(indent + fence + "\n")
}

// escapeLines is Escape for text shown with its line breaks (a JSON
// document from a topology snapshot is one piece of evidence over many lines).
func escapeLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

// clipRaw shortens s to about n bytes before escaping, at a rune boundary,
// saying how much was left out.
func clipRaw(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d more bytes]", len(s)-cut)
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// mdEscape makes text from logs and rules safe to show as Markdown prose:
// characters that would start emphasis, links, HTML or code are escaped,
// except an underscore inside a word (MAINT_STREAM_TOPIC), which Markdown
// leaves alone and which is common in the names we print.
func mdEscape(s string) string {
	// Prose wrapped over lines (a rule's Doc) reads as one paragraph.
	s = Escape(strings.ReplaceAll(s, "\n", " "))
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '[', ']', '<', '>', '|', '~':
			b.WriteByte('\\')
		case '_':
			if i == 0 || i == len(s)-1 || !isWordByte(s[i-1]) || !isWordByte(s[i+1]) {
				b.WriteByte('\\')
			}
		case '#':
			if i == 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// mdCell is prose that fits in a table cell.
func mdCell(s string) string { return mdEscape(s) }

// mdCodeCell is mdCode for a table cell: GitHub splits cells on a pipe
// even inside code, unless it is escaped.
func mdCodeCell(s string) string { return strings.ReplaceAll(mdCode(s), "|", `\|`) }

// mdCode shows s as inline code; a backtick in s lengthens the delimiter.
func mdCode(s string) string {
	s = Escape(s)
	if s == "" {
		return ""
	}
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return tick + pad + s + pad + tick
}

func mdCodeList(xs []string) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, mdCode(x))
	}
	return strings.Join(parts, ", ")
}
