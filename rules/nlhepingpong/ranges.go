package nlhepingpong

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/crdb"
)

// A node log with dist_sender verbosity holds a redirect for every lease a
// request meets out of date: by the million on a busy cluster. Every loop,
// and every episode, is the story of one range without a pause longer than
// maxGap, so ranges holds the redirects of each range only since its last
// such pause: a range quiet for longer than maxGap is judged (detect) and
// dropped. The one exception is a request whose trace discarded events,
// which can bridge any pause: its range stays until the end. Such traces
// are few (saved /debug/requests pages), and their discards are read first.
type ranges struct {
	open     map[int64]*rangeRedirects
	discards []forensics.Event // in timeline order, without copies
	bridged  map[string]bool   // the traces of discards
	// at and seen drop redirects read twice (dedupe): the copies of an
	// event have its instant, and come in timeline order, so one instant's
	// keys are enough.
	at      time.Time
	seen    map[string]bool
	checked time.Time
	found   []*episode
}

type rangeRedirects struct {
	evs     []forensics.Event
	last    time.Time
	bridged bool
}

func newRanges(discards []forensics.Event) *ranges {
	s := &ranges{open: map[int64]*rangeRedirects{}, discards: dedupe(discards), bridged: map[string]bool{}, seen: map[string]bool{}}
	for i := range s.discards {
		if t := s.discards[i].Attr(crdb.AttrTrace); t != "" { // as discardsByTrace
			s.bridged[t] = true
		}
	}
	return s
}

// judgeEach reads DistSender events at hand, in timeline order, the way
// run reads them from the timeline.
func judgeEach(evs []forensics.Event) []*episode {
	var discards []forensics.Event
	for _, e := range evs {
		if e.Kind == crdb.KindTraceDiscarded {
			discards = append(discards, e)
		}
	}
	s := newRanges(discards)
	for i := range evs {
		if evs[i].Kind == crdb.KindNLHE {
			s.add(&evs[i])
		}
	}
	return s.episodes()
}

// add takes the next redirect of the timeline.
func (s *ranges) add(e *forensics.Event) {
	if !e.Time.Equal(s.at) {
		s.at = e.Time
		clear(s.seen)
	}
	k := eventKey(e)
	if s.seen[k] {
		return
	}
	s.seen[k] = true
	if e.Time.Sub(s.checked) > maxGap {
		s.judgeQuiet(e.Time)
		s.checked = e.Time
	}
	r, ok := toRedirect(e)
	if !ok {
		return
	}
	rr := s.open[r.rng]
	if rr == nil {
		rr = &rangeRedirects{}
		s.open[r.rng] = rr
	}
	rr.evs = append(rr.evs, *e)
	rr.last = e.Time
	rr.bridged = rr.bridged || s.bridged[r.trace]
}

// judgeQuiet judges the ranges without a redirect for longer than maxGap
// before now.
func (s *ranges) judgeQuiet(now time.Time) {
	for rng, rr := range s.open {
		if !rr.bridged && now.Sub(rr.last) > maxGap {
			s.judge(rr)
			delete(s.open, rng)
		}
	}
}

// episodes judges the ranges still open and returns every episode found,
// in time order.
func (s *ranges) episodes() []*episode {
	for rng, rr := range s.open {
		s.judge(rr)
		delete(s.open, rng)
	}
	slices.SortStableFunc(s.found, func(a, b *episode) int { return a.start.Compare(b.start) })
	return s.found
}

// judge runs detect on one range's redirects and the trace discards
// among them, in timeline order.
func (s *ranges) judge(rr *rangeRedirects) {
	from, to := rr.evs[0].Time, rr.last
	evs := rr.evs
	for _, d := range s.discards {
		if !d.Time.Before(from) && !d.Time.After(to) {
			evs = append(evs, d)
		}
	}
	if len(evs) > len(rr.evs) {
		slices.SortStableFunc(evs, func(a, b forensics.Event) int { return forensics.Compare(&a, &b) })
	}
	s.found = append(s.found, detect(evs)...)
}

// eventKey identifies an event across copies of the same file or trace:
// its kind, instant, range, node and attributes.
func eventKey(e *forensics.Event) string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	b.WriteByte(0)
	b.WriteString(strconv.FormatInt(e.Time.UnixNano(), 10))
	b.WriteByte(0)
	b.WriteString(strconv.FormatInt(e.Range, 10))
	b.WriteByte(0)
	b.WriteString(e.Node)
	attrs := slices.Clone(e.Attrs)
	slices.SortStableFunc(attrs, func(x, y forensics.Attr) int { return strings.Compare(x.Key, y.Key) })
	for _, a := range attrs {
		b.WriteByte(0)
		b.WriteString(a.Key)
		b.WriteByte('=')
		b.WriteString(a.Value)
	}
	return b.String()
}
