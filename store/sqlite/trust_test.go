package sqlite

import (
	"regexp"
	"strings"
	"testing"
)

// regexpSQL is normalSQL as regular expressions say it.
func regexpSQL(def string) string {
	def = regexp.MustCompile(`--[^\n]*|/\*(?s:.*?)\*/`).ReplaceAllString(def, " ")
	def = regexp.MustCompile(`\s+`).ReplaceAllString(def, " ")
	return regexp.MustCompile(`\s*([(),])\s*`).ReplaceAllString(def, "$1")
}

// TestNormalSQL checks normalSQL against the regular expressions that say
// what it does, on the schemas' definitions and on definitions made to
// trip it.
func TestNormalSQL(t *testing.T) {
	defs := strings.Split(schema+legacySchema, ";")
	defs = append(defs, "", " ", "--", "-- x\n", "/*", "/**/", "/*/", "/* a */ b /* c", "a-/*x*/-b", "a--b\nc",
		"(\t,\r\n)", " ( ( b ) ) ", "x /* -- */ y -- /* z */\nw", "a\fb\vc", "CREATE TABLE t (a,b , c)--end")
	for _, d := range defs {
		if got, want := normalSQL(d), regexpSQL(d); got != want {
			t.Errorf("normalSQL(%q) = %q, want %q", d, got, want)
		}
	}
}

func FuzzNormalSQL(f *testing.F) {
	for _, d := range []string{"CREATE TABLE t (a INT, -- x\n b /* y */ TEXT )", "/*/", "a--b", " ( , ) "} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, d string) {
		if got, want := normalSQL(d), regexpSQL(d); got != want {
			t.Errorf("normalSQL(%q) = %q, want %q", d, got, want)
		}
	})
}
