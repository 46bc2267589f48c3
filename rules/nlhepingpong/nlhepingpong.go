// Package nlhepingpong holds the rule crdb-nlhe-pingpong: CockroachDB's
// DistSender sending a range's requests back and forth between replicas
// that each name another as leaseholder (cockroachdb/cockroach#22837).
package nlhepingpong

import (
	"fmt"
	"slices"
	"time"

	"forensics"
	"forensics/parsers/crdb"
)

// The details of a finding's subject (Rule.Details).
var (
	replicasDetail  = forensics.Detail{Key: "replicas", Type: forensics.DetailList, Join: " ", Doc: "the replicas requests bounced between"}
	redirectsDetail = forensics.Detail{Key: "redirects", Type: forensics.DetailInt, Doc: "how many NotLeaseHolderError redirects"}
)

// Rule flags NotLeaseHolderError ping-pong on a range.
var Rule = &forensics.Rule{
	Name: "crdb-nlhe-pingpong",
	Doc: forensics.Doc{
		Title: "requests bounce between replicas that each name another as leaseholder",
		Detects: `A range whose requests DistSender sends back and forth between two (or more) replicas, each refusing with a
NotLeaseHolderError that names another replica of the loop as leaseholder: at least 3 full A→B→A cycles within one
request, or an alternation that lasts 1 s or more across the requests of one gateway (with at least 2 cycles).
One finding per range and episode, however many requests, gateways or files show it. Severity high; critical when
the episode lasts over 1 s.
Not flagged: a single redirect that succeeds on the next replica; an A→B→A bounce that resolves within a couple of
RPCs; DistSender backing off on stale lease information and then succeeding; a chain A→B→C; "lease holder unknown";
redirects of different ranges; the same trace read twice (two latency buckets of /debug/requests).`,
		Why: `While the loop lasts nobody serves the range: every request to it bounces until one replica applies the lease
the others already know about. Each bounce is an RPC, so the RPC and NotLeaseHolderError counts jump (the Admin UI's
RPC Errors graph in the thousands), and the extra load can slow the lagging replica further. One replica has fallen
behind in the Raft log and has not applied the newer lease; versions before v19.1 retry at once, forever.`,
		Confirm: `In /debug/requests (with trace.debug.enable set), a request trace shows "application error: [NotLeaseHolderError]
rN: replica A not lease holder; current lease is repl=B …" and then the same for B naming A, over and over. In node
logs the same lines appear only with --vmodule=dist_sender=2 (or logspy). Compare the leases the two replicas report:
the one with the higher seq (or, when a seq is 0, the later start) is newer; the replica reporting the older one is
behind. Check it in the range report /#/reports/range/N and crdb_internal.ranges.`,
		Inputs: `DistSender's redirect lines: a saved /debug/requests page (text or HTML), statement bundle traces
(trace.txt, trace.json, trace-jaeger.json), or node logs (every text and JSON format, debug zips) with dist_sender
verbosity 2. Trace headers and "(N events discarded)" rows make the finding say which request and how many events
were lost.`,
		Fixes: `Look at the lagging replica's Raft state and apply backlog (range report, crdb_internal.ranges, the debug zip's
ranges/N.json) and at what slows its node. Move the lease to a replica that has applied the newer lease
(ALTER RANGE N RELOCATE LEASE TO <store> from v22.1; ALTER TABLE … EXPERIMENTAL_RELOCATE LEASE from v2.1); if that
loops too, restart the lagging node so its epoch lease ends. Upgrading helps the symptom: v19.1 backs off on these
errors (#32877), v20.2 stops following stale leases after a few tries (#52837), later versions ignore stale lease
information from lagging replicas (#73697).`,
	},
	Kinds: []forensics.Kind{
		crdb.KindNLHE, crdb.KindNextPeer, crdb.KindSend, crdb.KindBackoff,
		crdb.KindTraceStart, crdb.KindTraceDiscarded,
	},
	Details: []forensics.Detail{replicasDetail, redirectsDetail},
	Run:     run,
}

// DistSender logs a "sending batch" line for every batch, so the rule finds
// the episodes from the redirects alone and reads the rest of the story
// (trace starts, sends, back-offs) only around each episode. A trace that
// holds a ping-pong started at most traceBefore before the episode.
const (
	traceBefore  = 5 * time.Minute
	contextAfter = time.Minute
)

func run(pass *forensics.Pass) error {
	discards, err := forensics.Collect(pass.Events(crdb.KindTraceDiscarded))
	if err != nil {
		return fmt.Errorf("read trace discards: %w", err)
	}
	rs := newRanges(discards)
	for e, err := range pass.Events(crdb.KindNLHE) {
		if err != nil {
			return fmt.Errorf("read DistSender redirects: %w", err)
		}
		rs.add(e)
	}
	for _, ep := range rs.episodes() {
		since, until := ep.start.Add(-traceBefore), ep.end.Add(contextAfter)
		// DistSender's lines of the episode's range, and the headers of the
		// traces, which name no range.
		evs, err := forensics.Collect(pass.Query(forensics.Query{
			Kinds: []forensics.Kind{crdb.KindNLHE, crdb.KindNextPeer, crdb.KindSend, crdb.KindBackoff},
			Range: ep.rng, Since: since, Until: until,
		}))
		if err != nil {
			return fmt.Errorf("read DistSender events: %w", err)
		}
		traces, err := forensics.Collect(pass.Query(forensics.Query{
			Kinds: []forensics.Kind{crdb.KindTraceStart, crdb.KindTraceDiscarded}, Since: since, Until: until,
		}))
		if err != nil {
			return fmt.Errorf("read trace headers: %w", err)
		}
		evs = append(evs, traces...)
		slices.SortStableFunc(evs, func(a, b forensics.Event) int { return forensics.Compare(&a, &b) })
		pass.Report(finding(ep, dedupe(evs)))
	}
	return nil
}

// findings runs the rule on DistSender events in time order.
func findings(evs []forensics.Event) []forensics.Finding {
	eps := judgeEach(evs)
	evs = dedupe(evs)
	var out []forensics.Finding
	for _, ep := range eps {
		out = append(out, finding(ep, evs))
	}
	return out
}
