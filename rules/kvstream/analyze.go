package kvstream

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"forensics"
)

const (
	// restartJoin groups the signals of one restart: ns_server logs the
	// exit after the babysitter saw it, memcached logs its new start a
	// second or so later, and diag.log repeats them on every node.
	restartJoin = 60 * time.Second
	// failoverDone bounds how long after its start a "Failover completed"
	// line (which names no node) is taken to end that failover.
	failoverDone = 10 * time.Minute
	// pairWindow matches one answer seen from two logs on different nodes
	// (memcached on the KV node, the indexer on the index node), whose
	// clocks differ by tens of milliseconds.
	pairWindow = 2 * time.Second
	// maxServedEvidence caps the answered requests shown as evidence; the
	// explanation still counts them all.
	maxServedEvidence = 16
	// maxPerVBEvidence caps the per-vbucket lines of the aftermath.
	maxPerVBEvidence = 4
)

// events indexes the rule's events by kind; each slice is in time order.
type events map[forensics.Kind][]*forensics.Event

func index(evs []forensics.Event) events {
	ix := events{}
	for i := range evs {
		e := &evs[i]
		ix[e.Kind] = append(ix[e.Kind], e)
	}
	return ix
}

// of returns the events of the kinds, merged in time order.
func (ix events) of(kinds ...forensics.Kind) []*forensics.Event {
	var out []*forensics.Event
	for _, k := range kinds {
		out = append(out, ix[k]...)
	}
	sortEvents(out)
	return out
}

func sortEvents(es []*forensics.Event) {
	sort.SliceStable(es, func(i, j int) bool { return before(es[i], es[j]) })
}

// before is the timeline's order: time, then source, then line.
func before(a, b *forensics.Event) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	return a.Line < b.Line
}

// restart is one memcached restart on a node: the signals that tell of it.
type restart struct {
	node    string
	at      time.Time // the first signal
	next    time.Time // the next restart on the node; zero when none
	signals []*forensics.Event
}

// restarts finds memcached restarts per node, in time order.
func (ix events) restarts() []*restart {
	var sigs []*forensics.Event
	for _, e := range ix.of(mcStart, nsExited, nsPortExited) {
		switch e.Kind {
		case mcStart:
			// A start after a clean shutdown does not leave the node with
			// unpersisted history; only a killed process does.
			if e.Attr("unclean") != "true" {
				continue
			}
		case nsExited, nsPortExited:
			if e.Attr("service") != "memcached" {
				continue
			}
		}
		if e.Node == "" {
			continue
		}
		sigs = append(sigs, e)
	}
	byNode := map[string][]*restart{}
	var nodes []string
	for _, s := range sigs {
		rs := byNode[s.Node]
		if len(rs) == 0 {
			nodes = append(nodes, s.Node)
		}
		if n := len(rs); n > 0 {
			last := rs[n-1]
			sameProcess := !(s.Kind == mcStart && last.hasStart())
			if sameProcess && s.Time.Sub(last.at) <= restartJoin {
				last.signals = append(last.signals, s)
				continue
			}
		}
		byNode[s.Node] = append(rs, &restart{node: s.Node, at: s.Time, signals: []*forensics.Event{s}})
	}
	var out []*restart
	for _, n := range nodes {
		rs := byNode[n]
		for i := range rs {
			if i+1 < len(rs) {
				rs[i].next = rs[i+1].at
			}
		}
		out = append(out, rs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].node < out[j].node
	})
	return out
}

func (r *restart) hasStart() bool {
	for _, s := range r.signals {
		if s.Kind == mcStart {
			return true
		}
	}
	return false
}

// within reports whether t is in [r.at, r.next).
func (r *restart) within(t time.Time) bool {
	return !t.Before(r.at) && (r.next.IsZero() || t.Before(r.next))
}

// host returns the host of an Erlang node name ns_1@host.
func host(node string) string {
	if i := strings.LastIndexByte(node, '@'); i >= 0 {
		return node[i+1:]
	}
	return node
}

// listHas reports whether a comma-joined list of names holds name.
func listHas(list, name string) bool {
	for _, x := range strings.Split(list, ",") {
		if strings.TrimSpace(x) == name {
			return true
		}
	}
	return false
}

// answer is one stream request the node answered, as one log saw it.
type answer struct {
	ev       *forensics.Event
	vb       int
	rollback bool
	seqno    string // the rollback seqno, or the start seqno of an accepted stream
	consumer string
	side     string // "memcached", "projector" or "indexer"
	peer     *forensics.Event
}

// isReplication reports whether a DCP name is one of ns_server's own
// replication (or takeover) streams.
func isReplication(e *forensics.Event) bool {
	return e.Attr("consumer_kind") == "replication" || strings.HasPrefix(e.Attr("consumer"), "replication:")
}

// answers returns the stream requests node answered for bucket in [from, to),
// one per log line, memcached's first. Indexer lines that the projector or
// memcached already show are attached to them as peers rather than counted
// twice.
func (ix events) answers(node, bucket string, from, to time.Time) []*answer {
	in := func(e *forensics.Event) bool {
		return e.Bucket == bucket && !e.Time.Before(from) && (to.IsZero() || e.Time.Before(to))
	}
	var out []*answer
	names := map[string]bool{}
	for _, e := range ix.of(mcCreated, mcRollback) {
		if e.Node != node || !in(e) || isReplication(e) || e.VB == forensics.NoVB {
			continue
		}
		a := &answer{ev: e, vb: e.VB, consumer: e.Attr("consumer"), side: "memcached"}
		if e.Kind == mcRollback {
			a.rollback, a.seqno = true, e.Attr("rollback_seqno")
		} else {
			a.seqno = e.Attr("start_seqno")
		}
		names[a.consumer] = true
		out = append(out, a)
	}
	// A FEED line names the feed's topic, not its DCP connection; the
	// connection's DCPT lines tell which name goes with the topic.
	byTopic := map[string]*forensics.Event{}
	for _, e := range ix[prRollback] {
		if t := e.Attr("topic"); e.Node == node && t != "" && byTopic[t] == nil {
			byTopic[t] = e
		}
	}
	for _, e := range ix.of(prRollback, prResponse) {
		if e.Node != node || !in(e) || e.VB == forensics.NoVB {
			continue
		}
		a := &answer{ev: e, vb: e.VB, side: "projector"}
		named := e
		if e.Kind == prResponse && byTopic[e.Attr("topic")] != nil {
			named = byTopic[e.Attr("topic")]
		}
		switch e.Kind {
		case prRollback:
			a.rollback, a.seqno = true, e.Attr("rollback_seqno")
		case prResponse:
			if e.Attr("status") != "SUCCESS" || e.Attr("stage") != "posted" {
				continue
			}
			a.seqno = e.Attr("seqno")
		}
		a.consumer = projectorConsumer(named, names)
		if ix.sameAnswer(out, a) {
			continue
		}
		out = append(out, a)
	}
	h := host(node)
	for _, b := range ix[ixStreamBegin] {
		if b.Attr("kv_host") != h || !in(b) || b.VB == forensics.NoVB {
			continue
		}
		a := &answer{ev: b, vb: b.VB, side: "indexer", seqno: b.Attr("seqno"),
			consumer: "GSI indexer " + b.Attr("stream") + " on " + b.Node}
		if rb := ix.rollbackOf(b); rb != nil {
			a.rollback, a.peer, a.seqno = true, rb, rb.Attr("rollback_seqno")
		}
		if m := matchAnswer(out, a); m != nil {
			if m.peer == nil {
				m.peer = a.peer
				if m.peer == nil {
					m.peer = b
				}
			}
			continue
		}
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool { return before(out[i].ev, out[j].ev) })
	return out
}

// projectorConsumer names the DCP connection of a projector line the way
// memcached logs it where it can: from 7.0 the projector opens the
// connection under a name without the keyspace (dcp_feed.go truncFeedName).
func projectorConsumer(e *forensics.Event, memcached map[string]bool) string {
	long, short := e.Attr("consumer"), e.Attr("consumer_short")
	switch {
	case memcached[long]:
		return long
	case short != "" && memcached[short]:
		return short
	case long != "":
		return long
	}
	if t := e.Attr("topic"); t != "" {
		return "GSI projector feed " + t
	}
	return "GSI projector"
}

// sameAnswer reports whether a is an answer already in out from another log.
func (ix events) sameAnswer(out []*answer, a *answer) bool {
	return matchAnswer(out, a) != nil
}

// matchAnswer finds the answer in out that a is another view of: the same
// vbucket, the same outcome and seqno, close in time.
func matchAnswer(out []*answer, a *answer) *answer {
	for _, o := range out {
		if o.vb != a.vb || o.rollback != a.rollback || o.side == a.side {
			continue
		}
		if a.rollback && o.seqno != a.seqno {
			continue
		}
		if absDur(o.ev.Time.Sub(a.ev.Time)) <= pairWindow {
			return o
		}
	}
	return nil
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// rollbackOf returns the indexer's "StreamBegin rollback" line that goes
// with a "TK StreamBegin" line: the timekeeper logs both for one message,
// the rollback right after.
func (ix events) rollbackOf(b *forensics.Event) *forensics.Event {
	for _, r := range ix[ixRollback] {
		if r.Source == b.Source && r.VB == b.VB && r.Attr("keyspace") == b.Attr("keyspace") &&
			r.Line > b.Line && r.Line <= b.Line+3 {
			return r
		}
	}
	return nil
}

// beginOf returns the "TK StreamBegin" line that goes with a rollback line.
func (ix events) beginOf(r *forensics.Event) *forensics.Event {
	for _, b := range ix[ixStreamBegin] {
		if b.Source == r.Source && b.VB == r.VB && b.Attr("keyspace") == r.Attr("keyspace") &&
			b.Line < r.Line && b.Line >= r.Line-3 {
			return b
		}
	}
	return nil
}

// closer returns the first sign that traffic was enabled on bucket on node
// in [from, to), or nil. Warmup completing or the bucket loading are not
// signs: ns_server enables traffic only after its janitor has set the
// vbucket states.
func (ix events) closer(node, bucket string, from, to time.Time) *forensics.Event {
	var best *forensics.Event
	for _, e := range ix.of(mcTraffic, nsEnabling, nsWarmed, nsReady, nsOnline) {
		if e.Time.Before(from) || !to.IsZero() && !e.Time.Before(to) {
			continue
		}
		switch e.Kind {
		case nsReady:
			if e.Attr("ready_node") != node || !listHas(e.Attr("buckets"), bucket) {
				continue
			}
		default:
			if e.Node != node || e.Bucket != bucket {
				continue
			}
		}
		if best == nil || before(e, best) {
			best = e
		}
	}
	return best
}

// failover is a failover of a node: its start and, when logged, its end.
type failover struct {
	start, done *forensics.Event
}

// at is when the failover took the node's vbuckets away: its end, or its
// start when no end was logged.
func (f *failover) at() time.Time {
	if f.done != nil {
		return f.done.Time
	}
	return f.start.Time
}

// failoverOf finds the first failover of node that started in [from, to)
// and did not fail.
func (ix events) failoverOf(node string, from, to time.Time) *failover {
	all := ix.of(nsFailoverStart, nsFailoverNode, nsFailoverFailed, nsFailoverEnd, nsAutoFailover)
	for i, s := range all {
		if s.Time.Before(from) || !to.IsZero() && !s.Time.Before(to) {
			continue
		}
		if s.Kind == nsAutoFailover && listHas(s.Attr("nodes"), node) {
			// Logged once the failover succeeded.
			return &failover{start: s, done: s}
		}
		if s.Kind != nsFailoverStart || !listHas(s.Attr("nodes"), node) {
			continue
		}
		f := &failover{start: s}
		failed := false
		for _, e := range all[i+1:] {
			if e.Time.Sub(s.Time) > failoverDone {
				break
			}
			switch e.Kind {
			case nsFailoverNode:
				if listHas(e.Attr("nodes"), node) {
					f.done = e
				}
			case nsFailoverEnd:
				f.done = e
			case nsAutoFailover:
				if listHas(e.Attr("nodes"), node) {
					f.done = e
				}
			case nsFailoverFailed:
				failed = true
			}
			if f.done != nil || failed {
				break
			}
		}
		if !failed {
			return f
		}
	}
	return nil
}

// rerollback is the consumer rolling back again for a vbucket on the node
// that took it over.
type rerollback struct {
	vb       int
	node     string // the new active, when known
	ev       *forensics.Event
	seqno    string
	promoted *forensics.Event // the new active's replica→active transition
}

// aftermath finds, for each vbucket, the next rollback a consumer was told
// on another node after the failover began, and the promotion of the
// replica that took the vbucket over.
func (ix events) aftermath(node, bucket string, vbs []int, since time.Time) []*rerollback {
	var out []*rerollback
	h := host(node)
	// The indexer's clock may read a little behind the orchestrator's.
	since = since.Add(-pairWindow)
	for _, vb := range vbs {
		r := &rerollback{vb: vb}
		for _, e := range ix[mcVBState] {
			if e.Node != node && e.Bucket == bucket && e.VB == vb && !e.Time.Before(since) &&
				e.Attr("from") == "replica" && e.Attr("to") == "active" {
				r.promoted, r.node = e, e.Node
				break
			}
		}
		var cands []*forensics.Event
		for _, e := range ix[mcRollback] {
			if e.Node != node && e.Bucket == bucket && e.VB == vb && !e.Time.Before(since) && !isReplication(e) {
				cands = append(cands, e)
				break
			}
		}
		for _, e := range ix[ixRollback] {
			if e.Bucket != bucket || e.VB != vb || e.Time.Before(since) {
				continue
			}
			b := ix.beginOf(e)
			if b == nil || b.Attr("kv_host") == "" || b.Attr("kv_host") == h {
				continue
			}
			cands = append(cands, e)
			break
		}
		sortEvents(cands)
		if len(cands) > 0 {
			e := cands[0]
			r.ev, r.seqno = e, e.Attr("rollback_seqno")
			if e.Kind == mcRollback {
				r.node = e.Node
			} else if b := ix.beginOf(e); b != nil && r.node == "" {
				r.node = "ns_1@" + b.Attr("kv_host")
			}
		}
		if r.ev != nil || r.promoted != nil {
			out = append(out, r)
		}
	}
	return out
}

// skews estimates how far the restarted node's clock reads ahead of the
// index nodes', from effects logged before their causes.
func (ix events) skews(node string, as []*answer, streamEnd *forensics.Event, exit *forensics.Event) []forensics.Skew {
	var out []forensics.Skew
	seen := map[string]bool{}
	// memcached logs a rollback before it sends it; the indexer logs it
	// after receiving it. The indexer's line reading earlier is skew.
	for _, a := range as {
		if a.side != "memcached" || a.peer == nil || a.peer.Node == "" || a.peer.Node == node {
			continue
		}
		if d := a.ev.Time.Sub(a.peer.Time); d > 0 && !seen[a.peer.Node] {
			seen[a.peer.Node] = true
			out = append(out, forensics.Skew{
				Ahead: node, Behind: a.peer.Node, By: d,
				Basis: fmt.Sprintf("the indexer on %s logged the answer for vb %d at %s, %s before memcached on %s logged sending it at %s",
					a.peer.Node, a.vb, clock(a.peer.Time), dur(d), node, clock(a.ev.Time)),
			})
		}
	}
	if streamEnd != nil && exit != nil && streamEnd.Node != node && !seen[streamEnd.Node] {
		if d := exit.Time.Sub(streamEnd.Time); d > 0 {
			out = append(out, forensics.Skew{
				Ahead: node, Behind: streamEnd.Node, By: d,
				Basis: fmt.Sprintf("the indexer on %s logged the stream end for vb %d at %s, %s before ns_server on %s logged memcached's exit at %s; "+
					"ns_server logs the exit only after the babysitter saw it, so part of this may be that delay",
					streamEnd.Node, streamEnd.VB, clock(streamEnd.Time), dur(d), node, clock(exit.Time)),
			})
		}
	}
	return out
}

// clock formats a time of day in UTC for explanations.
func clock(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		return t.Format("15:04:05.000000Z")
	}
	return t.Format("15:04:05.000Z")
}

// dur formats a duration for explanations: ms below ten seconds.
func dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.String()
	case d < 10*time.Second:
		ms := float64(d) / float64(time.Millisecond)
		return strconv.FormatFloat(ms, 'f', -1, 64) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	return d.Round(time.Second).String()
}
