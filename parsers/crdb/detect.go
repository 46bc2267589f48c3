package crdb

import "forensics/parsers/scan"

// Files that quote evidence are not evidence: a Markdown or SARIF report of
// forensics itself, an engineer's notes or an issue copy hold real log lines
// and trace rows between prose, headings and code fences. Detection counts
// only structure: several well-formed lines, and no line of a document's
// markup, which a log or a saved page never starts a line with.

// isMarkup reports whether line is Markdown structure no log line starts
// with: a code fence or a heading. List items and quotes are not: the
// legacy format writes multi-line entries verbatim, and the insecure-mode
// warning of v2.0–v20.1 has lines that start with "- " and "* ".
func isMarkup(line []byte) bool {
	switch {
	case scan.HasPrefix(line, "```"), scan.HasPrefix(line, "~~~"):
		return true
	case len(line) > 1 && line[0] == '#' && (line[1] == ' ' || line[1] == '#'):
		return true
	}
	return false
}
