package crdb

import "forensics"

// The attribute keys the crdb parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAttempts         forensics.AttrKey = "attempts"
	AttrBatch            forensics.AttrKey = "batch"
	AttrBytes            forensics.AttrKey = "bytes"
	AttrClient           forensics.AttrKey = "client"
	AttrCommand          forensics.AttrKey = "command"
	AttrCount            forensics.AttrKey = "count"
	AttrDown             forensics.AttrKey = "down"
	AttrDuration         forensics.AttrKey = "duration"
	AttrDurationUs       forensics.AttrKey = "duration_us"
	AttrElapsed          forensics.AttrKey = "elapsed"
	AttrEpoch            forensics.AttrKey = "epoch"
	AttrError            forensics.AttrKey = "error"
	AttrFatal            forensics.AttrKey = "fatal"
	AttrGateway          forensics.AttrKey = "gateway"
	AttrHealthy          forensics.AttrKey = "healthy"
	AttrHolderUnknown    forensics.AttrKey = "holder_unknown"
	AttrKnown            forensics.AttrKey = "known"
	AttrLeaseAcq         forensics.AttrKey = "lease_acq"
	AttrLeaseEpoch       forensics.AttrKey = "lease_epoch"
	AttrLeaseExp         forensics.AttrKey = "lease_exp"
	AttrLeaseMinExp      forensics.AttrKey = "lease_min_exp"
	AttrLeasePro         forensics.AttrKey = "lease_pro"
	AttrLeaseReplica     forensics.AttrKey = "lease_replica"
	AttrLeaseSeq         forensics.AttrKey = "lease_seq"
	AttrLeaseStart       forensics.AttrKey = "lease_start"
	AttrLeaseTerm        forensics.AttrKey = "lease_term"
	AttrMaxOffset        forensics.AttrKey = "max_offset"
	AttrNext             forensics.AttrKey = "next"
	AttrNLHE             forensics.AttrKey = "nlhe"
	AttrOffset           forensics.AttrKey = "offset"
	AttrOp               forensics.AttrKey = "op"
	AttrOperation        forensics.AttrKey = "operation"
	AttrPath             forensics.AttrKey = "path"
	AttrPeer             forensics.AttrKey = "peer"
	AttrPrevLeaseAcq     forensics.AttrKey = "prev_lease_acq"
	AttrPrevLeaseEpoch   forensics.AttrKey = "prev_lease_epoch"
	AttrPrevLeaseMinExp  forensics.AttrKey = "prev_lease_min_exp"
	AttrPrevLeasePro     forensics.AttrKey = "prev_lease_pro"
	AttrPrevLeaseReplica forensics.AttrKey = "prev_lease_replica"
	AttrPrevLeaseSeq     forensics.AttrKey = "prev_lease_seq"
	AttrPrevLeaseStart   forensics.AttrKey = "prev_lease_start"
	AttrPrevLeaseTerm    forensics.AttrKey = "prev_lease_term"
	AttrReason           forensics.AttrKey = "reason"
	AttrReplica          forensics.AttrKey = "replica"
	AttrReplicas         forensics.AttrKey = "replicas"
	AttrResp             forensics.AttrKey = "resp"
	AttrSeconds          forensics.AttrKey = "seconds"
	AttrStore            forensics.AttrKey = "store"
	AttrTarget           forensics.AttrKey = "target"
	AttrTitle            forensics.AttrKey = "title"
	AttrTrace            forensics.AttrKey = "trace"
	AttrTraceID          forensics.AttrKey = "trace_id"
	AttrTxn              forensics.AttrKey = "txn"
	AttrUnavailable      forensics.AttrKey = "unavailable"
	AttrUncertainty      forensics.AttrKey = "uncertainty"
	AttrMaxSeenSeq       forensics.AttrKey = "max_seen_seq"
	AttrOffsetMS         forensics.AttrKey = "offset_ms"
	AttrPrevLeaseExp     forensics.AttrKey = "prev_lease_exp"

	// Admission control, changefeeds, transaction waits and decommissions.
	AttrAdmitting   forensics.AttrKey = "admitting"
	AttrAttempt     forensics.AttrKey = "attempt"
	AttrBackoff     forensics.AttrKey = "backoff"
	AttrFiles       forensics.AttrKey = "files"
	AttrJob         forensics.AttrKey = "job"
	AttrOverload    forensics.AttrKey = "overload"
	AttrPushee      forensics.AttrKey = "pushee"
	AttrPusher      forensics.AttrKey = "pusher"
	AttrReplicaID   forensics.AttrKey = "replica_id"
	AttrRequester   forensics.AttrKey = "requester"
	AttrScore       forensics.AttrKey = "score"
	AttrSpan        forensics.AttrKey = "span"
	AttrSublevels   forensics.AttrKey = "sublevels"
	AttrThrottled   forensics.AttrKey = "throttled"
	AttrWriteStalls forensics.AttrKey = "write_stalls"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrAttempts, Type: forensics.AttrInt, Doc: "how many attempts the RPC had made (slow replica RPC: … (N attempts))"},
	{Key: AttrBatch, Type: forensics.AttrText, Doc: "the requests of the batch, as counted in the message: \"2 CPut, 1 BeginTxn\""},
	{Key: AttrBytes, Type: forensics.AttrInt, Doc: "bytes of the slow disk operation"},
	{Key: AttrClient, Type: forensics.AttrText, Doc: "the SQL client's address from the log tags (client=host:port)"},
	{Key: AttrCommand, Type: forensics.AttrText, Doc: "the command Raft was asked to apply, with its span: \"RequestLease [/Table/111/1/600,/Min)\""},
	{Key: AttrCount, Type: forensics.AttrInt, Doc: "how many events the trace dropped ((N events discarded))"},
	{Key: AttrDown, Type: forensics.AttrList, Doc: "the replicas that were not live, as (nN,sS):R"},
	{Key: AttrDuration, Type: forensics.AttrDuration, Doc: "how long it took or has been waiting, as logged"},
	{Key: AttrDurationUs, Type: forensics.AttrInt, Doc: "the span's duration in microseconds (Jaeger/Zipkin JSON)"},
	{Key: AttrElapsed, Type: forensics.AttrNumber, Doc: "the span's or trace's duration in seconds"},
	{Key: AttrEpoch, Type: forensics.AttrInt, Doc: "the liveness epoch the target node was moved to"},
	{Key: AttrError, Type: forensics.AttrText, Doc: "the error, as logged"},
	{Key: AttrFatal, Type: forensics.AttrBool, Doc: "true when the message ends the process (log.Fatal, a stall past max_sync_duration)"},
	{Key: AttrGateway, Type: forensics.AttrText, Doc: "the node that received the SQL statement, from the log tags (nN)"},
	{Key: AttrHealthy, Type: forensics.AttrInt, Doc: "how many of the known nodes' clocks were within the maximum offset"},
	{Key: AttrHolderUnknown, Type: forensics.AttrBool, Doc: "true when the NotLeaseHolderError named no lease holder"},
	{Key: AttrKnown, Type: forensics.AttrInt, Doc: "how many nodes' clocks the node knows"},
	{Key: AttrLeaseAcq, Type: forensics.AttrText, Doc: "how the lease was acquired (Request, Transfer, …), v22.1+"},
	{Key: AttrLeaseEpoch, Type: forensics.AttrInt, Doc: "the liveness epoch of an epoch-based lease"},
	{Key: AttrLeaseExp, Type: forensics.AttrText, Doc: "the expiration of an expiration-based lease, as an HLC timestamp"},
	{Key: AttrLeaseMinExp, Type: forensics.AttrText, Doc: "the minimum expiration of a leader lease (v24+), as an HLC timestamp"},
	{Key: AttrLeasePro, Type: forensics.AttrText, Doc: "when the lease was proposed, as an HLC timestamp"},
	{Key: AttrLeaseReplica, Type: forensics.AttrText, Doc: "the lease holder replica, as (nN,sS):R"},
	{Key: AttrLeaseSeq, Type: forensics.AttrInt, Doc: "the lease's sequence number"},
	{Key: AttrLeaseStart, Type: forensics.AttrText, Doc: "the start of the lease, as an HLC timestamp"},
	{Key: AttrLeaseTerm, Type: forensics.AttrInt, Doc: "the Raft term of a leader lease (v24+)"},
	{Key: AttrMaxOffset, Type: forensics.AttrDuration, Doc: "the cluster's maximum clock offset (--max-offset)"},
	{Key: AttrMaxSeenSeq, Type: forensics.AttrInt, Doc: "the highest lease sequence DistSender had already seen (v19.1–v20.1: at LeaseSequence N <= M)"},
	{Key: AttrNLHE, Type: forensics.AttrBool, Doc: "true when the next replica is tried because of a NotLeaseHolderError"},
	{Key: AttrNext, Type: forensics.AttrText, Doc: "the replica DistSender tries next, as (nN,sS):R"},
	{Key: AttrOffset, Type: forensics.AttrDuration, Doc: "the measured clock offset to the peer"},
	{Key: AttrOffsetMS, Type: forensics.AttrNumber, Doc: "the line's offset in milliseconds from the start of its trace"},
	{Key: AttrOp, Type: forensics.AttrText, Doc: "the disk operation that was slow or stalled (write, syncdata, …)"},
	{Key: AttrOperation, Type: forensics.AttrText, Doc: "the operation a trace or span names"},
	{Key: AttrPath, Type: forensics.AttrText, Doc: "the file or store directory the disk operation concerns"},
	{Key: AttrPeer, Type: forensics.AttrText, Doc: "the peer node whose clock offset was measured"},
	{Key: AttrPrevLeaseAcq, Type: forensics.AttrText, Doc: "lease_acq of the lease the new one follows"},
	{Key: AttrPrevLeaseEpoch, Type: forensics.AttrInt, Doc: "lease_epoch of the lease the new one follows"},
	{Key: AttrPrevLeaseExp, Type: forensics.AttrText, Doc: "lease_exp of the lease the new one follows"},
	{Key: AttrPrevLeaseMinExp, Type: forensics.AttrText, Doc: "lease_min_exp of the lease the new one follows"},
	{Key: AttrPrevLeasePro, Type: forensics.AttrText, Doc: "lease_pro of the lease the new one follows"},
	{Key: AttrPrevLeaseReplica, Type: forensics.AttrText, Doc: "the replica that held the lease the new one follows"},
	{Key: AttrPrevLeaseSeq, Type: forensics.AttrInt, Doc: "lease_seq of the lease the new one follows"},
	{Key: AttrPrevLeaseStart, Type: forensics.AttrText, Doc: "lease_start of the lease the new one follows"},
	{Key: AttrPrevLeaseTerm, Type: forensics.AttrInt, Doc: "lease_term of the lease the new one follows"},
	{Key: AttrReason, Type: forensics.AttrText, Doc: "why, as the message says: the NotLeaseHolderError's reason, why a disk stalled, why DistSender backed off"},
	{Key: AttrReplica, Type: forensics.AttrText, Doc: "the replica concerned, as (nN,sS):R"},
	{Key: AttrReplicas, Type: forensics.AttrList, Doc: "the range's replicas, as (nN,sS):R"},
	{Key: AttrResp, Type: forensics.AttrText, Doc: "the response the slow RPC got, as logged"},
	{Key: AttrSeconds, Type: forensics.AttrNumber, Doc: "how many seconds the RPC had been waiting"},
	{Key: AttrStore, Type: forensics.AttrText, Doc: "the store, as sN"},
	{Key: AttrTarget, Type: forensics.AttrText, Doc: "the node or address the RPC or liveness change is for"},
	{Key: AttrTitle, Type: forensics.AttrText, Doc: "the title of a /debug/requests trace or of a span"},
	{Key: AttrTrace, Type: forensics.AttrText, Doc: "the trace or span the event belongs to: its log tags, or its header in a trace file"},
	{Key: AttrTraceID, Type: forensics.AttrText, Doc: "the trace id of a Jaeger or Zipkin span"},
	{Key: AttrTxn, Type: forensics.AttrText, Doc: "the transaction id from the log tags (txn=…)"},
	{Key: AttrUnavailable, Type: forensics.AttrBool, Doc: "true when the message says the range is unavailable"},
	{Key: AttrUncertainty, Type: forensics.AttrDuration, Doc: "the uncertainty of the measured clock offset"},
	{Key: AttrAdmitting, Type: forensics.AttrText, Doc: "what admission control admits to the store for the next 15s, as logged: all, elastic 63 KiB, or 691 MiB"},
	{Key: AttrAttempt, Type: forensics.AttrInt, Doc: "the changefeed's retry attempt ((attempt N), v23.2+)"},
	{Key: AttrBackoff, Type: forensics.AttrDuration, Doc: "how long the changefeed waits before it retries ((approx backoff: …), v25.4+)"},
	{Key: AttrFiles, Type: forensics.AttrInt, Doc: "the store's L0 files (ssts)"},
	{Key: AttrJob, Type: forensics.AttrText, Doc: "the job id"},
	{Key: AttrOverload, Type: forensics.AttrBool, Doc: "true when the score is over 1 ([L0-overload]): the store is overloaded by admission control's own measure"},
	{Key: AttrPushee, Type: forensics.AttrText, Doc: "the transaction waited on: the first 8 hex digits of its id"},
	{Key: AttrPusher, Type: forensics.AttrText, Doc: "the transaction that waits: the first 8 hex digits of its id"},
	{Key: AttrReplicaID, Type: forensics.AttrInt, Doc: "the replica id within its range"},
	{Key: AttrRequester, Type: forensics.AttrText, Doc: "the node that asked for the change (RequestingNodeID), as nN"},
	{Key: AttrScore, Type: forensics.AttrNumber, Doc: "admission control's IO overload score of the store: the larger of L0 files/1000 and L0 sub-levels/20 (by default); 1 is overload"},
	{Key: AttrSpan, Type: forensics.AttrText, Doc: "the key span of the range, from the log tags (/Table/106/1/4{00-50})"},
	{Key: AttrSublevels, Type: forensics.AttrInt, Doc: "the store's L0 sub-levels"},
	{Key: AttrThrottled, Type: forensics.AttrBool, Doc: "true when regular writes to the store get a token budget (admitting N, not all or elastic only)"},
	{Key: AttrWriteStalls, Type: forensics.AttrInt, Doc: "how many times Pebble stalled writes in the interval"},
}
