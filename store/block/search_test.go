package block

import (
	"regexp"
	"testing"
)

// TestSearchRulesOut checks which blocks a search rules out: those without
// a string every match must contain, and none when the pattern has none.
func TestSearchRulesOut(t *testing.T) {
	for _, tc := range []struct {
		text, pattern string
		holds, lacks  string // a block that may hold a match, one that may not ("" when every block may)
	}{
		{"requires rollback", "", "Stream request requires rollback", "Creating stream"},
		{"", `Rollback|rollback to 0`, "asked to rollback to 0", "rolled back"},
		{"", `(vb:\d+) Creating stream`, "(vb:12) Creating stream", "(vb:12) Closing stream"},
		{"", `^\d{4}-\d\d-\d\dT.* (WARN|ERROR) `, "x 2022-07-22T00:39:12 ERROR y", "2022-07-22T00:39:12 INFO y"},
		{"", `(?:NotLeaseHolderError){2,}`, "NotLeaseHolderError", "NotLeaseHolder"},
		{"", `(?i)rollback`, "asked to RollBack to 0", "rolled back"},
		{"", `(?i)rollback`, "vb \u212a: ROLLBAC\u212a", "rolled back"},
		{"", `(?i:stream) created`, "STREAM created", "STREAM Created"},
		{"", `a*`, "", ""},
		{"", `(?i)straße`, "", ""},
		{"", `x?y?`, "", ""},
		{"", `\d+`, "", ""},
		{"", `a|b*`, "", ""},
		{"", "\uFFFD", "", ""},
	} {
		var re *regexp.Regexp
		if tc.pattern != "" {
			re = regexp.MustCompile(tc.pattern)
		}
		s := NewSearch(tc.text, re)
		if tc.lacks == "" {
			if s.needles != nil {
				t.Errorf("%q: needles %+v, want none", tc.pattern, s.needles)
			}
			continue
		}
		if !s.May([]byte("\x05\x00" + tc.holds + "\x10")) {
			t.Errorf("%q %q: rules out a block holding %q (needles %+v)", tc.text, tc.pattern, tc.holds, s.needles)
		}
		if s.May([]byte(tc.lacks)) {
			t.Errorf("%q %q: keeps a block holding only %q (needles %+v)", tc.text, tc.pattern, tc.lacks, s.needles)
		}
	}
}

// FuzzSearch checks that a search never rules out a block holding a line
// its pattern matches.
func FuzzSearch(f *testing.F) {
	for _, seed := range [][2]string{
		{`Rollback|rollback to 0`, "asked to rollback to 0"},
		{`(a|bc)+d`, "xbcbcd"},
		{`(?i)abc|def`, "ABC"},
		{`x{2,3}y`, "xxy"},
		{`[^a]b`, "\xffb"},
		{"\uFFFD", "\xff"},
		{`(?i)kelvin`, "\u212aELVIN"},
		{`(?i)ab|Cd`, "xAB"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, line string) {
		re, err := regexp.Compile(pattern)
		if err != nil || !re.MatchString(line) {
			return
		}
		if s := NewSearch("", re); !s.May([]byte(line)) {
			t.Errorf("%q matches %q, but the search rules it out (needles %+v)", pattern, line, s.needles)
		}
	})
}
