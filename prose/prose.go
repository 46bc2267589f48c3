// Package prose recognises documents written for people — a ticket, an
// issue or notes saved as Markdown, a page saved as HTML — which quote log
// lines in code blocks, quotes or tables but are not logs: what they quote
// was copied, cut and chosen by someone, and is read from the logs
// themselves. Recognition goes by markup no log line starts with, never by
// the file's name.
package prose

import (
	"bytes"
)

// Detect returns what kind of page head, the first bytes of a file, is:
// "a Markdown page" (a code fence, or a heading with a table or a quote),
// "an HTML page", or "" when it is neither.
func Detect(head []byte) string {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if isHTML(head) {
		return "an HTML page"
	}
	heading, quoted := false, false
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimRight(line, " \t\r")
		block := trimIndent(line)
		switch {
		case bytes.HasPrefix(block, []byte("```")), bytes.HasPrefix(block, []byte("~~~")):
			return "a Markdown page"
		case isHeading(block):
			heading = true
		case bytes.HasPrefix(block, []byte("> ")), isTableRule(block):
			quoted = true
		}
		if heading && quoted {
			return "a Markdown page"
		}
	}
	return ""
}

// trimIndent drops the up to three spaces Markdown allows before a block.
func trimIndent(line []byte) []byte {
	for i := 0; i < 3 && len(line) > 0 && line[0] == ' '; i++ {
		line = line[1:]
	}
	return line
}

// isHeading reports whether line is an ATX heading: one to six '#' and a
// space. Alone it proves nothing (shell comments, iptables-save output
// start so), which is why Detect asks for more.
func isHeading(line []byte) bool {
	n := 0
	for n < len(line) && n < 7 && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && n < len(line) && line[n] == ' '
}

// isTableRule reports whether line is a table's delimiter row: cells of
// dashes (with alignment colons) between pipes, "|---|:--:|".
func isTableRule(line []byte) bool {
	if len(line) < 3 || bytes.Count(line, []byte("|")) < 1 || bytes.Count(line, []byte("-")) < 3 {
		return false
	}
	for _, c := range line {
		switch c {
		case '|', '-', ':', ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// isHTML reports whether head opens an HTML document.
func isHTML(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 || t[0] != '<' {
		return false
	}
	t = bytes.ToLower(t[:min(len(t), 512)])
	for _, open := range []string{"<!doctype html", "<html", "<head", "<body", "<!-- saved from url"} {
		if bytes.HasPrefix(t, []byte(open)) || bytes.Contains(t, []byte("\n"+open)) {
			return true
		}
	}
	return false
}
