package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text from the evidence (log lines, member names, node names taken from
// paths, and the titles, explanations and fixes rules build from them) is
// written by a customer's machine, and may hold bytes a terminal acts on:
// ANSI escapes that clear the screen or retitle the window, carriage
// returns that overwrite what was printed, bidirectional overrides that
// make text read differently from what it is. Every output shows such text
// through Escape or EscapeLines, the one place that decides what is shown
// as it is and what is shown as an escape.
//
// Readable layout is kept: a tab becomes spaces up to the next tab stop,
// and a line break starts a new, indented line (EscapeLines) or shows as ↵
// where one line is all there is room for (Escape). Everything else a
// terminal would act on is shown as \xNN or \uNNNN.

// tabWidth is the tab stop used when tabs are shown as spaces.
const tabWidth = 8

// Escape shows s on one line: tabs as spaces, line breaks as ↵, and control
// characters, invalid UTF-8 and bidirectional controls as escapes.
func Escape(s string) string {
	if plainText(s) {
		return s
	}
	var b strings.Builder
	escapeTo(&b, s, true)
	return b.String()
}

// EscapeLines shows s over as many lines as it holds, each escaped as by
// Escape, the lines after the first starting with indent. A trailing line
// break is dropped.
func EscapeLines(s, indent string) string {
	s = strings.TrimSuffix(s, "\n")
	if !strings.Contains(s, "\n") {
		return Escape(s)
	}
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteString("\n" + indent)
		}
		escapeTo(&b, line, true)
	}
	return b.String()
}

func plainText(s string) bool { return plainRun(s, 0) == len(s) }

// plainRun returns the end of the printable ASCII that starts s[i:].
func plainRun(s string, i int) int {
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			return i
		}
	}
	return i
}

func escapeTo(b *strings.Builder, s string, oneLine bool) {
	b.Grow(len(s))
	col := 0
	for i := 0; i < len(s); {
		if j := plainRun(s, i); j > i { // most of a line is printable ASCII: copied as a run
			b.WriteString(s[i:j])
			col += j - i
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
			col += 4
		case r == '\t':
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case r == '\n' && oneLine:
			b.WriteString("↵ ")
			col += 2
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(b, `\x%02x`, r)
			col += 4
		case dangerous(r):
			col += writeRuneEscape(b, r)
		default:
			b.WriteString(s[i : i+size])
			col++
		}
		i += size
	}
}

// dangerous reports the printable-looking characters that change how the
// text around them reads or hide in it: bidirectional embeddings,
// overrides and isolates (the "Trojan Source" characters), line and
// paragraph separators, and the characters that show as nothing at all —
// every Unicode format character (zero-width space and joiners, word
// joiner, soft hyphen, Mongolian vowel separator, byte order mark, the
// invisible operators), the tag characters that can carry a hidden text
// (U+E0000–U+E007F), and the few letters and marks that render blank.
// A name with one of them looks like another name; a fix command with one
// does something else than it reads.
func dangerous(r rune) bool {
	switch {
	case r == 0x2028, r == 0x2029:
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		return true
	case r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x3164, r == 0xffa0:
		return true
	case r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return r >= 0xa0 && unicode.Is(unicode.Cf, r)
}

// writeRuneEscape writes r as \uXXXX, or \UXXXXXXXX beyond the basic
// plane, and returns the columns it takes.
func writeRuneEscape(b *strings.Builder, r rune) int {
	if r > 0xffff {
		fmt.Fprintf(b, `\U%08x`, r)
		return 10
	}
	fmt.Fprintf(b, `\u%04x`, r)
	return 6
}

// Clip shortens a line for display, saying how much was left out, and
// escapes what a terminal would act on.
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

// ClipName shortens a name (a path, a member name) for a table cell,
// keeping its start and its end, which tell most, and escapes it. A member
// name of 70,000 characters would otherwise widen every row of its table.
func ClipName(s string, n int) string {
	s = Escape(s)
	if len(s) <= n || n < 20 {
		return s
	}
	head, tail := n/2, n-n/2-1
	h := head
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + "…" + s[t:]
}
