package report

import (
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"forensics/shell"
)

// Text for a terminal is fitted to its width (Layout.Width): prose is
// wrapped at spaces, with a hanging indent; a quoted log line is wrapped the
// same way (show) or, where a whole finding is one screen among others
// (analyze), shortened to a few rows. Widths count runes: the text is
// escaped first (Escape), so a rune is one column.

// wrapRows splits s into rows of at most first columns for the first and
// next for the others (0: no limit). It breaks at a space, keeping the
// spacing inside a row as it is; a word longer than a row is broken after a
// hyphen, slash, colon, comma or underscore near the row's end, else where
// the row ends.
func wrapRows(s string, first, next int) []string {
	var rows []string
	width := first
	for width > 0 && textWidth(s) > width {
		cut, col := -1, 0
		for i, r := range s {
			if col > width {
				break
			}
			if r == ' ' && col > 0 {
				cut = i
			}
			col++
		}
		var row string
		if cut > 0 {
			row, s = strings.TrimRight(s[:cut], " "), strings.TrimLeft(s[cut:], " ")
		} else {
			i := byteAtColumn(s, width)
			// After punctuation near the row's end, leaving more than a
			// scrap of the word for the next row.
			for j := i - 1; j > 0 && textWidth(s[:j+1]) > width*2/3; j-- {
				end := strings.IndexByte(s[j:], ' ')
				if end < 0 {
					end = len(s) - j
				}
				if strings.IndexByte("-/:,_", s[j]) >= 0 && end > 3 {
					i = j + 1
					break
				}
			}
			row, s = s[:i], s[i:]
		}
		if row != "" || len(rows) == 0 {
			rows = append(rows, row)
		}
		width = next
	}
	return append(rows, s)
}

// byteAtColumn is the byte index of s where column n begins.
func byteAtColumn(s string, n int) int {
	col := 0
	for i := range s {
		if col == n {
			return i
		}
		col++
	}
	return len(s)
}

// WriteProse writes prose wrapped to width (0: on one line), the first row
// starting with first and the others with next. Runs of spaces are one
// space, as in a paragraph.
func WriteProse(b *strings.Builder, text, first, next string, width int) {
	writeWrapped(b, text, first, next, width)
}

func writeWrapped(b *strings.Builder, text, first, next string, width int) {
	text = strings.Join(strings.Fields(text), " ")
	writeRows(b, text, first, next, width)
}

// writeLines writes escaped text of several lines, each wrapped as by
// writeRows, every row after the first starting with next.
func writeLines(b *strings.Builder, text, first, next string, width int) {
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			first = next
		}
		writeRows(b, line, first, next, width)
	}
}

// writeRows writes text as wrapRows splits it, keeping its spacing.
func writeRows(b *strings.Builder, text, first, next string, width int) {
	fw, nw := 0, 0
	if width > 0 {
		// Room is never less than 20 columns: on a very narrow terminal a
		// row overflows rather than shows a word a letter at a time.
		fw, nw = max(width-textWidth(first), 20), max(width-textWidth(next), 20)
	}
	for i, row := range wrapRows(text, fw, nw) {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(next)
		}
		b.WriteString(row)
		b.WriteByte('\n')
	}
}

// fitRows shortens an escaped line so that it takes at most rows rows
// when written by writeRows, and reports whether it cut.
func fitRows(s, first, next string, width, rows int) (string, bool) {
	fw, nw := max(width-textWidth(first), 20), max(width-textWidth(next), 20)
	if len(wrapRows(s, fw, nw)) <= rows {
		return s, false
	}
	// Word wrapping leaves the ends of rows empty: shorten until the rows
	// the line breaks into are few enough.
	for n := fw + (rows-1)*nw; ; n -= 4 {
		short, _ := shorten(s, n)
		if len(wrapRows(short, fw, nw)) <= rows || n <= fw {
			return short, true
		}
	}
}

// A long run of characters without a space or a separator of values (a
// connection name, a UUID, a hash) is cut to its start and its end when a
// line is shortened, which still tell runs apart.
const (
	longRun  = 24
	runHead  = 10
	runTail  = 8
	ellipsis = "…"
)

// shorten fits an escaped log line into n columns, saying with "…" where
// it cut. What a reader needs is the message: its key words and what
// follows them (the reason, the values). So it cuts, in turn, until the
// line fits: the long runs before the message; what comes between the
// line's first word (its time) and the message; the long runs after it;
// and last the end of the line.
func shorten(s string, n int) (string, bool) {
	if n <= 0 || textWidth(s) <= n {
		return s, false
	}
	key := keyWords(s)
	first := strings.IndexByte(s, ' ') + 1 // the line's time, which is never cut
	if textWidth(s[:first]) > n/2 {
		first = 0
	}
	key = max(key, first)
	s, key = cutRuns(s, first, key, key, n)
	if textWidth(s) > n && key > first {
		// The prefix loses its start: what is next to the message stays.
		over := textWidth(s) - n + 1
		if over < textWidth(s[first:key]) {
			cut := first + byteAtColumn(s[first:], over)
			// At the start of a word, when one begins before the message.
			if i := strings.IndexByte(s[cut:key], ' '); i >= 0 {
				cut += i + 1
			}
			s, key = s[:first]+ellipsis+s[cut:], first+len(ellipsis)+key-cut
		} else {
			s, key = s[:first]+ellipsis+s[key:], first+len(ellipsis)
		}
	}
	if textWidth(s) > n {
		s, _ = cutRuns(s, key, len(s), key, n)
	}
	if textWidth(s) > n {
		s = s[:byteAtColumn(s, n-1)] + ellipsis
	}
	return s, true
}

// keyWords finds where a log line's message begins: the first three words
// in a row (letters only once the punctuation around them is set aside,
// one of them in lower case), which the time, level, thread and ids before
// a message are not. It returns 0 when there are none.
func keyWords(s string) int {
	words, begin, start := 0, 0, 0
	lower := false
	for i := 0; i <= len(s); i++ {
		// A word ends at a space, and at the bracket that closes a header
		// run into its message ("…:76]Service 'memcached' exited").
		if i < len(s) && s[i] != ' ' && (s[i] != ']' || i+1 == len(s) || s[i+1] == ' ') {
			continue
		}
		w := strings.Trim(s[start:i], `"'()[]{}<>,;:.!?`)
		if isWord(w) {
			if words == 0 {
				begin, lower = start, false
			}
			words++
			lower = lower || strings.ToUpper(w) != w
			if words >= 3 && lower {
				return begin
			}
		} else {
			words = 0
		}
		start = i + 1
	}
	return 0
}

func isWord(w string) bool {
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			return false
		}
	}
	return true
}

// cutRuns cuts the long runs of s[from:to] in their middle, the longest
// first, until s fits n columns or none is left. It returns s and where key
// (an index at or after to, or from) is in it.
func cutRuns(s string, from, to, key, n int) (string, int) {
	type run struct{ start, end, width int } // byte offsets in s
	var runs []run
	start, col, startCol := -1, 0, 0
	for i, r := range s[from:to] + " " {
		sep := r == ' ' || strings.ContainsRune(`"',;=()[]{}<>`, r)
		switch {
		case sep && start >= 0:
			if col-startCol > longRun {
				runs = append(runs, run{from + start, from + i, col - startCol})
			}
			start = -1
		case !sep && start < 0:
			start, startCol = i, col
		}
		col++
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].width > runs[j].width })
	w := textWidth(s)
	var cut []run
	for _, r := range runs {
		if w <= n {
			break
		}
		cut = append(cut, r)
		w -= r.width - (runHead + len([]rune(ellipsis)) + runTail)
	}
	if len(cut) == 0 {
		return s, key
	}
	sort.Slice(cut, func(i, j int) bool { return cut[i].start < cut[j].start })
	var b strings.Builder
	last, shift := 0, 0
	for _, r := range cut {
		head := r.start + byteAtColumn(s[r.start:r.end], runHead)
		tail := r.end
		for k := 0; k < runTail; k++ {
			_, size := utf8.DecodeLastRuneInString(s[r.start:tail])
			tail -= size
		}
		b.WriteString(s[last:head])
		b.WriteString(ellipsis)
		last = tail
		if r.end <= key {
			shift += tail - head - len(ellipsis)
		}
	}
	b.WriteString(s[last:])
	return b.String(), key - shift
}

// Term is a name and what it means, as lists of kinds and columns show them.
type Term struct{ Name, Doc string }

// WriteTerms writes names in a column and their meanings beside them,
// wrapped under their own column to width (0: each on one line). When the
// names leave the meanings less than 30 columns, a meaning goes under its
// name.
func WriteTerms(w io.Writer, terms []Term, indent string, width int) error {
	var b strings.Builder
	writeTerms(&b, terms, indent, width)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTerms(b *strings.Builder, terms []Term, indent string, width int) {
	col := 0
	for _, t := range terms {
		col = max(col, textWidth(t.Name))
	}
	col += textWidth(indent) + 2
	pad := strings.Repeat(" ", col)
	for _, t := range terms {
		if width > 0 && width-col < 30 {
			b.WriteString(indent + t.Name + "\n")
			writeWrapped(b, t.Doc, indent+"    ", indent+"    ", width)
			continue
		}
		writeWrapped(b, t.Doc, indent+t.Name+pad[textWidth(indent)+textWidth(t.Name):], pad, width)
	}
}

// placeholders lists the placeholders of a fix's commands, each once.
func placeholders(commands []string) []shell.Placeholder {
	return shell.PlaceholdersIn(strings.Join(commands, "\n"))
}
