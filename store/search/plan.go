package search

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Plan returns the Query every line containing text (when it is not
// empty; with fold, in letters of either case) and matching re (when it is
// not nil) satisfies.
func Plan(text string, fold bool, re *regexp.Regexp) *Query {
	q := allQuery
	switch {
	case text != "" && fold:
		q = PlanRegexp(&syntax.Regexp{Op: syntax.OpLiteral, Flags: syntax.FoldCase, Rune: []rune(text)})
	case text != "":
		q = &Query{Op: And, Strs: []string{text}}
	}
	if re != nil {
		parsed, err := syntax.Parse(re.String(), syntax.Perl)
		if err == nil {
			q = q.and(PlanRegexp(parsed))
		}
	}
	return q
}

// PlanRegexp returns the Query every text re matches satisfies.
func PlanRegexp(re *syntax.Regexp) *Query {
	in := analyze(re.Simplify())
	in.simplify(true)
	in.addExact()
	return in.match
}

// Limits that keep the sets small. An exact set of more than maxExact
// strings goes into the match query; a prefix or suffix set of more than
// maxSet strings is cut shorter until it has no more. Sets longer than
// keep bytes are cut to it: they only make the strings that straddle two
// parts of a concatenation.
const (
	maxExact = 16
	maxSet   = 32
	keep     = 32
	maxClass = 8 // a character class of more runes is any character
)

// info is what the planner knows of the matches of a part of a regexp.
type info struct {
	empty bool // it matches the empty string

	// exact holds every string the part matches, when they are few;
	// exactKnown says it does (an empty set matches nothing).
	exact      strset
	exactKnown bool

	// Otherwise every match begins with one of prefix and ends with one
	// of suffix.
	prefix, suffix strset

	match *Query // what every match satisfies besides
}

// strset is a set of strings; with fold, they are in lower case and stand
// for themselves in either ASCII case.
type strset struct {
	s    []string
	fold bool
}

func one(s string) strset { return strset{s: []string{s}} }

func (s strset) minLen() int {
	if len(s.s) == 0 {
		return 0
	}
	n := len(s.s[0])
	for _, x := range s.s[1:] {
		n = min(n, len(x))
	}
	return n
}

// folded returns s with its strings in lower case (fold set).
func (s strset) folded() strset {
	if s.fold {
		return s
	}
	out := strset{fold: true}
	for _, x := range s.s {
		out.s = append(out.s, lowerASCII(x))
	}
	out.clean()
	return out
}

// clean sorts the set and drops duplicates.
func (s *strset) clean() {
	slices.Sort(s.s)
	s.s = slices.Compact(s.s)
}

// union returns the strings of s and t.
func union(s, t strset) strset {
	if s.fold != t.fold {
		s, t = s.folded(), t.folded()
	}
	out := strset{s: append(slices.Clip(s.s), t.s...), fold: s.fold}
	out.clean()
	return out
}

// cross returns every string of s followed by one of t.
func cross(s, t strset) strset {
	if s.fold != t.fold {
		s, t = s.folded(), t.folded()
	}
	out := strset{fold: s.fold}
	for _, x := range s.s {
		for _, y := range t.s {
			out.s = append(out.s, x+y)
		}
	}
	out.clean()
	return out
}

// query returns the Query that one of the strings holds, or All when one
// is too short to say anything.
func (s strset) query() *Query {
	if len(s.s) == 0 {
		return noneQuery
	}
	if s.minLen() < minString || len(s.s) > maxSet {
		return allQuery // too short, or too many, to rule much out
	}
	q := &Query{Op: Or, Fold: s.fold, Strs: slices.Clone(s.s)}
	q.prune()
	if len(q.Strs) == 1 {
		q.Op = And
	}
	return q
}

// minString is the shortest string a Query holds: a shorter one is in
// nearly every block and every line.
const minString = 3

func anyChar() info {
	return info{prefix: one(""), suffix: one(""), match: allQuery}
}

func anyMatch() info {
	i := anyChar()
	i.empty = true
	return i
}

func emptyString() info {
	return info{empty: true, exact: one(""), exactKnown: true, match: allQuery}
}

func noMatch() info {
	return info{exactKnown: true, match: noneQuery}
}

func exactly(s strset) info {
	return info{exact: s, exactKnown: true, match: allQuery}
}

func analyze(re *syntax.Regexp) info {
	var in info
	switch re.Op {
	case syntax.OpNoMatch:
		return noMatch()
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return emptyString()
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if !fold && !slices.Contains(re.Rune, utf8.RuneError) {
			return exactly(one(string(re.Rune)))
		}
		in = emptyString()
		for _, r := range re.Rune {
			switch {
			case r == utf8.RuneError:
				// It matches any byte that is not UTF-8 too.
				in = concat(in, anyChar())
			case fold:
				in = concat(in, foldRune(r))
			default:
				in = concat(in, exactly(one(string(r))))
			}
		}
		return in
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return anyChar()
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpConcat:
		in = emptyString()
		for _, sub := range re.Sub {
			in = concat(in, analyze(sub))
		}
		return in
	case syntax.OpAlternate:
		in = noMatch()
		for _, sub := range re.Sub {
			in = alternate(in, analyze(sub))
		}
		return in
	case syntax.OpQuest:
		return alternate(analyze(re.Sub[0]), emptyString())
	case syntax.OpStar:
		return anyMatch()
	case syntax.OpRepeat:
		if re.Min == 0 {
			return anyMatch()
		}
		fallthrough
	case syntax.OpPlus:
		// At least one: the prefixes, suffixes and match query stay; the
		// exact strings become the prefixes and suffixes.
		in = analyze(re.Sub[0])
		if in.exactKnown {
			in.prefix, in.suffix = in.exact, in.exact
			in.exact, in.exactKnown = strset{}, false
		}
	case syntax.OpCharClass:
		return charClass(re.Rune)
	default:
		return anyMatch()
	}
	in.simplify(false)
	return in
}

// foldRune is what a case-folding literal's rune r matches. An ASCII
// letter whose case variants are all ASCII is itself in either case; a
// rune without variants is itself; any other (k and s, which fold with the
// Kelvin sign and the long s, and letters beyond ASCII) is any character:
// the index and Contains fold ASCII letters only.
func foldRune(r rune) info {
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	if len(orbit) == 1 {
		return exactly(one(string(r)))
	}
	for _, f := range orbit {
		if f >= utf8.RuneSelf {
			return anyChar()
		}
	}
	return exactly(strset{s: []string{strings.ToLower(string(r))}, fold: true})
}

// charClass is what a character class matches: one of its runes, when it
// has few, else any character.
func charClass(ranges []rune) info {
	n := 0
	for i := 0; i < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClass {
			return anyChar()
		}
	}
	if n == 0 {
		return noMatch()
	}
	var s strset
	for i := 0; i < len(ranges); i += 2 {
		if ranges[i] <= utf8.RuneError && utf8.RuneError <= ranges[i+1] {
			return anyChar() // it matches any byte that is not UTF-8 too
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			s.s = append(s.s, string(r))
		}
	}
	s.clean()
	return exactly(s)
}

// concat is what xy matches given what x and y match.
func concat(x, y info) info {
	xy := info{match: x.match.and(y.match), empty: x.empty && y.empty}
	if x.exactKnown && y.exactKnown {
		xy.exact, xy.exactKnown = cross(x.exact, y.exact), true
	} else {
		if x.exactKnown {
			xy.prefix = cross(x.exact, y.prefix)
		} else {
			xy.prefix = x.prefix
			if x.empty {
				xy.prefix = union(xy.prefix, y.prefix)
			}
		}
		if y.exactKnown {
			xy.suffix = cross(x.suffix, y.exact)
		} else {
			xy.suffix = y.suffix
			if y.empty {
				xy.suffix = union(xy.suffix, x.suffix)
			}
		}
	}
	// Where neither side is exact, a match holds an end of x's match
	// followed by a start of y's: one of the pairs, when they are long.
	if !x.exactKnown && !y.exactKnown && len(x.suffix.s) <= maxSet && len(y.prefix.s) <= maxSet &&
		x.suffix.minLen()+y.prefix.minLen() >= minString {
		xy.match = xy.match.and(cross(x.suffix, y.prefix).query())
	}
	xy.simplify(false)
	return xy
}

// alternate is what x|y matches given what x and y match.
func alternate(x, y info) info {
	xy := info{empty: x.empty || y.empty, match: x.match.or(y.match)}
	if x.exactKnown && y.exactKnown {
		xy.exact, xy.exactKnown = union(x.exact, y.exact), true
	} else {
		xy.prefix = union(x.prefixes(), y.prefixes())
		xy.suffix = union(x.suffixes(), y.suffixes())
	}
	xy.simplify(false)
	return xy
}

// prefixes returns the prefixes of the matches, the exact strings when known.
func (in *info) prefixes() strset {
	if in.exactKnown {
		return in.exact
	}
	return in.prefix
}

func (in *info) suffixes() strset {
	if in.exactKnown {
		return in.exact
	}
	return in.suffix
}

// addExact adds to the match query that one of the exact strings holds.
func (in *info) addExact() {
	if in.exactKnown {
		in.match = in.match.and(in.exact.query())
	}
}

// simplify moves the exact strings into the match query once there are
// too many of them, or (force, at the end) whenever they say something,
// and keeps the prefix and suffix sets small.
func (in *info) simplify(force bool) {
	if in.exactKnown {
		if len(in.exact.s) > maxExact && !in.exact.fold {
			// Case variants of the same letters: one string in either case.
			if f := in.exact.folded(); len(f.s) <= maxExact {
				in.exact = f
			}
		}
		long := in.exact.minLen() > 2*keep
		if len(in.exact.s) > maxExact || long || force && in.exact.minLen() >= minString {
			// The prefixes and suffixes are those of the exact strings
			// now required: they say nothing more.
			in.addExact()
			in.prefix, in.suffix = strset{fold: in.exact.fold}, strset{fold: in.exact.fold}
			for _, s := range in.exact.s {
				in.prefix.s = append(in.prefix.s, s)
				in.suffix.s = append(in.suffix.s, s)
			}
			in.prefix = trim(in.prefix, head)
			in.suffix = trim(in.suffix, tail)
			in.exact, in.exactKnown = strset{}, false
			return
		}
	}
	if !in.exactKnown {
		// Every match begins with a prefix and ends with a suffix, so it
		// contains one of each; cut short, they only make junctions.
		in.match = in.match.and(in.prefix.query()).and(in.suffix.query())
		in.prefix = trim(in.prefix, head)
		in.suffix = trim(in.suffix, tail)
	}
}

// trim cuts the strings of a prefix (cut is head) or suffix (tail) set to
// keep bytes, then shorter, until the set has at most maxSet strings.
func trim(s strset, cut func(string, int) string) strset {
	for n := keep; ; n-- {
		out := strset{fold: s.fold}
		for _, x := range s.s {
			out.s = append(out.s, cut(x, n))
		}
		out.clean()
		if len(out.s) <= maxSet || n == 0 {
			return out
		}
	}
}

func head(s string, n int) string { return s[:min(n, len(s))] }
func tail(s string, n int) string { return s[len(s)-min(n, len(s)):] }

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
