// Package clockoffset holds the rule crdb-clock-offset: a CockroachDB node
// that stopped itself because its clock was too far from the others'.
package clockoffset

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/crdb"
	"forensics/rules/evidence"
	"forensics/shell"
)

// The details of a finding's subject (Rule.Details).
var (
	offsetDetail    = forensics.Detail{Key: "offset", Type: forensics.DetailText, Doc: "the largest clock offset measured, as logged (612ms)"}
	maxOffsetDetail = forensics.Detail{Key: "max_offset", Type: forensics.DetailText, Doc: "the offset the node allowed, as logged (500ms)"}
)

// Rule flags a node that exited on a clock synchronization error.
var Rule = &forensics.Rule{
	Name: "crdb-clock-offset",
	Doc: forensics.Doc{
		Title: "a node stopped because its clock was too far from the other nodes'",
		Detects: `A node that logged "clock synchronization error: this node is more than X away from at least half of the known
nodes (H of K are within the offset)" and exited (log.Fatal), with the remote clock monitor's offset measurements
before it ("uncertain remote offset off=…, err=… for maximum tolerated offset …") and the peers it disagreed with.
One finding per node and exit, however many files repeat the line. Severity critical.
Not flagged: offset warnings that stay below the maximum and stop, with no clock synchronization error.`,
		Why: `CockroachDB's transactions rely on every clock being within --max-offset (500ms by default) of the others; a node
whose clock is further out could serve stale reads, so it stops itself when its offset to at least half of the nodes it
knows exceeds 80% of the maximum. The node stays down until its clock is fixed, its leases move, and if clocks keep
drifting the next node follows.`,
		Confirm: `On the node's host, check the time service: chronyc tracking (or ntpq -p, timedatectl). In the DB Console, the
Clock Offset graph (clock-offset.meannanos) of the other nodes shows the drift before the exit. Look in the node's
logs (cockroach.log, cockroach-health.log) for the lines named in the evidence.`,
		Inputs: `Node logs in any format (crdb-v1, crdb-v2, JSON), a debug zip's debug/nodes/N/logs, including the OPS and HEALTH
channel files (cockroach-health.log). The remote clock monitor's warnings are logged only from v22.2 (at verbosity 1
before); without them the finding says only what the fatal line says.`,
		Fixes: `Fix the clock source on the node's host (chrony or ntpd, pointed at the same servers as the other nodes; in VMs,
disable the hypervisor's time sync that steps the clock), check that it is in sync, then restart the node. Keep
--max-offset the same on every node; raise it only if your clocks are reliably within the new value.`,
	},
	Kinds:   []forensics.Kind{crdb.KindClockOffsetFatal, crdb.KindClockOffsetUncertain},
	Details: []forensics.Detail{offsetDetail, maxOffsetDetail},
	Run:     run,
}

const (
	// lookBack is how far before the exit the measurements that led to it
	// are read: the monitor measures every few seconds and forgets a peer's
	// offset after some heartbeats, so minutes cover the drift.
	lookBack = 10 * time.Minute
	// sameExit joins the fatal lines of one exit: the line is repeated in
	// cockroach.log, the OPS channel's file and stderr.
	sameExit = time.Minute
)

func run(pass *forensics.Pass) error {
	fatals, err := forensics.Collect(pass.Events(crdb.KindClockOffsetFatal))
	if err != nil {
		return fmt.Errorf("read clock synchronization errors: %w", err)
	}
	exits := group(fatals)
	if len(exits) == 0 {
		return nil
	}
	var anchors []forensics.Event
	for _, x := range exits {
		anchors = append(anchors, *x.fatal)
	}
	sort.SliceStable(anchors, func(i, j int) bool { return anchors[i].Time.Before(anchors[j].Time) })
	ms, err := forensics.Collect(pass.EventsNear(anchors, lookBack, time.Second, crdb.KindClockOffsetUncertain))
	if err != nil {
		return fmt.Errorf("read clock offset measurements: %w", err)
	}
	for _, x := range exits {
		pass.Report(x.finding(ms))
	}
	return nil
}

// exit is one node's clock synchronization error.
type exit struct {
	node  string
	fatal *forensics.Event   // the first line of the exit
	lines []*forensics.Event // every copy of it
}

// group joins the fatal lines of each node's exit.
func group(evs []forensics.Event) []*exit {
	var out []*exit
	last := map[string]*exit{}
	for i := range evs {
		e := &evs[i]
		if x := last[e.Node]; x != nil && e.Time.Sub(x.fatal.Time) <= sameExit {
			x.lines = append(x.lines, e)
			continue
		}
		x := &exit{node: e.Node, fatal: e, lines: []*forensics.Event{e}}
		last[e.Node] = x
		out = append(out, x)
	}
	return out
}

// measurement is one offset the monitor logged, seen from the exiting node.
type measurement struct {
	ev     *forensics.Event
	peer   string        // the other node
	offset time.Duration // the peer's clock minus this node's
	raw    string        // as logged
	mine   bool          // measured by the exiting node; false: by the peer, of this node
}

// measurements returns the offsets involving x's node in the window before
// its exit, in time order, once each.
func (x *exit) measurements(ms []forensics.Event) []measurement {
	var out []measurement
	seen := map[string]bool{}
	from := x.fatal.Time.Add(-lookBack)
	for i := range ms {
		e := &ms[i]
		if e.Time.Before(from) || e.Time.After(x.fatal.Time.Add(time.Second)) {
			continue
		}
		k := e.Node + "\x00" + e.Time.String() + "\x00" + e.Text
		if seen[k] {
			continue
		}
		off, err := time.ParseDuration(e.Attr(crdb.AttrOffset))
		if err != nil {
			continue
		}
		switch {
		case e.Node == x.node && e.Attr(crdb.AttrPeer) != "":
			out = append(out, measurement{ev: e, peer: e.Attr(crdb.AttrPeer), offset: off, raw: e.Attr(crdb.AttrOffset), mine: true})
		case e.Attr(crdb.AttrPeer) == x.node && e.Node != "":
			out = append(out, measurement{ev: e, peer: e.Node, offset: -off, raw: e.Attr(crdb.AttrOffset), mine: false})
		default:
			continue
		}
		seen[k] = true
	}
	return out
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func (x *exit) finding(all []forensics.Event) forensics.Finding {
	ms := x.measurements(all)
	max := x.fatal.Attr(crdb.AttrMaxOffset)
	var peers []string
	peerSeen := map[string]bool{}
	var largest *measurement
	for i := range ms {
		m := &ms[i]
		if !peerSeen[m.peer] {
			peerSeen[m.peer] = true
			peers = append(peers, m.peer)
		}
		if largest == nil || abs(m.offset) > abs(largest.offset) {
			largest = m
		}
	}
	sort.Strings(peers)
	offset := "more than " + max
	if largest != nil {
		offset = abs(largest.offset).String()
	}
	start := x.fatal.Time
	if len(ms) > 0 {
		start = ms[0].ev.Time
	}
	f := forensics.Finding{
		Severity: forensics.Critical,
		Title:    fmt.Sprintf("%s stopped: its clock was more than %s away from at least half of the known nodes", x.node, max),
		Subject:  forensics.FindingSubject{Node: x.node, Details: forensics.Details{offsetDetail.Text(offset), maxOffsetDetail.Text(max)}},
		Start:    start,
		End:      x.fatal.Time,
	}
	f.Explanation = x.explain(ms, peers, largest)
	f.Evidence = x.evidence(ms)
	f.Fixes = x.fixes(peers)
	return f
}

func (x *exit) explain(ms []measurement, peers []string, largest *measurement) string {
	var b strings.Builder
	max := x.fatal.Attr(crdb.AttrMaxOffset)
	if len(ms) > 0 {
		fmt.Fprintf(&b, "From %s the remote clock monitor logged offsets between %s and %s close to the limit of %s: ",
			evidence.Stamp(ms[0].ev.Time), x.node, strings.Join(peers, ", "), ms[0].ev.Attr(crdb.AttrMaxOffset))
		for i, m := range ms {
			if i == 6 {
				fmt.Fprintf(&b, "… (%d in all)", len(ms))
				break
			}
			if i > 0 {
				b.WriteString("; ")
			}
			who := x.node + " measured " + m.peer
			if !m.mine {
				who = m.peer + " measured " + x.node
			}
			fmt.Fprintf(&b, "at %s %s at %s", evidence.Clock(m.ev.Time), who, m.raw)
			if u := m.ev.Attr(crdb.AttrUncertainty); u != "" {
				fmt.Fprintf(&b, " (±%s)", u)
			}
		}
		fmt.Fprintf(&b, ". The largest was %s, between %s and %s. ", abs(largest.offset), x.node, largest.peer)
	} else {
		b.WriteString("No offset measurements were logged before the exit (the remote clock monitor warns only from v22.2, and only when a measurement is close to the limit). ")
	}
	fmt.Fprintf(&b, "At %s %s logged \"clock synchronization error\" and exited: its clock was more than %s away from at least half of the nodes it knew",
		evidence.Stamp(x.fatal.Time), x.node, max)
	if h, k := x.fatal.Attr(crdb.AttrHealthy), x.fatal.Attr(crdb.AttrKnown); h != "" && k != "" {
		fmt.Fprintf(&b, " (%s of %s were within the offset)", h, k)
	}
	b.WriteString(". A node stops itself when its offset to most peers exceeds 80% of --max-offset, to avoid serving stale reads; newer releases print that tolerated offset itself. ")
	if len(x.lines) > 1 {
		fmt.Fprintf(&b, "The error appears %d times (the same exit logged to several files). ", len(x.lines))
	}
	fmt.Fprintf(&b, "Until %s's clock is fixed and the node restarted, its replicas are down and its leases move to other nodes.", x.node)
	return b.String()
}

func (x *exit) evidence(ms []measurement) []forensics.Evidence {
	var out []forensics.Evidence
	add := func(e *forensics.Event, note string) {
		out = append(out, forensics.EvidenceOf(e, note))
	}
	// The first and the largest measurement of each pair and direction.
	type pair struct {
		peer string
		mine bool
	}
	first, largest := map[pair]*measurement{}, map[pair]*measurement{}
	var order []pair
	for i := range ms {
		m := &ms[i]
		p := pair{m.peer, m.mine}
		if first[p] == nil {
			first[p] = m
			order = append(order, p)
		}
		if largest[p] == nil || abs(m.offset) > abs(largest[p].offset) {
			largest[p] = m
		}
	}
	for _, p := range order {
		add(first[p].ev, x.measured(first[p]))
		if largest[p] != first[p] {
			add(largest[p].ev, x.measured(largest[p])+", the largest")
		}
	}
	for i, l := range x.lines {
		note := x.node + " exits: clock more than " + l.Attr(crdb.AttrMaxOffset) + " away from most nodes"
		if i > 0 {
			note = "the same exit, in another file"
		}
		add(l, note)
	}
	forensics.SortEvidence(out)
	return out
}

// measured says who measured whom, and the offset as logged.
func (x *exit) measured(m *measurement) string {
	if m.mine {
		return x.node + " measures " + m.peer + " at " + m.raw
	}
	return m.peer + " measures " + x.node + " at " + m.raw
}

func (x *exit) fixes(peers []string) []forensics.Fix {
	id := strings.TrimPrefix(x.node, "n")
	fixes := []forensics.Fix{
		{
			Title: "Fix the clock on " + x.node + "'s host",
			Steps: []string{
				"On the host of " + x.node + ", check that chrony (or ntpd) runs, is synchronised and uses the same time servers as the other nodes.",
				"In a VM, turn off the hypervisor's own time sync, which steps the clock; let chrony slew it.",
			},
			Commands: []string{"chronyc tracking", "chronyc sources -v", "timedatectl status"},
		},
		{
			Title: "Restart " + x.node + " once its clock is in sync, and check that it rejoins",
			Steps: []string{"Start the node with the same --max-offset as the other nodes; add your connection flags to the commands."},
			Commands: []string{
				shell.Cockroach("node", "status", id),
				shell.CockroachSQL("SELECT node_id, epoch, expiration, draining FROM crdb_internal.gossip_liveness WHERE node_id = " + id),
			},
		},
	}
	if len(peers) > 0 {
		fixes = append(fixes, forensics.Fix{
			Title: "Check the clocks of " + strings.Join(peers, ", ") + " too",
			Steps: []string{"An offset is a difference: if " + x.node + "'s clock was right, the drift is on the other side. Compare each host's offset to the time servers (chronyc tracking, \"System time\")."},
		})
	}
	return fixes
}
