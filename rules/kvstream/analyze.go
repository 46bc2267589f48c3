package kvstream

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/indexer"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/parsers/projector"
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

func sortEvents(es []*forensics.Event) { slices.SortStableFunc(es, forensics.Compare) }

// restart is one memcached restart on a node: the signals that tell of it.
type restart struct {
	node    string
	at      time.Time // the first signal
	next    time.Time // the next restart on the node; zero when none
	signals []*forensics.Event
}

// restarts finds memcached restarts per node, in time order.
func (ix *events) restarts() []*restart {
	var sigs []*forensics.Event
	for _, e := range ix.of(mcStart, nsExited, nsPortExited) {
		switch e.Kind {
		case mcStart:
			// A start after a clean shutdown does not leave the node with
			// unpersisted history; only a killed process does.
			if e.Attr(memcached.AttrUnclean) != "true" {
				continue
			}
		case nsExited, nsPortExited:
			if e.Attr(nsserver.AttrService) != "memcached" {
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
	return e.Attr(memcached.AttrConsumerKind) == "replication" || strings.HasPrefix(e.Attr(memcached.AttrConsumer), "replication:")
}

// answers returns the stream requests node answered for bucket in [from, to),
// one per log line, memcached's first. Indexer lines that the projector or
// memcached already show are attached to them as peers rather than counted
// twice.
func (ix *events) answers(node, bucket string, from, to time.Time) []*answer {
	in := func(e *forensics.Event) bool {
		return e.Bucket == bucket && !e.Time.Before(from) && (to.IsZero() || e.Time.Before(to))
	}
	var out []*answer
	names := map[string]bool{}
	seen := answerIndex{}
	for _, e := range span(ix.of(mcCreated, mcRollback), from, to) {
		if e.Node != node || !in(e) || isReplication(e) || e.VB == forensics.NoVB {
			continue
		}
		a := &answer{ev: e, vb: e.VB, consumer: e.Attr(memcached.AttrConsumer), side: "memcached"}
		if e.Kind == mcRollback {
			a.rollback, a.seqno = true, e.Attr(memcached.AttrRollbackSeqno)
		} else {
			a.seqno = e.Attr(memcached.AttrStartSeqno)
		}
		names[a.consumer] = true
		out = append(out, a)
		seen.add(a)
	}
	// A FEED line names the feed's topic, not its DCP connection; the
	// connection's DCPT lines tell which name goes with the topic.
	ix.build()
	for _, e := range span(ix.of(prRollback, prResponse), from, to) {
		if e.Node != node || !in(e) || e.VB == forensics.NoVB {
			continue
		}
		a := &answer{ev: e, vb: e.VB, side: "projector"}
		named := e
		if t := ix.topics[node+"\x00"+e.Attr(projector.AttrTopic)]; e.Kind == prResponse && t != nil {
			named = t
		}
		switch e.Kind {
		case prRollback:
			a.rollback, a.seqno = true, e.Attr(projector.AttrRollbackSeqno)
		case prResponse:
			if e.Attr(projector.AttrStatus) != "SUCCESS" || e.Attr(projector.AttrStage) != "posted" {
				continue
			}
			a.seqno = e.Attr(projector.AttrSeqno)
		}
		a.consumer = projectorConsumer(named, names)
		if seen.match(a) != nil {
			continue
		}
		out = append(out, a)
		seen.add(a)
	}
	h := nsserver.Host(node)
	for _, b := range span(ix.by[ixStreamBegin], from, to) {
		if b.Attr(indexer.AttrKVHost) != h || !in(b) || b.VB == forensics.NoVB {
			continue
		}
		a := &answer{ev: b, vb: b.VB, side: "indexer", seqno: b.Attr(indexer.AttrSeqno),
			consumer: "GSI indexer " + b.Attr(indexer.AttrStream) + " on " + b.Node}
		if rb := ix.rollbackOf(b); rb != nil {
			a.rollback, a.peer, a.seqno = true, rb, rb.Attr(indexer.AttrRollbackSeqno)
		}
		if m := seen.match(a); m != nil {
			if m.peer == nil {
				m.peer = a.peer
				if m.peer == nil {
					m.peer = b
				}
			}
			continue
		}
		out = append(out, a)
		seen.add(a)
	}
	sort.SliceStable(out, func(i, j int) bool { return forensics.Before(out[i].ev, out[j].ev) })
	return out
}

// projectorConsumer names the DCP connection of a projector line the way
// memcached logs it where it can: from 7.0 the projector opens the
// connection under a name without the keyspace (dcp_feed.go truncFeedName).
func projectorConsumer(e *forensics.Event, memcached map[string]bool) string {
	long, short := e.Attr(projector.AttrConsumer), e.Attr(projector.AttrConsumerShort)
	switch {
	case memcached[long]:
		return long
	case short != "" && memcached[short]:
		return short
	case long != "":
		return long
	}
	if t := e.Attr(projector.AttrTopic); t != "" {
		return "GSI projector feed " + t
	}
	return "GSI projector"
}

// answerIndex holds the answers found so far by vbucket, so that matching
// a line of one log with another's costs the answers of one vbucket.
type answerIndex map[int][]*answer

func (ai answerIndex) add(a *answer) { ai[a.vb] = append(ai[a.vb], a) }

// match finds the answer that a is another view of: the same vbucket, the
// same outcome and seqno, close in time, from another log.
func (ai answerIndex) match(a *answer) *answer {
	for _, o := range ai[a.vb] {
		if o.vb != a.vb || o.rollback != a.rollback || o.side == a.side {
			continue
		}
		if a.rollback && o.seqno != a.seqno {
			continue
		}
		if o.ev.Time.Sub(a.ev.Time).Abs() <= pairWindow {
			return o
		}
	}
	return nil
}

// rollbackOf returns the indexer's "StreamBegin rollback" line that goes
// with a "TK StreamBegin" line: the timekeeper logs both for one message,
// the rollback right after.
func (ix *events) rollbackOf(b *forensics.Event) *forensics.Event {
	ix.build()
	for _, r := range lines(ix.rolls[b.Path], b.Line+1, b.Line+3) {
		if r.VB == b.VB && r.Attr(indexer.AttrKeyspace) == b.Attr(indexer.AttrKeyspace) {
			return r
		}
	}
	return nil
}

// beginOf returns the "TK StreamBegin" line that goes with a rollback line.
func (ix *events) beginOf(r *forensics.Event) *forensics.Event {
	ix.build()
	for _, b := range lines(ix.begins[r.Path], r.Line-3, r.Line-1) {
		if b.VB == r.VB && b.Attr(indexer.AttrKeyspace) == r.Attr(indexer.AttrKeyspace) {
			return b
		}
	}
	return nil
}

// closer returns the first sign that traffic was enabled on bucket on node
// in [from, to), or nil. Warmup completing or the bucket loading are not
// signs: ns_server enables traffic only after its janitor has set the
// vbucket states.
func (ix *events) closer(node, bucket string, from, to time.Time) *forensics.Event {
	// The events are in timeline order: the first that matches is the one.
	for _, e := range span(ix.of(mcTraffic, nsEnabling, nsWarmed, nsReady, nsOnline), from, to) {
		switch e.Kind {
		case nsReady:
			if e.Attr(nsserver.AttrReadyNode) != node || !nsserver.HasNode(e.Attr(nsserver.AttrBuckets), bucket) {
				continue
			}
		default:
			if e.Node != node || e.Bucket != bucket {
				continue
			}
		}
		return e
	}
	return nil
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
func (ix *events) failoverOf(node string, from, to time.Time) *failover {
	all := ix.of(nsFailoverStart, nsFailoverNode, nsFailoverFailed, nsFailoverEnd, nsAutoFailover)
	start := len(all) - len(span(all, from, time.Time{}))
	for i := start; i < len(all); i++ {
		s := all[i]
		if !to.IsZero() && !s.Time.Before(to) {
			break
		}
		if s.Kind == nsAutoFailover && nsserver.HasNode(s.Attr(nsserver.AttrNodes), node) {
			// Logged once the failover succeeded.
			return &failover{start: s, done: s}
		}
		if s.Kind != nsFailoverStart || !nsserver.HasNode(s.Attr(nsserver.AttrNodes), node) {
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
				if nsserver.HasNode(e.Attr(nsserver.AttrNodes), node) {
					f.done = e
				}
			case nsFailoverEnd:
				f.done = e
			case nsAutoFailover:
				if nsserver.HasNode(e.Attr(nsserver.AttrNodes), node) {
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
func (ix *events) aftermath(node, bucket string, vbs []int, since time.Time) []*rerollback {
	var out []*rerollback
	h := nsserver.Host(node)
	// The indexer's clock may read a little behind the orchestrator's.
	since = since.Add(-pairWindow)
	for _, vb := range vbs {
		r := &rerollback{vb: vb}
		for _, e := range span(ix.vbEvents(mcVBState, bucket, vb), since, time.Time{}) {
			if e.Node != node && e.Attr(memcached.AttrFrom) == "replica" && e.Attr(memcached.AttrTo) == "active" {
				r.promoted, r.node = e, e.Node
				break
			}
		}
		var cands []*forensics.Event
		for _, e := range span(ix.vbEvents(mcRollback, bucket, vb), since, time.Time{}) {
			if e.Node != node && !isReplication(e) {
				cands = append(cands, e)
				break
			}
		}
		for _, e := range span(ix.vbEvents(ixRollback, bucket, vb), since, time.Time{}) {
			b := ix.beginOf(e)
			if b == nil || b.Attr(indexer.AttrKVHost) == "" || b.Attr(indexer.AttrKVHost) == h {
				continue
			}
			cands = append(cands, e)
			break
		}
		sortEvents(cands)
		if len(cands) > 0 {
			e := cands[0]
			r.ev, r.seqno = e, e.Attr(memcached.AttrRollbackSeqno)
			if e.Kind == mcRollback {
				r.node = e.Node
			} else if b := ix.beginOf(e); b != nil && r.node == "" {
				r.node = "ns_1@" + b.Attr(indexer.AttrKVHost)
			}
		}
		if r.ev != nil || r.promoted != nil {
			out = append(out, r)
		}
	}
	return out
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
