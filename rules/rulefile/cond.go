package rulefile

import (
	"regexp"
	"slices"
	"strings"

	"forensics/yamldoc"
)

// A condition is a mapping of names to what their values must be, as in a
// Sigma selection; all of them must hold:
//
//	where:
//	  percent: {gte: 90}
//	  bucket: [orders, carts]      # one of
//	  system: {matches: 'No space'}
//	  any: [{...}, {...}]          # one of these conditions
//	  not: {...}
type cond struct {
	tests []test
	any   []cond // one of these must hold
	not   []cond
}

type test struct {
	expr *expr
	ops  []op
}

type op struct {
	name string
	s    []string
	n    float64
	re   *regexp.Regexp
	b    bool
}

var opNames = []string{"eq", "ne", "in", "not_in", "matches", "not_matches", "contains", "prefix", "suffix", "gt", "gte", "lt", "lte", "empty"}

// parseCond reads a condition in a scope.
func (c *compiler) parseCond(v yamldoc.Value, sc *scope) cond {
	var out cond
	if v.IsZero() {
		return out
	}
	m := v.Map()
	for _, key := range m.Keys() {
		fv := m.Get(key)
		switch key {
		case "any":
			for _, alt := range fv.List() {
				out.any = append(out.any, c.parseCond(alt, sc))
			}
			continue
		case "not":
			out.not = append(out.not, c.parseCond(fv, sc))
			continue
		}
		e, err := parseExpr(key, sc)
		if err != nil {
			fv.Errorf("%v", err)
			continue
		}
		t := test{expr: e}
		switch {
		case fv.IsMap():
			om := fv.Map(opNames...)
			for _, name := range om.Keys() {
				if o, ok := c.parseOp(name, om.Get(name)); ok {
					t.ops = append(t.ops, o)
				}
			}
		case fv.IsList():
			t.ops = append(t.ops, op{name: "in", s: fv.Strings()})
		default:
			t.ops = append(t.ops, op{name: "eq", s: []string{fv.String()}})
		}
		out.tests = append(out.tests, t)
	}
	return out
}

func (c *compiler) parseOp(name string, v yamldoc.Value) (op, bool) {
	o := op{name: name}
	switch name {
	case "eq", "ne", "contains", "prefix", "suffix":
		o.s = []string{v.String()}
	case "in", "not_in":
		o.s = v.Strings()
	case "matches", "not_matches":
		if o.re = v.Regexp(); o.re == nil {
			return o, false
		}
	case "gt", "gte", "lt", "lte":
		n, ok := parseNumber(v.String())
		if !ok {
			v.Errorf("%q is not a number (or a duration such as 500ms)", v.String())
			return o, false
		}
		o.n = n
	case "empty":
		o.b = v.Bool()
	}
	return o, true
}

func (c cond) holds(en env) bool {
	for _, t := range c.tests {
		if !t.holds(en) {
			return false
		}
	}
	if len(c.any) > 0 {
		ok := false
		for _, alt := range c.any {
			if alt.holds(en) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, n := range c.not {
		if n.holds(en) {
			return false
		}
	}
	return true
}

func (c cond) isZero() bool { return len(c.tests) == 0 && len(c.any) == 0 && len(c.not) == 0 }

func (t test) holds(en env) bool {
	v := t.expr.eval(en)
	for _, o := range t.ops {
		if !o.holds(v) {
			return false
		}
	}
	return true
}

func (o op) holds(v val) bool {
	s := v.String()
	switch o.name {
	case "eq":
		return equal(v, o.s[0])
	case "ne":
		return !equal(v, o.s[0])
	case "in":
		return slices.ContainsFunc(o.s, func(x string) bool { return equal(v, x) })
	case "not_in":
		return !slices.ContainsFunc(o.s, func(x string) bool { return equal(v, x) })
	case "matches":
		return o.re.MatchString(s)
	case "not_matches":
		return !o.re.MatchString(s)
	case "contains":
		if v.t == tList {
			return slices.Contains(v.list, o.s[0])
		}
		return strings.Contains(s, o.s[0])
	case "prefix":
		return strings.HasPrefix(s, o.s[0])
	case "suffix":
		return strings.HasSuffix(s, o.s[0])
	case "empty":
		return v.empty() == o.b
	}
	n, ok := v.number()
	if !ok {
		return false
	}
	switch o.name {
	case "gt":
		return n > o.n
	case "gte":
		return n >= o.n
	case "lt":
		return n < o.n
	case "lte":
		return n <= o.n
	}
	return false
}

// equal compares as numbers when both sides are numbers (a count with 3,
// "03" with 3), else as text.
func equal(v val, want string) bool {
	if w, ok := parseNumber(want); ok {
		if n, ok := v.number(); ok && v.t != tText || ok && isDecimal(v.String()) {
			return n == w
		}
	}
	return v.String() == want
}

func isDecimal(s string) bool {
	_, ok := parseNumber(s)
	return ok && strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0
}
