package postgres

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// Any bytes go into text and come back the same; text that needs no
// escape is stored as it is.
func TestTextRoundTrip(t *testing.T) {
	cases := []string{"", "plain", "naïve", "latin-1 caf\xe9", "nul \x00 here", "\xff\xfe", "\uFDD1 itself", "\uFDD1fe", "a\xef\xb7"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(40))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		enc := pgText(s)
		if !utf8.ValidString(enc) || strings.IndexByte(enc, 0) >= 0 {
			t.Fatalf("pgText(%q) = %q: not text PostgreSQL holds", s, enc)
		}
		if got := fromPG(enc); got != s {
			t.Fatalf("fromPG(pgText(%q)) = %q", s, got)
		}
	}
	for _, s := range []string{"plain", "naïve café", "ns_1@10.0.0.1"} {
		if pgText(s) != s {
			t.Errorf("pgText(%q) = %q, want it as it is", s, pgText(s))
		}
	}
}
