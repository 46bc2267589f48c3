package kvstream

import (
	"cmp"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"forensics"
	"forensics/names"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules/evidence"
	"forensics/shell"
)

func title(node, bucket string, vbs int, closer *forensics.Event, critical bool) string {
	s := fmt.Sprintf("%s answered DCP stream requests for %d vbucket(s) of %s while warming up, before traffic was enabled", node, vbs, bucket)
	if critical {
		s += ", then was failed over"
	} else if closer == nil {
		s += " (no traffic enablement in the logs)"
	}
	return s
}

// explain tells what happened, in order, with the times in UTC.
func explain(r *restart, exit *forensics.Event, bucket string, entries []*forensics.Event, as []*answer,
	vbs []int, consumers []string, closer *forensics.Event, fo *failover, again []*rerollback) string {
	node := r.node
	var paras []string

	var b strings.Builder
	day := evidence.Day(r.at)
	switch {
	case exit.Kind == mcStart:
		fmt.Fprintf(&b, "On %s (UTC) memcached on %s started again at %s after being killed (no graceful shutdown was logged).", day, node, evidence.Clock(exit.Time))
	case exit.Attr(nsserver.AttrStatus) != "":
		fmt.Fprintf(&b, "On %s (UTC) memcached on %s exited with status %s at %s and was restarted.", day, node, exit.Attr(nsserver.AttrStatus), evidence.Clock(exit.Time))
	default:
		fmt.Fprintf(&b, "On %s (UTC) memcached on %s exited at %s and was restarted.", day, node, evidence.Clock(exit.Time))
	}
	if len(entries) > 0 {
		fmt.Fprintf(&b, " At %s its warmup gave %d vbucket(s) of %s a new failover-log branch (%s), so their history on this node ends at what it had persisted.",
			evidence.Clock(entries[0].Time), len(entries), bucket, entries[0].Attr(memcached.AttrReason))
	}
	paras = append(paras, b.String())

	b.Reset()
	rollbacks, accepted := 0, 0
	for _, a := range as {
		if a.rollback {
			rollbacks++
		} else {
			accepted++
		}
	}
	fmt.Fprintf(&b, "From %s, before ns_server had enabled traffic on %s there, the node answered %d stream request(s) for %d vbucket(s) (%s)",
		evidence.Clock(as[0].ev.Time), bucket, len(as), len(vbs), vbList(vbs))
	var parts []string
	if rollbacks > 0 {
		parts = append(parts, fmt.Sprintf("%d with a rollback (%s)", rollbacks, rollbackList(as)))
	}
	if accepted > 0 {
		parts = append(parts, fmt.Sprintf("%d accepted", accepted))
	}
	fmt.Fprintf(&b, ": %s. Consumer(s): %s.", strings.Join(parts, ", "), strings.Join(consumers, ", "))
	paras = append(paras, b.String())

	b.Reset()
	switch {
	case fo != nil:
		fmt.Fprintf(&b, "Traffic was never enabled on %s there: the node's failover started at %s", bucket, evidence.Clock(fo.start.Time))
		if fo.done != nil && fo.done != fo.start {
			fmt.Fprintf(&b, " and completed at %s", evidence.Clock(fo.done.Time))
		}
		b.WriteString(", so the consumer had repaired its streams against a node that was being taken out of the cluster.")
		if len(again) == 0 {
			b.WriteString(" No second rollback on the node that took the vbuckets over is in the logs given (the index nodes' ns_server.indexer.log and the new active's memcached.log would show it).")
		} else {
			// Group the second rollbacks by where and to what, as they
			// usually come in one burst from one new active.
			type key struct{ node, seqno string }
			groups := map[key][]*rerollback{}
			var order []key
			var promoted []string
			for _, g := range again {
				if g.ev != nil {
					k := key{cmp.Or(g.node, "another node"), g.seqno}
					if groups[k] == nil {
						order = append(order, k)
					}
					groups[k] = append(groups[k], g)
				} else if g.promoted != nil {
					promoted = append(promoted, fmt.Sprintf("vb %d (%s, %s)", g.vb, g.promoted.Node, evidence.Clock(g.promoted.Time)))
				}
			}
			var rolled []string
			for _, k := range order {
				gs := groups[k]
				vbs := make([]int, len(gs))
				for i, g := range gs {
					vbs[i] = g.vb
				}
				rolled = append(rolled, fmt.Sprintf("%s to seqno %s on %s (from %s)", vbList(vbs), k.seqno, k.node, evidence.Clock(gs[0].ev.Time)))
			}
			if len(rolled) > 0 {
				fmt.Fprintf(&b, " The consumer then had to roll back again on the node that took over: %s.", strings.Join(rolled, "; "))
			}
			if len(promoted) > 0 {
				fmt.Fprintf(&b, " These vbuckets were taken over by a replica, but no second rollback for them is in the logs given: %s.", capList(promoted, 6))
			}
		}
	case closer != nil:
		fmt.Fprintf(&b, "ns_server enabled traffic on %s there only at %s, %s after the restart", bucket, evidence.Clock(closer.Time), dur(closer.Time.Sub(r.at)))
		fmt.Fprintf(&b, " (%s). The node was not failed over, so the answers stood, but the consumer acted on a node ns_server had not yet declared healthy.", closerSource(closer))
	default:
		fmt.Fprintf(&b, "The logs given show no traffic enablement on %s there and no failover of the node after the restart.", bucket)
	}
	paras = append(paras, b.String())
	return strings.Join(paras, "\n")
}

func closerSource(e *forensics.Event) string {
	switch e.Kind {
	case mcTraffic:
		return "memcached: enableTraffic"
	case nsEnabling:
		return "ns_server: Enabling traffic to bucket"
	case nsWarmed:
		return "ns_server: bucket marked as warmed"
	case nsReady:
		return "ns_doctor: buckets became ready on node, logged on " + e.Node
	case nsOnline:
		return "event log: Bucket online"
	}
	return string(e.Kind)
}

// vbList shows vbucket numbers, eliding the middle of a long list.
func vbList(vbs []int) string {
	s := make([]string, len(vbs))
	for i, v := range vbs {
		s[i] = fmt.Sprint(v)
	}
	return "vb " + capList(s, 12)
}

// rollbackList shows where each vbucket was told to roll back to.
func rollbackList(as []*answer) string {
	to := map[int]string{}
	var vbs []int
	for _, a := range as {
		if a.rollback {
			if _, ok := to[a.vb]; !ok {
				vbs = append(vbs, a.vb)
			}
			to[a.vb] = a.seqno
		}
	}
	sort.Ints(vbs)
	s := make([]string, len(vbs))
	for i, v := range vbs {
		s[i] = fmt.Sprintf("vb %d to %s", v, to[v])
	}
	return capList(s, 6)
}

func capList(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(" and %d more", len(s)-n)
}

// fixes says what the operator and the consumers' owners should do, with
// the node, bucket and a cluster node to run the commands against.
//
// version is the release the restarted memcached announced ("" when its
// log is missing); it tells whether the indexer fix is already there.
func fixes(node, bucket string, consumers []string, other string, warmup string, critical bool, version string) []forensics.Fix {
	h, oh := nsserver.Host(node), nsserver.Host(other)
	timeout := "SECONDS"
	wstep := "The logs given do not show how long " + bucket + " takes to warm up on " + h +
		": find \"Bucket \\\"" + bucket + "\\\" marked as warmed in N seconds\" in ns_server.info.log after an earlier restart, and set the timeout above N."
	if warmup != "" {
		wstep = "An earlier warmup of " + bucket + " on " + h + " took " + warmup +
			" s to traffic (\"marked as warmed in " + warmup + " seconds\"); a warmup after a crash can take longer. Set the auto-failover timeout above it, with a margin."
	}
	failoverFix := forensics.Fix{
		Title: "Keep auto-failover and manual failover away from " + h + " while it is still warming up",
		Steps: []string{
			"Before failing " + h + " over by hand, check that warmup is done and ns_server has enabled traffic: cbstats warmup must show ep_warmup_state done, and the bucket's node status must be healthy (ns_server.info.log: \"The following buckets became ready on node '" + node + "'\"). A node in warmup holds data the cluster still needs; failing it over makes every consumer that reconnected to it roll back again.",
			"Set the auto-failover timeout longer than the bucket's warmup on this node. " + wstep,
		},
	}
	// Names from the evidence go into commands only when Couchbase would
	// accept them, and always quoted.
	if err := names.First(names.Host(h), names.Host(oh), names.Bucket(bucket)); err != nil {
		failoverFix.Steps = append(failoverFix.Steps, "No command is given: the evidence holds "+err.Error()+". Check the node and bucket names in the cluster's UI before running cbstats or couchbase-cli.")
	} else {
		failoverFix.Commands = []string{
			shell.Command("cbstats", names.HostPort(h, "11210"), "-u", "Administrator", "-p", "PASSWORD", "-b", bucket, "warmup"),
			shell.Command("curl", "-s", "-u", "Administrator:PASSWORD", "http://"+names.HostPort(oh, "8091")+"/pools/default/buckets/"+url.PathEscape(bucket)) +
				" | " + shell.Command("jq", ".nodes[] | {hostname, status}"),
			shell.Command("couchbase-cli", "setting-autofailover", "-c", names.HostPort(oh, "8091"), "-u", "Administrator", "-p", "PASSWORD", "--enable-auto-failover", "1", "--auto-failover-timeout", timeout),
		}
	}
	consumerFix := forensics.Fix{
		Title: "Make the consumers wait until " + h + " is traffic-enabled for " + bucket + " before repairing streams",
		Steps: []string{
			"Consumers: " + strings.Join(consumers, ", ") + ".",
			"memcached answers stream requests as soon as warmup has created the vbucket; it does not wait for ns_server. A consumer that reconnects after a KV restart should wait until the node's status for the bucket is healthy (the curl above) before it re-requests streams, or treat a rollback from a warming node as provisional.",
			"No public kv_engine or ns_server change gates DCP stream requests on traffic enablement; the window exists in every release.",
		},
	}
	fs := []forensics.Fix{failoverFix, consumerFix}
	gsi := false
	for _, c := range consumers {
		if strings.HasPrefix(c, "secidx:") || strings.HasPrefix(c, "GSI ") || strings.HasPrefix(c, "DCPT:") { // DCPT: 8.0's projector
			gsi = true
		}
	}
	if gsi {
		steps := []string{
			"MB-53111 (indexing, \"Use all disk snapshots on DCP rollback\") lets the indexer roll back to any of its disk snapshots instead of only the latest, so a second rollback on the new active costs less and is less often a rollback to zero.",
			"It is in 7.1.2 and later (backport MB-53057) and in 7.0.x through MB-53252 (which 7.0.x release first carries it is not known here). It mitigates the second rollback; it does not stop the first.",
		}
		title := "Run an indexer that has MB-53111"
		if carriesMB53111(version) {
			// The KV node's release; the index nodes run the same one
			// unless the cluster is mid-upgrade.
			title = "No indexer upgrade is needed: MB-53111 is already in " + version
			steps = []string{
				"The node runs Couchbase " + version + ", which has MB-53111 (indexing, \"Use all disk snapshots on DCP rollback\", in 7.1.2 and later): where the index nodes run the same release, the indexer already rolled back to its best disk snapshot, and upgrading does not shorten the window.",
			}
		}
		if critical {
			steps = append(steps, "Check the indexes of "+bucket+" on the index nodes: after a rollback to zero they are rebuilt from scratch and serve stale or no results until the rebuild ends.")
		}
		fs = append(fs, forensics.Fix{Title: title, Steps: steps})
	}
	return fs
}

// carriesMB53111 reports whether a Couchbase version ("7.6.4-5146-enterprise")
// is 7.1.2 or later, the first 7.x releases with MB-53111. A version it
// cannot read, or a 7.0.x (where the backport's release is not known here),
// does not.
func carriesMB53111(version string) bool {
	v, _, _ := strings.Cut(version, "-")
	parts := strings.Split(v, ".")
	if len(parts) < 3 {
		return false
	}
	var n [3]int
	for i := range n {
		x, err := strconv.Atoi(parts[i])
		if err != nil {
			return false
		}
		n[i] = x
	}
	switch {
	case n[0] != 7:
		return n[0] > 7
	case n[1] != 1:
		return n[1] > 1
	}
	return n[2] >= 2
}
