package nlhepingpong

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/crdb"
)

// Thresholds of the rule (issue 3): an alternation is flagged once it has
// made minCycles full A→B→A cycles within one request, or when it has lasted
// longDuration with at least minLongCycles cycles (so that one slow bounce,
// or a backoff that ends in success, is not a loop).
const (
	minCycles     = 3
	minLongCycles = 2
	longDuration  = time.Second
	// maxGap is the longest pause between two redirects of one loop. A loop
	// without backoff hops every few milliseconds; with DistSender's backoff
	// (v19.1+, 50 ms doubling to at most 1 s) a hop waits at most about 1 s.
	maxGap = 2 * time.Second
)

// redirect is one NotLeaseHolderError DistSender received: one hop of a
// possible loop. DistSender logs each hop more than once (the bare error,
// "application error:", "trying next peer"); the parser emits one
// distsender.nlhe per hop, so a redirect is one such event.
type redirect struct {
	ev      *forensics.Event
	at      time.Time
	rng     int64
	refuser string     // the replica that refused, as logged: "(n2,s2):3"
	target  string     // the replica it named as leaseholder
	lease   crdb.Lease // the lease the refuser reported
	trace   string
	gateway string
}

// visit is a run of consecutive redirects of one request from the same
// replica naming the same leaseholder. Since v20.2 DistSender retries a
// replica that returned stale lease information, with a backoff, instead of
// following it (cockroachdb/cockroach#52837); those retries are one visit.
type visit struct {
	refuser, target string
	redirects       []*redirect
}

func (v *visit) first() *redirect { return v.redirects[0] }
func (v *visit) last() *redirect  { return v.redirects[len(v.redirects)-1] }

// segment is what one request did on one range without a break: visits
// where each replica tried is the one the previous replica named.
type segment struct {
	rng     int64
	gateway string
	trace   string
	visits  []*visit
	// loop is the index of the first visit of the loop: the visit of the
	// replica that a later visit named back. -1 when nothing was named back
	// (a chain A→B→C, or a single redirect).
	loop int
	// members are the replicas of the loop, sorted.
	members []string
	// discarded is the trace.discarded events inside the segment: the trace
	// lost events there, and the loop went on across the gap.
	discarded []*forensics.Event
}

// cycles counts the full A→B→A cycles from the start of the loop: how
// many times the request was sent to each side of it. A loop has (at least)
// two replicas that are named back and forth; the second most named one
// counts the round trips, so A→B→A→B→A is two cycles, not three. In the
// loops of v20.2+, where the up-to-date replicas keep naming the lagging one
// and it keeps naming someone else, it counts the returns to the lagging one.
func (s *segment) cycles() int {
	if s.loop < 0 {
		return 0
	}
	named := map[string]int{}
	for _, v := range s.visits[s.loop:] {
		named[v.target]++
	}
	first, second := 0, 0
	for _, n := range named {
		switch {
		case n > first:
			first, second = n, first
		case n > second:
			second = n
		}
	}
	return second
}

func (s *segment) redirects() []*redirect {
	var out []*redirect
	for _, v := range s.visits[max(s.loop, 0):] {
		out = append(out, v.redirects...)
	}
	return out
}

func (s *segment) start() time.Time { return s.visits[max(s.loop, 0)].first().at }
func (s *segment) end() time.Time   { return s.visits[len(s.visits)-1].last().at }

// episode is one ping-pong on one range among one set of replicas, as seen
// by one or more gateways: overlapping or adjacent loop segments.
type episode struct {
	rng       int64
	members   []string
	segments  []*segment
	start     time.Time
	end       time.Time
	maxCycles int // in one request
	cycles    int // all requests together
}

func (e *episode) duration() time.Duration { return e.end.Sub(e.start) }

// flagged applies the thresholds.
func (e *episode) flagged() bool {
	if e.maxCycles >= minCycles {
		return true
	}
	return e.cycles >= minLongCycles && e.duration() >= longDuration
}

// detect finds the ping-pong episodes in DistSender events, which must be
// in time order and without duplicates (dedupe).
func detect(evs []forensics.Event) []*episode {
	discards := discardsByTrace(evs)

	streams := map[streamKey][]*redirect{}
	var keys []streamKey
	for i := range evs {
		r, ok := toRedirect(&evs[i])
		if !ok {
			continue
		}
		k := streamKey{r.rng, r.gateway, r.trace}
		if _, seen := streams[k]; !seen {
			keys = append(keys, k)
		}
		streams[k] = append(streams[k], r)
	}

	var segs []*segment
	for _, k := range keys {
		for _, s := range segments(k, visits(streams[k]), discards[k.trace]) {
			if s.cycles() > 0 {
				segs = append(segs, s)
			}
		}
	}
	return episodes(segs)
}

type streamKey struct {
	rng     int64
	gateway string
	trace   string
}

// dedupe drops events read twice: a trace saved from two latency buckets
// of /debug/requests into two files, or the same log handed over twice.
// The parser already reads a trace once per file.
func dedupe(evs []forensics.Event) []forensics.Event {
	seen := make(map[string]bool, len(evs))
	out := evs[:0:0]
	for i := range evs {
		k := eventKey(&evs[i])
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, evs[i])
	}
	return out
}

func discardsByTrace(evs []forensics.Event) map[string][]*forensics.Event {
	out := map[string][]*forensics.Event{}
	for i := range evs {
		if evs[i].Kind == crdb.KindTraceDiscarded && evs[i].Attr(crdb.AttrTrace) != "" {
			t := evs[i].Attr(crdb.AttrTrace)
			out[t] = append(out[t], &evs[i])
		}
	}
	return out
}

// toRedirect reads a distsender.nlhe event. Redirects that name no
// leaseholder (lease holder unknown) send DistSender round the replicas in
// order, not back and forth, so they are not hops of a loop.
func toRedirect(e *forensics.Event) (*redirect, bool) {
	if e.Kind != crdb.KindNLHE || e.Range == 0 {
		return nil, false
	}
	refuser, target := e.Attr(crdb.AttrReplica), e.Attr(crdb.AttrLeaseReplica)
	if refuser == "" || target == "" || e.Attr(crdb.AttrHolderUnknown) == "true" {
		return nil, false
	}
	return &redirect{
		ev:      e,
		at:      e.Time,
		rng:     e.Range,
		refuser: refuser,
		target:  target,
		lease:   leaseOf(e),
		trace:   e.Attr(crdb.AttrTrace),
		gateway: gatewayOf(e),
	}, true
}

func gatewayOf(e *forensics.Event) string {
	if g := e.Attr(crdb.AttrGateway); g != "" {
		return g
	}
	return e.Node
}

func leaseOf(e *forensics.Event) crdb.Lease {
	return crdb.Lease{
		Replica:    e.Attr(crdb.AttrLeaseReplica),
		Seq:        e.Attr(crdb.AttrLeaseSeq),
		Start:      e.Attr(crdb.AttrLeaseStart),
		Epoch:      e.Attr(crdb.AttrLeaseEpoch),
		Expiration: e.Attr(crdb.AttrLeaseExp),
		Proposed:   e.Attr(crdb.AttrLeasePro),
		// v24+ leases: epoch and leader leases print a minimum expiration,
		// leader leases a Raft term instead of an epoch.
		MinExpiration: e.Attr(crdb.AttrLeaseMinExp),
		Term:          e.Attr(crdb.AttrLeaseTerm),
		Acquisition:   e.Attr(crdb.AttrLeaseAcq),
	}
}

// visits collapses a request's consecutive redirects from one replica
// naming one leaseholder.
func visits(rs []*redirect) []*visit {
	var out []*visit
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].refuser == r.refuser && out[n-1].target == r.target &&
			r.at.Sub(out[n-1].last().at) <= maxGap {
			out[n-1].redirects = append(out[n-1].redirects, r)
			continue
		}
		out = append(out, &visit{refuser: r.refuser, target: r.target, redirects: []*redirect{r}})
	}
	return out
}

// segments splits a request's visits where the chain of redirects breaks:
// DistSender tried a replica other than the one named, a replica named
// itself, or the request paused longer than maxGap. A pause over which the
// trace discarded events does not break the segment: the events are gone,
// not the loop.
func segments(k streamKey, vs []*visit, discards []*forensics.Event) []*segment {
	var out []*segment
	var cur *segment
	for _, v := range vs {
		self := v.refuser == v.target
		if cur != nil && !self {
			prev := cur.visits[len(cur.visits)-1]
			gap := v.first().at.Sub(prev.last().at)
			lost := discardedBetween(discards, prev.last().at, v.first().at)
			// DistSender either followed the redirect, or (v20.2+, after
			// retrying a replica with stale information a few times) moved on
			// to another replica, which sent it back.
			follows := v.refuser == prev.target || v.target == prev.refuser ||
				(len(lost) > 0 && inLoop(cur, v))
			if follows && (gap <= maxGap || len(lost) > 0) {
				cur.visits = append(cur.visits, v)
				cur.discarded = append(cur.discarded, lost...)
				cur.findLoop()
				continue
			}
		}
		if cur != nil {
			out = append(out, cur)
			cur = nil
		}
		if self {
			continue
		}
		cur = &segment{rng: k.rng, gateway: k.gateway, trace: k.trace, visits: []*visit{v}, loop: -1}
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// inLoop reports whether v goes between replicas of cur's loop: across
// discarded events the hop that connects them is missing.
func inLoop(cur *segment, v *visit) bool {
	if cur.loop < 0 {
		return false
	}
	var in, to bool
	for _, m := range cur.members {
		in = in || m == v.refuser
		to = to || m == v.target
	}
	return in && to
}

func discardedBetween(ds []*forensics.Event, from, to time.Time) []*forensics.Event {
	var out []*forensics.Event
	for _, d := range ds {
		if !d.Time.Before(from) && !d.Time.After(to) {
			out = append(out, d)
		}
	}
	return out
}

// findLoop sets the start of the loop once a visit names a replica refused
// earlier in the segment, and keeps its members up to date.
func (s *segment) findLoop() {
	if s.loop < 0 {
		last := s.visits[len(s.visits)-1]
		for i, v := range s.visits[:len(s.visits)-1] {
			if v.refuser == last.target {
				s.loop = i
				break
			}
		}
		if s.loop < 0 {
			return
		}
	}
	s.members = s.members[:0]
	seen := map[string]bool{}
	for _, w := range s.visits[s.loop:] {
		if !seen[w.refuser] {
			seen[w.refuser] = true
			s.members = append(s.members, w.refuser)
		}
	}
	sortReplicas(s.members)
}

// episodes merges loop segments of one range among one set of replicas
// that overlap or follow each other within maxGap, whichever request or
// gateway saw them, and keeps those over the thresholds. A segment is
// flagged on its own (within one request) or through its episode (across
// the requests of a gateway); once flagged, episodes seen by several
// gateways at the same time are one incident.
func episodes(segs []*segment) []*episode {
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].start().Before(segs[j].start()) })

	// One range has one lease, so loops on a range at the same time are one
	// loop, whichever of its replicas a request happened to meet.
	type groupKey struct {
		rng     int64
		gateway string
	}
	byGateway := map[groupKey][]*episode{}
	var order []groupKey
	for _, s := range segs {
		k := groupKey{s.rng, s.gateway}
		eps := byGateway[k]
		if n := len(eps); n > 0 && !s.start().After(eps[n-1].end.Add(maxGap)) {
			eps[n-1].add(s)
			continue
		}
		if len(eps) == 0 {
			order = append(order, k)
		}
		e := &episode{rng: s.rng, start: s.start(), end: s.end()}
		e.add(s)
		byGateway[k] = append(eps, e)
	}

	// Flag per gateway, then merge the flagged episodes of a range and
	// replica set that overlap in time across gateways.
	var flagged []*episode
	for _, k := range order {
		for _, e := range byGateway[k] {
			if e.flagged() {
				flagged = append(flagged, e)
			}
		}
	}
	sort.SliceStable(flagged, func(i, j int) bool { return flagged[i].start.Before(flagged[j].start) })
	var out []*episode
	for _, e := range flagged {
		merged := false
		for _, o := range out {
			if o.rng == e.rng && !e.start.After(o.end.Add(maxGap)) {
				for _, s := range e.segments {
					o.add(s)
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, e)
		}
	}
	return out
}

func (e *episode) add(s *segment) {
	e.segments = append(e.segments, s)
	for _, m := range s.members {
		if !slices.Contains(e.members, m) {
			e.members = append(e.members, m)
		}
	}
	sortReplicas(e.members)
	if s.start().Before(e.start) {
		e.start = s.start()
	}
	if s.end().After(e.end) {
		e.end = s.end()
	}
	c := s.cycles()
	e.cycles += c
	e.maxCycles = max(e.maxCycles, c)
}

// redirects returns the episode's redirects in time order.
func (e *episode) redirects() []*redirect {
	var out []*redirect
	for _, s := range e.segments {
		out = append(out, s.redirects()...)
	}
	sort.SliceStable(out, func(i, j int) bool { return forensics.Before(out[i].ev, out[j].ev) })
	return out
}

// replicaID is a replica descriptor as CockroachDB prints it:
// (n<node>,s<store>):<id>, possibly with a type suffix.
type replicaID struct {
	node, store, id int64
	ok              bool
}

func parseReplica(s string) replicaID {
	var r replicaID
	rest, ok := strings.CutPrefix(s, "(n")
	if !ok {
		return r
	}
	n, rest, ok := strings.Cut(rest, ",s")
	if !ok {
		return r
	}
	st, rest, ok := strings.Cut(rest, "):")
	if !ok {
		return r
	}
	id := rest
	for i, c := range rest {
		if c < '0' || c > '9' {
			id = rest[:i]
			break
		}
	}
	var err1, err2, err3 error
	r.node, err1 = strconv.ParseInt(n, 10, 64)
	r.store, err2 = strconv.ParseInt(st, 10, 64)
	r.id, err3 = strconv.ParseInt(id, 10, 64)
	r.ok = err1 == nil && err2 == nil && err3 == nil
	return r
}

// sortReplicas orders replicas by node, store and replica id, the way a
// range descriptor lists them; unreadable ones last, by text.
func sortReplicas(rs []string) {
	sort.SliceStable(rs, func(i, j int) bool { return lessReplica(rs[i], rs[j]) })
}

func lessReplica(x, y string) bool {
	a, b := parseReplica(x), parseReplica(y)
	switch {
	case a.ok != b.ok:
		return a.ok
	case !a.ok:
		return x < y
	case a.node != b.node:
		return a.node < b.node
	case a.store != b.store:
		return a.store < b.store
	case a.id != b.id:
		return a.id < b.id
	}
	return x < y
}
