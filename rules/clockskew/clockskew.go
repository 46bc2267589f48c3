// Package clockskew holds the rule cb-clock-skew: nodes whose clocks
// disagree, from ns_server's time-out-of-sync alert, its CAS drift alert,
// and what forensics measures from cause→effect pairs of lines across nodes.
package clockskew

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/indexer"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules/evidence"
	"forensics/shell"
)

const (
	nsTimeSync    = nsserver.TimeOutOfSync
	nsCASDrift    = nsserver.CASDrift
	mcRollback    = memcached.StreamRollback
	ixStreamBegin = indexer.StreamBegin
)

// The details of a finding's subject (Rule.Details).
var (
	skewDetail = forensics.Detail{Key: "skew", Type: forensics.DetailText, Doc: "at least this much, as a Go duration (3.2s)"}
)

// Rule flags clock skew between nodes.
var Rule = &forensics.Rule{
	Name: "cb-clock-skew",
	Doc: forensics.Doc{
		Title: "node clocks that disagree",
		Detects: "ns_server's alert \"The time on node '…' is not synchronized.\", the CAS drift alert \"Remote or " +
			"replica mutation received for bucket … on node … with timestamp more than N milliseconds ahead of " +
			"local clock\", and skew forensics measures itself from pairs of lines whose order is causal beyond " +
			"doubt: a DCP producer's rollback answer (memcached.log on the KV node: \"(vb:N) Stream request " +
			"requires rollback to seqno:R\") and the index node's \"TK StreamBegin … R … KVHOST:8091\" that can only " +
			"be written after the answer arrived. A pair counts when it is the only one of its vbucket, seqno and " +
			"hosts within ten minutes, and the effect is logged more than 500 ms before its cause in UTC: logging " +
			"and network delays only make an effect later, never earlier, so what remains is the clocks. One " +
			"finding per pair of nodes (measured) or per alerted node, quoting both lines of every pair it used. " +
			"Nodes that log in different UTC offsets are compared in UTC and are not flagged for that.",
		Why: "Couchbase's CAS values are hybrid logical clocks: a node whose clock runs ahead stamps mutations in " +
			"the future, which decides XDCR's last-write-wins conflict resolution and document expiry wrongly. " +
			"Skew also makes the logs of different nodes disagree on what happened first, which misleads every " +
			"reading of an incident across nodes.",
		Confirm: "Run `date -u` on every node at once, or compare the \"time and TZ\" sections of the nodes' " +
			"couchbase.log (collected within seconds of each other); check chrony or ntpd on each (chronyc " +
			"tracking). For a measured pair, read both quoted lines: the effect's UTC time is earlier than its " +
			"cause's.",
		Inputs: "diag.log or ns_server.info.log for the alerts; memcached.log of the KV nodes and " +
			"ns_server.indexer.log of the index nodes for measured pairs.",
		Fixes: "Run NTP (chrony or ntpd) against the same sources on every node, and check that it is synchronised; " +
			"after fixing a clock that ran ahead, know that CAS values already written stay ahead.",
	},
	Kinds:   []forensics.Kind{nsTimeSync, nsCASDrift, mcRollback, ixStreamBegin},
	Details: []forensics.Detail{skewDetail},
	Run:     run,
}

const (
	// slack is what logging can explain: both ends timestamp at the call,
	// with millisecond resolution on the indexer's side.
	slack = 500 * time.Millisecond
	// pairWindow bounds cause and effect, and the uniqueness check.
	pairWindow = 10 * time.Minute
	maxPairs   = 5
)

func run(p *forensics.Pass) error {
	alerts, err := forensics.Collect(p.Events(nsTimeSync, nsCASDrift))
	if err != nil {
		return err
	}
	for _, f := range alertFindings(evidence.Ptrs(alerts)) {
		p.Report(f)
	}
	causes, err := forensics.Collect(p.Events(mcRollback))
	if err != nil || len(causes) == 0 {
		return err
	}
	effects, err := forensics.Collect(p.EventsNear(causes, pairWindow, pairWindow, ixStreamBegin))
	if err != nil {
		return err
	}
	for _, f := range measured(evidence.Ptrs(causes), evidence.Ptrs(effects)) {
		p.Report(f)
	}
	return nil
}

// pair is a cause on one node and its effect on another.
type pair struct {
	cause, effect *forensics.Event
	by            time.Duration // how much earlier the effect is logged
}

func measured(causes, effects []*forensics.Event) []forensics.Finding {
	type key struct {
		host, bucket string
		vb           int
		seqno        string
	}
	ckey := func(e *forensics.Event) key {
		return key{nsserver.Host(e.Node), e.Bucket, e.VB, e.Attr(memcached.AttrRollbackSeqno)}
	}
	ekey := func(e *forensics.Event) key {
		return key{e.Attr(indexer.AttrKVHost), e.Bucket, e.VB, e.Attr(indexer.AttrSeqno)}
	}
	cs := map[key][]*forensics.Event{}
	for _, c := range causes {
		if c.Bucket != "" && c.VB >= 0 {
			cs[ckey(c)] = append(cs[ckey(c)], c)
		}
	}
	es := map[key][]*forensics.Event{}
	for _, e := range effects {
		es[ekey(e)] = append(es[ekey(e)], e)
	}
	type nodes struct{ ahead, behind string }
	pairs := map[nodes][]pair{}
	var order []nodes
	for k, list := range cs {
		for _, c := range list {
			if countNear(list, c.Time) != 1 {
				continue // another answer with the same seqno: which one caused it is in doubt
			}
			var match []*forensics.Event
			for _, e := range es[k] {
				if e.Node != c.Node && e.Node != "" && (e.Time.Sub(c.Time)).Abs() <= pairWindow {
					match = append(match, e)
				}
			}
			if len(match) != 1 {
				continue
			}
			e := match[0]
			by := c.Time.Sub(e.Time)
			if by <= slack {
				continue // in causal order, or within what logging explains
			}
			n := nodes{c.Node, e.Node}
			if _, ok := pairs[n]; !ok {
				order = append(order, n)
			}
			pairs[n] = append(pairs[n], pair{c, e, by})
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].ahead != order[j].ahead {
			return order[i].ahead < order[j].ahead
		}
		return order[i].behind < order[j].behind
	})
	var out []forensics.Finding
	for _, n := range order {
		ps := pairs[n]
		// The pairs that bound the skew best, then in time order.
		sort.Slice(ps, func(i, j int) bool {
			if ps[i].by != ps[j].by {
				return ps[i].by > ps[j].by
			}
			return before(ps[i].cause, ps[j].cause)
		})
		if len(ps) > maxPairs {
			ps = ps[:maxPairs]
		}
		skew := ps[0].by
		sort.Slice(ps, func(i, j int) bool { return before(ps[i].cause, ps[j].cause) })
		out = append(out, skewFinding(n.ahead, n.behind, skew, ps))
	}
	return out
}

// before is the timeline order: time, then source, then line.
func before(a, b *forensics.Event) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.Line < b.Line
}

func countNear(list []*forensics.Event, t time.Time) int {
	n := 0
	for _, e := range list {
		if (e.Time.Sub(t)).Abs() <= pairWindow {
			n++
		}
	}
	return n
}

func skewFinding(ahead, behind string, skew time.Duration, ps []pair) forensics.Finding {
	ev := evidence.Set{Copies: true}
	var basis []string
	for _, p := range ps {
		ev.Add(p.cause, fmt.Sprintf("cause: %s answers vb %d's stream request with a rollback to seqno %s", ahead, p.cause.VB, p.cause.Attr(memcached.AttrRollbackSeqno)))
		ev.Add(p.effect, fmt.Sprintf("effect: the indexer on %s starts vb %d's stream at that seqno from %s, logged %s before the answer it needs", behind, p.effect.VB, p.effect.Attr(indexer.AttrKVHost), dur(p.by)))
		// Base names: the display path depends on how the bundle was given (zip or folder).
		basis = append(basis, fmt.Sprintf("%s %s:%d before %s %s:%d", behind, path.Base(p.effect.Path), p.effect.Line, ahead, path.Base(p.cause.Path), p.cause.Line))
	}
	sev := forensics.Medium
	if skew >= time.Minute {
		sev = forensics.High
	}
	f := forensics.Finding{
		Severity: sev,
		Subject:  forensics.FindingSubject{Nodes: []string{ahead, behind}, Details: forensics.Details{skewDetail.Text(skew.Round(time.Millisecond).String())}},
		Evidence: ev.Sorted(),
		Skew:     []forensics.Skew{{Ahead: ahead, Behind: behind, By: skew, Basis: strings.Join(basis, "; ")}},
	}
	f.Start = f.Evidence[0].Time
	f.End = f.Evidence[len(f.Evidence)-1].Time
	f.Title = fmt.Sprintf("the clock of %s is at least %s ahead of %s's", ahead, dur(skew), behind)
	var b strings.Builder
	fmt.Fprintf(&b, "%d pair(s) of lines put an effect on %s before its cause on %s in UTC.", len(ps), behind, ahead)
	for _, p := range ps {
		fmt.Fprintf(&b, " At %s (by its clock) memcached on %s told a consumer of %s to roll vb %d back to seqno %s; the indexer on %s logged the stream beginning at that seqno from %s at %s by its clock, %s earlier.",
			evidence.Clock(p.cause.Time), ahead, p.cause.Bucket, p.cause.VB, p.cause.Attr(memcached.AttrRollbackSeqno), behind, p.effect.Attr(indexer.AttrKVHost), evidence.Clock(p.effect.Time), dur(p.by))
	}
	paras := []string{b.String(),
		fmt.Sprintf("The indexer can begin a stream at a rollback seqno only after the producer computed it and the answer travelled back through the projector, so logging and network delays can only make the effect later. An effect earlier by more than %s means %s's clock reads later than %s's by at least %s (each pair is the only one of its vbucket, seqno and hosts within %s).",
			dur(slack), ahead, behind, dur(skew), pairWindow),
		"Read the nodes' other logs with that in mind: across these two nodes, order by the causes, not by the timestamps."}
	f.Explanation = strings.Join(paras, "\n\n")
	f.Fixes = ntpFix([]string{ahead, behind})
	return f
}

func alertFindings(alerts []*forensics.Event) []forensics.Finding {
	key := func(e *forensics.Event) string {
		return string(e.Kind) + "|" + e.Attr(nsserver.AttrAlertNode) + "|" + e.Attr(nsserver.AttrAlertHost) + "|" + e.Bucket
	}
	alerts = evidence.Dedupe(alerts, time.Hour, key)
	byNode := map[string][]*forensics.Event{}
	var order []string
	for _, a := range alerts {
		n := a.Attr(nsserver.AttrAlertNode)
		if n == "" {
			n = nsserver.NodeName(a.Attr(nsserver.AttrAlertHost))
		}
		if _, ok := byNode[n]; !ok {
			order = append(order, n)
		}
		byNode[n] = append(byNode[n], a)
	}
	sort.Strings(order)
	var out []forensics.Finding
	for _, n := range order {
		as := byNode[n]
		ev := evidence.Set{Copies: true}
		var paras []string
		var skew time.Duration
		var buckets []string
		for _, a := range as {
			switch a.Kind {
			case nsTimeSync:
				ev.Add(a, "ns_server: the node's clock is not synchronised with the cluster's")
				paras = append(paras, fmt.Sprintf("On %s at %s (UTC) ns_server on %s alerted that the time on %s is not synchronised: its clock differs from the others by more than ns_server tolerates.",
					evidence.Day(a.Time), evidence.Clock(a.Time), a.Node, n))
			case nsCASDrift:
				var ms int
				fmt.Sscan(a.Attr(nsserver.AttrThresholdMS), &ms)
				if d := time.Duration(ms) * time.Millisecond; d > skew {
					skew = d
				}
				buckets = append(buckets, a.Bucket)
				ev.Add(a, fmt.Sprintf("ns_server: %s receives mutations of %s stamped more than %s ms ahead of its clock", n, a.Bucket, a.Attr(nsserver.AttrThresholdMS)))
				paras = append(paras, fmt.Sprintf("On %s at %s (UTC) ns_server alerted that %s received replica or remote (XDCR) mutations of bucket %s with CAS timestamps more than %s ms ahead of its own clock: the clock of a node that wrote them runs ahead of %s's by more than that, or %s's runs behind.",
					evidence.Day(a.Time), evidence.Clock(a.Time), n, a.Bucket, a.Attr(nsserver.AttrThresholdMS), n, n))
			}
		}
		f := forensics.Finding{
			Severity: forensics.Medium,
			Subject:  forensics.FindingSubject{Node: n, Nodes: []string{n}},
			Evidence: ev.Sorted(),
		}
		if skew > 0 {
			f.Subject.Details.Set(skewDetail.Text(skew.String()))
		}
		if len(buckets) == 1 {
			f.Subject.Bucket = buckets[0]
		}
		f.Start = f.Evidence[0].Time
		f.End = f.Evidence[len(f.Evidence)-1].Time
		f.Title = "ns_server reports the clock of " + n + " out of sync"
		f.Explanation = strings.Join(paras, "\n\n")
		f.Fixes = ntpFix([]string{n})
		out = append(out, f)
	}
	return out
}

func ntpFix(nodes []string) []forensics.Fix {
	var cmds []string
	for _, n := range nodes {
		h := names.HostOr(nsserver.Host(n))
		cmds = append(cmds, "ssh "+shell.Quote(h)+" "+shell.Quote("date -u; chronyc tracking || ntpq -p"))
	}
	return []forensics.Fix{{
		Title: "Synchronise the clocks of " + strings.Join(nodes, " and ") + " with NTP",
		Steps: []string{
			"Run chrony or ntpd on every node against the same time sources, and check that each is synchronised (chronyc tracking: small System time offset; ntpq -p: a selected peer).",
			"A clock that ran ahead has already stamped CAS values in the future; they stay so after the fix, which matters to XDCR's conflict resolution.",
		},
		Commands: cmds,
	}}
}

func dur(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
