package postgres

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"forensics"
)

// Events' attributes are stored as the SQLite backend stores them, a JSON
// object of strings in the order logged, so a query written for one
// backend's attrs column reads the other's (cast to jsonb here to use ->>).

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullInt(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}

// PostgreSQL's text holds valid UTF-8 without NUL, and evidence holds
// anything: a latin-1 é, a stray byte of a damaged disk, a NUL. Such a
// string is kept in text as an escaped form that reads back to its exact
// bytes (lossless, as SQLite keeps them) and still reads as text in a
// --sql query: each byte that is not part of valid UTF-8 (and NUL, and the
// bytes of U+FDD1 itself) is U+FDD1, a noncharacter no log writes, and two
// hex digits. Every other string is kept as it is, and the escape sits
// where the byte was, so strings sort almost as their bytes do.
const escapedByte = "\uFDD1"

// pgText returns s as PostgreSQL's text can hold it.
func pgText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 && !strings.Contains(s, escapedByte) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == 0xFDD1 || r == utf8.RuneError && size <= 1 {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "%s%02x", escapedByte, c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// fromPG returns the bytes a string read back from text stood for.
func fromPG(s string) string {
	if !strings.Contains(s, escapedByte) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, escapedByte)
		if i < 0 || i+len(escapedByte)+2 > len(s) {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if c, err := strconv.ParseUint(s[i+len(escapedByte):i+len(escapedByte)+2], 16, 8); err == nil {
			b.WriteByte(byte(c))
		}
		s = s[i+len(escapedByte)+2:]
	}
}

// pgTextPtr is pgText of an optional value.
func pgTextPtr(s *string) *string {
	if s == nil {
		return nil
	}
	t := pgText(*s)
	return &t
}

// pgAttrs is attrs with each key and value as text can hold it.
func pgAttrs(attrs []forensics.Attr) []forensics.Attr {
	for _, a := range attrs {
		if pgText(a.Key) != a.Key || pgText(a.Value) != a.Value {
			out := make([]forensics.Attr, len(attrs))
			for i, a := range attrs {
				out[i] = forensics.Attr{Key: pgText(a.Key), Value: pgText(a.Value)}
			}
			return out
		}
	}
	return attrs
}

// fromPGAttrs reads back attributes pgAttrs wrote.
func fromPGAttrs(attrs []forensics.Attr) {
	for i := range attrs {
		attrs[i].Key, attrs[i].Value = fromPG(attrs[i].Key), fromPG(attrs[i].Value)
	}
}
