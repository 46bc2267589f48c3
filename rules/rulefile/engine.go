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
	group int // its group field, an index in groupBy
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
	// Each group's detection keeps only the episode under way, unless a
	// group field is optional: the groups are known only at the end.
	stream := !slices.Contains(sp.optional, true)
	detectors := map[string]detector{}
	var streamed []detector
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
			d := detectors[gk]
			if d == nil {
				d = sp.newDetector(slices.Clone(tg.keys))
				detectors[gk] = d
				streamed = append(streamed, d)
			}
			tg.keys = nil
			d.add(tg, &cands)
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
	for _, d := range streamed {
		d.flush(end, &cands)
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
		d := sp.newDetector(strings.Split(gk, "\x00"))
		for _, t := range evs {
			d.add(t, &cands)
		}
		d.flush(end, &cands)
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

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func in(sel int, set []int) bool { return len(set) == 0 || slices.Contains(set, sel) }

// detector is a detection over one group's events as they come, in
// timeline order: it keeps what the episode under way needs and tallies
// the episode's events in its candidate.
type detector interface {
	add(t tagged, out *[]*candidate)
	// flush ends the group: end is the time of the last event the rule
	// read, which tells how far the logs go for an absence.
	flush(end time.Time, out *[]*candidate)
}

func (sp *spec) newDetector(keys []string) detector {
	switch sp.detect.mode {
	case "count":
		return &counter{sp: sp, keys: keys, values: map[string]int{}}
	case "sustained":
		return &sustainer{sp: sp, keys: keys}
	case "sequence":
		return &sequencer{sp: sp, keys: keys}
	case "absence":
		return &waiter{sp: sp, keys: keys}
	}
	return &wholeGroup{sp: sp, keys: keys}
}

// wholeGroup is no detection: the group is one finding.
type wholeGroup struct {
	sp   *spec
	keys []string
	c    *candidate
}

func (w *wholeGroup) add(t tagged, _ *[]*candidate) {
	if w.c == nil {
		w.c = w.sp.newCandidate(w.keys)
	}
	w.c.add(t)
}

func (w *wholeGroup) flush(_ time.Time, out *[]*candidate) {
	if w.c != nil {
		*out = append(*out, w.c)
	}
}

// counter finds the episodes in which a sliding window of d.within holds
// at least d.threshold counted events (of distinct values, with
// distinct:). Overlapping windows make one episode; its events are the
// counted ones in the windows and the others between its first and last.
// It keeps only the events of the window.
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
		c.flush(time.Time{}, out)
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

func (c *counter) flush(_ time.Time, out *[]*candidate) {
	if c.cur != nil {
		*out = append(*out, c.cur)
		c.cur, c.last = nil, nil
	}
}

// sustainer finds runs of counted events no more than d.gap apart that
// last d.within or longer; an until event within d.gap of the run ends it.
// A run's events are the counted ones and the others between its first
// and last.
type sustainer struct {
	sp      *spec
	keys    []string
	run     *candidate
	pending []tagged // events after the run's last counted one
}

func (s *sustainer) add(t tagged, out *[]*candidate) {
	d := &s.sp.detect
	if s.run != nil && t.ev.Time.Sub(s.run.end) > d.gap {
		s.flush(time.Time{}, out)
	}
	switch {
	case slices.Contains(d.until, t.sel):
		if s.run != nil {
			s.take()
			s.run.add(t)
		}
		s.flush(time.Time{}, out)
	case in(t.sel, d.of):
		if s.run == nil {
			s.run = s.sp.newCandidate(s.keys)
		}
		s.take()
		s.run.add(t)
	case s.run != nil:
		s.pending = append(s.pending, t)
	}
}

// take adds the pending events to the run.
func (s *sustainer) take() {
	for _, p := range s.pending {
		s.run.add(p)
	}
	s.pending = s.pending[:0]
}

func (s *sustainer) flush(_ time.Time, out *[]*candidate) {
	if s.run != nil && s.run.end.Sub(s.run.start) >= s.sp.detect.within {
		*out = append(*out, s.run)
	}
	s.run, s.pending = nil, s.pending[:0]
}

// sequencer finds the steps in order, all within d.within of the first,
// with no unless event between the first and the last.
type sequencer struct {
	sp   *spec
	keys []string
	cur  []tagged
}

func (s *sequencer) add(t tagged, out *[]*candidate) {
	d := &s.sp.detect
	if slices.Contains(d.unless, t.sel) {
		s.cur = s.cur[:0]
		return
	}
	if len(s.cur) > 0 && t.ev.Time.Sub(s.cur[0].ev.Time) > d.within {
		s.cur = s.cur[:0]
	}
	switch {
	case len(s.cur) > 0 && t.sel == d.steps[len(s.cur)]:
		s.cur = append(s.cur, t)
	case t.sel == d.steps[0] && len(s.cur) <= 1:
		// A later first step starts the sequence again: the pair
		// reported is the closest one.
		s.cur = append(s.cur[:0], t)
	}
	if len(s.cur) == len(d.steps) {
		c := s.sp.newCandidate(s.keys)
		for _, t := range s.cur {
			c.add(t)
		}
		*out = append(*out, c)
		s.cur = s.cur[:0]
	}
}

func (s *sequencer) flush(time.Time, *[]*candidate) {}

// waiter finds an after event, or the last expected event following it,
// followed by no expected event for d.within while the logs went on; an
// until event ends the wait. The finding ends at the deadline.
type waiter struct {
	sp     *spec
	keys   []string
	wait   *candidate
	anchor time.Time // the last event waited from
}

func (w *waiter) add(t tagged, out *[]*candidate) {
	d := &w.sp.detect
	switch {
	case slices.Contains(d.until, t.sel):
		w.wait = nil
	case slices.Contains(d.after, t.sel):
		w.flush(t.ev.Time, out)
		w.wait = w.sp.newCandidate(w.keys)
		w.wait.add(t)
		w.anchor = t.ev.Time
	case slices.Contains(d.expect, t.sel) && w.wait != nil:
		if t.ev.Time.Sub(w.anchor) >= d.within {
			w.flush(t.ev.Time, out)
			return
		}
		w.wait.add(t)
		w.anchor = t.ev.Time
	}
}

func (w *waiter) flush(seen time.Time, out *[]*candidate) {
	if w.wait != nil && seen.Sub(w.anchor) >= w.sp.detect.within {
		w.wait.end = w.anchor.Add(w.sp.detect.within)
		*out = append(*out, w.wait)
	}
	w.wait = nil
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
		vals := make([]string, len(l.match)) // the event's values of the match
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
				if len(open) == 0 {
					continue
				}
				for i, m := range l.match {
					vals[i] = m.event.eval(env{ev: e}).String()
				}
				for _, w := range open {
					if l.matches(vals, w.c.keys) {
						w.c.t.add(sp, set, e)
					}
				}
			}
		}
	}
	return nil
}

// matches reports whether a lookup's event, whose values of the match are
// vals, has a finding's group fields.
func (l *lookup) matches(vals, keys []string) bool {
	for i, m := range l.match {
		if vals[i] != keys[m.group] {
			return false
		}
	}
	return true
}
