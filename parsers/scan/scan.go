// Package scan holds the byte tests the parsers run on every line before
// anything is converted: fixed prefixes, cut without allocating. They take
// the line as []byte and the fixed text as a string, which Go compares in
// place, so a line that is not an event costs no allocation.
package scan

// HasPrefix reports whether b starts with s.
func HasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

// HasSuffix reports whether b ends with s.
func HasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

// Cut returns what follows prefix in b, and whether b starts with it; b
// whole when it does not. The result aliases b.
func Cut(b []byte, prefix string) ([]byte, bool) {
	if !HasPrefix(b, prefix) {
		return b, false
	}
	return b[len(prefix):], true
}

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }
