// Package rebalance holds the rule cb-rebalance-failed: a rebalance that
// exited with a reason, classified into the causes support knows, with the
// step and node it failed on and what to do for that cause.
package rebalance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/nsserver"
	"forensics/rules/evidence"
	"forensics/shell"
)

const (
	nsRebalanceEnd   = nsserver.RebalanceEnd
	nsRebalanceStart = nsserver.RebalanceStart
	nsRebalanceStuck = nsserver.RebalanceStuck
	nsNotReady       = nsserver.BucketNotReady
	nsExited         = nsserver.ServiceExited
	nsBucketWait     = nsserver.RebalanceBucketWait
	nsQueryFailed    = nsserver.BucketQueryFailed
)

// Rule flags failed rebalances.
var Rule = &forensics.Rule{
	Name: "cb-rebalance-failed",
	Doc: forensics.Doc{
		Title: "a rebalance that failed, with its cause",
		Detects: "A rebalance that ended with \"Rebalance exited with reason …\" (or \"interrupted as observer exited " +
			"with reason …\") in ns_orchestrator's log (ns_server.info.log, diag.log), and the stuck-rebalance " +
			"alert of 7.6+ (\"Warning: Rebalance of '…' … appears stuck\") when no end follows it. The reason is " +
			"classified: buckets not ready on a node (the pre-rebalance janitor failed, wait_for_memcached_failed), " +
			"a node not ready or down, a vbucket mover that crashed, a timeout, a service's own rebalance failing " +
			"(index, search, …), a bucket shutdown that did not finish. One finding per failed rebalance, with the " +
			"step (the reason's leading atom), the nodes and bucket the reason names, and the fix for the cause; " +
			"when the reason names no bucket, the bucket the rebalance was waiting for (ns_rebalancer's \"Waiting " +
			"for bucket … to be ready on …\") and the nodes where the janitor found it not ready (janitor_agent's " +
			"\"Querying bucket … states failed. Failures: …\", warming_up) in the debug log. " +
			"Severity high. A rebalance that completed, or that the user stopped, is not flagged.",
		Why: "A failed rebalance leaves the cluster between two vbucket maps: some vbuckets moved, nodes meant to " +
			"leave still hold data, new nodes are not yet serving, and replicas may be missing. Retrying without " +
			"fixing the cause fails the same way, often after hours of data movement.",
		Confirm: "In the orchestrator's ns_server.info.log (or any diag.log) find \"Rebalance exited with reason\" " +
			"and read the Erlang term after it: its first atom is the step that failed (e.g. " +
			"pre_rebalance_janitor_run_failed, mover_crashed, service_rebalance_failed), the rest names the bucket " +
			"and nodes. ns_server.debug.log around that time has the full crash. Try: forensics timeline query " +
			"--kind nsserver.rebalance_end.",
		Inputs: "ns_server.info.log or diag.log of the orchestrator (any node's diag.log has the entry); " +
			"ns_server.debug.log and the named nodes' logs for detail.",
		Fixes: "Fix the cause for its class (make the buckets ready on the named node, bring the node back, look at " +
			"the service's own log, raise a timeout), then start the rebalance again.",
	},
	Kinds: []forensics.Kind{nsRebalanceEnd, nsRebalanceStart, nsRebalanceStuck, nsNotReady, nsExited, nsBucketWait, nsQueryFailed},
	Run:   run,
}

// cause is a class of rebalance failure as support knows it.
type cause struct {
	name  string // short, for the title
	what  string // what it means
	steps []string
}

// classify maps the leading atom of the exit reason (ns_rebalancer.erl,
// ns_vbucket_mover.erl, service_rebalancer.erl, 7.1–8.0) to its cause.
func classify(tag, reason string) cause {
	switch tag {
	case "pre_rebalance_janitor_run_failed", "buckets_not_ready", "wait_for_memcached_failed", "bulk_set_vbucket_state_failed":
		return cause{"buckets not ready on a node",
			"before moving data the orchestrator runs the janitor on every bucket, which needs memcached on every node to have the bucket loaded and warmed; it did not on the node(s) named",
			[]string{"Check the named node's memcached.log for a restart or a bucket still warming up, and ns_server.info.log for \"Bucket … marked as warmed\".", "Start the rebalance again once the bucket is ready on every node."}}
	case "not_all_nodes_are_ready_yet":
		return cause{"a node not ready", "some nodes had not finished joining or starting their services", []string{"Wait until every node shows healthy in the UI or /pools/default, then rebalance again."}}
	case "mover_crashed", "dcp_wait_for_data_move_failed", "wait_seqno_persisted_failed", "failed_to_get_high_seqnos":
		return cause{"a vbucket mover crashed", "moving a vbucket's data with DCP failed (a producer or consumer went away, a replication stream broke, or persistence did not keep up)",
			[]string{"Read ns_server.debug.log at the time for the mover's crash and memcached.log on the source and destination nodes for DCP errors.", "Fix the node or disk involved, then rebalance again; the moves that completed stay done."}}
	case "service_rebalance_failed", "rebalance_failed", "service_rebalance_timeout":
		return cause{"a service's rebalance failed", "the rebalance of a non-data service (index, search, eventing, analytics, query) failed; the service's own log says why",
			[]string{"Read the service's log on the named nodes (ns_server.indexer.log for the index service) at that time.", "Fix the service's error, then rebalance again."}}
	case "buckets_shutdown_wait_failed", "old_buckets_shutdown_wait_failed":
		return cause{"buckets did not shut down", "buckets deleted before the rebalance were still shutting down on some nodes", []string{"Wait for bucket deletion to finish on every node (memcached.log: \"Bucket … deleted\"), then rebalance again."}}
	}
	switch {
	case strings.Contains(reason, "nodedown") || strings.Contains(reason, "noproc") && strings.Contains(reason, "ns_1@"):
		return cause{"a node went down", "a node stopped answering during the rebalance", []string{"Find why the node went down (its own logs at that time); bring it back or fail it over, then rebalance again."}}
	case strings.Contains(reason, "timeout"):
		return cause{"a timeout", "a step waited longer than its timeout for a node or service", []string{"Find the node or service that was slow at that time; rebalance again once it is healthy."}}
	}
	return cause{"another cause", "the reason is not one of the causes forensics knows", []string{"Read the reason and ns_server.debug.log at that time."}}
}

func run(p *forensics.Pass) error {
	evs, err := forensics.Collect(p.Events(p.Rule.Kinds...))
	if err != nil {
		return err
	}
	by := evidence.ByKind(evs)
	// master_events.log records the end that ns_orchestrator logs, without
	// its operation id: the same result and reason within the window are
	// one rebalance.
	key := func(e *forensics.Event) string {
		return e.Attr(nsserver.AttrResult) + "|" + e.Attr(nsserver.AttrReason)
	}
	ends := evidence.Dedupe(by[nsRebalanceEnd], 2*time.Minute, key)
	for _, e := range ends {
		if e.Attr(nsserver.AttrResult) != "failed" {
			continue
		}
		p.Report(failed(e, by))
	}
	stuckKey := func(e *forensics.Event) string {
		return e.Attr(nsserver.AttrService) + "|" + e.Attr(nsserver.AttrOperationID)
	}
	for _, s := range evidence.Dedupe(by[nsRebalanceStuck], 24*time.Hour, stuckKey) {
		ended := false
		for _, e := range ends {
			if e.Time.After(s.Time) && (e.Attr(nsserver.AttrOperationID) == "" || s.Attr(nsserver.AttrOperationID) == "" || strings.HasPrefix(e.Attr(nsserver.AttrOperationID), s.Attr(nsserver.AttrOperationID))) {
				ended = true
			}
		}
		if !ended {
			p.Report(stuck(s, by))
		}
	}
	return nil
}

func startOf(e *forensics.Event, by map[forensics.Kind][]*forensics.Event) *forensics.Event {
	var best *forensics.Event
	for _, s := range by[nsRebalanceStart] {
		if s.Time.After(e.Time) {
			continue
		}
		if id := e.Attr(nsserver.AttrOperationID); id != "" && s.Attr(nsserver.AttrOperationID) == id {
			return s
		}
		if best == nil || s.Time.After(best.Time) {
			best = s
		}
	}
	return best
}

func failed(e *forensics.Event, by map[forensics.Kind][]*forensics.Event) forensics.Finding {
	tag, reason := e.Attr(nsserver.AttrReasonTag), e.Attr(nsserver.AttrReason)
	c := classify(tag, reason)
	var nodes []string
	if n := e.Attr(nsserver.AttrReasonNodes); n != "" {
		nodes = strings.Split(n, ",")
	}
	ev := evidence.Set{Copies: true}
	start := startOf(e, by)
	if start != nil {
		ev.Add(start, "the rebalance starts")
	}
	ev.Add(e, "the rebalance exits: "+c.name)
	var detail []string
	notReady := 0
	for _, nr := range by[nsNotReady] {
		if nr.Time.After(e.Time) || e.Time.Sub(nr.Time) > 10*time.Minute {
			continue
		}
		for _, n := range strings.Split(nr.Attr(nsserver.AttrNodes), ",") {
			if len(nodes) == 0 || slices.Contains(nodes, n) {
				notReady++
				if notReady == 1 && ev.Add(nr, "the janitor finds bucket "+nr.Bucket+" not ready on "+nr.Attr(nsserver.AttrNodes)) {
					detail = append(detail, fmt.Sprintf("from %s the janitor found %s not ready on %s", evidence.Clock(nr.Time), nr.Bucket, nr.Attr(nsserver.AttrNodes)))
				}
				break
			}
		}
	}
	if notReady > 1 && len(detail) > 0 {
		detail[0] += fmt.Sprintf(" (%d times in the 10 minutes before the exit)", notReady)
	}
	bucket := e.Bucket
	var waited string // the step the rebalance was in, when the reason does not say
	if w := lastBefore(by[nsBucketWait], e, start, ""); w != nil && (bucket == "" || bucket == w.Bucket) {
		bucket = w.Bucket
		waited = fmt.Sprintf("while waiting for bucket %s to be ready on %s", w.Bucket, strings.ReplaceAll(w.Attr(nsserver.AttrNodes), ",", ", "))
		ev.Add(w, "the rebalance waits for bucket "+w.Bucket+" to be ready")
		if q := lastBefore(by[nsQueryFailed], e, w, w.Bucket); q != nil {
			failing := strings.Split(q.Attr(nsserver.AttrNodes), ",")
			why := strings.Split(q.Attr(nsserver.AttrReason), ",")
			var parts []string
			for i, n := range failing {
				if i < len(why) {
					parts = append(parts, n+" ("+why[i]+")")
				}
				if !slices.Contains(nodes, n) {
					nodes = append(nodes, n)
				}
			}
			if ev.Add(q, "the janitor finds "+q.Bucket+" not ready on "+q.Attr(nsserver.AttrNodes)) {
				detail = append(detail, fmt.Sprintf("at %s the janitor found %s not ready on %s", evidence.Clock(q.Time), q.Bucket, strings.Join(parts, ", ")))
			}
		}
	}
	for _, x := range by[nsExited] {
		if x.Time.After(e.Time) || e.Time.Sub(x.Time) > 10*time.Minute || len(nodes) > 0 && !slices.Contains(nodes, x.Node) {
			continue
		}
		if start != nil && x.Time.Before(start.Time) {
			continue
		}
		if ev.Add(x, x.Attr(nsserver.AttrService)+" exits on "+x.Node) {
			detail = append(detail, fmt.Sprintf("at %s %s exited on %s with status %s", evidence.Clock(x.Time), x.Attr(nsserver.AttrService), x.Node, x.Attr(nsserver.AttrStatus)))
		}
	}
	f := forensics.Finding{
		Severity: forensics.High,
		Subject:  forensics.FindingSubject{Reason: tag, Nodes: nodes, Bucket: bucket},
		Start:    e.Time,
		End:      e.Time,
		Evidence: ev.Sorted(),
	}
	if start != nil {
		f.Start = start.Time
	}
	f.Title = "rebalance failed: " + c.name
	if len(nodes) > 0 {
		f.Title += " (" + strings.Join(nodes, ", ") + ")"
	}
	var b strings.Builder
	if start != nil {
		fmt.Fprintf(&b, "On %s at %s (UTC) a rebalance started", evidence.Day(start.Time), evidence.Clock(start.Time))
		if id := start.Attr(nsserver.AttrOperationID); id != "" {
			fmt.Fprintf(&b, " (operation %s)", id)
		}
		fmt.Fprintf(&b, "; at %s it exited", evidence.Clock(e.Time))
	} else {
		fmt.Fprintf(&b, "On %s at %s (UTC) a rebalance exited", evidence.Day(e.Time), evidence.Clock(e.Time))
	}
	fmt.Fprintf(&b, " with reason %s.", reason)
	step := tag
	if step == "" {
		step = "unknown"
	}
	fmt.Fprintf(&b, " The step that failed is %s", step)
	if waited != "" {
		fmt.Fprintf(&b, ", %s", waited)
	}
	fmt.Fprintf(&b, ": %s", c.what)
	if bucket != "" && waited == "" {
		fmt.Fprintf(&b, ", for bucket %s", bucket)
	}
	if len(nodes) > 0 {
		fmt.Fprintf(&b, ", on %s", strings.Join(nodes, ", "))
	}
	b.WriteString(".")
	paras := []string{b.String()}
	if len(detail) > 0 {
		paras = append(paras, "Before it, "+strings.Join(detail, "; ")+".")
	}
	paras = append(paras, "The cluster is left between vbucket maps: vbuckets already moved stay moved, the rest did not move, and the rebalance must be run again once the cause is fixed.")
	f.Explanation = strings.Join(paras, "\n\n")
	orch := names.HostOr(nsserver.Host(e.Node))
	cmds := []string{shell.Command("curl", "-s", "-u", "Administrator:PASSWORD", "http://"+orch+":8091/pools/default/tasks")}
	if bucket != "" && names.Bucket(bucket) == nil {
		cmds = append(cmds, shell.Command("curl", "-s", "-u", "Administrator:PASSWORD", "http://"+orch+":8091/pools/default/buckets/"+bucket)+" | jq '.nodes[] | {hostname, status}'")
	}
	cmds = append(cmds, shell.Command("couchbase-cli", "rebalance", "-c", orch+":8091", "-u", "Administrator", "-p", "PASSWORD"))
	f.Fixes = []forensics.Fix{{Title: "Fix the cause (" + c.name + "), then rebalance again", Steps: c.steps, Commands: cmds}}
	return f
}

func stuck(s *forensics.Event, by map[forensics.Kind][]*forensics.Event) forensics.Finding {
	service := s.Attr(nsserver.AttrService)
	ev := evidence.Set{Copies: true}
	if start := startOf(s, by); start != nil {
		ev.Add(start, "the rebalance starts")
	}
	ev.Add(s, "ns_server: the "+service+" part of the rebalance has made no progress")
	f := forensics.Finding{
		Severity: forensics.High,
		Subject:  forensics.FindingSubject{Reason: "stuck_rebalance", Nodes: nil},
		Start:    s.Time,
		End:      s.Time,
		Evidence: ev.Sorted(),
	}
	f.Start = f.Evidence[0].Time
	f.Title = "rebalance stuck in the " + service + " service"
	f.Explanation = fmt.Sprintf("On %s at %s (UTC) ns_server raised the stuck-rebalance alert: the rebalance of %s made no progress for %s seconds, and the logs read here show no end of that rebalance.",
		evidence.Day(s.Time), evidence.Clock(s.Time), service, s.Attr(nsserver.AttrSeconds))
	orch := names.HostOr(nsserver.Host(s.Node))
	f.Fixes = []forensics.Fix{{
		Title:    "Find what the " + service + " service waits for; stop and restart the rebalance if it does not move",
		Steps:    []string{"Read the service's log at that time (ns_server.indexer.log for the index service) for the step it waits on."},
		Commands: []string{shell.Command("curl", "-s", "-u", "Administrator:PASSWORD", "http://"+orch+":8091/pools/default/tasks"), shell.Command("couchbase-cli", "rebalance-stop", "-c", orch+":8091", "-u", "Administrator", "-p", "PASSWORD")},
	}}
	return f
}

// lastBefore returns the last event of evs between after and end (within
// the hour before end when after is nil), of the bucket when one is given.
// Only the orchestrator logs the rebalancer's steps.
func lastBefore(evs []*forensics.Event, end, after *forensics.Event, bucket string) *forensics.Event {
	var last *forensics.Event
	for _, x := range evs {
		switch {
		case x.Time.After(end.Time), bucket != "" && x.Bucket != bucket:
			continue
		case after != nil && x.Time.Before(after.Time), after == nil && end.Time.Sub(x.Time) > time.Hour:
			continue
		}
		if last == nil || !x.Time.Before(last.Time) {
			last = x
		}
	}
	return last
}
