// Package search plans a search for lines: from a text or a regular
// expression to a Query, the strings every matching line contains, which
// the store checks against the index of its blocks of lines before it reads
// any, and against a block's text before it reads it line by line.
//
// The planner is Russ Cox's codesearch's (index/regexp.go) turned to
// strings rather than trigrams: it walks the regexp's syntax tree keeping,
// for each part, the exact strings it matches when there are few, else
// the prefixes and suffixes of its matches, and the Query every match
// satisfies. The index cuts each string into its own n-grams, so the
// planner does not depend on the size of them.
package search

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// Op is what a Query node asks.
type Op uint8

const (
	All  Op = iota // every line may match: the Query rules nothing out
	None           // no line matches
	And            // every string and every sub-query holds
	Or             // one string or one sub-query holds
)

// Query is a condition every line a search selects satisfies: a line
// failing it cannot match, a line passing it may. A string holds in a text
// that contains it; a Fold query's strings are in lower case and hold in
// a text that contains them in ASCII letters of either case.
type Query struct {
	Op   Op
	Fold bool
	Strs []string
	Sub  []*Query
}

var (
	allQuery  = &Query{Op: All}
	noneQuery = &Query{Op: None}
)

// Scan reports whether the query rules nothing out, so that a search has
// to read every line.
func (q *Query) Scan() bool { return q.Op == All }

// Holds evaluates the query, with has telling whether a string holds
// (fold: in either ASCII case).
func (q *Query) Holds(has func(s string, fold bool) bool) bool {
	switch q.Op {
	case All:
		return true
	case None:
		return false
	case And:
		for _, s := range q.Strs {
			if !has(s, q.Fold) {
				return false
			}
		}
		for _, sub := range q.Sub {
			if !sub.Holds(has) {
				return false
			}
		}
		return true
	}
	for _, s := range q.Strs {
		if has(s, q.Fold) {
			return true
		}
	}
	for _, sub := range q.Sub {
		if sub.Holds(has) {
			return true
		}
	}
	return false
}

// In reports whether text, a line or the bytes of a block of lines, may
// hold a match.
func (q *Query) In(text []byte) bool {
	return q.Holds(func(s string, fold bool) bool { return Contains(text, s, fold) })
}

// String writes the query the way --verbose shows it: strings quoted,
// "i" before those of either case, & and | between them.
func (q *Query) String() string {
	switch q.Op {
	case All:
		return "any line"
	case None:
		return "no line"
	}
	join := " & "
	if q.Op == Or {
		join = " | "
	}
	var parts []string
	for _, s := range q.Strs {
		p := strconv.Quote(s)
		if q.Fold {
			p = "i" + p
		}
		parts = append(parts, p)
	}
	for _, sub := range q.Sub {
		p := sub.String()
		if len(sub.Strs)+len(sub.Sub) > 1 {
			p = "(" + p + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, join)
}

// and returns q AND r. Neither is changed.
func (q *Query) and(r *Query) *Query { return combine(q, r, And) }

// or returns q OR r. Neither is changed.
func (q *Query) or(r *Query) *Query { return combine(q, r, Or) }

// combine joins q and r with op, flattening nodes of the same op and case,
// and dropping what the other side makes redundant.
func combine(q, r *Query, op Op) *Query {
	// The absorbing and the neutral element: None and All for And, the
	// other way round for Or.
	absorb, neutral := None, All
	if op == Or {
		absorb, neutral = All, None
	}
	switch {
	case q.Op == absorb || r.Op == neutral:
		return q
	case r.Op == absorb || q.Op == neutral:
		return r
	}
	out := &Query{Op: op, Fold: q.Fold}
	add := func(x *Query) {
		single := len(x.Strs)+len(x.Sub) == 1
		if (x.Op == op || single && len(x.Strs) == 1) && x.Fold == out.Fold {
			for _, s := range x.Strs {
				if !slices.Contains(out.Strs, s) {
					out.Strs = append(out.Strs, s)
				}
			}
			out.Sub = append(out.Sub, x.Sub...)
			return
		}
		if single && len(x.Sub) == 1 {
			x = x.Sub[0]
		}
		out.Sub = append(out.Sub, x)
	}
	add(q)
	add(r)
	out.prune()
	if len(out.Strs)+len(out.Sub) == 1 {
		if len(out.Sub) == 1 {
			return out.Sub[0]
		}
		out.Op = And
	}
	return out
}

// prune drops what the rest of the node makes redundant: in an And, a
// string or alternative that another one implies; in an Or, a string that
// contains another one.
func (q *Query) prune() {
	if q.Op == Or {
		q.Strs = slices.DeleteFunc(q.Strs, func(s string) bool {
			for _, t := range q.Strs {
				if t != s && strings.Contains(s, t) {
					return true
				}
			}
			return false
		})
		return
	}
	// Each string is a clause of one alternative, each Or of strings one
	// of several; a clause is implied by another when each of the other's
	// alternatives contains one of its own.
	type clause struct {
		alts []string
		fold bool
		sub  int // index in q.Sub, or -1 for a string of q.Strs
	}
	var cs []clause
	for _, s := range q.Strs {
		cs = append(cs, clause{[]string{s}, q.Fold, -1})
	}
	for i, sub := range q.Sub {
		if sub.Op == Or && len(sub.Sub) == 0 {
			cs = append(cs, clause{sub.Strs, sub.Fold, i})
		}
	}
	implies := func(a, b clause) bool {
		if a.fold != b.fold {
			return false
		}
		for _, x := range a.alts {
			if !slices.ContainsFunc(b.alts, func(y string) bool { return strings.Contains(x, y) }) {
				return false
			}
		}
		return true
	}
	drop := make([]bool, len(cs))
	for i := range cs {
		for j := range cs {
			if i != j && !drop[j] && implies(cs[j], cs[i]) && (!implies(cs[i], cs[j]) || j < i) {
				drop[i] = true
				break
			}
		}
	}
	strs, subs := q.Strs[:0:0], q.Sub[:0:0]
	for i, c := range cs {
		if !drop[i] && c.sub < 0 {
			strs = append(strs, c.alts[0])
		}
	}
	for i, sub := range q.Sub {
		if k := slices.IndexFunc(cs, func(c clause) bool { return c.sub == i }); k >= 0 && drop[k] {
			continue
		}
		subs = append(subs, sub)
	}
	q.Strs, q.Sub = strs, subs
}

// Contains reports whether text contains s; with fold, in ASCII letters
// of either case (s in lower case).
func Contains(text []byte, s string, fold bool) bool {
	if !fold {
		return bytes.Contains(text, []byte(s))
	}
	return containsFold(text, s)
}

// containsFold reports whether text contains s (lower case ASCII letters
// and other bytes) with its letters in either case.
func containsFold(text []byte, s string) bool {
	if len(s) == 0 {
		return true
	}
	lo, up := s[0], s[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	// The next place of the first byte in each case, found once each.
	next := func(c byte, from int) int {
		if i := bytes.IndexByte(text[from:], c); i >= 0 {
			return from + i
		}
		return len(text)
	}
	il, iu := next(lo, 0), len(text)
	if up != lo {
		iu = next(up, 0)
	}
	for {
		i := min(il, iu)
		if i+len(s) > len(text) {
			return false
		}
		if equalFold(text[i:i+len(s)], s) {
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

// equalFold reports whether b is lower with ASCII letters of either case.
func equalFold(b []byte, lower string) bool {
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
