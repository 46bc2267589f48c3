// Package shell writes command lines that a person pastes into a POSIX shell.
// Names in fix commands come from the evidence, which a customer's machine
// wrote: every one is quoted, so that pasting a command runs that command and
// nothing else.
package shell

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

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

// Tools are the programs fix commands run. A command of another program,
// stored in a timeline and shown as a fix, is not one forensics wrote.
var Tools = []string{"vtctldclient", "cbstats", "couchbase-cli", "cockroach", "curl", "jq", "grep",
	"ssh", "chronyc", "timedatectl", "dmesg", "iostat", "df", "ntpq", "journalctl", "date", "ls", "ss"}

// Split reads a command line as forensics writes it: plain words and
// single-quoted words (with '\” for a quote), and pipes between commands;
// with sequences, also ;, || and && between them (the remote command of
// ssh). It returns each command's words. Anything else a shell would
// interpret (a variable, a substitution, a redirection, a glob, a
// background &, a control character) is an error: a command forensics
// writes never relies on one.
func Split(s string, sequences bool) ([][]string, error) {
	var out [][]string
	var words []string
	var w strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	next := func(i int, op string) error {
		end()
		if len(words) == 0 {
			return fmt.Errorf("empty command before %s at %d", op, i)
		}
		out = append(out, words)
		words = nil
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			end()
		case sequences && (strings.HasPrefix(s[i:], "||") || strings.HasPrefix(s[i:], "&&")):
			if err := next(i, s[i:i+2]); err != nil {
				return nil, err
			}
			i++
		case c == '|' || sequences && c == ';':
			if err := next(i, string(c)); err != nil {
				return nil, err
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated quote at %d", i)
			}
			quoted := s[i+1 : i+1+j]
			for k := 0; k < len(quoted); k++ {
				if quoted[k] < 0x20 || quoted[k] == 0x7f {
					return nil, fmt.Errorf("control character %q in a quoted word at %d", quoted[k], i+1+k)
				}
			}
			w.WriteString(quoted)
			inWord = true
			i += j + 1
		case c == '\\' && i+1 < len(s) && s[i+1] == '\'':
			w.WriteByte('\'')
			inWord = true
			i++
		case plain(string(c)):
			w.WriteByte(c)
			inWord = true
		default:
			return nil, fmt.Errorf("unquoted %q at %d", c, i)
		}
	}
	end()
	if len(words) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	return append(out, words), nil
}

// sqlStatement is a statement for a SQL shell, as the CockroachDB rules
// print one, with nothing from the evidence but numbers (range and store
// ids): pasted into a shell it runs nothing.
var sqlStatement = regexp.MustCompile(`^(SELECT|ALTER) [A-Za-z0-9_ .*=]+;$`)

// Check says whether a command line is one forensics writes: one or more
// commands of Tools, joined by pipes, each made of plain and single-quoted
// words (Split), the remote command of ssh held to the same; or a SQL
// statement of the CockroachDB rules. Fix commands read back from a
// timeline, which anyone may have changed, are shown only when they pass:
// "curl … | sh", "$(…)" or a redirection never are.
func Check(command string) error {
	if sqlStatement.MatchString(command) {
		return nil
	}
	return check(command, false)
}

func check(command string, remote bool) error {
	cmds, err := Split(command, remote)
	if err != nil {
		return err
	}
	for _, argv := range cmds {
		if !slices.Contains(Tools, argv[0]) {
			return fmt.Errorf("%q is not a program fix commands run", argv[0])
		}
		if err := checkArgs(argv, remote); err != nil {
			return err
		}
	}
	return nil
}

// checkArgs holds the two programs whose arguments can run or write
// something else to the forms fix commands use: ssh HOST 'COMMAND', its
// command checked in turn (an option such as -o ProxyCommand=… runs a
// local command), and curl with -s, -u and URLs only (-o writes a file,
// -K reads options from one).
func checkArgs(argv []string, remote bool) error {
	switch argv[0] {
	case "ssh":
		if remote || len(argv) != 3 || strings.HasPrefix(argv[1], "-") {
			return fmt.Errorf("ssh takes a host and a command, nothing else")
		}
		if err := check(argv[2], true); err != nil {
			return fmt.Errorf("the remote command of ssh: %w", err)
		}
	case "curl":
		for i := 1; i < len(argv); i++ {
			switch a := argv[i]; {
			case a == "-s":
			case a == "-u" && i+1 < len(argv):
				i++
			case strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://"):
			default:
				return fmt.Errorf("curl %s: fix commands give curl only -s, -u and URLs", a)
			}
		}
	}
	return nil
}
