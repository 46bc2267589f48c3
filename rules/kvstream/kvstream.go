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
	"forensics/parsers/indexer"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/parsers/projector"
)

// Event kinds the rule reads, by the names their parsers export.
const (
	mcStart          = memcached.Start
	mcFailoverEntry  = memcached.FailoverEntry
	mcWarmupStart    = memcached.WarmupStart
	mcWarmupUnblock  = memcached.WarmupUnblock
	mcWarmupEnough   = memcached.WarmupEnough
	mcWarmupComplete = memcached.WarmupComplete
	mcTraffic        = memcached.TrafficEnabled
	mcCreated        = memcached.StreamCreated
	mcRollback       = memcached.StreamRollback
	mcVBState        = memcached.VBState

	nsExited         = nsserver.ServiceExited
	nsPortExited     = nsserver.PortExited
	nsEnabling       = nsserver.TrafficEnabling
	nsWarmed         = nsserver.BucketWarmed
	nsReady          = nsserver.BucketReady
	nsOnline         = nsserver.BucketOnline
	nsNotReady       = nsserver.BucketNotReady
	nsLoaded         = nsserver.BucketLoaded
	nsFailoverStart  = nsserver.FailoverStart
	nsFailoverNode   = nsserver.FailoverNode
	nsFailoverFailed = nsserver.FailoverFailed
	nsFailoverEnd    = nsserver.FailoverEnd
	nsAutoFailover   = nsserver.AutoFailover

	ixStreamEnd   = indexer.StreamEnd
	ixStreamBegin = indexer.StreamBegin
	ixRollback    = indexer.Rollback

	prRollback = projector.StreamRollback
	prResponse = projector.StreamResponse

	// Read for the clock-skew note only (skew.go).
	prClosed    = projector.DCPClosed
	prStreamEnd = projector.StreamEnd
)

// The details of a finding's subject (Rule.Details).
var (
	consumersDetail = forensics.Detail{Key: "consumers", Type: forensics.DetailList, Show: forensics.ShowApart, Doc: "the DCP connections whose stream requests the node answered, as memcached names them"}
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
	Details: []forensics.Detail{consumersDetail},
	Run:     run,
}

// The stream answers, stream begins and ends and vbucket states are logged
// by the thousand on a busy cluster (every replication stream, every index
// repair), while restarts are rare: window.go reads the restarts first, and
// the high-volume kinds only around them, from a little before each restart
// to long enough after it to see the failover and the second rollback.
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
