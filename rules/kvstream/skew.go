package kvstream

import (
	"fmt"
	"time"

	"forensics"
	"forensics/rules/evidence"
)

// skewMargin is what delays in logging explain on top of the resolution of
// the two times: the effect's process may stamp its line a little before the
// cause's process stamps its own, through scheduling and buffered loggers,
// without any clock being wrong. Only a gap beyond it is reported as skew.
const skewMargin = 2 * time.Millisecond

// causalPair is a cause logged on one node before the effect could happen,
// and the effect logged on another node after it happened. If the effect
// reads earlier, the clocks disagree by at least the gap.
type causalPair struct {
	cause, effect *forensics.Event
	// why says why the order is beyond doubt, for the basis.
	why string
}

// causalSkews estimates how far the restarted node's clock reads ahead of the
// index nodes', only from pairs whose order is causal beyond doubt:
//
//   - memcached logs a stream request's answer (rollback or accepted) as it
//     builds the response, before sending it; the indexer logs the stream
//     begin or the rollback after the projector forwarded that response;
//   - the projector on the node logs the end of its DCP connection (EOF
//     received, or its own StreamEnd) before it tells the indexers; the
//     indexer logs the StreamEnd after hearing it.
//
// ns_server's report of memcached's exit is not a cause: it is logged after
// the babysitter noticed the exit, later than the projector saw the
// connection drop, so it says nothing about clocks.
func (ix *events) causalSkews(node, bucket string, as []*answer, at time.Time) []forensics.Skew {
	var pairs []causalPair
	for _, a := range as {
		if a.side != "memcached" || a.peer == nil || a.peer.Node == "" || a.peer.Node == node {
			continue
		}
		pairs = append(pairs, causalPair{a.ev, a.peer, fmt.Sprintf("memcached logs its answer for vb %d before sending it; the indexer logs it after the projector forwarded it", a.vb)})
	}
	for _, closed := range ix.of(prClosed, prStreamEnd) {
		if closed.Node != node || (closed.Bucket != "" && closed.Bucket != bucket) || closed.Time.Sub(at).Abs() > pairWindow {
			continue
		}
		for _, end := range ix.by[ixStreamEnd] {
			if end.Node == "" || end.Node == node || end.Bucket != bucket || (closed.VB != forensics.NoVB && end.VB != closed.VB) ||
				end.Time.Sub(closed.Time).Abs() > pairWindow {
				continue
			}
			pairs = append(pairs, causalPair{closed, end, "the projector logs the end of its DCP stream before telling the indexers; the indexer logs the StreamEnd after hearing it"})
		}
	}
	// The largest gap per node is the tightest lower bound on the skew.
	best := map[string]forensics.Skew{}
	var order []string
	for _, p := range pairs {
		gap := p.cause.Time.Sub(p.effect.Time)
		if gap <= resolution(p.cause)+resolution(p.effect)+skewMargin {
			continue
		}
		behind := p.effect.Node
		if prev, ok := best[behind]; ok && prev.By >= gap {
			continue
		} else if !ok {
			order = append(order, behind)
		}
		ix.fill(p.cause)
		ix.fill(p.effect)
		cause, effect := quote(p.cause), quote(p.effect)
		best[behind] = forensics.Skew{
			Ahead: node, Behind: behind, By: gap,
			Basis: fmt.Sprintf("%s at %s (%s:%d) logged the cause %s after %s at %s (%s:%d) logged its effect; %s, so more than the %s that logging delays and the times' resolution explain is clock",
				node, evidence.Clock(p.cause.Time), p.cause.Path, p.cause.Line, dur(gap), behind, evidence.Clock(p.effect.Time), p.effect.Path, p.effect.Line,
				p.why, dur(resolution(p.cause)+resolution(p.effect)+skewMargin)),
			Cause: &cause, Effect: &effect,
		}
	}
	var out []forensics.Skew
	for _, n := range order {
		out = append(out, best[n])
	}
	return out
}

// resolution is how coarse a logged time is: a time on a whole millisecond
// was most likely logged to the millisecond and may be up to 1 ms early.
func resolution(e *forensics.Event) time.Duration {
	if e.Time.Nanosecond()%int(time.Millisecond) == 0 {
		return time.Millisecond
	}
	return time.Microsecond
}

func quote(e *forensics.Event) forensics.Evidence {
	return forensics.EvidenceOf(e, "")
}
