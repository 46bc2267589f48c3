package kvstream

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/indexer"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules/evidence"
)

// analyze finds, for each of the restarts rs, every bucket the node
// answered stream requests for before traffic was enabled, and builds its
// finding. The fixes wait for every node of the cluster to be known
// (pending.finish).
func (ix *events) analyze(rs []*restart) []pending {
	var out []pending
	for _, r := range rs {
		for _, b := range ix.bucketsServed(r) {
			if f, ok := ix.incident(r, b); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// pending is a finding whose fixes are still to be written.
type pending struct {
	forensics.Finding
	node, bucket, warmup, version string
	consumers                     []string
	critical                      bool
}

// finish writes the fixes, naming nodes, sorted, for commands to run
// against another node of the cluster.
func (p pending) finish(nodes []string) forensics.Finding {
	other := p.node
	for _, n := range nodes {
		if n != p.node {
			other = n
			break
		}
	}
	f := p.Finding
	f.Fixes = fixes(p.node, p.bucket, p.consumers, other, p.warmup, p.critical, p.version)
	return f
}

// bucketsServed returns the buckets for which the node answered stream
// requests after the restart, sorted.
func (ix *events) bucketsServed(r *restart) []string {
	seen := map[string]bool{}
	h := nsserver.Host(r.node)
	for _, e := range span(ix.of(mcCreated, mcRollback, prRollback, prResponse, ixStreamBegin), r.at, r.next) {
		if e.Bucket == "" || !r.within(e.Time) {
			continue
		}
		switch e.Kind {
		case ixStreamBegin:
			if e.Attr(indexer.AttrKVHost) != h {
				continue
			}
		default:
			if e.Node != r.node {
				continue
			}
		}
		seen[e.Bucket] = true
	}
	var out []string
	for b := range seen {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}

// incident builds the finding for one restart and bucket, if the node
// answered stream requests before traffic was enabled.
func (ix *events) incident(r *restart, bucket string) (pending, bool) {
	node := r.node
	closer := ix.closer(node, bucket, r.at, r.next)
	limit := r.next
	if closer != nil {
		limit = closer.Time
	}
	fo := ix.failoverOf(node, r.at, limit)
	end := limit
	if fo != nil {
		end = fo.at()
	}
	as := ix.answers(node, bucket, r.at, end)
	if len(as) == 0 {
		return pending{}, false
	}

	var vbs []int
	vbSeen := map[int]bool{}
	consumerSeen := map[string]bool{}
	var consumers []string
	for _, a := range as {
		if !vbSeen[a.vb] {
			vbSeen[a.vb] = true
			vbs = append(vbs, a.vb)
		}
		if a.consumer != "" && !consumerSeen[a.consumer] {
			consumerSeen[a.consumer] = true
			consumers = append(consumers, a.consumer)
		}
	}
	sort.Ints(vbs)
	sort.Strings(consumers)

	var again []*rerollback
	if fo != nil {
		again = ix.aftermath(node, bucket, vbs, fo.start.Time)
	}

	ev := &quoted{Set: evidence.Set{Copies: true}, fill: ix.fill}
	exit := ix.exitLine(r)
	ev.Add(exit, exitNote(exit))
	for _, s := range r.signals {
		if s.Kind == mcStart {
			ev.Add(s, "memcached started again without a graceful shutdown or log close before it: the old process was killed")
			break
		}
	}
	streamEnd := ix.streamEnd(r, bucket)
	if streamEnd != nil {
		ev.Add(streamEnd, fmt.Sprintf("the indexer lost vb %d's stream when memcached died", streamEnd.VB))
	}
	entries := ix.warmupEntries(node, bucket, r.at, end)
	if len(entries) > 0 {
		ev.Add(entries[0], fmt.Sprintf("warmup: %d vbucket(s) of %s got a new failover-log branch (%s)", len(entries), bucket, entries[0].Attr(memcached.AttrReason)))
	}
	for _, k := range []forensics.Kind{mcWarmupUnblock, mcWarmupComplete, mcWarmupEnough} {
		if e := ix.first(k, node, bucket, r.at, end); e != nil {
			ev.Add(e, warmupNote(k))
		}
	}
	if e := ix.notReady(node, bucket, r.at, end); e != nil {
		ev.Add(e, "ns_server's janitor: the bucket is not yet ready on the node")
	}
	shown := 0
	for _, a := range as {
		if shown >= maxServedEvidence {
			break
		}
		ev.Add(a.ev, answerNote(a))
		shown++
		if a.peer != nil && shown <= 3 && a.peer.Kind == ixRollback {
			ev.Add(a.peer, fmt.Sprintf("the consumer acts on it: the indexer rolls vb %d back to %s", a.vb, a.peer.Attr(indexer.AttrRollbackSeqno)))
		}
	}
	if closer != nil {
		ev.Add(closer, closerNote(closer))
	}
	if fo != nil {
		ev.Add(fo.start, "failover of the node starts before traffic was enabled on it")
		if fo.done != nil && fo.done != fo.start {
			ev.Add(fo.done, "failover completed")
		}
	}
	promoted, rolled := 0, 0
	for _, g := range again {
		// One takeover line shows the promotion; the explanation counts the rest.
		if g.promoted != nil && promoted == 0 {
			ev.Add(g.promoted, fmt.Sprintf("%s takes over vb %d (replica to active)", g.promoted.Node, g.vb))
			promoted++
		}
		if g.ev != nil && rolled < maxPerVBEvidence {
			ev.Add(g.ev, fmt.Sprintf("second rollback for vb %d, to seqno %s, on %s", g.vb, g.seqno, cmp.Or(g.node, "another node")))
			rolled++
		}
	}
	skews := ix.causalSkews(node, bucket, as, r.at)

	f := forensics.Finding{
		Severity: forensics.High,
		Subject: forensics.FindingSubject{
			Node: node, Bucket: bucket, VBuckets: vbs, Details: forensics.Details{consumersDetail.List(consumers)},
		},
		Start: r.at,
		Skew:  skews,
	}
	critical := fo != nil
	if critical {
		f.Severity = forensics.Critical
	}
	f.Title = title(node, bucket, len(vbs), closer, critical)
	f.Evidence = ev.Sorted()
	f.End = f.Evidence[len(f.Evidence)-1].Time
	if f.End.Before(f.Start) {
		f.End = f.Start
	}
	f.Explanation = explain(r, exit, bucket, entries, as, vbs, consumers, closer, fo, again)
	version := ""
	for _, s := range r.signals {
		if s.Kind == mcStart {
			version = s.Attr(memcached.AttrVersion)
		}
	}
	return pending{Finding: f, node: node, bucket: bucket, warmup: ix.warmupTook(node, bucket), version: version,
		consumers: consumers, critical: critical}, true
}

// exitLine picks the line that tells best that memcached died: ns_server's
// own log on the node, then the babysitter, then diag.log or the event log
// copies, then memcached's new start.
func (ix *events) exitLine(r *restart) *forensics.Event {
	rank := func(e *forensics.Event) int {
		switch {
		case e.Kind == nsExited && e.Attr(nsserver.AttrVia) == "":
			return 0
		case e.Kind == nsPortExited:
			return 1
		case e.Kind == nsExited && e.Attr(nsserver.AttrVia) == "diag":
			return 2
		case e.Kind == nsExited:
			return 3
		}
		return 4
	}
	var best *forensics.Event
	for _, s := range r.signals {
		if best == nil || rank(s) < rank(best) || rank(s) == rank(best) && forensics.Before(s, best) {
			best = s
		}
	}
	return best
}

func exitNote(e *forensics.Event) string {
	st := e.Attr(nsserver.AttrStatus)
	switch {
	case e.Kind == mcStart:
		return "memcached started again without a graceful shutdown or log close before it: the old process was killed"
	case st != "":
		return "memcached exited with status " + st + " and is restarted"
	}
	return "memcached exited and is restarted"
}

// streamEnd returns the first indexer stream end for the bucket around the
// restart: the consumer noticing it.
func (ix *events) streamEnd(r *restart, bucket string) *forensics.Event {
	for _, e := range span(ix.by[ixStreamEnd], r.at.Add(-pairWindow), r.at.Add(pairWindow+1)) {
		if e.Bucket == bucket && e.Time.Sub(r.at).Abs() <= pairWindow {
			return e
		}
	}
	return nil
}

func (ix *events) warmupEntries(node, bucket string, from, to time.Time) []*forensics.Event {
	var out []*forensics.Event
	for _, e := range span(ix.by[mcFailoverEntry], from, to) {
		if e.Node == node && e.Bucket == bucket && !e.Time.Before(from) && (to.IsZero() || e.Time.Before(to)) &&
			strings.Contains(e.Attr(memcached.AttrOrigin)+" "+e.Text, "Warmup::") {
			out = append(out, e)
		}
	}
	return out
}

// first returns the first event of kind on node for bucket in [from, to).
func (ix *events) first(k forensics.Kind, node, bucket string, from, to time.Time) *forensics.Event {
	for _, e := range span(ix.by[k], from, to) {
		if e.Node == node && (e.Bucket == bucket || e.Bucket == "") && !e.Time.Before(from) && (to.IsZero() || e.Time.Before(to)) {
			return e
		}
	}
	return nil
}

func (ix *events) notReady(node, bucket string, from, to time.Time) *forensics.Event {
	for _, e := range span(ix.by[nsNotReady], from, to) {
		if e.Bucket == bucket && nsserver.HasNode(e.Attr(nsserver.AttrNodes), node) && !e.Time.Before(from) && (to.IsZero() || e.Time.Before(to)) {
			return e
		}
	}
	return nil
}

func warmupNote(k forensics.Kind) string {
	switch k {
	case mcWarmupUnblock:
		return "warmup created the vbuckets and released clients that were waiting: stream requests can be served from here"
	case mcWarmupComplete:
		return "warmup finished loading; traffic is still not enabled"
	}
	return "warmup loaded enough to stop; traffic is still not enabled"
}

func answerNote(a *answer) string {
	who := map[string]string{"memcached": "the node", "projector": "the node's projector sees: the node", "indexer": "the indexer sees: the node"}[a.side]
	if a.rollback {
		return fmt.Sprintf("%s answers vb %d's stream request with a rollback to seqno %s before traffic is enabled", who, a.vb, a.seqno)
	}
	return fmt.Sprintf("%s accepts vb %d's stream request (from seqno %s) before traffic is enabled", who, a.vb, a.seqno)
}

func closerNote(e *forensics.Event) string {
	switch e.Kind {
	case nsReady:
		return "ns_server learns the bucket became ready on the node (traffic enabled)"
	case nsEnabling:
		return "ns_server enables traffic on the bucket on the node"
	case nsOnline:
		return "event log: the bucket is online on the node (traffic enabled)"
	}
	return "traffic enabled on the bucket on the node"
}

// warmupTook returns how long the bucket's warmup to traffic took on the
// node when the logs show one ("Bucket … marked as warmed in N seconds").
func (ix *events) warmupTook(node, bucket string) string {
	ix.build()
	if n, ok := ix.warmed[warmKey(node, bucket)]; ok {
		return itoa(n)
	}
	return ""
}

// quoted is the finding's evidence set; events read without their text
// get it back before they are quoted.
type quoted struct {
	evidence.Set
	fill func(*forensics.Event)
}

func (q *quoted) Add(e *forensics.Event, note string) bool {
	if e == nil {
		return false
	}
	q.fill(e)
	return q.Set.Add(e, note)
}
