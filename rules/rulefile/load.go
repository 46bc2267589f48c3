package rulefile

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	"forensics"
	"forensics/yamldoc"
)

// Vocabulary is what the parsers emit: every kind, with the attribute keys
// it may carry. A rule may read only kinds it names, and attributes they
// declare.
type Vocabulary map[forensics.Kind][]string

// File is a rule read from a file.
type File struct {
	Rule *forensics.Rule
	Path string // where it was read from, as given
	// Replaces says the file means to take the place of a built-in rule of
	// the same name; without it, a user's rule may not shadow one.
	Replaces bool
	spec     *spec
}

var ruleName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Parse reads a rule file. vocab, when not nil, is checked: every kind the
// rule reads and every attribute it names must be declared there. The
// error names the file, line and field of every problem found.
func Parse(path string, data []byte, vocab Vocabulary) (*File, error) {
	doc, err := yamldoc.Parse(path, data)
	if err != nil {
		return nil, err
	}
	c := &compiler{vocab: vocab, names: map[string]typ{}, sels: map[string][]forensics.Kind{}, sp: &spec{}}
	f := c.compile(doc.Root)
	if err := doc.Err(); err != nil {
		return nil, err
	}
	f.Path = path
	return f, nil
}

// compiler reads one rule file into a spec.
type compiler struct {
	vocab Vocabulary
	names map[string]typ              // the finding's names: group fields, values, count, start, end, duration
	sels  map[string][]forensics.Kind // selections and lookups, with their kinds
	kinds []forensics.Kind            // every kind the selections read
	sp    *spec
}

var topFields = []string{"rule", "replaces", "doc", "select", "group", "detect", "when", "values", "nearby",
	"severity", "escalate", "title", "explanation", "details", "subject", "evidence", "fixes"}

func (c *compiler) compile(root yamldoc.Value) *File {
	if all := root.Map(); all.Has("format") {
		root.Errorf("this is a format file (it has format:): load its folder with --formats-dir or FORENSICS_FORMATS_PATH")
	}
	m := root.Map(topFields...)
	m.Require("rule", "doc", "select", "severity", "title", "explanation")
	name := m.Get("rule").String()
	if name != "" && !ruleName.MatchString(name) {
		m.Get("rule").Errorf("%q is not a rule name: lowercase words joined by hyphens (cb-disk-full)", name)
	}
	c.sp.name = name
	r := &forensics.Rule{Name: name, Doc: c.doc(m.Get("doc"))}
	f := &File{Rule: r, Replaces: m.Get("replaces").Bool(), spec: c.sp}

	c.selections(m.Get("select"))
	c.group(m.Get("group"))
	c.detect(m.Get("detect"))
	c.nearby(m.Get("nearby"))
	for _, n := range []string{"count", "start", "end", "duration"} {
		c.names[n] = map[string]typ{"count": tNum, "start": tTime, "end": tTime, "duration": tNum}[n]
	}
	c.values(m.Get("values"))
	rec := &scope{rule: c}
	c.sp.when = c.parseCond(m.Get("when"), rec)
	c.sp.severity = c.severity(m.Get("severity"))
	for _, e := range m.Get("escalate").List() {
		em := e.Map("when", "severity")
		em.Require("when", "severity")
		c.sp.escalate = append(c.sp.escalate, escalation{when: c.parseCond(em.Get("when"), rec), severity: c.severity(em.Get("severity"))})
	}
	c.sp.title = c.alternatives(m.Get("title"), rec)
	c.sp.explanation = c.alternatives(m.Get("explanation"), rec)
	r.Details = c.details(m.Get("details"))
	c.subject(m.Get("subject"), rec, r.Details)
	c.evidence(m.Get("evidence"))
	c.fixes(m.Get("fixes"), rec)
	r.Kinds = c.kinds
	sp := c.sp
	r.Run = func(p *forensics.Pass) error { return sp.run(p) }
	return f
}

func (c *compiler) doc(v yamldoc.Value) forensics.Doc {
	m := v.Map("title", "detects", "why", "confirm", "inputs", "fixes")
	m.Require("title", "detects")
	return forensics.Doc{
		Title: strings.TrimSpace(m.Get("title").String()), Detects: strings.TrimSpace(m.Get("detects").String()),
		Why: strings.TrimSpace(m.Get("why").String()), Confirm: strings.TrimSpace(m.Get("confirm").String()),
		Inputs: strings.TrimSpace(m.Get("inputs").String()), Fixes: strings.TrimSpace(m.Get("fixes").String()),
	}
}

func (c *compiler) severity(v yamldoc.Value) forensics.Severity {
	s, err := forensics.ParseSeverity(v.String())
	if err != nil && !v.IsZero() {
		v.Errorf("%v", err)
	}
	return s
}

// kindsOf reads a list of kinds, each declared by the vocabulary.
func (c *compiler) kindsOf(v yamldoc.Value) []forensics.Kind {
	var out []forensics.Kind
	for _, kv := range v.List() {
		k := forensics.Kind(kv.String())
		if k == "" {
			continue
		}
		if c.vocab != nil {
			if _, ok := c.vocab[k]; !ok {
				kv.Errorf("no parser or format emits the kind %q (forensics timeline kinds lists them)", k)
			}
		}
		out = append(out, k)
		if !slices.Contains(c.kinds, k) {
			c.kinds = append(c.kinds, k)
		}
	}
	if len(out) == 0 && !v.IsZero() {
		v.Errorf("name at least one event kind")
	}
	return out
}

var wordName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// declare adds a name of the finding, refusing one taken already.
func (c *compiler) declare(v yamldoc.Value, name string, t typ) bool {
	if !wordName.MatchString(name) {
		v.Errorf("%q is not a name: lowercase letters, digits and _", name)
		return false
	}
	_, taken := c.names[name]
	_, sel := c.sels[name]
	if taken || sel || name == "first" || name == "last" {
		v.Errorf("the name %q is taken already", name)
		return false
	}
	c.names[name] = t
	return true
}

func (c *compiler) selections(v yamldoc.Value) {
	m := v.Map()
	if len(m.Keys()) == 0 && !v.IsZero() {
		v.Errorf("name at least one selection of events")
	}
	c.sp.byKind = map[forensics.Kind][]*selection{}
	for _, name := range m.Keys() {
		sv := m.Get(name)
		if !wordName.MatchString(name) || name == "first" || name == "last" {
			sv.Errorf("%q cannot name a selection: lowercase letters, digits and _, not first or last", name)
			continue
		}
		sm := sv.Map("kinds", "where", "set", "distinct")
		sm.Require("kinds")
		s := &selection{name: name, index: len(c.sp.sels), kinds: c.kindsOf(sm.Get("kinds"))}
		ev := &scope{rule: c, event: s.kinds, eventOnly: true}
		s.where = c.parseCond(sm.Get("where"), ev)
		s.set = map[string]*template{}
		setm := sm.Get("set").Map()
		for _, k := range setm.Keys() {
			t, err := parseTemplate(setm.Get(k).String(), ev)
			if err != nil {
				setm.Get(k).Errorf("%v", err)
				continue
			}
			s.set[k] = t
			s.setOrder = append(s.setOrder, k)
		}
		if dv := sm.Get("distinct"); !dv.IsZero() {
			dm := dv.Map("by", "within")
			dm.Require("by", "within")
			d := &distinct{within: dm.Get("within").Duration()}
			for _, b := range dm.Get("by").List() {
				e, err := parseExpr(b.String(), ev)
				if err != nil {
					b.Errorf("%v", err)
					continue
				}
				d.by = append(d.by, e)
			}
			s.distinct = d
		}
		c.sels[name] = s.kinds
		c.sp.sels = append(c.sp.sels, s)
		for _, k := range s.kinds {
			c.sp.byKind[k] = append(c.sp.byKind[k], s)
		}
	}
}

func (c *compiler) group(v yamldoc.Value) {
	m := v.Map("by", "optional")
	if !v.IsZero() {
		m.Require("by")
	}
	for _, bv := range m.Get("by").List() {
		name := bv.String()
		if !c.declare(bv, name, tText) {
			continue
		}
		c.sp.groupBy = append(c.sp.groupBy, name)
	}
	c.sp.optional = make([]bool, len(c.sp.groupBy))
	for _, ov := range m.Get("optional").List() {
		i := slices.Index(c.sp.groupBy, ov.String())
		if i < 0 {
			ov.Errorf("%q is not one of the group's fields (%s)", ov.String(), strings.Join(c.sp.groupBy, ", "))
			continue
		}
		c.sp.optional[i] = true
	}
	// How each selection gives each group field: its set, or the event's own field.
	for _, s := range c.sp.sels {
		ev := &scope{rule: c, event: s.kinds, eventOnly: true}
		s.keys = make([]*template, len(c.sp.groupBy))
		s.fastKeys = make([]func(*forensics.Event) string, len(c.sp.groupBy))
		for i, k := range c.sp.groupBy {
			if t, ok := s.set[k]; ok {
				s.keys[i], s.fastKeys[i] = t, t.eventText()
				continue
			}
			if t, err := parseTemplate("{"+k+"}", ev); err == nil {
				s.keys[i], s.fastKeys[i] = t, t.eventText()
				continue
			}
			if !c.sp.optional[i] {
				m.Get("by").Errorf("the selection %q gives no %s: its events have no such field or attribute; set it (select.%s.set.%s) or make it optional", s.name, k, s.name, k)
			}
		}
		for k := range s.set {
			if !slices.Contains(c.sp.groupBy, k) {
				m.Value().Errorf("select.%s.set.%s: %q is not a group field (group.by)", s.name, k, k)
			}
		}
	}
}

// selIndexes reads names of selections.
func (c *compiler) selIndexes(v yamldoc.Value) []int {
	var out []int
	for _, sv := range v.List() {
		i := slices.IndexFunc(c.sp.sels, func(s *selection) bool { return s.name == sv.String() })
		if i < 0 {
			sv.Errorf("%q is not a selection", sv.String())
			continue
		}
		out = append(out, i)
	}
	return out
}

func (c *compiler) detect(v yamldoc.Value) {
	d := &c.sp.detect
	if v.IsZero() {
		return
	}
	m := v.Map("count", "within", "of", "distinct", "sustained", "gap", "until", "sequence", "unless", "absence", "after", "for")
	var modes []string
	for _, k := range []string{"count", "sustained", "sequence", "absence"} {
		if m.Has(k) {
			modes = append(modes, k)
		}
	}
	if len(modes) > 1 {
		v.Errorf("give one of count, sustained, sequence and absence, not %s", strings.Join(modes, " and "))
		return
	}
	allowed := map[string][]string{
		"":          {},
		"count":     {"count", "within", "of", "distinct"},
		"sustained": {"sustained", "gap", "of", "until"},
		"sequence":  {"sequence", "within", "unless"},
		"absence":   {"absence", "after", "for", "until"},
	}
	if len(modes) == 1 {
		d.mode = modes[0]
	}
	for _, k := range m.Keys() {
		if !slices.Contains(allowed[d.mode], k) {
			m.Get(k).Errorf("%q does not go with %s", k, orNone(d.mode))
		}
	}
	ev := &scope{rule: c, event: c.kinds, eventOnly: true}
	switch d.mode {
	case "count":
		m.Require("within")
		cm := m.Get("count").Map("gte", "gt")
		if len(cm.Keys()) != 1 {
			m.Get("count").Errorf("write count: {gte: N} or count: {gt: N}")
		}
		for _, k := range cm.Keys() {
			d.threshold = cm.Get(k).Int()
			if k == "gt" {
				d.threshold++
			}
		}
		if d.threshold < 1 {
			d.threshold = 1
		}
		d.within = m.Get("within").Duration()
		d.of = c.selIndexes(m.Get("of"))
		if dv := m.Get("distinct"); !dv.IsZero() {
			e, err := parseExpr(dv.String(), ev)
			if err != nil {
				dv.Errorf("%v", err)
			}
			d.distinct = e
		}
	case "sustained":
		m.Require("gap")
		d.within = m.Get("sustained").Duration()
		d.gap = m.Get("gap").Duration()
		d.of = c.selIndexes(m.Get("of"))
		d.until = c.selIndexes(m.Get("until"))
	case "sequence":
		m.Require("within")
		d.steps = c.selIndexes(m.Get("sequence"))
		if len(d.steps) < 2 {
			m.Get("sequence").Errorf("a sequence has two steps or more")
		}
		d.within = m.Get("within").Duration()
		d.unless = c.selIndexes(m.Get("unless"))
	case "absence":
		m.Require("after", "for")
		d.expect = c.selIndexes(m.Get("absence"))
		d.after = c.selIndexes(m.Get("after"))
		d.within = m.Get("for").Duration()
		d.until = c.selIndexes(m.Get("until"))
	}
}

func orNone(mode string) string {
	if mode == "" {
		return "no mode (every group is a finding)"
	}
	return mode
}

func (c *compiler) nearby(v yamldoc.Value) {
	m := v.Map()
	for _, name := range m.Keys() {
		lv := m.Get(name)
		if !wordName.MatchString(name) || c.sels[name] != nil {
			lv.Errorf("%q cannot name a lookup: lowercase letters, digits and _, and not a selection's name", name)
			continue
		}
		lm := lv.Map("kinds", "where", "match", "before", "after")
		lm.Require("kinds")
		l := &lookup{name: name, kinds: c.kindsOf(lm.Get("kinds"))}
		ev := &scope{rule: c, event: l.kinds, eventOnly: true}
		l.where = c.parseCond(lm.Get("where"), ev)
		if !lm.Get("before").IsZero() {
			l.before = lm.Get("before").Duration()
		}
		if !lm.Get("after").IsZero() {
			l.after = lm.Get("after").Duration()
		}
		mm := lm.Get("match").Map()
		for _, k := range mm.Keys() {
			e, err := parseExpr(k, ev)
			if err != nil {
				mm.Get(k).Errorf("%v", err)
				continue
			}
			g := mm.Get(k).String()
			if !slices.Contains(c.sp.groupBy, g) {
				mm.Get(k).Errorf("%q is not a group field (%s)", g, strings.Join(c.sp.groupBy, ", "))
				continue
			}
			l.match = append(l.match, matchDef{event: e, group: slices.Index(c.sp.groupBy, g)})
		}
		c.sels[name] = l.kinds
		c.sp.nearby = append(c.sp.nearby, l)
	}
}

var aggregates = []string{"count", "max", "min", "sum", "median", "distinct", "top", "first", "last"}

func (c *compiler) values(v yamldoc.Value) {
	m := v.Map()
	for _, name := range m.Keys() {
		vv := m.Get(name)
		d := valueDef{name: name}
		var t typ
		if vv.IsScalar() {
			tm, err := parseTemplate(vv.String(), &scope{rule: c})
			if err != nil {
				vv.Errorf("%v", err)
				continue
			}
			d.tmpl, t = tm, tm.typ()
		} else {
			a, at, ok := c.aggregate(vv)
			if !ok {
				continue
			}
			d.agg, t = a, at
		}
		if c.declare(vv, name, t) {
			c.sp.values = append(c.sp.values, d)
		}
	}
}

// aggregate reads {max: percent, of: alert} and the like.
func (c *compiler) aggregate(v yamldoc.Value) (*aggregate, typ, bool) {
	m := v.Map(append(aggregates, "of", "n")...)
	a := &aggregate{n: 3}
	for _, k := range m.Keys() {
		if slices.Contains(aggregates, k) {
			if a.fn != "" {
				v.Errorf("give one of %s, not %s and %s", strings.Join(aggregates, ", "), a.fn, k)
				return nil, 0, false
			}
			a.fn = k
		}
	}
	if a.fn == "" {
		v.Errorf("a value is a template or one of %s", strings.Join(aggregates, ", "))
		return nil, 0, false
	}
	kinds := c.kinds
	if a.fn == "count" {
		// count: [sel, …] counts the events of those selections.
		a.sets = c.namedSets(m.Get("count"))
		return a, tNum, true
	}
	if m.Has("of") {
		a.sets = c.namedSets(m.Get("of"))
		kinds = nil
		for _, n := range m.Get("of").Strings() {
			kinds = append(kinds, c.sels[n]...)
		}
	}
	if m.Has("n") {
		a.n = m.Get("n").Int()
	}
	fv := m.Get(a.fn)
	e, err := parseExpr(fv.String(), &scope{rule: c, event: kinds, eventOnly: true})
	if err != nil {
		fv.Errorf("%v", err)
		return nil, 0, false
	}
	a.field = e
	switch a.fn {
	case "distinct", "top":
		return a, tList, true
	case "first", "last":
		return a, e.typ, true
	}
	return a, tNum, true
}

// namedSets reads a list of selections and lookups as their indexes in a
// tally's sets.
func (c *compiler) namedSets(v yamldoc.Value) []int {
	var out []int
	for _, sv := range v.List() {
		n := sv.String()
		if _, ok := c.sels[n]; !ok {
			sv.Errorf("%q is not a selection or lookup", n)
			continue
		}
		out = append(out, c.sp.setIndex(n))
	}
	return out
}

// alternatives reads a template, or a list of {when, text}: the first
// whose condition holds is used (a title), or every one (paragraphs).
func (c *compiler) alternatives(v yamldoc.Value, sc *scope) []alt {
	var out []alt
	for _, av := range v.List() {
		var a alt
		tv := av
		if av.IsMap() {
			am := av.Map("when", "text")
			am.Require("text")
			a.when = c.parseCond(am.Get("when"), sc)
			tv = am.Get("text")
		}
		t, err := parseTemplate(strings.TrimSpace(tv.String()), sc)
		if err != nil {
			tv.Errorf("%v", err)
			continue
		}
		a.text = t
		out = append(out, a)
	}
	return out
}

// sharedFields are the fields every finding's subject has, by their JSON
// names, the names a rule file uses.
var sharedFields = func() map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	t := reflect.TypeFor[forensics.FindingSubject]()
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "-" {
			out[name] = f
		}
	}
	return out
}()

// details reads the declaration of the subject's details: the values a
// finding of the rule carries beyond the shared fields.
func (c *compiler) details(v yamldoc.Value) []forensics.Detail {
	var out []forensics.Detail
	for _, dv := range v.List() {
		m := dv.Map("key", "type", "doc", "label", "join", "show", "redact")
		m.Require("key", "type", "doc")
		d := forensics.Detail{Key: m.Get("key").String(), Type: forensics.DetailType(m.Get("type").String()),
			Doc: m.Get("doc").String(), Label: m.Get("label").String(), Join: m.Get("join").String(),
			Show: forensics.Show(m.Get("show").String()), Redact: forensics.NameKind(m.Get("redact").String())}
		if err := forensics.CheckDetails(append(slices.Clone(out), d)); err != nil {
			dv.Errorf("%v", err)
			continue
		}
		out = append(out, d)
	}
	return out
}

func (c *compiler) subject(v yamldoc.Value, sc *scope, details []forensics.Detail) {
	m := v.Map()
	for _, k := range m.Keys() {
		fv := m.Get(k)
		t, err := parseTemplate(fv.String(), sc)
		if err != nil {
			fv.Errorf("%v", err)
			continue
		}
		d := subjectDef{key: k, tmpl: t}
		isList := false
		if f, ok := sharedFields[k]; ok {
			d.field = &f
			isList = f.Type.Kind() == reflect.Slice
		} else if i := slices.IndexFunc(details, func(d forensics.Detail) bool { return d.Key == k }); i >= 0 {
			d.detail = &details[i]
			isList = d.detail.Type == forensics.DetailList || d.detail.Type == forensics.DetailInts
		} else {
			var known []string
			for n := range sharedFields {
				known = append(known, n)
			}
			sortStrings(known)
			fv.Errorf("%q is neither a field every subject shares (%s) nor a detail declared under details", k, strings.Join(known, ", "))
			continue
		}
		if isList && t.typ() != tList && t.typ() != tAny {
			fv.Errorf("the subject's %s is a list: give a list value ({buckets})", k)
			continue
		}
		c.sp.subject = append(c.sp.subject, d)
	}
}

var picks = []string{"first", "last", "all", "spread", "max", "min"}

func (c *compiler) evidence(v yamldoc.Value) {
	for _, ev := range v.List() {
		m := ev.Map("of", "pick", "by", "limit", "note", "when")
		m.Require("of")
		d := evidenceDef{sets: c.namedSets(m.Get("of")), pick: "first", limit: 1}
		var kinds []forensics.Kind
		for _, n := range m.Get("of").Strings() {
			kinds = append(kinds, c.sels[n]...)
		}
		if m.Has("pick") {
			d.pick = m.Get("pick").String()
			if !slices.Contains(picks, d.pick) {
				m.Get("pick").Errorf("pick one of %s", strings.Join(picks, ", "))
			}
			if d.pick == "all" || d.pick == "spread" {
				d.limit = 10
			}
		}
		if m.Has("limit") {
			d.limit = m.Get("limit").Int()
			if d.limit < 1 || d.limit > 100 {
				m.Get("limit").Errorf("a limit from 1 to 100")
			}
		}
		if d.pick == "max" || d.pick == "min" {
			m.Require("by")
			e, err := parseExpr(m.Get("by").String(), &scope{rule: c, event: kinds, eventOnly: true})
			if err != nil {
				m.Get("by").Errorf("%v", err)
			}
			d.by = e
		}
		d.when = c.parseCond(m.Get("when"), &scope{rule: c})
		if m.Has("note") {
			t, err := parseTemplate(m.Get("note").String(), &scope{rule: c, event: kinds})
			if err != nil {
				m.Get("note").Errorf("%v", err)
			}
			d.note = t
		}
		c.sp.evidence = append(c.sp.evidence, d)
	}
}

func (c *compiler) fixes(v yamldoc.Value, sc *scope) {
	for _, fv := range v.List() {
		m := fv.Map("title", "when", "steps", "commands")
		m.Require("title")
		var d fixDef
		d.when = c.parseCond(m.Get("when"), sc)
		if t, err := parseTemplate(m.Get("title").String(), sc); err != nil {
			m.Get("title").Errorf("%v", err)
		} else {
			d.title = t
		}
		for _, s := range m.Get("steps").List() {
			t, err := parseTemplate(strings.TrimSpace(s.String()), sc)
			if err != nil {
				s.Errorf("%v", err)
				continue
			}
			d.steps = append(d.steps, t)
		}
		for _, cv := range m.Get("commands").List() {
			if cmd, ok := c.command(cv); ok {
				d.commands = append(d.commands, cmd)
			}
		}
		c.sp.fixes = append(c.sp.fixes, d)
	}
}

var loopSpec = regexp.MustCompile(`^([a-z_][a-z0-9_]*) in ([a-z_][a-z0-9_.]*)$`)

// command reads {run: [word, …], pipe: [[word, …], …], for: "b in buckets", when: …}.
func (c *compiler) command(v yamldoc.Value) (commandDef, bool) {
	m := v.Map("run", "pipe", "for", "when")
	m.Require("run")
	var d commandDef
	sc := &scope{rule: c}
	if fv := m.Get("for"); !fv.IsZero() {
		g := loopSpec.FindStringSubmatch(fv.String())
		if g == nil {
			fv.Errorf("write for: NAME in LIST (b in buckets)")
			return d, false
		}
		e, err := parseExpr(g[2], sc)
		if err != nil {
			fv.Errorf("%v", err)
			return d, false
		}
		if e.typ != tList && e.typ != tAny {
			fv.Errorf("%s is %s, not a list", g[2], e.typ)
			return d, false
		}
		d.loopVar, d.loopOver = g[1], e
		sc = &scope{rule: c, loop: g[1]}
	}
	d.when = c.parseCond(m.Get("when"), sc)
	var ok bool
	if d.words, ok = c.words(m.Get("run"), sc); !ok {
		return d, false
	}
	if pv := m.Get("pipe"); !pv.IsZero() {
		for _, p := range pv.List() {
			ws, ok := c.words(p, sc)
			if !ok {
				return d, false
			}
			d.pipe = append(d.pipe, ws)
		}
	}
	return d, true
}

// words reads a command's words: templates, or a {run: […]} that is a
// command given as one word (to ssh). The program is always a literal: a
// name from the evidence never chooses what runs.
func (c *compiler) words(v yamldoc.Value, sc *scope) ([]word, bool) {
	if !v.IsList() {
		v.Errorf("a command is a list of words: [df, -h, \"{path}\"]; each is quoted for the shell as it is printed")
		return nil, false
	}
	var out []word
	for i, wv := range v.List() {
		if wv.IsMap() {
			wm := wv.Map("run")
			sub, ok := c.words(wm.Get("run"), sc)
			if !ok {
				return nil, false
			}
			out = append(out, word{sub: sub})
			continue
		}
		t, err := parseTemplate(wv.String(), sc)
		if err != nil {
			wv.Errorf("%v", err)
			return nil, false
		}
		if i == 0 && !t.literal() {
			wv.Errorf("the program of a command is written out, not taken from the evidence")
			return nil, false
		}
		out = append(out, word{t: t})
	}
	if len(out) == 0 {
		v.Errorf("a command has at least its program")
		return nil, false
	}
	return out, true
}

// Vocab builds the vocabulary from the kinds the parsers and format files
// declare, with the attribute keys each kind's doc lists.
func Vocab(kinds []forensics.KindDoc) Vocabulary {
	v := Vocabulary{}
	for _, k := range kinds {
		keys := v[k.Kind]
		if keys == nil {
			keys = []string{}
		}
		for _, a := range k.Attrs {
			if !slices.Contains(keys, string(a.Key)) {
				keys = append(keys, string(a.Key))
			}
		}
		v[k.Kind] = keys
	}
	return v
}
