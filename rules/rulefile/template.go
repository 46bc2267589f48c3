package rulefile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"forensics"
	"forensics/names"
	"forensics/parsers/nsserver"
	"forensics/rules/evidence"
)

// A template is text with values put in: "{node}", "{alert.first.time|clock}",
// "{buckets|join:\", \"}". "{{" and "}}" stand for braces. Every name and
// filter is resolved when the rule is loaded.
type template struct {
	src   string
	parts []part
}

type part struct {
	lit  string
	expr *expr // nil: a literal
}

// expr is one {…}: a reference and the filters its value goes through.
type expr struct {
	ref     ref
	filters []filterCall
	typ     typ
}

type filterCall struct {
	def *filterDef
	arg string
}

// refKind says where a reference reads its value.
type refKind uint8

const (
	refEvent refKind = iota // a field or attribute of the event at hand
	refName                 // a name of the finding: a group field, a value, count, start, end, duration
	refSel                  // count, first or last of a selection or lookup, and a field of that event
	refAll                  // first or last of all the finding's events, and a field of it
	refLoop                 // the variable of a command's for
)

type ref struct {
	kind  refKind
	name  string // field, name, selection or loop variable
	what  string // count, first, last (refSel, refAll)
	field string // the event's field after first or last; "" for the event itself
}

// scope is what names mean where a template or condition is written.
type scope struct {
	rule *compiler
	// event is set where an event is at hand (a selection's where and set,
	// an evidence note): its fields come first.
	event []forensics.Kind
	// eventOnly: only the event's names (before the finding exists).
	eventOnly bool
	// loop is a command's for variable.
	loop string
}

// resolve compiles a dotted name into a reference and its type.
func (sc *scope) resolve(path string) (ref, typ, error) {
	parts := strings.Split(path, ".")
	head := parts[0]
	if sc.loop != "" && head == sc.loop && len(parts) == 1 {
		return ref{kind: refLoop, name: head}, tText, nil
	}
	if sc.event != nil {
		if t, ok := sc.rule.eventName(sc.event, path, sc.eventOnly); ok {
			return ref{kind: refEvent, name: path}, t, nil
		}
		if sc.eventOnly {
			return ref{}, 0, fmt.Errorf("%q is not a field of the event nor an attribute of %s", path, kindList(sc.event))
		}
	}
	c := sc.rule
	if t, ok := c.names[head]; ok {
		if len(parts) > 1 {
			return ref{}, 0, fmt.Errorf("%q is %s, which has no field %q", head, t, strings.Join(parts[1:], "."))
		}
		return ref{kind: refName, name: head}, t, nil
	}
	if head == "first" || head == "last" {
		return c.eventRef(ref{kind: refAll, what: head}, c.kinds, parts[1:], path)
	}
	if kinds, ok := c.sels[head]; ok {
		if len(parts) < 2 {
			return ref{}, 0, fmt.Errorf("%q is a selection: write %s.count, %s.first.FIELD or %s.last.FIELD", head, head, head, head)
		}
		r := ref{kind: refSel, name: head, what: parts[1]}
		switch parts[1] {
		case "count":
			if len(parts) > 2 {
				return ref{}, 0, fmt.Errorf("%s.count is a number and has no fields", head)
			}
			return r, tNum, nil
		case "first", "last":
			return c.eventRef(r, kinds, parts[2:], path)
		}
		return ref{}, 0, fmt.Errorf("a selection has count, first and last, not %q", parts[1])
	}
	return ref{}, 0, fmt.Errorf("%q names nothing: not a group field, a value, a selection, nor count, start, end, duration, first or last%s", path, sc.eventHint())
}

func (sc *scope) eventHint() string {
	if sc.event != nil {
		return ", nor a field or attribute of the event"
	}
	return ""
}

// eventRef finishes a reference to the first or last event of some kinds.
func (c *compiler) eventRef(r ref, kinds []forensics.Kind, rest []string, path string) (ref, typ, error) {
	if len(rest) == 0 {
		return r, tEvent, nil
	}
	name := strings.Join(rest, ".")
	t, ok := c.eventName(kinds, name, true)
	if !ok {
		return ref{}, 0, fmt.Errorf("%q: %q is not a field of an event nor an attribute of %s", path, name, kindList(kinds))
	}
	r.field = name
	return r, t, nil
}

// eventName reports whether name is a field of events of the given kinds,
// or an attribute one of them declares, and its type. Without the parsers'
// vocabulary any attribute is allowed; where the finding's names are in
// scope too (only is false), those come first then.
func (c *compiler) eventName(kinds []forensics.Kind, name string, only bool) (typ, bool) {
	if t, ok := eventFields[name]; ok {
		return t, true
	}
	key := strings.TrimPrefix(name, "attrs.")
	if c.vocab == nil {
		return tAny, only || strings.HasPrefix(name, "attrs.") || !c.isRecordName(name)
	}
	for _, k := range kinds {
		attrs, known := c.vocab[k]
		if !known {
			return tAny, true // the unknown kind is the error reported
		}
		for _, a := range attrs {
			if a == key {
				return tAny, true
			}
		}
	}
	return 0, false
}

func (c *compiler) isRecordName(name string) bool {
	head, _, _ := strings.Cut(name, ".")
	_, n := c.names[head]
	_, s := c.sels[head]
	return n || s || head == "first" || head == "last"
}

func kindList(kinds []forensics.Kind) string {
	var s []string
	for _, k := range kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// parseTemplate compiles a template in a scope.
func parseTemplate(src string, sc *scope) (*template, error) {
	t := &template{src: src}
	var lit strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '{' && i+1 < len(src) && src[i+1] == '{':
			lit.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(src) && src[i+1] == '}':
			lit.WriteByte('}')
			i += 2
		case c == '}':
			return nil, fmt.Errorf("a lone } at byte %d: write }} for a brace", i)
		case c == '{':
			end, err := closing(src, i+1)
			if err != nil {
				return nil, err
			}
			e, err := parseExpr(src[i+1:end], sc)
			if err != nil {
				return nil, fmt.Errorf("{%s}: %w", src[i+1:end], err)
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, part{lit: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, part{expr: e})
			i = end + 1
		default:
			lit.WriteByte(c)
			i++
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, part{lit: lit.String()})
	}
	return t, nil
}

// closing finds the } that ends the expression starting at i, skipping
// quoted filter arguments.
func closing(src string, i int) (int, error) {
	for ; i < len(src); i++ {
		switch src[i] {
		case '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			if j >= len(src) {
				return 0, fmt.Errorf("a quoted argument is not closed")
			}
			i = j
		case '{':
			return 0, fmt.Errorf("a { inside {…}")
		case '}':
			return i, nil
		}
	}
	return 0, fmt.Errorf("a { is not closed: write {{ for a brace")
}

// parseExpr compiles "name.path|filter|filter:arg".
func parseExpr(s string, sc *scope) (*expr, error) {
	segs, err := splitFilters(s)
	if err != nil {
		return nil, err
	}
	path := strings.TrimSpace(segs[0])
	if !validPath(path) {
		return nil, fmt.Errorf("%q is not a name (letters, digits, _ and -, parts joined by dots)", path)
	}
	r, t, err := sc.resolve(path)
	if err != nil {
		return nil, err
	}
	e := &expr{ref: r, typ: t}
	for _, f := range segs[1:] {
		name, arg, hasArg := strings.Cut(f, ":")
		name = strings.TrimSpace(name)
		def, ok := filters[name]
		if !ok {
			return nil, fmt.Errorf("no filter %q (filters: %s)", name, filterNames())
		}
		if hasArg != def.arg {
			if def.arg {
				return nil, fmt.Errorf("the filter %s takes an argument: %s:\"…\"", name, name)
			}
			return nil, fmt.Errorf("the filter %s takes no argument", name)
		}
		if hasArg {
			if arg, err = unquote(strings.TrimSpace(arg)); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if t != tAny && !def.accepts(t) {
			return nil, fmt.Errorf("the filter %s does not take %s", name, t)
		}
		t = def.out
		if def.out == tAny {
			t = e.typ
		}
		e.filters = append(e.filters, filterCall{def: def, arg: arg})
		e.typ = t
	}
	if e.typ == tSel {
		return nil, fmt.Errorf("a selection is not a value")
	}
	return e, nil
}

// splitFilters splits at the | that are not inside quotes.
func splitFilters(s string) ([]string, error) {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '|':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:]), nil
}

func unquote(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("bad quoted argument %s", s)
		}
		return u, nil
	}
	return s, nil
}

func validPath(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if p == "" {
			return false
		}
		for i, r := range p {
			if !(r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || r == '-')) {
				return false
			}
		}
	}
	return true
}

// filterDef is one filter: the types it takes, what it gives, whether it
// takes an argument.
type filterDef struct {
	in  []typ // nil: any
	out typ   // tAny: the type it was given
	arg bool
	doc string
	fn  func(v val, arg string) val
}

func (d *filterDef) accepts(t typ) bool {
	if d.in == nil {
		return true
	}
	for _, x := range d.in {
		if x == t {
			return true
		}
	}
	return false
}

var filters map[string]*filterDef

func init() {
	// Filled here because name filters refer to the table in their docs.
	filters = map[string]*filterDef{
		"or":        {out: tText, arg: true, doc: "the argument when the value is empty (or a name its check refused)", fn: orFilter},
		"prefix":    {out: tText, arg: true, doc: "the argument before the value, when there is one", fn: func(v val, a string) val { return around(v, a, "") }},
		"suffix":    {out: tText, arg: true, doc: "the argument after the value, when there is one", fn: func(v val, a string) val { return around(v, "", a) }},
		"join":      {in: []typ{tList}, out: tText, arg: true, doc: "the list's items joined by the argument", fn: func(v val, a string) val { return text(strings.Join(v.list, a)) }},
		"only":      {in: []typ{tList}, out: tText, doc: "the list's one item, or nothing when it has none or several", fn: onlyFilter},
		"len":       {in: []typ{tList}, out: tNum, doc: "the number of items", fn: func(v val, _ string) val { return num(float64(len(v.list))) }},
		"clock":     {in: []typ{tTime}, out: tText, doc: "the time of day in UTC, 15:04:05.000Z (microseconds when the line had them)", fn: timeFilter(evidence.Clock)},
		"day":       {in: []typ{tTime}, out: tText, doc: "the UTC date, 2006-01-02", fn: timeFilter(evidence.Day)},
		"firstline": {out: tText, doc: "the first line of the text", fn: func(v val, _ string) val { return text(firstLine(v.String())) }},
		"upper":     {out: tText, doc: "in capitals", fn: func(v val, _ string) val { return text(strings.ToUpper(v.String())) }},
		"lower":     {out: tText, doc: "in small letters", fn: func(v val, _ string) val { return text(strings.ToLower(v.String())) }},
		"otp":       {out: tText, doc: "a host as ns_server names its node: ns_1@HOST (a name with an @ stays as it is)", fn: func(v val, _ string) val { return keep(v, nsserver.NodeName(v.String())) }},
		"kb":        {out: tText, doc: "a figure in kB as MiB or GiB", fn: kbFilter},
		"bytes":     {out: tText, doc: "a figure in bytes as MiB or GiB", fn: bytesFilter},
		"dur":       {out: tText, doc: "a number of seconds as a duration: 1m30s", fn: durFilter},
		"plural":    {out: tText, arg: true, doc: "the argument when the number is not 1, else nothing: {count} time{count|plural:s}", fn: pluralFilter},
		"host":      {out: tText, doc: "the host of a node name (ns_1@HOST → HOST), checked as a hostname or address", fn: nameFilter(func(s string) (string, error) { h := nsserver.Host(s); return h, names.Host(h) })},
		"bucket":    {out: tText, doc: "checked as a Couchbase bucket name", fn: nameFilter(check(names.Bucket))},
		"keyspace":  {out: tText, doc: "checked as a Vitess keyspace name", fn: nameFilter(check(names.Keyspace))},
		"shard":     {out: tText, doc: "checked as a Vitess shard name", fn: nameFilter(check(names.Shard))},
		"tablet":    {out: tText, doc: "checked as a Vitess tablet alias", fn: nameFilter(check(names.TabletAlias))},
		"table":     {out: tText, doc: "checked as a MySQL table name", fn: nameFilter(check(names.Table))},
		"workflow":  {out: tText, doc: "checked as a Vitess workflow name", fn: nameFilter(check(names.Workflow))},
	}
}

func filterNames() string {
	var out []string
	for n := range filters {
		out = append(out, n)
	}
	sortStrings(out)
	return strings.Join(out, ", ")
}

func orFilter(v val, a string) val {
	if v.bad || v.empty() {
		return text(a)
	}
	return v
}

func around(v val, before, after string) val {
	if v.empty() {
		return keep(v, "")
	}
	return keep(v, before+v.String()+after)
}

// keep gives text that carries the value's bad mark.
func keep(v val, s string) val {
	out := text(s)
	out.bad = v.bad
	return out
}

func onlyFilter(v val, _ string) val {
	if len(v.list) == 1 {
		return text(v.list[0])
	}
	return text("")
}

func timeFilter(f func(time.Time) string) func(val, string) val {
	return func(v val, _ string) val {
		if v.tm.IsZero() {
			return text("")
		}
		return text(f(v.tm))
	}
}

// kbFilter prints a kB figure from the kernel in GiB or MiB.
func kbFilter(v val, _ string) val {
	n, ok := v.number()
	if !ok {
		return keep(v, v.String())
	}
	if n >= 1<<20 {
		return text(fmt.Sprintf("%.1f GiB", n/(1<<20)))
	}
	return text(fmt.Sprintf("%.0f MiB", n/(1<<10)))
}

func bytesFilter(v val, _ string) val {
	n, ok := v.number()
	if !ok {
		return keep(v, v.String())
	}
	return kbFilter(num(n/(1<<10)), "")
}

func durFilter(v val, _ string) val {
	n, ok := v.number()
	if !ok {
		return keep(v, v.String())
	}
	d := time.Duration(n * float64(time.Second))
	if d >= time.Second {
		d = d.Round(time.Second)
	}
	return text(d.String())
}

func pluralFilter(v val, a string) val {
	if n, ok := v.number(); ok && n == 1 {
		return text("")
	}
	return text(a)
}

func check(f func(string) error) func(string) (string, error) {
	return func(s string) (string, error) { return s, f(s) }
}

// nameFilter checks a name taken from the evidence before it goes into a
// command: a name its system would refuse becomes an empty, bad value.
func nameFilter(f func(string) (string, error)) func(val, string) val {
	return func(v val, _ string) val {
		s, err := f(v.String())
		if err != nil || v.bad {
			return val{t: tText, bad: true}
		}
		return text(s)
	}
}

// env is what a template reads at run time.
type env struct {
	ev   *forensics.Event
	rec  *record
	loop map[string]string
}

func (en env) get(r ref) val {
	switch r.kind {
	case refEvent:
		return field(en.ev, r.name)
	case refLoop:
		return text(en.loop[r.name])
	case refName:
		return en.rec.names[r.name]
	case refSel:
		s := en.rec.set(r.name)
		switch r.what {
		case "count":
			return num(float64(s.count))
		case "first":
			return pick(s.first, r.field)
		case "last":
			return pick(s.last, r.field)
		}
	case refAll:
		s := en.rec.t.all()
		if r.what == "first" {
			return pick(s.first, r.field)
		}
		return pick(s.last, r.field)
	}
	return val{}
}

func pick(e *forensics.Event, name string) val {
	if e == nil {
		if name == "" {
			return val{t: tEvent}
		}
		return text("")
	}
	if name == "" {
		return eventVal(e)
	}
	return field(e, name)
}

func (e *expr) eval(en env) val {
	v := en.get(e.ref)
	for _, f := range e.filters {
		v = f.def.fn(v, f.arg)
	}
	return v
}

// eventText returns, for a template that is one field or attribute of the
// event with no filter, a function reading it as text without a val: the
// group fields of every event a rule reads go this way.
func (t *template) eventText() func(*forensics.Event) string {
	if len(t.parts) != 1 || t.parts[0].expr == nil {
		return nil
	}
	e := t.parts[0].expr
	if e.ref.kind != refEvent || len(e.filters) > 0 {
		return nil
	}
	switch name := e.ref.name; name {
	case "node":
		return func(ev *forensics.Event) string { return ev.Node }
	case "bucket":
		return func(ev *forensics.Event) string { return ev.Bucket }
	case "keyspace":
		return func(ev *forensics.Event) string { return ev.Keyspace }
	case "shard":
		return func(ev *forensics.Event) string { return ev.Shard }
	case "table":
		return func(ev *forensics.Event) string { return ev.Table }
	default:
		if _, field := eventFields[name]; field {
			return nil
		}
		key := strings.TrimPrefix(name, "attrs.")
		return func(ev *forensics.Event) string { return attr(ev, key) }
	}
}

// render writes the template; bad reports whether a name in it failed its check.
func (t *template) render(en env) (s string, bad bool) {
	if len(t.parts) == 1 {
		if e := t.parts[0].expr; e != nil {
			v := e.eval(en)
			return v.String(), v.bad
		}
		return t.parts[0].lit, false
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.expr == nil {
			b.WriteString(p.lit)
			continue
		}
		v := p.expr.eval(en)
		bad = bad || v.bad
		b.WriteString(v.String())
	}
	return b.String(), bad
}

// value evaluates a template that is one expression to its value (a list
// stays a list); any other template is text.
func (t *template) value(en env) val {
	if len(t.parts) == 1 && t.parts[0].expr != nil {
		return t.parts[0].expr.eval(en)
	}
	s, bad := t.render(en)
	v := text(s)
	v.bad = bad
	return v
}

// typ is the type of the template's value.
func (t *template) typ() typ {
	if len(t.parts) == 1 && t.parts[0].expr != nil {
		return t.parts[0].expr.typ
	}
	return tText
}

// literal reports whether the template puts no value in.
func (t *template) literal() bool {
	for _, p := range t.parts {
		if p.expr != nil {
			return false
		}
	}
	return true
}
