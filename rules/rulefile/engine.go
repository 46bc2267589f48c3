package rulefile

import (
	"slices"
	"strings"
	"time"

	"forensics"
)

// spec is a rule file compiled: what it reads, how it groups and detects,
// and how it writes a finding.
type spec struct {
	name     string
	sels     []*selection
	byKind   map[forensics.Kind][]*selection
	groupBy  []string
	optional []bool
	detect   detect
	nearby   []*lookup
	values   []valueDef
	when     cond

	severity    forensics.Severity
	escalate    []escalation
	title       []alt
	explanation []alt
	subject     []subjectDef
	evidence    []evidenceDef
	fixes       []fixDef
}

// selection is a named set of events: of these kinds, where these hold.
type selection struct {
	name     string
	index    int
	kinds    []forensics.Kind
	where    cond
	set      map[string]*template
	setOrder []string
	keys     []*template // one per group field; nil: the selection gives ""
	fastKeys []func(*forensics.Event) string
	distinct *distinct
}

// distinct drops an event that says what one of the same selection said
// within the window before (an alert logged in every node's diag.log).
type distinct struct {
	by     []*expr
	within time.Duration
}

// detect says how a group's events make findings. No mode: the group is
// one finding.
type detect struct {
	mode      string // "", count, sustained, sequence, absence
	threshold int
	within    time.Duration // count's window, sustained's span, sequence's limit, absence's wait
	gap       time.Duration
	of        []int
	distinct  *expr
	until     []int
	steps     []int
	unless    []int
	after     []int
	expect    []int
}

// lookup reads events of other kinds around each finding (nearby:), the
// way a Go rule reads its busy kinds only around its rare ones.
type lookup struct {
	name          string
	kinds         []forensics.Kind
	where         cond
	match         []matchDef
	before, after time.Duration
}

type matchDef struct {
	event *expr
	group string
}

type valueDef struct {
	name string
	tmpl *template
	agg  *aggregate
}

type aggregate struct {
	fn    string
	field *expr
	sets  []int // the selections and lookups it reads (tally.sets); none: every selection's events
	n     int
}

type alt struct {
	when cond
	text *template
}

type escalation struct {
	when     cond
	severity forensics.Severity
}

type evidenceDef struct {
	sets  []int // the selections and lookups it quotes (tally.sets)
	pick  string
	by    *expr
	limit int
	note  *template
	when  cond
}

type fixDef struct {
	when     cond
	title    *template
	steps    []*template
	commands []commandDef
}

type commandDef struct {
	when     cond
	loopVar  string
	loopOver *expr
	words    []word
	pipe     [][]word
}

// word is one word of a command: a template, or a command of its own
// passed as one word (ssh HOST 'df -h PATH').
type word struct {
	t   *template
	sub []word
}

// tagged is an event read by the rule, with the selection it matched and
// its group fields.
type tagged struct {
	ev   *forensics.Event
	sel  int
	keys []string
}

// run reads the rule's kinds in one pass, in timeline order, and reports
// a finding for each group or episode the detection finds.
func (sp *spec) run(p *forensics.Pass) error {
	groups := map[string][]tagged{}
	var order []string
	var deferred []tagged // events lacking an optional group field
	last := map[int]map[string]time.Time{}
	var end time.Time
	kinds := sp.readKinds()
	if len(kinds) == 0 {
		return nil
	}
	var cands []*candidate
	// A count needs only its window and the episode under way: it keeps
	// no other event, unless a group field is optional (the groups are
	// known only at the end).
	stream := sp.detect.mode == "count" && !slices.Contains(sp.optional, true)
	counters := map[string]*counter{}
	var streamed []*counter
	scratch := make([]string, len(sp.groupBy))
	for e, err := range p.Events(kinds...) {
		if err != nil {
			return err
		}
		if e.Time.After(end) {
			end = e.Time
		}
		s := sp.match(e)
		if s == nil {
			continue
		}
		en := env{ev: e}
		if d := s.distinct; d != nil {
			var b strings.Builder
			for _, x := range d.by {
				b.WriteString(x.eval(en).String())
				b.WriteByte(0)
			}
			k := b.String()
			if last[s.index] == nil {
				last[s.index] = map[string]time.Time{}
			}
			if t, ok := last[s.index][k]; ok && absDur(e.Time.Sub(t)) <= d.within {
				continue
			}
			last[s.index][k] = e.Time
		}
		tg := tagged{ev: e, sel: s.index, keys: scratch}
		missing := false
		for i, kt := range s.keys {
			switch {
			case s.fastKeys[i] != nil:
				tg.keys[i] = s.fastKeys[i](e)
			case kt != nil:
				tg.keys[i], _ = kt.render(en)
			default:
				tg.keys[i] = ""
			}
			if tg.keys[i] == "" && sp.optional[i] {
				missing = true
			}
		}
		gk := strings.Join(tg.keys, "\x00")
		if stream {
			c := counters[gk]
			if c == nil {
				c = &counter{sp: sp, keys: slices.Clone(tg.keys), values: map[string]int{}}
				counters[gk] = c
				streamed = append(streamed, c)
			}
			tg.keys = nil
			c.add(tg, &cands)
			continue
		}
		tg.keys = slices.Clone(tg.keys)
		if missing {
			deferred = append(deferred, tg)
			continue
		}
		if _, ok := groups[gk]; !ok {
			order = append(order, gk)
		}
		groups[gk] = append(groups[gk], tg)
	}
	for _, c := range streamed {
		c.flush(&cands)
	}
	// An event without an optional field joins the one group that has the
	// same other fields and a value for it; with none or several, its own.
	for _, tg := range deferred {
		gk := sp.joinKey(tg, groups, order)
		if _, ok := groups[gk]; !ok {
			order = append(order, gk)
		}
		groups[gk] = append(groups[gk], tg)
	}
	for _, gk := range order {
		evs := groups[gk]
		delete(groups, gk)
		if len(deferred) > 0 {
			slices.SortStableFunc(evs, func(a, b tagged) int { return forensics.Compare(a.ev, b.ev) })
		}
		for _, ep := range sp.detect.find(evs, end) {
			c := sp.newCandidate(strings.Split(gk, "\x00"))
			for _, t := range ep.events {
				c.add(t)
			}
			if !ep.end.IsZero() {
				c.end = ep.end
			}
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	if err := sp.tallyNearby(p, cands); err != nil {
		return err
	}
	for _, c := range cands {
		if f, ok := sp.finding(c); ok {
			p.Report(f)
		}
	}
	return nil
}

// readKinds are the kinds of the selections, read in one cursor; the
// lookups' kinds are read apart, around the findings.
func (sp *spec) readKinds() []forensics.Kind {
	var out []forensics.Kind
	for _, s := range sp.sels {
		for _, k := range s.kinds {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// match returns the first selection the event is in.
func (sp *spec) match(e *forensics.Event) *selection {
	for _, s := range sp.byKind[e.Kind] {
		if s.where.isZero() || s.where.holds(env{ev: e}) {
			return s
		}
	}
	return nil
}

func (sp *spec) joinKey(tg tagged, groups map[string][]tagged, order []string) string {
	found := ""
	n := 0
	for _, gk := range order {
		keys := groups[gk][0].keys
		ok := true
		for i := range keys {
			if sp.optional[i] {
				if tg.keys[i] == "" && keys[i] == "" {
					ok = false
				} else if tg.keys[i] != "" && tg.keys[i] != keys[i] {
					ok = false
				}
			} else if keys[i] != tg.keys[i] {
				ok = false
			}
		}
		if ok {
			found = gk
			n++
		}
	}
	if n == 1 {
		return found
	}
	return strings.Join(tg.keys, "\x00")
}

// candidate is a group's events that make a finding, tallied as they
// come, before it is written.
type candidate struct {
	keys  []string
	start time.Time
	end   time.Time
	t     *tally
	sp    *spec
}

func (sp *spec) newCandidate(keys []string) *candidate {
	return &candidate{keys: keys, t: sp.newTally(), sp: sp}
}

// add tallies a selection's event, in timeline order.
func (c *candidate) add(t tagged) {
	if c.t.all().count == 0 {
		c.start = t.ev.Time
	}
	c.end = t.ev.Time
	c.t.add(c.sp, t.sel, t.ev)
}

// episode is the events of a group a detection keeps for one finding;
// end, when set, is the finding's end (an absence ends when the wait does).
type episode struct {
	events []tagged
	end    time.Time
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// find applies the detection to one group's events, in timeline order.
// end is the time of the last event the rule read, which tells how far the
// logs go for an absence.
func (d *detect) find(evs []tagged, end time.Time) []episode {
	if len(evs) == 0 {
		return nil
	}
	whole := func(evs []tagged) episode { return episode{events: evs} }
	switch d.mode {
	case "count":
		return d.count(evs, whole)
	case "sustained":
		return d.sustained(evs, whole)
	case "sequence":
		return d.sequence(evs, whole)
	case "absence":
		return d.absence(evs, end, whole)
	}
	return []episode{whole(evs)}
}

func in(sel int, set []int) bool { return len(set) == 0 || slices.Contains(set, sel) }

// count finds the episodes in which a sliding window of d.within holds at
// least d.threshold counted events (of distinct values, with distinct:).
// Overlapping windows make one episode; its events are the counted ones
// in the windows and the others between its first and last.
func (d *detect) count(evs []tagged, whole func([]tagged) episode) []episode {
	var counted []int // indexes into evs
	for i, t := range evs {
		if in(t.sel, d.of) {
			counted = append(counted, i)
		}
	}
	var out []episode
	lo := 0
	values := map[string]int{}
	value := func(i int) string {
		if d.distinct == nil {
			return ""
		}
		return d.distinct.eval(env{ev: evs[i].ev}).String()
	}
	size := func(n int) int {
		if d.distinct == nil {
			return n
		}
		return len(values)
	}
	epFirst, epLast := -1, -1
	flush := func() {
		if epFirst >= 0 {
			out = append(out, whole(evs[epFirst:epLast+1]))
		}
		epFirst, epLast = -1, -1
	}
	for hi, j := range counted {
		t := evs[j].ev.Time
		values[value(j)]++
		for t.Sub(evs[counted[lo]].ev.Time) > d.within {
			v := value(counted[lo])
			if values[v]--; values[v] == 0 {
				delete(values, v)
			}
			lo++
		}
		if size(hi-lo+1) < d.threshold {
			continue
		}
		first := counted[lo]
		if epFirst >= 0 && first > epLast {
			flush()
		}
		if epFirst < 0 {
			epFirst = first
		}
		epLast = j
	}
	flush()
	return out
}

// counter is count's detection over one group as its events come, in
// timeline order: the same episodes as count, keeping only the events of
// the window, and the tally of the episode under way.
type counter struct {
	sp      *spec
	keys    []string
	pending []tagged // every event since the window's first
	window  []tagged // the counted events of the last d.within
	values  map[string]int
	cur     *candidate       // the episode under way
	last    *forensics.Event // its last event
}

func (c *counter) value(t tagged) string {
	if c.sp.detect.distinct == nil {
		return ""
	}
	return c.sp.detect.distinct.eval(env{ev: t.ev}).String()
}

func (c *counter) add(t tagged, out *[]*candidate) {
	d := &c.sp.detect
	every := len(d.of) == 0 // every event counts: the window is what is pending
	if !every {
		c.pending = append(c.pending, t)
	}
	if !in(t.sel, d.of) {
		if len(c.window) == 0 && c.cur == nil {
			c.pending = c.pending[:0] // no window can start before a counted event
		}
		return
	}
	c.window = append(c.window, t)
	if d.distinct != nil {
		c.values[c.value(t)]++
	}
	for t.ev.Time.Sub(c.window[0].ev.Time) > d.within {
		if d.distinct != nil {
			v := c.value(c.window[0])
			if c.values[v]--; c.values[v] == 0 {
				delete(c.values, v)
			}
		}
		c.window = c.window[1:]
	}
	pending := c.window
	if !every {
		// The events before the window's first can start no episode.
		i := 0
		for i < len(c.pending) && forensics.Compare(c.pending[i].ev, c.window[0].ev) < 0 {
			i++
		}
		c.pending = c.pending[i:]
		pending = c.pending
	}
	size := len(c.window)
	if d.distinct != nil {
		size = len(c.values)
	}
	if size < d.threshold {
		return
	}
	if c.cur != nil && forensics.Compare(c.window[0].ev, c.last) > 0 {
		c.flush(out)
	}
	// The episode takes the pending events it does not hold yet: those
	// after its last, found from the end.
	from := 0
	if c.cur != nil {
		from = len(pending)
		for from > 0 && forensics.Compare(pending[from-1].ev, c.last) > 0 {
			from--
		}
	} else {
		c.cur = c.sp.newCandidate(c.keys)
	}
	for _, t := range pending[from:] {
		c.cur.add(t)
		c.last = t.ev
	}
}

func (c *counter) flush(out *[]*candidate) {
	if c.cur != nil {
		*out = append(*out, c.cur)
		c.cur, c.last = nil, nil
	}
}

// sustained finds runs of counted events no more than d.gap apart that
// last d.within or longer; an until event ends a run.
func (d *detect) sustained(evs []tagged, whole func([]tagged) episode) []episode {
	var out []episode
	first, last := -1, -1
	flush := func() {
		if first >= 0 && evs[last].ev.Time.Sub(evs[first].ev.Time) >= d.within {
			out = append(out, whole(evs[first:last+1]))
		}
		first, last = -1, -1
	}
	for i, t := range evs {
		switch {
		case len(d.until) > 0 && slices.Contains(d.until, t.sel):
			if first >= 0 {
				last = i
			}
			flush()
		case in(t.sel, d.of):
			if first >= 0 && t.ev.Time.Sub(evs[last].ev.Time) > d.gap {
				flush()
			}
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	flush()
	return out
}

// sequence finds the steps in order, all within d.within of the first,
// with no unless event between the first and the last.
func (d *detect) sequence(evs []tagged, whole func([]tagged) episode) []episode {
	var out []episode
	var cur []tagged
	for _, t := range evs {
		if slices.Contains(d.unless, t.sel) {
			cur = nil
			continue
		}
		if len(cur) > 0 && t.ev.Time.Sub(cur[0].ev.Time) > d.within {
			cur = nil
		}
		switch {
		case len(cur) > 0 && t.sel == d.steps[len(cur)]:
			cur = append(cur, t)
		case t.sel == d.steps[0] && len(cur) <= 1:
			// A later first step starts the sequence again: the pair
			// reported is the closest one.
			cur = append(cur[:0], t)
		}
		if len(cur) == len(d.steps) {
			out = append(out, whole(slices.Clone(cur)))
			cur = nil
		}
	}
	return out
}

// absence finds an after event, or the last expected event following it,
// followed by no expected event for d.within while the logs went on; an
// until event ends the wait.
func (d *detect) absence(evs []tagged, end time.Time, whole func([]tagged) episode) []episode {
	var out []episode
	var waiting []tagged
	flush := func(seen time.Time) {
		if len(waiting) == 0 {
			return
		}
		anchor := waiting[len(waiting)-1].ev.Time
		if seen.Sub(anchor) >= d.within {
			c := whole(waiting)
			c.end = anchor.Add(d.within)
			out = append(out, c)
		}
		waiting = nil
	}
	for _, t := range evs {
		switch {
		case slices.Contains(d.until, t.sel):
			waiting = nil
		case slices.Contains(d.after, t.sel):
			flush(t.ev.Time)
			waiting = []tagged{t}
		case slices.Contains(d.expect, t.sel) && len(waiting) > 0:
			anchor := waiting[len(waiting)-1].ev.Time
			if t.ev.Time.Sub(anchor) >= d.within {
				flush(t.ev.Time)
				continue
			}
			waiting = append(waiting, t)
		}
	}
	flush(end)
	return out
}

// tallyNearby reads each lookup's events in the windows around the
// candidates (from before their start to after their end), merged where
// they overlap, so a lookup of a busy kind reads only those stretches, and
// tallies each event in the candidates whose window holds it.
func (sp *spec) tallyNearby(p *forensics.Pass, cands []*candidate) error {
	type window struct {
		from, to time.Time
		c        *candidate
	}
	for li, l := range sp.nearby {
		set := len(sp.sels) + li
		wins := make([]window, len(cands))
		for i, c := range cands {
			wins[i] = window{c.start.Add(-l.before), c.end.Add(l.after), c}
		}
		slices.SortFunc(wins, func(a, b window) int { return a.from.Compare(b.from) })
		type span struct{ from, to time.Time }
		var merged []span
		for _, w := range wins {
			to := w.to.Add(time.Nanosecond)
			if n := len(merged); n > 0 && !w.from.After(merged[n-1].to) {
				if to.After(merged[n-1].to) {
					merged[n-1].to = to
				}
				continue
			}
			merged = append(merged, span{w.from, to})
		}
		// Events come in time order: a window opens once and closes once.
		var open []*window
		next := 0
		for _, s := range merged {
			for e, err := range p.Query(forensics.Query{Kinds: l.kinds, Since: s.from, Until: s.to}) {
				if err != nil {
					return err
				}
				if !l.where.isZero() && !l.where.holds(env{ev: e}) {
					continue
				}
				for next < len(wins) && !wins[next].from.After(e.Time) {
					open = append(open, &wins[next])
					next++
				}
				open = slices.DeleteFunc(open, func(w *window) bool { return w.to.Before(e.Time) })
				for _, w := range open {
					if l.matches(e, sp.groupBy, w.c.keys) {
						w.c.t.add(sp, set, e)
					}
				}
			}
		}
	}
	return nil
}
