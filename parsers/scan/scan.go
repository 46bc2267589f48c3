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

// Text is a line the parser has already copied into a string, usually for
// an event's Text. The values an event takes from the same line are cut
// from that copy instead of being copied again: one allocation per event
// instead of one per attribute. A value shares the memory of the whole
// line, which the event keeps anyway.
type Text struct {
	b []byte // the line as the parser was given it; valid during Line only
	s string // the copy; string(b)
}

// NewText copies b into a Text.
func NewText(b []byte) Text { return Text{b: b, s: string(b)} }

// String returns the copy of the whole line.
func (t Text) String() string { return t.s }

// Str returns v as a string. When v lies within the line it is cut from the
// copy; otherwise (an unescaped value, a constant, another buffer) it is
// copied.
func (t Text) Str(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	// Slicing keeps the end of the backing array, so a part of b starting
	// at off has off fewer bytes of capacity; the address check makes sure
	// v is that part and not another buffer with the same capacity.
	off := cap(t.b) - cap(v)
	if off >= 0 && off+len(v) <= len(t.b) && len(t.s) == len(t.b) && &t.b[off] == &v[0] {
		return t.s[off : off+len(v)]
	}
	return string(v)
}
