// Package shell writes command lines that a person pastes into a POSIX shell.
// Names in fix commands come from the evidence, which a customer's machine
// wrote: every one is quoted, so that pasting a command runs that command and
// nothing else.
package shell

import "strings"

// Quote returns s as one POSIX shell word. Words made only of characters no
// shell treats specially are returned as they are, so ordinary commands stay
// readable; anything else is put in single quotes, inside which a shell
// expands nothing.
func Quote(s string) string {
	if s != "" && plain(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command joins a program and its arguments into a command line, quoting
// each argument.
func Command(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_./:,=@%+", c) >= 0:
		default:
			return false
		}
	}
	return true
}
