package search

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
)

// dfaPatterns are regexps the DFA runs, and some it refuses.
var dfaPatterns = []string{
	`[0-9a-f]{8}-[0-9a-f]{4}-`,
	`requires rollback to seqno:[0-9]+ because`,
	`(?i)service 'MEMCACHED' exited`,
	`(?i)k`, `(?i)s`, `k`, `(?i)[a-z]+ing\b`,
	`^\d{4}-\d\d-\d\dT.* (WARN|ERROR) `,
	`^$`, `^`, `$`, `x*`, `^a`, `a$`, `^a$`, `^(a|b)*$`, `(?m)^a$`, `(?s)a.b`,
	`a.b`, `a[^b]c`, `[^\n]`, `\n`, `(a|ab)(c|bcd)(d*)`, `a{3,5}?b`,
	`(?:NotLeaseHolderError){2,}`, `[[:alpha:]]+ [[:digit:]]+`, `\pL\d`, `é`, `[^\x00-\x{10FFFF}]`,
	`\bvb\b`, `\Bb`, `(?U)a+`, `a|b|`, `(|a)`, `\x{7f}`, `[\x00-\x1f]`,
}

// dfaLines are lines to match them against.
var dfaLines = []string{
	"", "a", "b", "ab", "ba", "aab", "abc", "abcd", "acbd", "aaab", "aaaaab", "aaaaaab", "aXb", "a\nb", "\n",
	"2022-07-22T00:47:33.123+00:00 WARN (memcached) Stream request requires rollback to seqno:123 because of x",
	"requires rollback to seqno: because", "Service 'memcached' exited with status 0", "SERVICE 'Memcached' EXITED",
	"the Kelvin sign K and k", "ſ and s", "vb:12 vb vbs", "id 0a1b2c3d-4e5f-6a7b-8c9d deadbeef-12",
	"0a1b2c3d-4e5f", "0a1b2c3d-4e5f-", "0a1b2c3-4e5f-6", "été", "déjà vu", "\x7f", "\x00\x01",
	"NotLeaseHolderErrorNotLeaseHolderError", "NotLeaseHolderError", "testing the thing", "x\xffy",
}

// TestDFA compares the DFA with Go's regexp on every pattern and line,
// and on random lines.
func TestDFA(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab-0123456789abcdefK \n\x80\xc3\xa9"
	for _, p := range dfaPatterns {
		re := regexp.MustCompile(p)
		d := NewDFA(re)
		if d == nil {
			continue
		}
		r := d.Runner()
		check := func(line, other string) {
			got, known := r.Match([]byte(line))
			if known && got != re.MatchString(line) {
				t.Errorf("%q on %q: the DFA says %v, regexp %v", p, line, got, !got)
			}
			ga, ka, gb, kb := r.Match2([]byte(line), []byte(other))
			if ka && ga != re.MatchString(line) || kb && gb != re.MatchString(other) {
				t.Errorf("%q on %q and %q side by side: the DFA says %v and %v", p, line, other, ga, gb)
			}
		}
		random := func() string {
			b := make([]byte, rng.IntN(30))
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			return string(b)
		}
		for _, l := range dfaLines {
			check(l, dfaLines[rng.IntN(len(dfaLines))])
		}
		for range 2000 {
			check(random(), random())
		}
		r.Release()
	}
}

// TestDFAKnows checks what the DFA runs itself and what it leaves to the
// regexp.
func TestDFAKnows(t *testing.T) {
	for _, tc := range []struct {
		pattern, line string
		known         bool
	}{
		{`[0-9a-f]{8}`, "deadbeef", true},
		{`[0-9a-f]{8}`, "", true},
		{`[0-9a-f]{8}`, "déjà", true},
		{`[0-9a-f]{8}`, "\xff\xfe", true},
		{`[0-9a-f]{8}`, "a\nb", false},
	} {
		d := NewDFA(regexp.MustCompile(tc.pattern))
		if _, known := d.Runner().Match([]byte(tc.line)); known != tc.known {
			t.Errorf("%q on %q: known %v, want %v", tc.pattern, tc.line, known, tc.known)
		}
	}
	for _, p := range []string{`\bvb\b`, `\Bb`} {
		if NewDFA(regexp.MustCompile(p)) != nil {
			t.Errorf("%q: the DFA runs word boundaries", p)
		}
	}
}

// TestDFAStartsOver checks a DFA that builds more states than it keeps.
func TestDFAStartsOver(t *testing.T) {
	// Every suffix of 14 bits is a state of its own.
	re := regexp.MustCompile(`1[01]{13}$`)
	r := NewDFA(re).Runner()
	rng := rand.New(rand.NewPCG(3, 4))
	gaveUp := 0
	for range 3000 {
		b := make([]byte, 40)
		for i := range b {
			b[i] = '0' + byte(rng.IntN(2))
		}
		got, known := r.Match(b)
		if !known {
			gaveUp++
			continue
		}
		if got != re.Match(b) {
			t.Fatalf("%s: the DFA says %v", b, got)
		}
		// Side by side, where one line can make the runner start over
		// in the middle of the other.
		other := slices.Clone(b)
		other[len(other)-1] ^= 1
		ga, ka, gb, kb := r.Match2(b, other)
		if ka && ga != re.Match(b) || kb && gb != re.Match(other) {
			t.Fatalf("%s and %s side by side: the DFA says %v and %v", b, other, ga, gb)
		}
	}
	if gaveUp == 0 || gaveUp > 100 {
		t.Errorf("the DFA gave up on %d lines of 3000, want a few", gaveUp)
	}
}

func FuzzDFA(f *testing.F) {
	for _, p := range dfaPatterns {
		f.Add(p, dfaLines[len(p)%len(dfaLines)])
	}
	f.Fuzz(func(t *testing.T, pattern, line string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		d := NewDFA(re)
		if d == nil {
			return
		}
		r := d.Runner()
		defer r.Release()
		if got, known := r.Match([]byte(line)); known && got != re.MatchString(line) {
			t.Errorf("%q on %q: the DFA says %v, regexp %v", pattern, line, got, !got)
		}
		// Side by side with its own halves.
		a, b := line[:len(line)/2], line[len(line)/2:]
		ga, ka, gb, kb := r.Match2([]byte(a), []byte(b))
		if ka && ga != re.MatchString(a) || kb && gb != re.MatchString(b) {
			t.Errorf("%q on %q and %q side by side: the DFA says %v and %v", pattern, a, b, ga, gb)
		}
	})
}
