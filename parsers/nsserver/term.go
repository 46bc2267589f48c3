package nsserver

import "bytes"

// ns_server formats its arguments with io_lib:format's ~p, so bucket names,
// node names and lists arrive as Erlang terms: "test3" (a string),
// 'ns_1@10.0.0.1' (an atom that needs quotes), memcached (a bare atom), and
// lists that ~p wraps over several lines once they pass 80 columns. The
// helpers below read just enough of that syntax.

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func skipSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func trimSpace(b []byte) []byte {
	b = skipSpace(b)
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isAtomChar(c byte) bool {
	return c == '_' || c == '@' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// digits returns the leading run of ASCII digits of b (with a leading minus
// sign, as ~p prints negative integers) and the rest.
func digits(b []byte) (num, rest []byte) {
	i := 0
	if len(b) > 0 && b[0] == '-' {
		i = 1
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == i {
		return nil, b
	}
	return b[:j], b[j:]
}

// term is a scalar as logged, without its quotes. It stays a slice of the
// line until the event is certain, so lines that only look like a template
// cost no allocation.
type term struct {
	b   []byte
	esc bool // the body holds backslash escapes
}

func (t term) String() string {
	if t.esc {
		return unescape(t.b)
	}
	return string(t.b)
}

// scalar reads a string, a quoted or bare atom, or an integer at the start of
// b, and returns it and the rest.
func scalar(b []byte) (val term, rest []byte, ok bool) {
	if len(b) == 0 {
		return val, b, false
	}
	switch q := b[0]; q {
	case '"', '\'':
		end, esc := quoteEnd(b)
		if end < 0 {
			return val, b, false
		}
		return term{b[1:end], esc}, b[end+1:], true
	}
	i := 0
	for i < len(b) && isAtomChar(b[i]) {
		i++
	}
	if i == 0 {
		return val, b, false
	}
	return term{b: b[:i]}, b[i:], true
}

// quoteEnd returns the index of the quote that closes the quoted term at the
// start of b, or -1, and whether the body holds backslash escapes.
func quoteEnd(b []byte) (int, bool) {
	q := b[0]
	esc := false
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			esc = true
			i++
		case q:
			return i, esc
		}
	}
	return -1, esc
}

func unescape(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			i++
			switch b[i] {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			default:
				out = append(out, b[i])
			}
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

// unquote strips the quotes ~p puts around an atom that needs them:
// "'cbq-engine'" becomes "cbq-engine".
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'' || s[0] == '"' && s[len(s)-1] == '"') {
		return s[1 : len(s)-1]
	}
	return s
}

// list reads a flat list of scalars, such as ['ns_1@a','ns_1@b'] or
// ["default","test3"], possibly spread over lines, and returns its items
// joined with commas, how many there were, and the rest of b.
func list(b []byte) (joined string, n int, rest []byte, ok bool) {
	b = skipSpace(b)
	if len(b) == 0 || b[0] != '[' {
		return "", 0, b, false
	}
	b = skipSpace(b[1:])
	if len(b) > 0 && b[0] == ']' {
		return "", 0, b[1:], true
	}
	var out []byte
	for {
		v, r, ok := scalar(b)
		if !ok {
			return "", 0, b, false
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, v.String()...)
		n++
		b = skipSpace(r)
		if len(b) == 0 {
			return "", 0, b, false
		}
		switch b[0] {
		case ',':
			b = skipSpace(b[1:])
		case ']':
			return string(out), n, b[1:], true
		default:
			return "", 0, b, false
		}
	}
}

// skipTerm skips one term of any shape (nested lists, tuples, maps,
// binaries, pids, strings) and returns what follows it.
func skipTerm(b []byte) ([]byte, bool) {
	depth := 0
	i := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"', '\'':
			end, _ := quoteEnd(b[i:])
			if end < 0 {
				return nil, false
			}
			i += end + 1
			if depth == 0 {
				return b[i:], true
			}
			continue
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			if depth == 0 {
				return b[i:], true
			}
			depth--
			if depth == 0 {
				return b[i+1:], true
			}
		case '<':
			if i+1 < len(b) && b[i+1] == '<' {
				depth++
				i += 2
				continue
			}
			// A pid, <0.97.0>.
			j := bytes.IndexByte(b[i:], '>')
			if j < 0 {
				return nil, false
			}
			i += j + 1
			if depth == 0 {
				return b[i:], true
			}
			continue
		case '>':
			if i+1 < len(b) && b[i+1] == '>' && depth > 0 {
				depth--
				i += 2
				if depth == 0 {
					return b[i:], true
				}
				continue
			}
		case ',':
			if depth == 0 {
				return b[i:], true
			}
		}
		i++
	}
	if depth == 0 {
		return b[i:], true
	}
	return nil, false
}
