package rulefile

import (
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"forensics"
	"forensics/rules/evidence"
	"forensics/shell"
)

// record is what a finding's templates and conditions read: its group
// fields, count, start, end, duration and values by name, and the tally of
// its selections and lookups.
type record struct {
	names map[string]val
	sp    *spec
	t     *tally
}

// set is the tally of a selection or lookup by name.
func (rec *record) set(name string) *setTally { return &rec.t.sets[rec.sp.setIndex(name)] }

// finding writes the finding of a candidate, its lookups tallied; false
// when the rule's when does not hold for it.
func (sp *spec) finding(c *candidate) (forensics.Finding, bool) {
	rec := &record{names: map[string]val{}, sp: sp, t: c.t}
	for i, k := range sp.groupBy {
		rec.names[k] = text(c.keys[i])
	}
	rec.names["count"] = num(float64(c.t.all().count))
	rec.names["start"] = instant(c.start)
	rec.names["end"] = instant(c.end)
	rec.names["duration"] = num(c.end.Sub(c.start).Seconds())
	en := env{rec: rec}
	for i, v := range sp.values {
		if v.tmpl != nil {
			rec.names[v.name] = v.tmpl.value(en)
		} else {
			rec.names[v.name] = c.t.aggs[i].value(v.agg)
		}
	}
	if !sp.when.isZero() && !sp.when.holds(en) {
		return forensics.Finding{}, false
	}
	f := forensics.Finding{Severity: sp.severity, Start: c.start, End: c.end}
	for _, e := range sp.escalate {
		if e.severity > f.Severity && e.when.holds(en) {
			f.Severity = e.severity
		}
	}
	for _, a := range sp.title {
		if a.when.isZero() || a.when.holds(en) {
			f.Title, _ = a.text.render(en)
			break
		}
	}
	var paras []string
	for _, a := range sp.explanation {
		if a.when.isZero() || a.when.holds(en) {
			if s, _ := a.text.render(en); s != "" {
				paras = append(paras, s)
			}
		}
	}
	f.Explanation = strings.Join(paras, "\n\n")
	sp.fillSubject(&f.Subject, en)
	f.Evidence = sp.evidenceOf(rec)
	f.Fixes = sp.fixesOf(en)
	if f.Evidence == nil {
		f.Evidence = []forensics.Evidence{}
	}
	return f, true
}

func (sp *spec) fillSubject(s *forensics.FindingSubject, en env) {
	rv := reflect.ValueOf(s).Elem()
	for _, d := range sp.subject {
		v := d.tmpl.value(en)
		if d.detail != nil {
			if x := detailValue(v, d.detail.Type); x != nil {
				s.Details.Set(forensics.Field{Key: d.key, Value: x})
			}
			continue
		}
		f := rv.FieldByIndex(d.field.Index)
		switch f.Kind() {
		case reflect.String:
			f.SetString(v.String())
		case reflect.Int64:
			if n, ok := v.number(); ok {
				f.SetInt(int64(n))
			}
		case reflect.Slice:
			if f.Type().Elem().Kind() == reflect.Int {
				f.Set(reflect.ValueOf(ints(items(v))))
			} else {
				f.Set(reflect.ValueOf(items(v)))
			}
		}
	}
}

// detailValue is a value as a detail of the type holds it; nil for
// nothing (left out of the subject).
func detailValue(v val, t forensics.DetailType) any {
	switch t {
	case forensics.DetailText:
		if s := v.String(); s != "" {
			return s
		}
	case forensics.DetailInt:
		if n, ok := v.number(); ok {
			return int64(n)
		}
	case forensics.DetailList:
		if l := items(v); len(l) > 0 {
			return l
		}
	case forensics.DetailInts:
		if l := ints(items(v)); len(l) > 0 {
			return l
		}
	}
	return nil
}

// items is a value as a list: a list's items, or the one text there is.
func items(v val) []string {
	if v.t == tList {
		return slices.Clone(v.list)
	}
	if v.empty() {
		return nil
	}
	return []string{v.String()}
}

func ints(l []string) []int {
	var out []int
	for _, it := range l {
		if n, err := strconv.Atoi(it); err == nil {
			out = append(out, n)
		}
	}
	return out
}

type subjectDef struct {
	key    string
	field  *reflect.StructField // a shared field, or
	detail *forensics.Detail    // a declared detail
	tmpl   *template
}

// evidenceOf quotes the events each evidence entry picks, each line once.
func (sp *spec) evidenceOf(rec *record) []forensics.Evidence {
	set := evidence.Set{Copies: true}
	en := env{rec: rec}
	for i := range sp.evidence {
		d := &sp.evidence[i]
		if !d.when.isZero() && !d.when.holds(en) {
			continue
		}
		for _, e := range rec.t.picks[i].events(d) {
			note := ""
			if d.note != nil {
				note, _ = d.note.render(env{ev: e, rec: rec})
			}
			set.Add(e, note)
		}
	}
	return set.Sorted()
}

// fixesOf writes the fixes whose conditions hold. Every word of a command
// is quoted for the shell (shell.Quote), so a value from the evidence is
// one word whatever it holds; a command naming a value its check refused
// (a bucket name Couchbase would not accept) is left out.
func (sp *spec) fixesOf(en env) []forensics.Fix {
	out := []forensics.Fix{}
	for _, d := range sp.fixes {
		if !d.when.isZero() && !d.when.holds(en) {
			continue
		}
		fx := forensics.Fix{}
		fx.Title, _ = d.title.render(en)
		for _, s := range d.steps {
			if t, _ := s.render(en); t != "" {
				fx.Steps = append(fx.Steps, t)
			}
		}
		for _, c := range d.commands {
			fx.Commands = append(fx.Commands, c.render(en)...)
		}
		out = append(out, fx)
	}
	return out
}

func (c *commandDef) render(en env) []string {
	items := []string{""}
	if c.loopOver != nil {
		v := c.loopOver.eval(en)
		items = v.list
		if v.t != tList {
			items = nil
			if !v.empty() {
				items = []string{v.String()}
			}
		}
	}
	var out []string
	for _, it := range items {
		e := en
		if c.loopVar != "" {
			e.loop = map[string]string{c.loopVar: it}
		}
		if !c.when.isZero() && !c.when.holds(e) {
			continue
		}
		line, bad := renderWords(c.words, e)
		for _, p := range c.pipe {
			s, b := renderWords(p, e)
			line += " | " + s
			bad = bad || b
		}
		if !bad {
			out = append(out, line)
		}
	}
	return out
}

func renderWords(ws []word, en env) (string, bool) {
	args := make([]string, len(ws))
	bad := false
	for i, w := range ws {
		if w.sub != nil {
			s, b := renderWords(w.sub, en)
			args[i], bad = s, bad || b
			continue
		}
		s, b := w.t.render(en)
		args[i], bad = s, bad || b
	}
	return shell.Command(args...), bad
}

func sortStrings(s []string) { sort.Strings(s) }
