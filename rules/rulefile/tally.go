package rulefile

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"forensics"
)

// tally is what a finding keeps of its events as they come: the counts,
// extremes and numbers its values need and the few events its templates
// and evidence may quote. A storm of a million slow requests keeps its
// durations for the median and a sample for the evidence, not a million
// events; the events themselves are the timeline's.
type tally struct {
	sets  []setTally  // the selections, then the lookups, then all the selections' events
	aggs  []aggTally  // one per value; a template value's is unused
	picks []pickTally // one per evidence entry
}

// setTally is what a template reads of a selection or lookup: count,
// first and last.
type setTally struct {
	count       int
	first, last *forensics.Event
}

func (s *setTally) add(e *forensics.Event) {
	s.count++
	if s.first == nil || forensics.Compare(e, s.first) < 0 {
		s.first = e
	}
	if s.last == nil || forensics.Compare(e, s.last) >= 0 {
		s.last = e
	}
}

func (sp *spec) newTally() *tally {
	return &tally{
		sets:  make([]setTally, len(sp.sels)+len(sp.nearby)+1),
		aggs:  make([]aggTally, len(sp.values)),
		picks: make([]pickTally, len(sp.evidence)),
	}
}

// setIndex is the index of a selection or lookup in a tally's sets.
func (sp *spec) setIndex(name string) int {
	for _, s := range sp.sels {
		if s.name == name {
			return s.index
		}
	}
	for i, l := range sp.nearby {
		if l.name == name {
			return len(sp.sels) + i
		}
	}
	return -1
}

// reads reports whether an aggregate or evidence entry naming the sets of
// (none: every selection's events) reads the events of set.
func reads(of []int, set int, selection bool) bool {
	if len(of) == 0 {
		return selection
	}
	return slices.Contains(of, set)
}

// add counts an event of a selection or lookup (its index in sets).
// Selections' events come in timeline order; lookups' come after them, so
// nothing here depends on the order events come in.
func (t *tally) add(sp *spec, set int, e *forensics.Event) {
	t.sets[set].add(e)
	selection := set < len(sp.sels)
	if selection {
		t.sets[len(t.sets)-1].add(e)
	}
	for i := range sp.values {
		if a := sp.values[i].agg; a != nil && reads(a.sets, set, selection) {
			t.aggs[i].add(a, e)
		}
	}
	for i := range sp.evidence {
		if d := &sp.evidence[i]; reads(d.sets, set, selection) {
			t.picks[i].add(d, e)
		}
	}
}

// all is what a template reads as first and last of the finding.
func (t *tally) all() *setTally { return &t.sets[len(t.sets)-1] }

// aggTally is one aggregate's state.
type aggTally struct {
	n      int
	ev     *forensics.Event // first, last
	counts map[string]int   // distinct, top
	nums   []float64        // median
	x      float64          // max, min, sum
	have   bool
}

func (s *aggTally) add(a *aggregate, e *forensics.Event) {
	switch a.fn {
	case "count":
		s.n++
		return
	case "first":
		if s.ev == nil || forensics.Compare(e, s.ev) < 0 {
			s.ev = e
		}
		return
	case "last":
		if s.ev == nil || forensics.Compare(e, s.ev) >= 0 {
			s.ev = e
		}
		return
	case "distinct", "top":
		v := a.field.eval(env{ev: e}).String()
		if v == "" {
			return
		}
		if s.counts == nil {
			s.counts = map[string]int{}
		}
		s.counts[v]++
		return
	}
	n, ok := a.field.eval(env{ev: e}).number()
	if !ok {
		return
	}
	switch {
	case a.fn == "median":
		s.nums = append(s.nums, n)
	case !s.have:
		s.x = n
	case a.fn == "sum":
		s.x += n
	case math.IsNaN(s.x): // as slices.Max: a NaN stays
	case math.IsNaN(n), a.fn == "max" && n > s.x, a.fn == "min" && n < s.x:
		s.x = n
	}
	s.have = true
}

func (s *aggTally) value(a *aggregate) val {
	switch a.fn {
	case "count":
		return num(float64(s.n))
	case "first", "last":
		if s.ev == nil {
			return text("")
		}
		return a.field.eval(env{ev: s.ev})
	case "distinct", "top":
		vals := make([]string, 0, len(s.counts))
		for v := range s.counts {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		if a.fn == "distinct" {
			return list(vals)
		}
		sort.SliceStable(vals, func(i, j int) bool { return s.counts[vals[i]] > s.counts[vals[j]] })
		var out []string
		for _, v := range vals[:min(len(vals), a.n)] {
			out = append(out, fmt.Sprintf("%s (%d)", v, s.counts[v]))
		}
		return list(out)
	}
	if !s.have {
		return text("")
	}
	if a.fn != "median" {
		return num(s.x)
	}
	ns := s.nums
	slices.Sort(ns)
	if len(ns)%2 == 1 {
		return num(ns[len(ns)/2])
	}
	return num((ns[len(ns)/2-1] + ns[len(ns)/2]) / 2)
}

// sampleCap is how many events a spread keeps before it thins its sample:
// an episode of up to this many events is spread exactly, a larger one
// within one sample step.
const sampleCap = 1024

// pickTally is the events an evidence entry may quote: the first or last
// ones, the highest or lowest, or a sample of all to spread.
type pickTally struct {
	evs    []*forensics.Event
	scores []float64 // max, min: each kept event's value
	seen   int       // spread: the events fed
	stride int       // spread: the sample keeps one event in stride
	last   *forensics.Event
}

func (s *pickTally) add(d *evidenceDef, e *forensics.Event) {
	switch d.pick {
	case "last":
		// After every event not later than it.
		i := sort.Search(len(s.evs), func(i int) bool { return forensics.Compare(s.evs[i], e) > 0 })
		s.evs = slices.Insert(s.evs, i, e)
		if len(s.evs) > d.limit {
			s.evs = slices.Delete(s.evs, 0, 1)
		}
	case "spread":
		if s.stride == 0 {
			s.stride = 1
		}
		if s.last == nil || forensics.Compare(e, s.last) >= 0 {
			s.last = e
		}
		if s.seen%s.stride == 0 {
			s.evs = append(s.evs, e)
			if len(s.evs) > sampleCap {
				keep := (len(s.evs) + 1) / 2
				for i := range keep {
					s.evs[i] = s.evs[2*i]
				}
				clear(s.evs[keep:])
				s.evs = s.evs[:keep]
				s.stride *= 2
			}
		}
		s.seen++
	case "max", "min":
		x, ok := d.by.eval(env{ev: e}).number()
		if !ok {
			return
		}
		// After the better ones and the equal ones earlier in the timeline.
		i := sort.Search(len(s.evs), func(i int) bool {
			switch y := s.scores[i]; {
			case y == x:
				return forensics.Compare(s.evs[i], e) > 0
			case d.pick == "max":
				return y < x
			default:
				return y > x
			}
		})
		if i >= d.limit {
			return
		}
		s.evs = slices.Insert(s.evs, i, e)
		s.scores = slices.Insert(s.scores, i, x)
		if len(s.evs) > d.limit {
			s.evs, s.scores = s.evs[:d.limit], s.scores[:d.limit]
		}
	default: // first, all
		i := sort.Search(len(s.evs), func(i int) bool { return forensics.Compare(s.evs[i], e) > 0 })
		if i >= d.limit {
			return
		}
		s.evs = slices.Insert(s.evs, i, e)
		if len(s.evs) > d.limit {
			s.evs = s.evs[:d.limit]
		}
	}
}

// events are the entry's picks.
func (s *pickTally) events(d *evidenceDef) []*forensics.Event {
	if d.pick != "spread" || len(s.evs) == 0 {
		return s.evs
	}
	evs := slices.Clone(s.evs)
	slices.SortStableFunc(evs, forensics.Compare)
	if s.stride > 1 && evs[len(evs)-1] != s.last {
		evs = append(evs, s.last)
	}
	n := min(d.limit, len(evs))
	if n <= 1 || len(evs) <= n {
		return evs[:n]
	}
	out := make([]*forensics.Event, n)
	for i := range n {
		out[i] = evs[i*(len(evs)-1)/(n-1)]
	}
	return out
}
