package deniedtables

import (
	"strings"

	"forensics"
)

// A document event holds the whole JSON document as printed, from the line
// it starts on. Evidence quotes the few lines that matter (the shard's
// tablet_controls, one routing rule, the traffic state), with their own line
// numbers, rather than the whole document.

// maxExcerpt bounds the lines of one excerpt, and maxExcerptLine the
// characters kept of one line (a document printed on a single line).
const (
	maxExcerpt     = 24
	maxExcerptLine = 300
)

// excerpt returns the line number and text of the part of a document event
// that holds the first of keys (a JSON key, in either spelling vtctldclient
// has used) on a line that also contains match (if given). A key that opens
// a list or object is quoted to its end; with whole, the object around the
// key is quoted instead. Without a match, the event's first line.
func excerpt(e *forensics.Event, keys []string, match string, whole bool) (int64, string) {
	lines := strings.Split(e.Text, "\n")
	at := -1
	for i, l := range lines {
		for _, k := range keys {
			if !strings.Contains(k, " ") {
				k = `"` + k + `"` // a JSON key; with a space, a label of the text output
			}
			if strings.Contains(l, k) && (match == "" || strings.Contains(l, match)) {
				at = i
				break
			}
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		return e.Line, clip(lines[0], match)
	}
	from, to := at, at
	if whole {
		from = opening(lines, at)
		to = closing(lines, from)
	} else if t := strings.TrimSpace(lines[at]); strings.HasSuffix(t, "[") || strings.HasSuffix(t, "{") {
		to = closing(lines, at)
	}
	if from == to {
		return e.Line + int64(from), clip(lines[from], match)
	}
	return e.Line + int64(from), strings.Join(lines[from:to+1], "\n")
}

// opening returns the line that opens the innermost object around line at,
// when the document is printed one field per line.
func opening(lines []string, at int) int {
	depth := 0
	for i := at - 1; i >= 0 && at-i < maxExcerpt; i-- {
		d := nesting(lines[i])
		if depth+d > 0 {
			return i
		}
		depth += d
	}
	return at
}

// closing returns the line where the list or object opened on line from ends.
func closing(lines []string, from int) int {
	depth := 0
	for i := from; i < len(lines) && i-from < maxExcerpt; i++ {
		depth += nesting(lines[i])
		if depth <= 0 {
			return i
		}
	}
	return from
}

// nesting counts the brackets a line opens minus those it closes, outside
// strings.
func nesting(line string) int {
	n, quoted := 0, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{' || c == '[':
			n++
		case c == '}' || c == ']':
			n--
		}
	}
	return n
}

// clip keeps a long line (a document printed on one line) to the part around
// match.
func clip(line, match string) string {
	if len(line) <= maxExcerptLine {
		return line
	}
	i := 0
	if match != "" {
		i = max(strings.Index(line, match)-maxExcerptLine/3, 0)
	}
	end := min(i+maxExcerptLine, len(line))
	out := line[i:end]
	if i > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}
