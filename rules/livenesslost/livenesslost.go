// Package livenesslost holds the rule crdb-liveness-lost: a CockroachDB node
// that kept failing its liveness heartbeats.
package livenesslost

import (
	"fmt"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/crdb"
	"forensics/rules/evidence"
	"forensics/shell"
)

// The details of a finding's subject (Rule.Details).
var (
	windowDetail = forensics.Detail{Key: "window", Type: forensics.DetailText, Doc: "the failures' start and end, RFC 3339 (start/end)"}
)

// Rule flags a node that lost its liveness.
var Rule = &forensics.Rule{
	Name: "crdb-liveness-lost",
	Doc: forensics.Doc{
		Title: "a node kept failing its liveness heartbeats and lost its leases",
		Detects: `A node that failed its node liveness heartbeat again and again ("failed node liveness heartbeat: …", "slow
heartbeat took …; err=…" with an error): at least 3 failures with at most a minute between them, or fewer when another
node then incremented its liveness epoch ("incremented nN liveness epoch to E"), which ends its epoch-based leases. The
finding gives the count, the window, and the cause when the logs give it: the node's disk (disk slowness or stall
lines of the same node), the network (connection errors in the heartbeat errors), or overload (time-outs with neither).
One finding per node and window. Severity high.
Not flagged: one or two failures, or slow heartbeats that succeed, with no epoch increment of the node.`,
		Why: `A node holds its ranges' leases only while its liveness record is fresh (about 9s). When its heartbeats fail,
its record expires, another node increments its epoch, and every epoch lease it held moves: the ranges it led stall
for seconds, and if the node keeps failing, it keeps losing them. The heartbeat writes to the liveness range through
Raft and syncs the node's disks, so a slow disk, a network partition or an overloaded node all show up here first.`,
		Confirm: `In the DB Console, the node's liveness heartbeat latency and liveness.heartbeatfailures, and the epoch in
crdb_internal.gossip_liveness. Check whether the node's disks were slow (cockroach-pebble.log), whether other nodes
could reach it (rpc and "unable to connect" lines), and its CPU.`,
		Inputs: `Node logs in any format, or a debug zip's debug/nodes/N/logs (the heartbeat lines are in the main cockroach.log;
disk warnings in cockroach-pebble.log or cockroach-storage.log; epoch increments in other nodes' logs).`,
		Fixes: `Fix the cause the finding names: the node's disk, the network between it and the liveness range's replicas, or the
overload (CPU, admission control, too many ranges per node). Check the epoch afterwards: it must stop rising.`,
	},
	Kinds: []forensics.Kind{
		crdb.KindHeartbeatFailed, crdb.KindHeartbeatSlow, crdb.KindEpochIncremented,
		crdb.KindDiskStall, crdb.KindDiskSlow,
	},
	Details: []forensics.Detail{windowDetail},
	Run:     run,
}

const (
	// minFailures is how many failed heartbeats make a loss without an
	// epoch increment to confirm it. The node heartbeats every 4.5s and a
	// record lives 9s, so three failures in a row leave it expired.
	minFailures = 3
	// maxGap is the longest pause between failures of one window.
	maxGap = time.Minute
	// causeMargin is how far around the window disk lines count as its cause.
	causeMargin = time.Minute
)

func run(pass *forensics.Pass) error {
	hb, err := forensics.Collect(pass.Events(crdb.KindHeartbeatFailed, crdb.KindHeartbeatSlow, crdb.KindEpochIncremented))
	if err != nil {
		return fmt.Errorf("read liveness heartbeats: %w", err)
	}
	ws := windows(forensics.Distinct(hb))
	if len(ws) == 0 {
		return nil
	}
	var anchors []forensics.Event
	for _, w := range ws {
		anchors = append(anchors, *w.failures[0])
	}
	disk, err := forensics.Collect(pass.EventsNear(anchors, causeMargin, windowSpan(ws)+causeMargin, crdb.KindDiskStall, crdb.KindDiskSlow))
	if err != nil {
		return fmt.Errorf("read disk warnings: %w", err)
	}
	disk = forensics.Distinct(disk)
	for _, w := range ws {
		pass.Report(w.finding(disk))
	}
	return nil
}

// windowSpan is the longest window, so that one read covers each.
func windowSpan(ws []*window) time.Duration {
	var max time.Duration
	for _, w := range ws {
		if d := w.end().Sub(w.start()); d > max {
			max = d
		}
	}
	return max
}

// failed tells whether a heartbeat line is a failure: a failed heartbeat,
// or a slow one that ended in an error.
func failed(e *forensics.Event) bool {
	switch e.Kind {
	case crdb.KindHeartbeatFailed:
		return true
	case crdb.KindHeartbeatSlow:
		err := e.Attr(crdb.AttrError)
		return err != "" && err != "<nil>"
	}
	return false
}

// sameHeartbeat tells whether a failed heartbeat line repeats the slow
// heartbeat line before it: heartbeatInternal logs "slow heartbeat took …;
// err=…" as it returns and the loop logs "failed node liveness heartbeat: …"
// right after, for the same attempt.
func sameHeartbeat(prev, e *forensics.Event) bool {
	return prev.Kind == crdb.KindHeartbeatSlow && e.Kind == crdb.KindHeartbeatFailed &&
		prev.Node == e.Node && e.Time.Sub(prev.Time) < time.Second
}

// window is one node's run of failed heartbeats.
type window struct {
	node     string
	failures []*forensics.Event
	slow     []*forensics.Event // slow heartbeats that succeeded, inside the window
	epochs   []*forensics.Event // other nodes incrementing its epoch
}

func (w *window) start() time.Time { return w.failures[0].Time }
func (w *window) end() time.Time {
	end := w.failures[len(w.failures)-1].Time
	if n := len(w.epochs); n > 0 && w.epochs[n-1].Time.After(end) {
		end = w.epochs[n-1].Time
	}
	return end
}

func (w *window) flagged() bool {
	return len(w.failures) >= minFailures || len(w.epochs) > 0
}

// windows groups each node's failures and finds the epoch increments that
// followed them; it returns the flagged windows in time order.
func windows(evs []forensics.Event) []*window {
	var all []*window
	open := map[string]*window{}
	for i := range evs {
		e := &evs[i]
		switch {
		case failed(e):
			w := open[e.Node]
			if w == nil || e.Time.Sub(w.failures[len(w.failures)-1].Time) > maxGap {
				w = &window{node: e.Node}
				open[e.Node] = w
				all = append(all, w)
			}
			if n := len(w.failures); n > 0 && sameHeartbeat(w.failures[n-1], e) {
				w.failures[n-1] = e
				continue
			}
			w.failures = append(w.failures, e)
		case e.Kind == crdb.KindHeartbeatSlow:
			if w := open[e.Node]; w != nil && e.Time.Sub(w.failures[len(w.failures)-1].Time) <= maxGap {
				w.slow = append(w.slow, e)
			}
		case e.Kind == crdb.KindEpochIncremented:
			if w := open[e.Attr(crdb.AttrTarget)]; w != nil && e.Time.Sub(w.failures[len(w.failures)-1].Time) <= maxGap {
				w.epochs = append(w.epochs, e)
			}
		}
	}
	var out []*window
	for _, w := range all {
		if w.flagged() {
			out = append(out, w)
		}
	}
	return out
}

// cause is what the logs say made the heartbeats fail.
type cause struct {
	kind  string // "disk", "network", "overload"
	words string
	ev    *forensics.Event // the line that shows it, if not a heartbeat's
}

// networkWords are the texts gRPC and the dialer put in errors when a peer
// cannot be reached.
var networkWords = []string{
	"connection refused", "connection reset", "no route to host", "i/o timeout", "network is unreachable",
	"unable to connect", "failed to connect", "code = Unavailable", "dial tcp", "initial connection heartbeat failed",
}

func (w *window) cause(disk []forensics.Event) cause {
	from, to := w.start().Add(-causeMargin), w.end().Add(causeMargin)
	// A stall says more than the slowness warnings before it.
	var pick *forensics.Event
	for i := range disk {
		e := &disk[i]
		if e.Node == w.node && !e.Time.Before(from) && !e.Time.After(to) && (pick == nil || pick.Kind != crdb.KindDiskStall && e.Kind == crdb.KindDiskStall) {
			pick = e
		}
	}
	if e := pick; e != nil {
		what := "disk slowness"
		if e.Kind == crdb.KindDiskStall {
			what = "a disk stall"
		}
		where := e.Attr(crdb.AttrPath)
		if where == "" {
			where = e.Attr(crdb.AttrStore)
		}
		return cause{kind: "disk", words: fmt.Sprintf("%s on %s (%s at %s)", what, where, e.Attr(crdb.AttrDuration), evidence.Clock(e.Time)), ev: e}
	}
	for _, f := range w.failures {
		err := f.Attr(crdb.AttrError)
		for _, nw := range networkWords {
			if strings.Contains(err, nw) {
				return cause{kind: "network", words: "the heartbeat could not reach the liveness range (" + nw + ")", ev: f}
			}
		}
	}
	return cause{kind: "overload", words: "the heartbeats timed out with no disk or network error logged, which points at an overloaded node (CPU, goroutine or admission queues) or a slow liveness range"}
}

// windowTime is RFC 3339 with the microseconds the logs have, always printed.
const windowTime = "2006-01-02T15:04:05.000000Z07:00"

func (w *window) finding(disk []forensics.Event) forensics.Finding {
	c := w.cause(disk)
	f := forensics.Finding{
		Severity: forensics.High,
		Title: fmt.Sprintf("%s failed %d liveness heartbeats in %s (cause: %s)",
			w.node, len(w.failures), evidence.Round(w.end().Sub(w.start())), c.kind),
		Subject: forensics.FindingSubject{
			Node:    w.node,
			Details: forensics.Details{windowDetail.Text(w.start().UTC().Format(windowTime) + "/" + w.end().UTC().Format(windowTime))},
		},
		Start: w.start(),
		End:   w.end(),
	}
	f.Explanation = w.explain(c)
	f.Evidence = w.evidence(c)
	f.Fixes = w.fixes(c)
	return f
}

func (w *window) explain(c cause) string {
	var b strings.Builder
	first := w.failures[0]
	fmt.Fprintf(&b, "From %s to %s %s failed its node liveness heartbeat %d times", evidence.Stamp(w.start()), evidence.Clock(w.failures[len(w.failures)-1].Time), w.node, len(w.failures))
	fmt.Fprintf(&b, "; the first: %s", words(first))
	if len(w.slow) > 0 {
		fmt.Fprintf(&b, "; %d more heartbeats succeeded but took over a second", len(w.slow))
	}
	b.WriteString(". ")
	if len(w.epochs) > 0 {
		e := w.epochs[0]
		fmt.Fprintf(&b, "At %s %s incremented %s's liveness epoch to %s: the epoch leases %s held ended, and its ranges moved their leases to other nodes after a few seconds without a leaseholder. ",
			evidence.Clock(e.Time), e.Node, w.node, e.Attr(crdb.AttrEpoch), w.node)
		if len(w.epochs) > 1 {
			fmt.Fprintf(&b, "The epoch was incremented %d times in the window. ", len(w.epochs))
		}
	} else {
		fmt.Fprintf(&b, "No epoch increment for %s is in these logs (the other nodes' logs would have it), but with %d failures in a row its liveness record expired and its leases were at risk. ", w.node, len(w.failures))
	}
	fmt.Fprintf(&b, "Cause: %s.", c.words)
	return b.String()
}

func words(e *forensics.Event) string {
	if e.Kind == crdb.KindHeartbeatSlow {
		return "took " + e.Attr(crdb.AttrDuration) + " and failed with " + e.Attr(crdb.AttrError)
	}
	return e.Attr(crdb.AttrError)
}

func (w *window) evidence(c cause) []forensics.Evidence {
	var quoted evidence.Set
	add := quoted.Add
	n := len(w.failures)
	add(w.failures[0], fmt.Sprintf("first failed heartbeat (1 of %d)", n))
	if n > 2 {
		add(w.failures[n/2], fmt.Sprintf("failed heartbeat %d of %d", n/2+1, n))
	}
	if n > 1 {
		add(w.failures[n-1], fmt.Sprintf("last failed heartbeat (%d of %d)", n, n))
	}
	for _, e := range w.epochs {
		add(e, e.Node+" increments "+w.node+"'s epoch to "+e.Attr(crdb.AttrEpoch))
	}
	if c.ev != nil {
		add(c.ev, "the cause: "+c.kind)
	}
	return quoted.Sorted()
}

func (w *window) fixes(c cause) []forensics.Fix {
	id := strings.TrimPrefix(w.node, "n")
	var first forensics.Fix
	switch c.kind {
	case "disk":
		first = forensics.Fix{
			Title:    "Fix " + w.node + "'s disk",
			Steps:    []string{"The heartbeat syncs the node's disks before it writes; a slow disk fails it. Check the device for errors and the volume for throttling (crdb-disk-stall has the details when the disk stalled)."},
			Commands: []string{"dmesg -T", "iostat -x 1 10"},
		}
	case "network":
		first = forensics.Fix{
			Title: "Fix the network between " + w.node + " and the other nodes",
			Steps: []string{"Check that " + w.node + " reaches every other node on the RPC port, in both directions (firewalls, security groups, MTU, DNS of --advertise-addr)."},
		}
	default:
		first = forensics.Fix{
			Title: "Find what overloads " + w.node,
			Steps: []string{
				"Look at the node's CPU, runnable goroutines and admission control queues at the time of the failures, and at the liveness range's leaseholder.",
				"Spread the load (more nodes, fewer replicas per node) or reduce the workload on " + w.node + ".",
			},
		}
	}
	return []forensics.Fix{
		first,
		{
			Title: "Check that " + w.node + "'s liveness epoch stops rising",
			Steps: []string{"Add your connection flags to the commands."},
			Commands: []string{
				shell.CockroachSQL("SELECT node_id, epoch, expiration, draining FROM crdb_internal.gossip_liveness WHERE node_id = " + id),
				shell.Cockroach("node", "status", id),
			},
		},
	}
}
