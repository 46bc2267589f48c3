package crdb

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// Lines of admission control, changefeeds, the txnwait queue and
// decommissions, in the releases' formats. The real ones are quoted from
// the upstream issues cited; the others follow the format strings cited in
// admission.go, changefeed.go, txnwait.go and decommission.go.
func TestOpsLines(t *testing.T) {
	const kafkaLeader = "kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date."
	tests := []struct {
		name   string
		format forensics.Format
		line   string
		want   *want
	}{
		{
			// Real line (cockroachdb/cockroach#85059, v22.2 development, granter.go).
			name:   "io overload, v22.2 crdb-v2 memtable flush",
			format: LogFormat,
			line:   "I220726 15:21:31.307433 379 util/admission/granter.go:2078 ⋮ [s1] 3029  IO overload: compaction score 0.600 (518 ssts, 12 sub-levels), L0 growth 564 MiB (write 548 MiB ingest 16 MiB): requests 152196 with 406 MiB acc-write + 122 MiB acc-ingest + write-model 1.35x+1 B (smoothed 1.30x+1 B) + ingested-model 0.13x+1 B (smoothed 0.20x+1 B) + at-admission-tokens 3.8 KiB, compacted 597 MiB [≈499 MiB], flushed 893 MiB [≈924 MiB]; admitting 670 MiB (rate 45 MiB/s) due to memtable flush (multiplier 0.725) (used 575 MiB)",
			want: &want{KindIOOverload, 0, "n9", map[string]string{"score": "0.600", "files": "518", "sublevels": "12",
				"admitting": "670 MiB", "throttled": "true", "reason": "memtable flush", "store": "s1"}},
		},
		{
			// Real line (#109361, v23.1).
			name:   "io overload, v23.1 L0 growth with write stalls",
			format: LogFormat,
			line:   "I230823 18:06:08.874355 448 util/admission/io_load_listener.go:544 ⋮ [T1,Vsystem,n1,s1] 2594  IO overload: compaction score 0.500 (262 ssts, 10 sub-levels), L0 growth 742 MiB (write 742 MiB ingest 0 B ignored 0 B): requests 12594 (0 bypassed) with 390 MiB acc-write (0 B bypassed) + 0 B acc-ingest (0 B bypassed) + write-model 1.90x+1 B (smoothed 1.84x+1 B) + ingested-model 0.00x+0 B (smoothed 0.75x+1 B) + at-admission-tokens 59 KiB, compacted 644 MiB [≈688 MiB], flushed 1.6 GiB [≈1.6 GiB]; admitting 691 MiB (rate 46 MiB/s) due to L0 growth (used 694 MiB); write stalls 0",
			want: &want{KindIOOverload, 0, "n1", map[string]string{"score": "0.500", "files": "262", "sublevels": "10",
				"admitting": "691 MiB", "throttled": "true", "reason": "L0 growth", "store": "s1", "write_stalls": "0"}},
		},
		{
			// Real line (#115373, v23.2): regular and elastic budgets.
			name:   "io overload, v23.2 regular and elastic tokens",
			format: LogFormat,
			line:   "I231130 20:29:36.257683 2788 util/admission/io_load_listener.go:597 ⋮ [T1,Vsystem,n9,s9] 4846  IO overload: compaction score 0.250 (105 ssts, 5 sub-levels), L0 growth 0 B (write 0 B (ignored 0 B) ingest 0 B (ignored 0 B)): requests 187 (145 bypassed) with 240 KiB acc-write (183 KiB bypassed) + 0 B acc-ingest (0 B bypassed) + write-model 0.00x+0 B (smoothed 2.93x+155 B) + ingested-model 0.00x+0 B (smoothed 0.75x+1 B) + at-admission-tokens 38 KiB, compacted 0 B [≈251 B], flushed 0 B [≈296 MiB]; admitting 2.2 KiB (rate 150 B/s) (elastic 219 B rate 14 B/s) due to L0 growth (used total: 795 KiB elastic 0 B); write stalls 0",
			want: &want{KindIOOverload, 0, "n9", map[string]string{"score": "0.250", "files": "105", "sublevels": "5",
				"admitting": "2.2 KiB", "throttled": "true", "reason": "L0 growth", "store": "s9", "write_stalls": "0"}},
		},
		{
			name:   "io overload, v24.3 over the threshold, WAL failover, lower bound",
			format: LogFormat,
			line:   "I241015 09:12:45.500120 611 util/admission/io_load_listener.go:765 ⋮ [T1,Vsystem,n3,s3] 812  IO overload: compaction score 1.350[L0-overload] (1210 ssts, 27 sub-levels), L0 growth 1.1 GiB (write 1.1 GiB (ignored 0 B) ingest 12 MiB (ignored 0 B)): requests 90211 (12 bypassed) with 1.0 GiB acc-write (0 B bypassed) + 12 MiB acc-ingest (0 B bypassed) + 1.9 GiB adjusted-LSM-writes + 7.0 GiB adjusted-disk-writes + write-model 1.10x+1 B (smoothed 1.08x+1 B) + ingested-model 1.00x+1 B (smoothed 0.90x+1 B) + write-amp-model 3.70x+1 B (smoothed 3.64x+1 B) + at-admission-tokens 12 KiB, compacted 610 MiB [≈640 MiB], flushed 1.2 GiB [≈1.2 GiB] (mult 1.50); admitting (WAL failover) 320 MiB (rate 21 MiB/s) (elastic 1 B rate 0 B/s) due to L0 growth(used token lower bound) (used total: 318 MiB elastic 0 B); write stalls 3",
			want: &want{KindIOOverload, 0, "n3", map[string]string{"score": "1.350", "overload": "true", "files": "1210", "sublevels": "27",
				"admitting": "320 MiB", "throttled": "true", "reason": "L0 growth", "store": "s3", "write_stalls": "3"}},
		},
		{
			name:   "io overload, elastic work only",
			format: LogFormat,
			line:   "I241015 09:10:15.500120 611 util/admission/io_load_listener.go:765 ⋮ [T1,Vsystem,n3,s3] 790  IO overload: compaction score 0.400 (88 ssts, 8 sub-levels), L0 growth 80 MiB (write 80 MiB (ignored 0 B) ingest 0 B (ignored 0 B)): requests 1 (0 bypassed) with 0 B acc-write (0 B bypassed) + 0 B acc-ingest (0 B bypassed) + 0 B adjusted-LSM-writes + 0 B adjusted-disk-writes + write-model 0.00x+0 B (smoothed 1.08x+1 B) + ingested-model 0.00x+0 B (smoothed 0.90x+1 B) + write-amp-model 0.00x+0 B (smoothed 3.64x+1 B) + at-admission-tokens 12 KiB, compacted 70 MiB [≈71 MiB], flushed 80 MiB [≈90 MiB] (mult 1.50); admitting elastic 63 KiB (rate 4.2 KiB/s) due to L0 growth; write stalls 0",
			want: &want{KindIOOverload, 0, "n3", map[string]string{"score": "0.400", "files": "88", "sublevels": "8",
				"admitting": "elastic 63 KiB", "reason": "L0 growth", "store": "s3", "write_stalls": "0"}},
		},
		{
			name:   "io overload, admitting all",
			format: LogFormat,
			line:   "I241015 09:20:00.500120 611 util/admission/io_load_listener.go:765 ⋮ [T1,Vsystem,n3,s3] 901  IO overload: compaction score 0.050 (3 ssts, 1 sub-levels), L0 growth 31 MiB (write 31 MiB (ignored 0 B) ingest 0 B (ignored 0 B)): requests 10 (0 bypassed) with 0 B acc-write (0 B bypassed) + 0 B acc-ingest (0 B bypassed) + write-model 0.50x+1 B (smoothed 0.50x+1 B) + ingested-model 0.00x+0 B (smoothed 1.13x+1 B) + at-admission-tokens 43 B, compacted 30 MiB [≈31 MiB], flushed 3.4 GiB [≈3.4 GiB] (mult 1.50); admitting all; write stalls 0",
			want: &want{KindIOOverload, 0, "n3", map[string]string{"score": "0.050", "files": "3", "sublevels": "1",
				"admitting": "all", "store": "s3", "write_stalls": "0"}},
		},
		{
			// v22.1's granter.go: no score; the default thresholds give it.
			name:   "io overload, v22.1 crdb-v2 without score",
			format: LogFormat,
			line:   "I220512 11:40:16.000213 361 util/admission/granter.go:1581 ⋮ [n2,s2] 2201  IO overload: 1103 ssts, 24 sub-levels, L0 growth 1.2 GiB: 1.1 GiB acc + 98 MiB unacc [≈12 KiB/req, n=101238], compacted 640 MiB [≈602 MiB], flush tokens 2.3 GiB with multiplier 0.750 [≈1.7 GiB]; admitting 301 MiB(used 280 MiB) with L0 penalty: +12 KiB/req LSM growth 1.3 GiB:  1.2 GiB acc + 100 MiB unacc [≈12 KiB/req, admit≈12 KiB/req] ",
			want: &want{KindIOOverload, 0, "n2", map[string]string{"score": "1.200", "overload": "true", "files": "1103", "sublevels": "24",
				"admitting": "301 MiB", "throttled": "true", "store": "s2"}},
		},
		{
			name:   "io overload, json",
			format: JSONLogFormat,
			line:   `{"channel_numeric":0,"channel":"DEV","timestamp":"1728983565.500120000","cluster_id":"9f0b9a3c-7b4e-4a55-9f0e-3e3c7b9f2d11","node_id":3,"severity_numeric":1,"severity":"INFO","goroutine":611,"file":"util/admission/io_load_listener.go","line":765,"entry_counter":812,"redactable":1,"tags":{"T":"1","V":"system","n":"3","s":"3"},"message":"IO overload: compaction score 1.350[L0-overload] (1210 ssts, 27 sub-levels), L0 growth 1.1 GiB: …; admitting 320 MiB (rate 21 MiB/s) (elastic 1 B rate 0 B/s) due to L0 growth (used total: 318 MiB elastic 0 B); write stalls 3"}`,
			want: &want{KindIOOverload, 0, "n3", map[string]string{"score": "1.350", "overload": "true", "files": "1210", "sublevels": "27",
				"admitting": "320 MiB", "throttled": "true", "reason": "L0 growth", "store": "s3", "write_stalls": "3"}},
		},
		{
			name:   "not io overload: another message that starts alike",
			format: LogFormat,
			line:   "I241015 09:20:00.500120 611 util/admission/io_load_listener.go:765 ⋮ [T1,Vsystem,n3,s3] 901  IO overload: none seen since the store opened",
		},
		{
			// Real message (cockroachdb/cockroach#69561, v21.1), in crdb-v2.
			name:   "changefeed retryable error, v21.1",
			format: LogFormat,
			line:   "W210830 10:07:18.331000 5871 ccl/changefeedccl/changefeed_stmt.go:733 ⋮ [n17,job=‹688920172251709457›] 1319933  CHANGEFEED job ‹688920172251709457› encountered retryable error: ‹retryable changefeed error›: ‹" + kafkaLeader + "›",
			want: &want{KindChangefeedRetry, 0, "n17", map[string]string{"job": "688920172251709457",
				"error": "retryable changefeed error: " + kafkaLeader}},
		},
		{
			name:   "changefeed retryable error, v23.1 WARNING prefix",
			format: LogFormat,
			line:   "W230612 10:05:02.211846 8812 ccl/changefeedccl/changefeed_stmt.go:1099 ⋮ [T1,n2,job=‹874133020612345857›] 88  WARNING: CHANGEFEED job ‹874133020612345857› encountered retryable error: ‹retryable changefeed error›: ‹kafka: client has run out of available brokers to talk to (Is your cluster reachable?)›",
			want: &want{KindChangefeedRetry, 0, "n2", map[string]string{"job": "874133020612345857",
				"error": "retryable changefeed error: kafka: client has run out of available brokers to talk to (Is your cluster reachable?)"}},
		},
		{
			name:   "changefeed transient error, v24.1 with attempt",
			format: LogFormat,
			line:   "W240612 10:05:02.211846 8812 ccl/changefeedccl/changefeed_stmt.go:1391 ⋮ [T1,Vsystem,n2,job=‹CHANGEFEED id=975312406918414337›] 412  Changefeed job 975312406918414337 encountered transient error: ‹kafka server: Message was too large, server rejected it to avoid allocation error.› (attempt 4)",
			want: &want{KindChangefeedRetry, 0, "n2", map[string]string{"job": "975312406918414337", "attempt": "4",
				"error": "kafka server: Message was too large, server rejected it to avoid allocation error."}},
		},
		{
			name:   "changefeed transient error, v25.4 with backoff",
			format: LogFormat,
			line:   "W251009 14:20:07.123456 8123 ccl/changefeedccl/changefeed_stmt.go:1612 ⋮ [T1,Vsystem,n2,job=‹CHANGEFEED id=1101458190946369537›] 77  Changefeed job 1101458190946369537 encountered transient error: ‹dial tcp 10.0.4.21:9092: connect: connection refused› (attempt 12) (approx backoff: 1m0s)",
			want: &want{KindChangefeedRetry, 0, "n2", map[string]string{"job": "1101458190946369537", "attempt": "12", "backoff": "1m0s",
				"error": "dial tcp 10.0.4.21:9092: connect: connection refused"}},
		},
		{
			name:   "changefeed shutting down, terminal error",
			format: LogFormat,
			line:   "I251009 15:02:11.000456 8123 ccl/changefeedccl/changefeed_stmt.go:1598 ⋮ [T1,Vsystem,n2,job=‹CHANGEFEED id=1101458190946369537›] 90  CHANGEFEED 1101458190946369537 shutting down (cause: ‹kafka server: SASL Authentication failed.›)",
			want: &want{KindChangefeedFailed, 0, "n2", map[string]string{"job": "1101458190946369537",
				"error": "kafka server: SASL Authentication failed."}},
		},
		{
			name:   "changefeed returning with error, v22.2",
			format: LogFormat,
			line:   "W221104 08:00:01.000456 812 ccl/changefeedccl/changefeed_stmt.go:1020 ⋮ [n1,job=‹815131219036373057›] 61  CHANGEFEED job ‹815131219036373057› returning with error: ‹schema change occurred at 1667548800.000000000,0›",
			want: &want{KindChangefeedFailed, 0, "n1", map[string]string{"job": "815131219036373057",
				"error": "schema change occurred at 1667548800.000000000,0"}},
		},
		{
			name:   "changefeed, json",
			format: JSONLogFormat,
			line:   `{"channel_numeric":0,"channel":"DEV","timestamp":"1718186702.211846000","node_id":2,"severity":"WARNING","goroutine":8812,"file":"ccl/changefeedccl/changefeed_stmt.go","line":1391,"entry_counter":412,"redactable":1,"tags":{"T":"1","n":"2","job":"‹CHANGEFEED id=975312406918414337›"},"message":"Changefeed job 975312406918414337 encountered transient error: ‹kafka server: Message was too large, server rejected it to avoid allocation error.› (attempt 5)"}`,
			want: &want{KindChangefeedRetry, 0, "n2", map[string]string{"job": "975312406918414337", "attempt": "5",
				"error": "kafka server: Message was too large, server rejected it to avoid allocation error."}},
		},
		{
			name:   "not a changefeed retry: a job word after CHANGEFEED",
			format: LogFormat,
			line:   "I240612 10:05:02.211846 8812 jobs/registry.go:1391 ⋮ [T1,Vsystem,n2] 412  CHANGEFEED job scheduled",
		},
		{
			// Real line (oxidecomputer/omicron#3207, v22.1).
			name:   "push finished, crdb-v2",
			format: LogFormat,
			line:   "W230523 22:42:36.866723 938 kv/kvserver/txnwait/queue.go:574 ⋮ [n1,s1,r149/1:‹/Table/19{1-4}›] 297  pusher ‹6a43640d›: finished waiting after 329.98s for pushee ‹fea211f7›",
			want: &want{KindPushFinished, 149, "n1", map[string]string{"pusher": "6a43640d", "pushee": "fea211f7", "duration": "329.98s",
				"span": "/Table/19{1-4}", "store": "s1"}},
		},
		{
			name:   "push waiting, v24 crdb-v2",
			format: LogFormat,
			line:   "W240612 10:06:03.000120 91234 kv/kvserver/txnwait/queue.go:640 ⋮ [T1,Vsystem,n2,s2,r812/3:‹/Table/106/1/4{00-50}›] 1201  pusher ‹3f2a9c1e›: have been waiting 60.00s for pushee ‹b71d04a2›",
			want: &want{KindPushWaiting, 812, "n2", map[string]string{"pusher": "3f2a9c1e", "pushee": "b71d04a2", "duration": "60.00s",
				"span": "/Table/106/1/4{00-50}", "store": "s2"}},
		},
		{
			name:   "push, json",
			format: JSONLogFormat,
			line:   `{"channel_numeric":0,"channel":"DEV","timestamp":"1718186763.000120000","node_id":2,"severity":"WARNING","goroutine":91234,"file":"kv/kvserver/txnwait/queue.go","line":640,"entry_counter":1201,"redactable":1,"tags":{"T":"1","n":"2","s":"2","r":"812/3:‹/Table/106/1/4{00-50}›"},"message":"pusher ‹3f2a9c1e›: have been waiting 60.00s for pushee ‹b71d04a2›"}`,
			want: &want{KindPushWaiting, 812, "n2", map[string]string{"pusher": "3f2a9c1e", "pushee": "b71d04a2", "duration": "60.00s",
				"span": "/Table/106/1/4{00-50}", "store": "s2"}},
		},
		{
			// kvpb.BatchRequest.SafeFormat's "PushTxn(%s->%s)".
			name:   "slow PushTxn RPC, v25.2",
			format: LogFormat,
			line:   "W250814 13:16:10.402117 91877 kv/kvclient/kvcoord/dist_sender.go:2143 ⋮ [T1,Vsystem,n3,client=‹10.0.1.7:51868›,hostssl,user=‹app›] 71  slow replica RPC: have been waiting 60.52s (1 attempts) for RPC PushTxn(‹3f2a9c1e›->‹b71d04a2›) [‹/Table/106/1/412/0›,‹/Min›), [txn: 3f2a9c1e] to replica (n1,s1):1; resp: ‹(err: <nil>), *kvpb.PushTxnResponse›",
			want: &want{KindSlowRPC, 0, "n3", map[string]string{"pusher": "3f2a9c1e", "pushee": "b71d04a2", "seconds": "60.52", "attempts": "1",
				"batch": "PushTxn(3f2a9c1e->b71d04a2) [/Table/106/1/412/0,/Min), [txn: 3f2a9c1e]", "replica": "(n1,s1):1",
				"resp": "(err: <nil>), *kvpb.PushTxnResponse", "client": "10.0.1.7:51868", "gateway": "n3", "trace": "T1,Vsystem,n3,client=10.0.1.7:51868,hostssl,user=app"}},
		},
		{
			// PushTxnRequest.SafeFormat's "PushTxn(%s,%s->%s)".
			name:   "slow PushTxn RPC with the push type",
			format: LogFormat,
			line:   "W250814 13:16:10.402117 91877 kv/kvclient/kvcoord/dist_sender.go:2143 ⋮ [T1,Vsystem,n3] 71  slow replica RPC: have been waiting 61.00s (1 attempts) for RPC PushTxn(‹PUSH_ABORT›,3f2a9c1e->b71d04a2) [‹/Table/106/1/412/0›,‹/Min›) to replica (n1,s1):1; resp: ‹(err: <nil>)›",
			want: &want{KindSlowRPC, 0, "n3", map[string]string{"pusher": "3f2a9c1e", "pushee": "b71d04a2", "seconds": "61.00", "attempts": "1",
				"batch": "PushTxn(PUSH_ABORT,3f2a9c1e->b71d04a2) [/Table/106/1/412/0,/Min)", "replica": "(n1,s1):1",
				"resp": "(err: <nil>)", "gateway": "n3", "trace": "T1,Vsystem,n3"}},
		},
		{
			name:   "not a push: a pusher word",
			format: LogFormat,
			line:   "I240612 10:06:03.000120 91234 kv/kvserver/replica.go:640 ⋮ [T1,Vsystem,n2] 1201  pusher of the txn is gone: nothing to wait for",
		},
		{
			// The docs' example (troubleshooting: "Decommissioning process hangs indefinitely").
			name:   "decommission stall, OPS channel",
			format: LogFormat,
			line:   "W240612 10:41:02.118273 120033 1@server/admin.go:2879 ⋮ [T1,Vsystem,n1,client=10.0.0.9:51342,user=root] 503  possible decommission stall detected",
			want:   &want{KindDecommissionStall, 0, "n1", map[string]string{}},
		},
		{
			name:   "replica left after a stall",
			format: LogFormat,
			line:   "W240612 10:41:02.131001 120033 1@server/admin.go:2913 ⋮ [T1,Vsystem,n1,client=10.0.0.9:51342,user=root] 504  n3 still has replica id 2 for range r1",
			want:   &want{KindDecommissionReplicas, 1, "n1", map[string]string{"target": "n3", "replica_id": "2"}},
		},
		{
			name:   "not a replica left: another n-message",
			format: LogFormat,
			line:   "I240612 10:41:02.131001 120033 server/node.go:2913 ⋮ [T1,Vsystem,n1] 504  n3 still has a lot to do",
		},
		{
			name:   "decommissioning event, crdb-v2 structured",
			format: LogFormat,
			line:   `I240612 10:05:02.211846 8812 1@util/log/event_log.go:39 ⋮ [T1,Vsystem,n1,client=10.0.0.9:51342,hostssl,user=root] 9 ={"Timestamp":1718186702211846000,"EventType":"node_decommissioning","RequestingNodeID":1,"TargetNodeID":4}`,
			want:   &want{KindDecommissionStarted, 0, "n1", map[string]string{"target": "n4", "requester": "n1"}},
		},
		{
			name:   "decommissioned event, crdb-v1 structured",
			format: LogFormat,
			line:   `I210302 16:20:41.002511 4412 1@util/log/event_log.go:32 ⋮ [n2,client=10.0.0.9:51342,hostssl,user=root] Structured entry: {"Timestamp":1614702041002511000,"EventType":"node_decommissioned","RequestingNodeID":2,"TargetNodeID":5}`,
			want:   &want{KindDecommissionDone, 0, "n2", map[string]string{"target": "n5", "requester": "n2"}},
		},
		{
			name:   "not a membership event: another structured event",
			format: LogFormat,
			line:   `I240612 10:05:02.211846 8812 1@util/log/event_log.go:39 ⋮ [T1,Vsystem,n1] 9 ={"Timestamp":1718186702211846000,"EventType":"node_restart","NodeID":4,"StartedAt":1718186702000000000}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parsertest.Parse(tt.format, forensics.Origin{Node: "n9"}, []byte(tt.line+"\n"))
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			if tt.want == nil {
				if len(res.Events) > 0 {
					t.Fatalf("events %v, want none", res.Kinds())
				}
				return
			}
			if len(res.Events) != 1 {
				t.Fatalf("events %v, want one %s", res.Kinds(), tt.want.kind)
			}
			checkEvent(t, res.Events[0], *tt.want)
			parsertest.Check(t, tt.format, forensics.Origin{Node: "n9"}, []byte(tt.line+"\n"))
		})
	}
}
