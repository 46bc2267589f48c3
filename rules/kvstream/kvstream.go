// Package kvstream holds the rule kv-stream-before-traffic: a Couchbase KV
// node whose memcached restarted answered DCP stream requests while it was
// still warming up, before ns_server had enabled traffic on the bucket.
//
// kv_engine 7.1 serves a stream request as soon as warmup has created the
// vbucket (DcpProducer::streamRequest checks only that the vbucket exists,
// not that traffic is enabled), so a consumer that reconnects quickly repairs
// its streams against a node that ns_server has not yet declared healthy and
// may be about to fail over (MB-53076 and its spin-off, July 2022).
package kvstream

import (
	"time"

	"forensics"
)

// Event kinds the rule reads. They are the parsers' contract (memcached,
// nsserver, indexer, projector); kinds_test.go checks them against the
// parsers' declared kinds.
const (
	mcStart          forensics.Kind = "memcached.start"
	mcFailoverEntry  forensics.Kind = "memcached.failover_entry"
	mcWarmupStart    forensics.Kind = "memcached.warmup_start"
	mcWarmupUnblock  forensics.Kind = "memcached.warmup_unblock"
	mcWarmupEnough   forensics.Kind = "memcached.warmup_enough"
	mcWarmupComplete forensics.Kind = "memcached.warmup_complete"
	mcTraffic        forensics.Kind = "memcached.traffic_enabled"
	mcCreated        forensics.Kind = "memcached.stream_created"
	mcRollback       forensics.Kind = "memcached.stream_rollback"
	mcVBState        forensics.Kind = "memcached.vb_state"

	nsExited         forensics.Kind = "nsserver.service_exited"
	nsPortExited     forensics.Kind = "nsserver.port_exited"
	nsEnabling       forensics.Kind = "nsserver.traffic_enabling"
	nsWarmed         forensics.Kind = "nsserver.bucket_warmed"
	nsReady          forensics.Kind = "nsserver.bucket_ready"
	nsOnline         forensics.Kind = "nsserver.bucket_online"
	nsNotReady       forensics.Kind = "nsserver.bucket_not_ready"
	nsLoaded         forensics.Kind = "nsserver.bucket_loaded"
	nsFailoverStart  forensics.Kind = "nsserver.failover_start"
	nsFailoverNode   forensics.Kind = "nsserver.failover_node"
	nsFailoverFailed forensics.Kind = "nsserver.failover_failed"
	nsFailoverEnd    forensics.Kind = "nsserver.failover_end"
	nsAutoFailover   forensics.Kind = "nsserver.autofailover"

	ixStreamEnd   forensics.Kind = "indexer.stream_end"
	ixStreamBegin forensics.Kind = "indexer.stream_begin"
	ixRollback    forensics.Kind = "indexer.rollback"

	prRollback forensics.Kind = "projector.stream_rollback"
	prResponse forensics.Kind = "projector.stream_response"

	// Read for the clock-skew note only (skew.go).
	prClosed    forensics.Kind = "projector.dcp_closed"
	prStreamEnd forensics.Kind = "projector.stream_end"
)

// Rule flags stream requests a KV node answered between a memcached restart
// and ns_server enabling traffic on the bucket there.
var Rule = &forensics.Rule{
	Name: "kv-stream-before-traffic",
	Doc: forensics.Doc{
		Title: "DCP stream requests answered by a KV node still warming up",
		Detects: "A Couchbase data node whose memcached restarted (crash, kill, status 137) answered DCP stream " +
			"requests (accepted them, or told the client to roll back) for a bucket before ns_server enabled " +
			"traffic on that bucket on the node. One finding per node, bucket and restart, listing the vbuckets " +
			"and the consumers (DCP connection names as memcached logs them after eq_dcpq:, e.g. " +
			"secidx:proj-… for the GSI projector). Severity high; critical when the node was then failed over " +
			"before traffic was enabled, in which case the finding says whether the consumer had to roll back " +
			"again on the node that took over the vbucket. Requests refused with not_my_vbucket during warmup " +
			"are correct behaviour and are not flagged; nor are ns_server's own replication streams " +
			"(replication:…), which its janitor sets up as part of bringing the bucket online.",
		Why: "After an unclean restart, warmup gives every active vbucket a new failover-log branch at the last " +
			"persisted seqno, and memcached serves stream requests as soon as the vbucket exists, long before " +
			"ns_server decides the node is healthy. A consumer that reconnects quickly (the GSI indexer repairs " +
			"its streams within seconds) is told to roll back to what this node happened to persist, and " +
			"discards or rebuilds index data on the word of a node that may be failed over moments later. When " +
			"it is, the replica that takes over has a different history, and the consumer rolls back a second " +
			"time, often to zero: a full index rebuild.",
		Confirm: "On the restarted node, memcached.log shows the new process (\"Couchbase version … starting.\" " +
			"with no \"Initiating graceful shutdown.\" or \"Closing logfile\" before it) and \"Warmup::createVBuckets: " +
			"vb:N created new failover entry … due to unclean shutdown\", then \"DCP (Producer) eq_dcpq:… - (vb:N) " +
			"Stream request requires rollback to seqno:…\" or \"Creating stream …\" lines before " +
			"\"EventuallyPersistentEngine::enableTraffic() result true\" (or with none at all). ns_server.info.log " +
			"shows \"Enabling traffic to bucket\" / \"Bucket … marked as warmed\" only later, if ever; " +
			"\"Warmup completed\" and \"Bucket … loaded on node\" are not traffic enablement. On the index node, " +
			"ns_server.indexer.log shows \"TK StreamBegin … <node>:8091\" and \"StreamBegin rollback … vbucket N\" " +
			"at the same time. Try: forensics timeline query --kind memcached.stream_rollback --kind " +
			"memcached.traffic_enabled --bucket BUCKET.",
		Inputs: "cbcollect_info of the restarted node (memcached.log, ns_server.info.log or debug.log, " +
			"ns_server.babysitter.log, ns_server.projector.log, diag.log) and of the index nodes " +
			"(ns_server.indexer.log); the other nodes' diag.log and memcached.log show the failover and the " +
			"second rollback. The restart is found from memcached.log, ns_server's \"Service 'memcached' exited\", " +
			"the babysitter's port exit or event log id 19; traffic enablement from memcached, ns_server " +
			"(\"Enabling traffic\", \"marked as warmed\", ns_doctor's \"buckets became ready on node\") or event " +
			"log id 8199. Without memcached.log, the projector's and the indexer's lines stand in for the " +
			"stream answers.",
		Fixes: "Keep auto-failover and manual failover away from a node that is still warming up (auto-failover " +
			"timeout longer than warmup; check cbstats warmup and the bucket's node status before failing over); " +
			"make DCP consumers wait until the node is traffic-enabled before repairing streams; run an indexer " +
			"with MB-53111 (\"Use all disk snapshots on DCP rollback\": 7.1.2+ via MB-53057, 7.0.x via MB-53252), " +
			"which makes the second rollback cheaper. No public kv_engine or ns_server change makes memcached " +
			"refuse stream requests until traffic is enabled.",
	},
	Kinds: []forensics.Kind{
		mcStart, mcFailoverEntry, mcWarmupStart, mcWarmupUnblock, mcWarmupEnough, mcWarmupComplete,
		mcTraffic, mcCreated, mcRollback, mcVBState,
		nsExited, nsPortExited, nsEnabling, nsWarmed, nsReady, nsOnline, nsNotReady, nsLoaded,
		nsFailoverStart, nsFailoverNode, nsFailoverFailed, nsFailoverEnd, nsAutoFailover,
		ixStreamEnd, ixStreamBegin, ixRollback,
		prRollback, prResponse, prClosed, prStreamEnd,
	},
	Run: run,
}

// The stream answers, stream begins and ends and vbucket states are logged
// by the thousand on a busy cluster (every replication stream, every index
// repair), while restarts are rare. run reads the restarts first, and the
// high-volume kinds only around them: from a little before each restart to
// long enough after it to see the failover and the second rollback.
var (
	restartKinds = []forensics.Kind{mcStart, nsExited, nsPortExited}
	highVolume   = map[forensics.Kind]bool{
		mcCreated: true, mcRollback: true, mcVBState: true,
		ixStreamEnd: true, ixStreamBegin: true, ixRollback: true,
		prRollback: true, prResponse: true, prStreamEnd: true,
	}
	lookBefore = restartJoin + pairWindow
	lookAfter  = 2 * time.Hour
)

func run(p *forensics.Pass) error {
	restarts, err := forensics.Collect(p.Events(restartKinds...))
	if err != nil || len(restarts) == 0 {
		return err
	}
	var rare, frequent []forensics.Kind
	for _, k := range p.Rule.Kinds {
		if highVolume[k] {
			frequent = append(frequent, k)
		} else {
			rare = append(rare, k)
		}
	}
	evs, err := forensics.Collect(p.Events(rare...))
	if err != nil {
		return err
	}
	near, err := forensics.Collect(p.EventsNear(restarts, lookBefore, lookAfter, frequent...))
	if err != nil {
		return err
	}
	for _, f := range analyze(append(evs, near...)) {
		p.Report(f)
	}
	return nil
}
