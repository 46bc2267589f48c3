// Package rollbackzero holds the rule cb-dcp-rollback-to-zero: DCP consumers
// a producer told to roll back to seqno 0, which means rebuilding their copy
// of the vbucket from nothing.
package rollbackzero

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules/evidence"
	"forensics/shell"
)

const (
	mcRollback      = memcached.StreamRollback
	mcStart         = memcached.Start
	nsFailoverStart = nsserver.FailoverStart
	nsAutoFailover  = nsserver.AutoFailover
)

// The details of a finding's subject (Rule.Details).
var (
	consumersDetail = forensics.Detail{Key: "consumers", Type: forensics.DetailList, Show: forensics.ShowApart, Doc: "the DCP connections told to roll back, as memcached names them"}
	consumerDetail  = forensics.Detail{Key: "consumer", Type: forensics.DetailText, Doc: "the kind of consumer (indexer, XDCR, replication, …)"}
)

// Rule flags rollbacks to zero.
var Rule = &forensics.Rule{
	Name: "cb-dcp-rollback-to-zero",
	Doc: forensics.Doc{
		Title: "DCP consumers told to roll back to seqno 0 (a full rebuild)",
		Detects: "memcached's DCP producer answered stream requests with \"Stream request requires rollback to " +
			"seqno:0 because …\": the consumer (GSI indexer/projector, XDCR, backup, replication, search, " +
			"eventing, analytics) must throw away its copy of those vbuckets and rebuild it. One finding per " +
			"producer node, bucket and consumer kind, per incident (rollbacks less than 30 minutes apart), with " +
			"the vbuckets, the reason memcached gives (no common history in the failover table, purge seqno " +
			"ahead of the consumer) and what preceded it on the cluster (a failover, an unclean restart of the " +
			"node). Severity high for an index's bucket (the GSI consumers rebuild the index), medium otherwise. " +
			"Rollbacks to a non-zero seqno after a failover are partial and expected, and are not flagged.",
		Why: "A rollback to zero makes an index rebuild from scratch (queries get stale or no results until it " +
			"catches up), makes XDCR resend the whole vbucket, and makes an incremental backup start over. On a " +
			"large bucket that is hours of work and load; it usually follows a failover where the promoted " +
			"replica's history does not contain the consumer's position, or an unclean restart that cut history.",
		Confirm: "In memcached.log of the producer node find \"DCP (Producer) eq_dcpq:NAME - (vb:N) Stream request " +
			"requires rollback to seqno:0 because …\"; NAME tells the consumer (secidx:proj-… is the GSI " +
			"projector). On the index node ns_server.indexer.log shows \"StreamBegin rollback … Rollback (0, …)\". " +
			"Try: forensics timeline query --kind memcached.stream_rollback --bucket BUCKET.",
		Inputs: "memcached.log of the producer nodes; diag.log for failovers; memcached.log restarts (an unclean " +
			"start) on the same node.",
		Fixes: "Let the rebuild finish and watch its progress; find what cut the history (the failover, the " +
			"unclean restart) and prevent it (failover only fully warmed nodes; enough replicas); for purge-seqno " +
			"rollbacks, raise the metadata purge interval above the longest consumer outage.",
	},
	Kinds:   []forensics.Kind{mcRollback, mcStart, nsFailoverStart, nsAutoFailover},
	Details: []forensics.Detail{consumersDetail, consumerDetail},
	Run:     run,
}

// gap separates incidents: rollbacks of one producer, bucket and consumer
// further apart than this are told apart.
const gap = 30 * time.Minute

func run(p *forensics.Pass) error {
	rbs, err := forensics.Collect(p.Events(mcRollback))
	if err != nil {
		return err
	}
	var zero []*forensics.Event
	for _, e := range evidence.Ptrs(rbs) {
		if e.Attr(memcached.AttrRollbackSeqno) == "0" {
			zero = append(zero, e)
		}
	}
	if len(zero) == 0 {
		return nil
	}
	ctx, err := forensics.Collect(p.Events(mcStart, nsFailoverStart, nsAutoFailover))
	if err != nil {
		return err
	}
	context := evidence.Ptrs(ctx)
	type key struct{ node, bucket, consumer string }
	groups := map[key][][]*forensics.Event{}
	var keys []key
	for _, e := range zero {
		k := key{e.Node, e.Bucket, consumerOf(e)}
		g := groups[k]
		if len(g) == 0 {
			keys = append(keys, k)
		}
		if len(g) == 0 || e.Time.Sub(g[len(g)-1][len(g[len(g)-1])-1].Time) > gap {
			g = append(g, nil)
		}
		g[len(g)-1] = append(g[len(g)-1], e)
		groups[k] = g
	}
	for _, k := range keys {
		for _, inc := range groups[k] {
			p.Report(finding(k.node, k.bucket, k.consumer, inc, context))
		}
	}
	return nil
}

// consumerOf is the kind of client the stream belongs to, as the parser
// reads it from the DCP connection name.
func consumerOf(e *forensics.Event) string {
	switch k := e.Attr(memcached.AttrConsumerKind); k {
	case "projector", "indexer":
		return "indexer"
	case "":
		return "unknown"
	default:
		return k
	}
}

func finding(node, bucket, consumer string, rbs []*forensics.Event, context []*forensics.Event) forensics.Finding {
	first, last := rbs[0], rbs[len(rbs)-1]
	vbSeen := map[int]bool{}
	var vbs []int
	reasons := map[string]int{}
	conns := map[string]bool{}
	for _, e := range rbs {
		if !vbSeen[e.VB] {
			vbSeen[e.VB] = true
			vbs = append(vbs, e.VB)
		}
		reasons[reasonClass(e.Attr(memcached.AttrReason))]++
		if c := e.Attr(memcached.AttrConsumer); c != "" {
			conns[c] = true
		}
	}
	sort.Ints(vbs)
	ev := evidence.Set{Copies: true}
	for i, e := range rbs {
		if i >= 5 {
			break
		}
		ev.Add(e, fmt.Sprintf("the producer tells the consumer to roll vb %d back to 0: %s", e.VB, reasonClass(e.Attr(memcached.AttrReason))))
	}
	if last != first {
		ev.Add(last, fmt.Sprintf("the last rollback to 0 of this incident (vb %d)", last.VB))
	}
	// What cut the history: the latest failover anywhere in the cluster, or
	// an unclean start of this node's memcached, in the hour before.
	var cause *forensics.Event
	for _, c := range context {
		if c.Time.After(first.Time) || first.Time.Sub(c.Time) > time.Hour {
			continue
		}
		if c.Kind == mcStart && (c.Node != node || c.Attr(memcached.AttrUnclean) != "true") {
			continue
		}
		cause = c
	}
	var causeWords string
	if cause != nil {
		switch cause.Kind {
		case mcStart:
			causeWords = fmt.Sprintf("memcached on %s had started again at %s after an unclean stop (no graceful shutdown): warmup gave its vbuckets new history branches at what it had persisted", node, evidence.Clock(cause.Time))
			ev.Add(cause, "memcached restarts after an unclean stop")
		default:
			causeWords = fmt.Sprintf("a failover at %s (%s): replicas promoted to active do not hold the history the consumer had followed", evidence.Clock(cause.Time), evidence.FirstLine(cause.Text))
			ev.Add(cause, "the failover that came before")
		}
	}
	sev := forensics.Medium
	if consumer == "indexer" {
		sev = forensics.High
	}
	var cnames []string
	for n := range conns {
		cnames = append(cnames, n)
	}
	sort.Strings(cnames)
	f := forensics.Finding{
		Severity: sev,
		Subject:  forensics.FindingSubject{Node: node, Bucket: bucket, VBuckets: vbs, Details: forensics.Details{consumersDetail.List(cnames), consumerDetail.Text(consumer)}},
		Start:    first.Time,
		End:      last.Time,
		Evidence: ev.Sorted(),
	}
	f.Start = f.Evidence[0].Time
	f.Title = fmt.Sprintf("%s told %s consumers of %s to roll %d vbucket(s) back to seqno 0", node, consumer, bucket, len(vbs))
	var b strings.Builder
	fmt.Fprintf(&b, "On %s from %s to %s (UTC) memcached on %s answered %d stream request(s) of %s consumers for bucket %s with a rollback to seqno 0, on %d vbucket(s) (%s).",
		evidence.Day(first.Time), evidence.Clock(first.Time), evidence.Clock(last.Time), node, len(rbs), consumer, bucket, len(vbs), vbWords(vbs))
	var rs []string
	for r, n := range reasons {
		rs = append(rs, fmt.Sprintf("%s (%d)", r, n))
	}
	sort.Strings(rs)
	fmt.Fprintf(&b, " memcached's reason: %s.", strings.Join(rs, "; "))
	paras := []string{b.String()}
	if causeWords != "" {
		paras = append(paras, "Before it, "+causeWords+".")
	} else {
		paras = append(paras, "The logs read here show no failover or unclean restart in the hour before; the consumer may have been away longer than the metadata purge interval, or its stream state was lost.")
	}
	switch consumer {
	case "indexer":
		paras = append(paras, "Every index of "+bucket+" that used these vbuckets is rebuilt from the start of their history: index scans are stale or time out until it catches up.")
	case "xdcr":
		paras = append(paras, "XDCR resends these vbuckets from the start; the target sees the whole history again (conflict resolution keeps it correct, at the cost of the bandwidth).")
	case "backup":
		paras = append(paras, "The next incremental backup of these vbuckets is a full one.")
	}
	f.Explanation = strings.Join(paras, "\n\n")
	h := names.HostOr(nsserver.Host(node))
	bk := names.BucketOr(bucket)
	fs := []forensics.Fix{}
	if consumer == "indexer" {
		fs = append(fs, forensics.Fix{
			Title:    "Watch the rebuild of the indexes of " + bk,
			Steps:    []string{"The index nodes rebuild from the start; check their progress and that the index service has the memory and disk for it."},
			Commands: []string{shell.Command("curl", "-s", "-u", "Administrator:PASSWORD", "http://"+h+":8091/indexStatus") + " | jq '.indexes[] | select(.bucket == \"" + bk + "\") | {index, status, progress}'"},
		})
	}
	steps := []string{"Fail over only nodes whose buckets have finished warming up, and keep enough replicas that a promoted replica is up to date."}
	if reasons["purge seqno ahead of the consumer's start"] > 0 {
		steps = append(steps, "For purge-seqno rollbacks: raise the bucket's metadata purge interval above the longest time a consumer may be away.")
	}
	fs = append(fs, forensics.Fix{
		Title: "Prevent what cut the history of " + bk,
		Steps: steps,
		Commands: []string{
			shell.Command("cbstats", h+":11210", "-u", "Administrator", "-p", "PASSWORD", "-b", bk, "failovers"),
		},
	})
	f.Fixes = fs
	return f
}

// reasonClass names memcached's rollback reason (failover-table.cc,
// dcp/producer.cc) in a few words.
func reasonClass(r string) string {
	switch {
	case strings.Contains(r, "no common history"), strings.Contains(r, "vBucket UUID not found"):
		return "no common history (the consumer's vbucket uuid is not in the failover table)"
	case strings.Contains(r, "purge seqno"):
		return "purge seqno ahead of the consumer's start"
	case strings.Contains(r, "consumer ahead of producer"):
		return "consumer ahead of producer"
	case r == "":
		return "no reason logged"
	}
	return r
}

func vbWords(vbs []int) string {
	var s []string
	for i, v := range vbs {
		if i == 12 {
			s = append(s, fmt.Sprintf("… %d more", len(vbs)-12))
			break
		}
		s = append(s, fmt.Sprint(v))
	}
	return "vb " + strings.Join(s, ", ")
}
