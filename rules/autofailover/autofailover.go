// Package autofailover holds the rule cb-auto-failover: a node that
// ns_server failed over automatically, with the reason it gave and what the
// node's own logs show just before; and auto-failovers ns_server refused.
package autofailover

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/parsers/oslog"
	"forensics/rules/evidence"
	"forensics/shell"
)

const (
	nsAutoFailover = nsserver.AutoFailover
	nsRefused      = nsserver.AutoFailoverRefused
	nsExited       = nsserver.ServiceExited
	nsNotReady     = nsserver.BucketNotReady
	nsWarmed       = nsserver.BucketWarmed
	nsWriteCommit  = nsserver.WriteCommitFailed
	nsDiskAlert    = nsserver.DiskAlert
	mcStart        = memcached.Start
	mcTraffic      = memcached.TrafficEnabled
	mcWarmupDone   = memcached.WarmupComplete
	mcWriteFailed  = memcached.WriteFailed
	oomKill        = oslog.OOMKill
	nsFailoverEnd  = nsserver.FailoverEnd
)

// Rule flags automatic failovers, done or refused.
var Rule = &forensics.Rule{
	Name: "cb-auto-failover",
	Doc: forensics.Doc{
		Title: "a node failed over automatically, or an auto-failover refused",
		Detects: "ns_server's auto-failover failed a node over (\"Node ('ns_1@…') was automatically failed over. " +
			"Reason: …\", logged by the orchestrator in ns_server.info.log and diag.log). One finding per node and " +
			"failover, with the reason ns_server gives and what the node's own logs show in the minutes before it: " +
			"memcached exits and restarts, a warmup still running (no traffic enabled since memcached started), " +
			"buckets not ready, disk write failures, an OOM kill. Severity high. An auto-failover that ns_server " +
			"refused (\"Could not auto-failover node (…). There was at least another node down.\", the maximum " +
			"count reached, too few nodes left, unsafe for a service) is a finding of severity medium with its " +
			"reason. Manual (hard) and graceful failovers are not flagged.",
		Why: "An auto-failover drops the node's active vbuckets and promotes replicas elsewhere: the cluster runs " +
			"with fewer copies until a rebalance, consumers (indexes, XDCR) may roll back, and writes not yet " +
			"replicated are lost. Failing over a node that was only warming up after a restart throws away data " +
			"that was on its way back. A refused auto-failover leaves a node down with no one acting on it.",
		Confirm: "In the orchestrator's ns_server.info.log or any node's diag.log find \"was automatically failed " +
			"over\" and its Reason; on the failed node, memcached.log and ns_server.babysitter.log show what its " +
			"data service did before (\"Couchbase version … starting.\", \"Service 'memcached' exited\", warmup " +
			"lines without \"enableTraffic() result true\"). Try: forensics timeline query --kind " +
			"nsserver.autofailover --kind nsserver.autofailover_refused.",
		Inputs: "diag.log or ns_server.info.log of the orchestrator (any node's diag.log has the entry); the failed " +
			"node's memcached.log, ns_server.info.log, ns_server.babysitter.log and couchbase.log for what came before.",
		Fixes: "Find why the node stopped answering (the reason, then the node's own logs) and fix that; recover " +
			"the node (delta recovery when its data is intact) and rebalance; set the auto-failover timeout longer " +
			"than the data service's warmup; for refusals, bring the other down node back or reset the " +
			"auto-failover count once the cluster is healthy.",
	},
	Kinds: []forensics.Kind{nsAutoFailover, nsRefused, nsFailoverEnd, nsExited, nsNotReady, nsWarmed, nsWriteCommit, nsDiskAlert,
		mcStart, mcTraffic, mcWarmupDone, mcWriteFailed, oomKill},
	Run: run,
}

// lookBack is how far before a failover the node's own logs are read: the
// auto-failover timeout is 120 s by default (5 s to 3600 s allowed).
const lookBack = 10 * time.Minute

func run(p *forensics.Pass) error {
	anchors, err := forensics.Collect(p.Events(nsAutoFailover, nsRefused, nsFailoverEnd))
	if err != nil {
		return err
	}
	anchors = fromEventLog(anchors)
	if len(anchors) == 0 {
		return nil
	}
	var kinds []forensics.Kind
	for _, k := range p.Rule.Kinds {
		if k != nsAutoFailover && k != nsRefused && k != nsFailoverEnd {
			kinds = append(kinds, k)
		}
	}
	around, err := forensics.Collect(p.EventsNear(anchors, lookBack, time.Minute, kinds...))
	if err != nil {
		return err
	}
	by := evidence.ByKind(around)
	as := evidence.Ptrs(anchors)
	// diag.log repeats every entry in every node's bundle.
	key := func(e *forensics.Event) string {
		return string(e.Kind) + "|" + e.Attr(nsserver.AttrNodes) + "|" + e.Attr(nsserver.AttrReason)
	}
	for _, a := range evidence.Dedupe(as, 2*time.Minute, key) {
		if a.Kind == nsAutoFailover {
			for _, node := range strings.Split(a.Attr(nsserver.AttrNodes), ",") {
				p.Report(failedOver(a, node, as, by))
			}
		} else {
			p.Report(refused(a, as))
		}
	}
	return nil
}

// fromEventLog keeps the auto-failover messages, and turns the event log's
// "Auto failover completed" (id 15) into one for each node it names that no
// message names within minutes: a bundle may hold the event log without the
// user log (diag.log cut short, ns_server.info.log rotated away).
func fromEventLog(evs []forensics.Event) []forensics.Event {
	var out []forensics.Event
	for _, e := range evs {
		if e.Kind != nsFailoverEnd {
			out = append(out, e)
		}
	}
	for _, e := range evs {
		if e.Kind != nsFailoverEnd || e.Attr(nsserver.AttrAuto) != "true" {
			continue
		}
		for _, node := range strings.Split(e.Attr(nsserver.AttrNodes), ",") {
			if node == "" {
				continue
			}
			told := false
			for _, a := range out {
				if a.Kind == nsAutoFailover && nsserver.HasNode(a.Attr(nsserver.AttrNodes), node) && a.Time.Sub(e.Time).Abs() < 5*time.Minute {
					told = true
				}
			}
			if told {
				continue
			}
			a := e
			a.Attrs = nil
			a.Kind = nsAutoFailover
			a.Set(nsserver.AttrNodes, node)
			a.Set(nsserver.AttrReason, e.Attr(nsserver.AttrFailoverReason))
			a.Set(nsserver.AttrVia, "event_log")
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// copies adds every logged copy of the entry a (info.log and diag.logs).
func copies(ev *evidence.Set, a *forensics.Event, all []*forensics.Event, note string) {
	for _, e := range all {
		if e.Kind == a.Kind && e.Attr(nsserver.AttrNodes) == a.Attr(nsserver.AttrNodes) && e.Attr(nsserver.AttrReason) == a.Attr(nsserver.AttrReason) && e.Time.Sub(a.Time).Abs() < 2*time.Minute {
			if ev.Add(e, note) {
				return // one copy is enough; the rest say the same
			}
		}
	}
}

func failedOver(a *forensics.Event, node string, all []*forensics.Event, by map[forensics.Kind][]*forensics.Event) forensics.Finding {
	reason := a.Attr(nsserver.AttrReason)
	ev := evidence.Set{Copies: true}
	copies(&ev, a, all, "ns_server fails "+node+" over automatically")
	if ev.Len() == 0 {
		ev.Add(a, "event log: the automatic failover of "+node+" completed")
	}
	from := a.Time.Add(-lookBack)
	in := func(k forensics.Kind, f func(*forensics.Event) bool) []*forensics.Event {
		var out []*forensics.Event
		for _, e := range by[k] {
			if !e.Time.Before(from) && !e.Time.After(a.Time) && f(e) {
				out = append(out, e)
			}
		}
		return out
	}
	onNode := func(e *forensics.Event) bool { return e.Node == node }
	var before []string
	// ns_log's entry is in info.log and in every diag.log: one exit each.
	exits := evidence.Dedupe(in(nsExited, func(e *forensics.Event) bool { return e.Node == node && e.Attr(nsserver.AttrVia) != "event_log" }),
		5*time.Second, func(e *forensics.Event) string {
			return e.Attr(nsserver.AttrService) + "|" + e.Attr(nsserver.AttrStatus)
		})
	for i, e := range exits {
		if i < 3 {
			ev.Add(e, "on the node, "+e.Attr(nsserver.AttrService)+" exits with status "+e.Attr(nsserver.AttrStatus))
		}
	}
	if len(exits) > 0 {
		before = append(before, fmt.Sprintf("%s exited %d time(s) (first at %s, status %s)", exits[0].Attr(nsserver.AttrService), len(exits), evidence.Clock(exits[0].Time), exits[0].Attr(nsserver.AttrStatus)))
	}
	kills := in(oomKill, onNode)
	if len(kills) > 0 {
		ev.Add(kills[0], "the kernel's OOM killer kills "+kills[0].Attr(oslog.AttrProcess))
		before = append(before, fmt.Sprintf("the OOM killer killed %s at %s", kills[0].Attr(oslog.AttrProcess), evidence.Clock(kills[0].Time)))
	}
	starts := in(mcStart, onNode)
	warming := false
	var warmingBuckets []string
	if len(starts) > 0 {
		s := starts[len(starts)-1]
		ev.Add(s, "memcached starts again: its buckets warm up")
		enabled := map[string]bool{}
		seenBucket := map[string]bool{}
		for _, k := range []forensics.Kind{mcTraffic, nsWarmed} {
			for _, e := range by[k] {
				if e.Node == node && e.Time.After(s.Time) && !e.Time.After(a.Time) {
					enabled[e.Bucket] = true
				}
			}
		}
		for _, e := range by[mcWarmupDone] {
			if e.Node == node && e.Time.After(s.Time) && e.Bucket != "" {
				seenBucket[e.Bucket] = true
			}
		}
		for b := range seenBucket {
			if !enabled[b] {
				warmingBuckets = append(warmingBuckets, b)
			}
		}
		sort.Strings(warmingBuckets)
		warming = len(enabled) == 0 || len(warmingBuckets) > 0
		if warming {
			before = append(before, fmt.Sprintf("memcached had restarted at %s and traffic was not yet enabled on %s when the failover came: the node was still warming up", evidence.Clock(s.Time), orAll(warmingBuckets)))
		} else {
			before = append(before, fmt.Sprintf("memcached had restarted at %s and its buckets were serving traffic again", evidence.Clock(s.Time)))
		}
	}
	notReady := in(nsNotReady, func(e *forensics.Event) bool { return nsserver.HasNode(e.Attr(nsserver.AttrNodes), node) })
	if len(notReady) > 0 {
		ev.Add(notReady[0], "the janitor finds bucket "+notReady[0].Bucket+" not ready on the node")
		before = append(before, fmt.Sprintf("the orchestrator's janitor found %s not ready on the node at %s", notReady[0].Bucket, evidence.Clock(notReady[0].Time)))
	}
	wf := in(mcWriteFailed, onNode)
	wc := in(nsWriteCommit, func(e *forensics.Event) bool { return nsserver.NodeName(e.Attr(nsserver.AttrAlertHost)) == node })
	if len(wf) > 0 {
		ev.Add(wf[0], "memcached fails to write to disk")
		before = append(before, fmt.Sprintf("memcached failed to write to disk %d time(s) (%s)", len(wf), orWords(wf[0].Attr(memcached.AttrSystem), "error as logged")))
	} else if len(wc) > 0 {
		ev.Add(wc[0], "disk writes fail on the node")
		before = append(before, "ns_server raised a Write Commit Failure alert for the node")
	}
	f := forensics.Finding{
		Severity: forensics.High,
		Subject:  forensics.FindingSubject{Node: node, Reason: reason},
		Start:    a.Time,
		Evidence: ev.Sorted(),
	}
	f.End = f.Evidence[len(f.Evidence)-1].Time
	f.Start = f.Evidence[0].Time
	f.Title = node + " was automatically failed over"
	if warming {
		f.Title += " while it was still warming up"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "On %s at %s (UTC) ns_server on %s failed %s over automatically", evidence.Day(a.Time), evidence.Clock(a.Time), a.Node, node)
	if reason != "" {
		fmt.Fprintf(&b, ", giving the reason: \"%s\"", reason)
	}
	b.WriteString(".")
	paras := []string{b.String()}
	if len(before) > 0 {
		paras = append(paras, "In the "+lookBack.String()+" before, the node's own logs show: "+strings.Join(before, "; ")+".")
	} else {
		paras = append(paras, "The node's own logs read here show nothing in the "+lookBack.String()+" before it (no service exit, restart, OOM kill or disk error): look at the network between the node and the orchestrator, and whether the node's bundle is complete.")
	}
	if warming {
		paras = append(paras, "A node that is failed over while warming up loses the data it was loading back; consumers that had reconnected to it roll back again on the replicas that take over.")
	}
	f.Explanation = strings.Join(paras, "\n\n")
	h, oh := names.HostOr(nsserver.Host(node)), names.HostOr(nsserver.Host(a.Node))
	fix := forensics.Fix{
		Title: "Find why " + h + " stopped answering, then recover it and rebalance",
		Steps: []string{
			"Fix the cause the evidence shows (the process that exited, the disk, the memory) before adding the node back.",
			"If the node's data is intact, recover it with delta recovery, then rebalance.",
		},
		Commands: []string{
			shell.Command("couchbase-cli", "recovery", "-c", oh+":8091", "-u", "Administrator", "-p", "PASSWORD", "--server-recovery", h+":8091", "--recovery-type", "delta"),
			shell.Command("couchbase-cli", "rebalance", "-c", oh+":8091", "-u", "Administrator", "-p", "PASSWORD"),
		},
	}
	fs := []forensics.Fix{fix}
	if warming {
		fs = append(fs, forensics.Fix{
			Title: "Set the auto-failover timeout longer than the data service's warmup",
			Steps: []string{"Find how long the buckets take to warm up on " + h + " (\"Bucket … marked as warmed in N seconds\" in ns_server.info.log) and set the timeout above it, with a margin."},
			Commands: []string{shell.Command("couchbase-cli", "setting-autofailover", "-c", oh+":8091", "-u", "Administrator", "-p", "PASSWORD",
				"--enable-auto-failover", "1", "--auto-failover-timeout", "SECONDS")},
		})
	}
	f.Fixes = fs
	return f
}

func refused(a *forensics.Event, all []*forensics.Event) forensics.Finding {
	nodes := strings.Split(a.Attr(nsserver.AttrNodes), ",")
	reason := a.Attr(nsserver.AttrReason)
	ev := evidence.Set{Copies: true}
	copies(&ev, a, all, "ns_server does not fail the node over automatically")
	f := forensics.Finding{
		Severity: forensics.Medium,
		Subject:  forensics.FindingSubject{Node: nodes[0], Nodes: nodes, Reason: reason},
		Start:    a.Time,
		Evidence: ev.Sorted(),
	}
	f.End = f.Start
	f.Title = "auto-failover of " + strings.Join(nodes, ", ") + " refused: " + reason
	f.Explanation = fmt.Sprintf("On %s at %s (UTC) ns_server on %s found %s down but did not fail it over automatically: \"%s\". The node stays down and its active vbuckets unavailable until someone acts.",
		evidence.Day(a.Time), evidence.Clock(a.Time), a.Node, strings.Join(nodes, ", "), reason)
	oh := names.HostOr(nsserver.Host(a.Node))
	steps := []string{"Bring the node back, or fail it over by hand once you know why it is down."}
	var cmds []string
	switch {
	case strings.Contains(reason, "Maximum number of auto-failover"):
		steps = append(steps, "The cluster already used its auto-failover count: once the earlier failed-over nodes are recovered and rebalanced in, reset the count.")
		cmds = append(cmds, shell.Command("couchbase-cli", "reset-auto-failover-count", "-c", oh+":8091", "-u", "Administrator", "-p", "PASSWORD"))
	case strings.Contains(reason, "another node down"), strings.Contains(reason, "nodes being down has changed"):
		steps = append(steps, "More than one node was down at once: auto-failover fails over one node at a time (or as many as its maximum count), and not when the set of down nodes keeps changing.")
	case strings.Contains(reason, "You need at least"):
		steps = append(steps, "Too few nodes of the service would be left: add nodes of that service.")
	}
	for _, n := range nodes {
		cmds = append(cmds, shell.Command("couchbase-cli", "failover", "-c", oh+":8091", "-u", "Administrator", "-p", "PASSWORD", "--server-failover", names.HostOr(nsserver.Host(n))+":8091", "--hard"))
	}
	f.Fixes = []forensics.Fix{{Title: "Act on the node that auto-failover left down", Steps: steps, Commands: cmds}}
	return f
}

func orAll(bs []string) string {
	if len(bs) == 0 {
		return "its buckets"
	}
	return strings.Join(bs, ", ")
}

func orWords(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
