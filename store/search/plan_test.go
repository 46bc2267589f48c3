package search

import (
	"regexp"
	"regexp/syntax"
	"testing"
)

func plan(t *testing.T, pattern string) *Query {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return PlanRegexp(re)
}

// TestPlan checks the query of each pattern, written as --verbose shows it.
func TestPlan(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		// Literals, and what cannot say anything.
		{`Stream request requires rollback`, `"Stream request requires rollback"`},
		{`ab`, `any line`},
		{`.*`, `any line`},
		{`\d+`, `any line`},
		{`[a-z]+ing`, `"ing"`},
		{`x?y?z?`, `any line`},
		{`a|b*`, `any line`},
		{`[^a]`, `any line`},
		// Concatenation keeps what both sides require.
		{`requires rollback to seqno:[0-9]+ because`, `"requires rollback to seqno:" & " because"`},
		{`(vb:\d+) Creating stream`, `"vb:" & " Creating stream"`},
		{`^\d{4}-\d\d-\d\dT.* (WARN|ERROR) `, `" ERROR " | " WARN "`},
		{`Service '(memcached|indexer)' exited`, `"Service 'indexer' exited" | "Service 'memcached' exited"`},
		// A short class stays exact: its strings are joined to the
		// literal around it.
		{`vb:[12]34`, `"vb:134" | "vb:234"`},
		{`n[0-9]`, `any line`},
		// Alternation: one side or the other.
		{`Rollback|rollback to 0`, `"Rollback" | "rollback to 0"`},
		{`abc|d`, `any line`},
		{`abc(def|g)`, `"abcdef" | "abcg"`},
		// Repetition: once at least, or not at all.
		{`(?:NotLeaseHolderError){2,}`, `"NotLeaseHolderErrorNotLeaseHolderError"`},
		{`(?:NotLeaseHolderError)*x`, `any line`},
		{`(abc)+def`, `"abcdef"`},
		// Case folding: ASCII letters in either case; k and s, which fold
		// with the Kelvin sign and the long s, and letters beyond ASCII, are
		// any character.
		{`(?i)rollback`, `i"rollbac"`},
		{`(?i)requires rollback`, `i"require" & i" rollbac"`},
		{`(?i:stream) created`, `i"tream created"`},
		{`(?i)straße`, `i"tra"`},
		{`(?i)ÉTAT`, `i"tat"`},
		{`[Ss]tream [Rr]equest`, `i"stream request"`},
		{`⋮ \[n1\]`, `"⋮ [n1]"`},
		// Nothing matches.
		{`[^\x00-\x{10FFFF}]`, `no line`},
	} {
		if got := plan(t, tc.pattern).String(); got != tc.want {
			t.Errorf("%s: query %s, want %s", tc.pattern, got, tc.want)
		}
	}
}

// TestPlanText checks that --grep's text is required as it is, with the
// regexp's query besides.
func TestPlanText(t *testing.T) {
	if got := Plan("Stream request", false, nil).String(); got != `"Stream request"` {
		t.Errorf("text: %s", got)
	}
	q := Plan("vb:12", false, regexp.MustCompile(`rollback to \d+`))
	if got := q.String(); got != `"vb:12" & "rollback to "` {
		t.Errorf("text and regexp: %s", got)
	}
	if got := Plan("Stream Request", true, nil).String(); got != `i"tream reque"` {
		t.Errorf("text in either case: %s", got)
	}
	if !Plan("", false, nil).Scan() {
		t.Errorf("no text, no regexp: should read every line")
	}
}

// TestQueryIn checks the query against lines that hold a match and lines
// that do not.
func TestQueryIn(t *testing.T) {
	for _, tc := range []struct{ pattern, holds, lacks string }{
		{`Rollback|rollback to 0`, "asked to rollback to 0", "rolled back"},
		{`(?i)rollback`, "asked to RollBack to 0", "rolled back"},
		{`(?i)rollback`, "vb \u212a: ROLLBAC\u212a", "ROLLED BACK"},
		{`(?i:stream) created`, "STREAM created", "STREAM deleted"},
		{`requires rollback to seqno:[0-9]+ because`, "requires rollback to seqno:12 because", "requires rollback to seqno:12"},
		{`vb:[12]34`, "(vb:234)", "(vb:334)"},
	} {
		q := plan(t, tc.pattern)
		if !q.In([]byte(tc.holds)) {
			t.Errorf("%s (%s): rules out %q", tc.pattern, q, tc.holds)
		}
		if q.In([]byte(tc.lacks)) {
			t.Errorf("%s (%s): keeps %q", tc.pattern, q, tc.lacks)
		}
	}
}

// FuzzPlan checks that the query of a pattern holds in every text the
// pattern matches.
func FuzzPlan(f *testing.F) {
	for _, seed := range [][2]string{
		{`Rollback|rollback to 0`, "asked to rollback to 0"},
		{`(a|bc)+d`, "xbcbcd"},
		{`(?i)abc|def`, "ABC"},
		{`x{2,3}y`, "xxy"},
		{`[^a]b`, "\xffb"},
		{"\uFFFD", "\xff"},
		{`(?i)kelvin`, "\u212aELVIN"},
		{`(?i)ab|Cd`, "xAB"},
		{`seqno:[0-9]+ because`, "seqno:12 because"},
		{`(?i)stra[ßs]e`, "STRASSE"},
		{`a(b|cd)*e[fg]h`, "acdbegh"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		re, err := regexp.Compile(pattern)
		if err != nil || !re.MatchString(text) {
			return
		}
		if q := Plan("", false, re); !q.In([]byte(text)) {
			t.Errorf("%q matches %q, but its query %s rules it out", pattern, text, q)
		}
	})
}
