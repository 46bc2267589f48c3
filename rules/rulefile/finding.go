package rulefile

import (
	"fmt"
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
// fields, count, start, end, duration and values by name, and the events of
// each selection and lookup.
type record struct {
	names  map[string]val
	sels   map[string][]*forensics.Event
	events []*forensics.Event
}

// finding writes the finding of a candidate; false when the rule's when
// does not hold for it.
func (sp *spec) finding(c *candidate, near map[string][]*forensics.Event) (forensics.Finding, bool) {
	rec := &record{names: map[string]val{}, sels: map[string][]*forensics.Event{}}
	for i, k := range sp.groupBy {
		rec.names[k] = text(c.keys[i])
	}
	for _, t := range c.events {
		rec.events = append(rec.events, t.ev)
		name := sp.sels[t.sel].name
		rec.sels[name] = append(rec.sels[name], t.ev)
	}
	for _, l := range sp.nearby {
		from, to := c.start.Add(-l.before), c.end.Add(l.after)
		for _, e := range near[l.name] {
			if e.Time.Before(from) || e.Time.After(to) || !l.matches(e, rec) {
				continue
			}
			rec.sels[l.name] = append(rec.sels[l.name], e)
		}
	}
	rec.names["count"] = num(float64(len(c.events)))
	rec.names["start"] = instant(c.start)
	rec.names["end"] = instant(c.end)
	rec.names["duration"] = num(c.end.Sub(c.start).Seconds())
	en := env{rec: rec}
	for _, v := range sp.values {
		if v.tmpl != nil {
			rec.names[v.name] = v.tmpl.value(en)
		} else {
			rec.names[v.name] = v.agg.eval(rec)
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

func (l *lookup) matches(e *forensics.Event, rec *record) bool {
	for _, m := range l.match {
		if m.event.eval(env{ev: e}).String() != rec.names[m.group].String() {
			return false
		}
	}
	return true
}

// events returns the events of the named selections and lookups in
// timeline order, or all the finding's events when none are named.
func (rec *record) of(names []string) []*forensics.Event {
	if len(names) == 0 {
		return rec.events
	}
	if len(names) == 1 {
		return rec.sels[names[0]]
	}
	var out []*forensics.Event
	for _, n := range names {
		out = append(out, rec.sels[n]...)
	}
	slices.SortStableFunc(out, forensics.Compare)
	return out
}

func (a *aggregate) eval(rec *record) val {
	evs := rec.of(a.of)
	if a.fn == "count" {
		return num(float64(len(evs)))
	}
	get := func(e *forensics.Event) val { return a.field.eval(env{ev: e, rec: rec}) }
	switch a.fn {
	case "first", "last":
		if len(evs) == 0 {
			return text("")
		}
		if a.fn == "first" {
			return get(evs[0])
		}
		return get(evs[len(evs)-1])
	case "distinct", "top":
		counts := map[string]int{}
		var vals []string
		for _, e := range evs {
			s := get(e).String()
			if s == "" {
				continue
			}
			if counts[s] == 0 {
				vals = append(vals, s)
			}
			counts[s]++
		}
		if a.fn == "distinct" {
			sort.Strings(vals)
			return list(vals)
		}
		sort.SliceStable(vals, func(i, j int) bool {
			if counts[vals[i]] != counts[vals[j]] {
				return counts[vals[i]] > counts[vals[j]]
			}
			return vals[i] < vals[j]
		})
		var out []string
		for _, v := range vals[:min(len(vals), a.n)] {
			out = append(out, fmt.Sprintf("%s (%d)", v, counts[v]))
		}
		return list(out)
	}
	var ns []float64
	for _, e := range evs {
		if n, ok := get(e).number(); ok {
			ns = append(ns, n)
		}
	}
	if len(ns) == 0 {
		return text("")
	}
	switch a.fn {
	case "max":
		return num(slices.Max(ns))
	case "min":
		return num(slices.Min(ns))
	case "sum":
		s := 0.0
		for _, n := range ns {
			s += n
		}
		return num(s)
	}
	slices.Sort(ns) // median
	if len(ns)%2 == 1 {
		return num(ns[len(ns)/2])
	}
	return num((ns[len(ns)/2-1] + ns[len(ns)/2]) / 2)
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
	for _, d := range sp.evidence {
		if !d.when.isZero() && !d.when.holds(en) {
			continue
		}
		for _, e := range d.choose(rec) {
			note := ""
			if d.note != nil {
				note, _ = d.note.render(env{ev: e, rec: rec})
			}
			set.Add(e, note)
		}
	}
	return set.Sorted()
}

// choose picks the entry's events: the first or last ones, all of them up
// to the limit, some spread evenly over the finding, or those with the
// highest or lowest value (the earliest of equals first).
func (d *evidenceDef) choose(rec *record) []*forensics.Event {
	evs := rec.of(d.of)
	n := min(d.limit, len(evs))
	switch d.pick {
	case "last":
		return evs[len(evs)-n:]
	case "spread":
		if n <= 1 || len(evs) <= n {
			return evs[:n]
		}
		out := make([]*forensics.Event, n)
		for i := range n {
			out[i] = evs[i*(len(evs)-1)/(n-1)]
		}
		return out
	case "max", "min":
		type scored struct {
			e *forensics.Event
			n float64
		}
		var ss []scored
		for _, e := range evs {
			if x, ok := d.by.eval(env{ev: e, rec: rec}).number(); ok {
				ss = append(ss, scored{e, x})
			}
		}
		sort.SliceStable(ss, func(i, j int) bool {
			if d.pick == "max" {
				return ss[i].n > ss[j].n
			}
			return ss[i].n < ss[j].n
		})
		var out []*forensics.Event
		for _, s := range ss[:min(d.limit, len(ss))] {
			out = append(out, s.e)
		}
		return out
	}
	return evs[:n]
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
