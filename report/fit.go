package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Layout is how findings are fitted to where they are written.
type Layout struct {
	// Width is the terminal's width in columns: tables, prose and fix
	// commands fit it, and only log lines may be wider. 0 is no limit, for
	// a file, a pipe or --wide: every row whole, on one line.
	Width int
	// Verbose asks for every detail instead of a summary: every file read,
	// and evidence under its full path.
	Verbose bool
	// Whole shows every evidence line whole, wrapped to the width (show);
	// otherwise a line that would take more than two rows of the terminal
	// is shortened to two (analyze), and the finding says so.
	Whole bool
	// Root is the folder the inputs were given in; a path under it is
	// shown relative to it.
	Root string
	// Wide writes every line whole, prose too (--wide); otherwise prose in
	// a file or a pipe is wrapped at 100 columns, for a pager.
	Wide bool
}

// prose is the width prose is wrapped to.
func (l Layout) prose() int {
	switch {
	case l.Wide:
		return 0
	case l.Width > 0:
		return l.Width
	}
	return 100
}

// column is one column of a fitted table.
type column struct {
	head string
	// drop orders the columns that may go when the table does not fit: the
	// lowest goes first; 0 never goes.
	drop int
	// min is the narrowest a column may be truncated to; 0 is never truncated.
	min int
	// last is the narrowest it may be truncated to once no column is left
	// to drop (a rule name is cut only when nothing else can give way).
	last int
	// tail keeps the end of a cut cell: a path's file name says more than
	// its folders.
	tail bool
}

// fitTable writes a box-drawn table no wider than width (when width > 0):
// first it truncates the columns that may be truncated, down to their
// minimum, then it drops columns in their order of importance.
func fitTable(w io.Writer, width int, cols []column, rows [][]string) error {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = textWidth(c.head)
		for _, r := range rows {
			widths[i] = max(widths[i], textWidth(r[i]))
		}
	}
	keep := make([]bool, len(cols))
	for i := range keep {
		keep[i] = true
	}
	total := func() int {
		n := 1
		for i, k := range keep {
			if k {
				n += widths[i] + 3
			}
		}
		return n
	}
	for width > 0 && total() > width {
		// Truncate first: a shorter subject says more than a missing column.
		over := total() - width
		for i, c := range cols {
			if keep[i] && c.min > 0 && widths[i] > c.min {
				cut := min(over, widths[i]-c.min)
				widths[i] -= cut
				over -= cut
			}
		}
		if over <= 0 {
			break
		}
		drop := -1
		for i, c := range cols {
			if keep[i] && c.drop > 0 && (drop < 0 || c.drop < cols[drop].drop) {
				drop = i
			}
		}
		if drop < 0 {
			for i, c := range cols {
				if keep[i] && c.last > 0 && widths[i] > c.last && over > 0 {
					cut := min(over, widths[i]-c.last)
					widths[i] -= cut
					over -= cut
				}
			}
			break // as narrow as it goes
		}
		keep[drop] = false
		// A dropped column gives its room back to the truncated ones.
		for i, c := range cols {
			if c.min > 0 {
				widths[i] = textWidth(c.head)
				for _, r := range rows {
					widths[i] = max(widths[i], textWidth(r[i]))
				}
			}
		}
	}
	var b strings.Builder
	rule := func(l, m, r string) {
		b.WriteString(l)
		first := true
		for i, k := range keep {
			if !k {
				continue
			}
			if !first {
				b.WriteString(m)
			}
			first = false
			b.WriteString(strings.Repeat("─", widths[i]+2))
		}
		b.WriteString(r + "\n")
	}
	line := func(cells []string) {
		for i, k := range keep {
			if !k {
				continue
			}
			cell := truncate(cells[i], widths[i])
			if cols[i].tail {
				cell = truncateHead(cells[i], widths[i])
			}
			b.WriteString("│ " + cell + strings.Repeat(" ", widths[i]-textWidth(cell)) + " ")
		}
		b.WriteString("│\n")
	}
	rule("┌", "┬", "┐")
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
	}
	line(heads)
	rule("├", "┼", "┤")
	for _, r := range rows {
		line(r)
	}
	rule("└", "┴", "┘")
	_, err := io.WriteString(w, b.String())
	return err
}

// textWidth is the number of terminal columns s takes; table cells are
// escaped text, where a rune takes one column.
func textWidth(s string) int { return utf8.RuneCountInString(s) }

// truncate shortens s to n columns, ending in "…" when it cut.
func truncate(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	i, cols := 0, 0
	for i < len(s) && cols < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		cols++
	}
	return s[:i] + "…"
}

// truncateHead shortens s to n columns from the left, starting with "…".
func truncateHead(s string, n int) string {
	w := textWidth(s)
	if w <= n {
		return s
	}
	i := 0
	for skip := w - (n - 1); skip > 0; skip-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return "…" + s[i:]
}
