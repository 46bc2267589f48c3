package block

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Search is what a search for lines asks of the text of a block: a block
// whose bytes hold none of its needles holds no line it selects, and need
// not be read line by line. A block's bytes are its lines' texts with small
// records between them, so a needle found there may be in no one line (the
// lines are then read), but one in a line is always found.
type Search struct {
	needles []needle // none: any block may hold a line the search selects
}

// needle is a string every match may contain, as it is or, when fold is
// set, in ASCII letters of either case (text is then in lower case).
type needle struct {
	text []byte
	fold bool
}

// NewSearch is the search for lines that contain text (when it is not
// empty) and match re (when it is not nil).
func NewSearch(text string, re *regexp.Regexp) Search {
	if text != "" {
		return Search{needles: []needle{{text: []byte(text)}}}
	}
	if re == nil {
		return Search{}
	}
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return Search{}
	}
	lits, ok := required(parsed.Simplify())
	if !ok {
		return Search{}
	}
	for _, l := range lits {
		// A U+FFFD in the pattern also matches bytes that are not UTF-8,
		// which its encoding is not.
		if len(l.text) == 0 || bytes.ContainsRune(l.text, utf8.RuneError) {
			return Search{}
		}
	}
	return Search{needles: lits}
}

// May reports whether raw, a block's decoded bytes, may hold a line the
// search selects.
func (s Search) May(raw []byte) bool {
	if len(s.needles) == 0 {
		return true
	}
	for _, n := range s.needles {
		if n.fold && containsFold(raw, n.text) || !n.fold && bytes.Contains(raw, n.text) {
			return true
		}
	}
	return false
}

// Two letters outside ASCII fold to ASCII ones: the Kelvin sign to k and
// the long s to s. A block that holds either may match a folded needle with
// k or s that no ASCII comparison finds.
var (
	kelvin = []byte("\u212a")
	longS  = []byte("\u017f")
)

// containsFold reports whether raw contains n (lower case ASCII) in either
// case, as a case-folding regexp would find it.
func containsFold(raw, n []byte) bool {
	if bytes.ContainsAny(n, "ks") && (bytes.Contains(raw, kelvin) || bytes.Contains(raw, longS)) {
		return true
	}
	lo, up := n[0], n[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	// The next place of the first letter in each case, found once each.
	next := func(c byte, from int) int {
		if i := bytes.IndexByte(raw[from:], c); i >= 0 {
			return from + i
		}
		return len(raw)
	}
	il, iu := next(lo, 0), next(up, 0)
	for {
		i := min(il, iu)
		if i+len(n) > len(raw) {
			return false
		}
		if equalFoldASCII(raw[i:i+len(n)], n) {
			return true
		}
		if il == i {
			il = next(lo, i+1)
		}
		if iu == i {
			iu = next(up, i+1)
		}
	}
}

// equalFoldASCII reports whether b is lower, with ASCII letters of either case.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// required returns strings one of which every match of re contains, or
// false when it finds none: only literals, joined by concatenation,
// alternation, groups and repetitions of at least one, count.
func required(re *syntax.Regexp) ([]needle, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			return []needle{{text: []byte(s)}}, true
		}
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return nil, false // Unicode folding: left to the regexp
			}
		}
		return []needle{{text: []byte(strings.ToLower(s)), fold: true}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false
		}
		return required(re.Sub[0])
	case syntax.OpConcat:
		// The child whose shortest string is longest rules out the most.
		var best []needle
		bestLen := 0
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				continue
			}
			if n := shortest(lits); n > bestLen {
				best, bestLen = lits, n
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []needle
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, true
	}
	return nil, false
}

func shortest(ns []needle) int {
	n := -1
	for _, s := range ns {
		if n < 0 || len(s.text) < n {
			n = len(s.text)
		}
	}
	return n
}
