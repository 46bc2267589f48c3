package block

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Search is what a search for lines asks of the text of a block: a block
// whose bytes hold none of Needles holds no line it selects, and need not be
// read line by line. A block's bytes are its lines' texts with small records
// between them, so a needle found there may be in no one line (the lines are
// then read), but one in a line is always found.
type Search struct {
	Needles [][]byte // nil: any block may hold a line the search selects
}

// NewSearch is the search for lines that contain text (when it is not
// empty) and match re (when it is not nil).
func NewSearch(text string, re *regexp.Regexp) Search {
	if text != "" {
		return Search{Needles: [][]byte{[]byte(text)}}
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
	var s Search
	for _, l := range lits {
		// A U+FFFD in the pattern also matches bytes that are not UTF-8,
		// which its encoding is not.
		if l == "" || strings.ContainsRune(l, utf8.RuneError) {
			return Search{}
		}
		s.Needles = append(s.Needles, []byte(l))
	}
	return s
}

// May reports whether raw, a block's decoded bytes, may hold a line the
// search selects.
func (s Search) May(raw []byte) bool {
	if s.Needles == nil {
		return true
	}
	for _, n := range s.Needles {
		if bytes.Contains(raw, n) {
			return true
		}
	}
	return false
}

// required returns strings one of which every match of re contains, or
// false when it finds none: only literals, joined by concatenation,
// alternation, groups and repetitions of at least one, count.
func required(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false
		}
		return required(re.Sub[0])
	case syntax.OpConcat:
		// The child whose shortest string is longest rules out the most.
		var best []string
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
		var all []string
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

func shortest(ss []string) int {
	n := -1
	for _, s := range ss {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}
