package memcached

// validJSON reports whether b is one JSON value, as json.Valid does:
// memcached logs a JSON context on its slow operations and 8.0 on every
// line, and encoding/json's scanner, a function call a byte, took more of
// reading a slow operation than the rest of its parse. Nesting deeper than
// maxJSONDepth is refused (kv_engine nests three deep).
func validJSON(b []byte) bool {
	i, ok := jsonValue(b, skipSpace(b, 0), 0)
	return ok && skipSpace(b, i) == len(b)
}

const maxJSONDepth = 1000

// jsonValue returns the index after the value at b[i], and whether it is one.
func jsonValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return jsonStringEnd(b, i)
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return i, false
		}
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closing {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return i, false
				}
				if i, ok = jsonStringEnd(b, i); !ok {
					return i, false
				}
				if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
					return i, false
				}
				i = skipSpace(b, i+1)
			}
			if i, ok = jsonValue(b, i, depth+1); !ok {
				return i, false
			}
			if i = skipSpace(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case closing:
				return i + 1, true
			case ',':
				i = skipSpace(b, i+1)
			default:
				return i, false
			}
		}
	case c == 't':
		return jsonLiteral(b, i, "true")
	case c == 'f':
		return jsonLiteral(b, i, "false")
	case c == 'n':
		return jsonLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return jsonNumberEnd(b, i)
	}
	return i, false
}

// stringStop marks the bytes a string's scan stops at: its end, an
// escape, and the control characters JSON refuses in a string.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// jsonStringEnd returns the index after the string at b[i] (a quote).
func jsonStringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		for j < len(b) && !stringStop[b[j]] {
			j++
		}
		if j == len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\':
			j++
			if j >= len(b) {
				return j, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) {
					return j, false
				}
				for _, h := range b[j+1 : j+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return j, false
					}
				}
				j += 4
			default:
				return j, false
			}
		case c < 0x20:
			return j, false
		}
	}
	return len(b), false
}

func jsonLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// jsonNumberEnd reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumberEnd(b []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}
