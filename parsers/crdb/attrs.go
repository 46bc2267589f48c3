package crdb

import "forensics"

// The attribute keys the crdb parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAttempts         = "attempts"
	AttrBatch            = "batch"
	AttrBytes            = "bytes"
	AttrClient           = "client"
	AttrCommand          = "command"
	AttrCount            = "count"
	AttrDown             = "down"
	AttrDuration         = "duration"
	AttrDurationUs       = "duration_us"
	AttrElapsed          = "elapsed"
	AttrEpoch            = "epoch"
	AttrError            = "error"
	AttrFatal            = "fatal"
	AttrGateway          = "gateway"
	AttrHealthy          = "healthy"
	AttrHolderUnknown    = "holder_unknown"
	AttrKnown            = "known"
	AttrLeaseAcq         = "lease_acq"
	AttrLeaseEpoch       = "lease_epoch"
	AttrLeaseExp         = "lease_exp"
	AttrLeaseMinExp      = "lease_min_exp"
	AttrLeasePro         = "lease_pro"
	AttrLeaseReplica     = "lease_replica"
	AttrLeaseSeq         = "lease_seq"
	AttrLeaseStart       = "lease_start"
	AttrLeaseTerm        = "lease_term"
	AttrMaxOffset        = "max_offset"
	AttrNext             = "next"
	AttrNLHE             = "nlhe"
	AttrOffset           = "offset"
	AttrOp               = "op"
	AttrOperation        = "operation"
	AttrPath             = "path"
	AttrPeer             = "peer"
	AttrPrevLeaseAcq     = "prev_lease_acq"
	AttrPrevLeaseEpoch   = "prev_lease_epoch"
	AttrPrevLeaseMinExp  = "prev_lease_min_exp"
	AttrPrevLeasePro     = "prev_lease_pro"
	AttrPrevLeaseReplica = "prev_lease_replica"
	AttrPrevLeaseSeq     = "prev_lease_seq"
	AttrPrevLeaseStart   = "prev_lease_start"
	AttrPrevLeaseTerm    = "prev_lease_term"
	AttrReason           = "reason"
	AttrReplica          = "replica"
	AttrReplicas         = "replicas"
	AttrResp             = "resp"
	AttrSeconds          = "seconds"
	AttrStore            = "store"
	AttrTarget           = "target"
	AttrTitle            = "title"
	AttrTrace            = "trace"
	AttrTraceID          = "trace_id"
	AttrTxn              = "txn"
	AttrUnavailable      = "unavailable"
	AttrUncertainty      = "uncertainty"
)

// Attrs lists, for each kind the crdb parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	KindBackoff:              {AttrClient, AttrGateway, AttrReason, AttrTrace},
	KindBreakerReset:         {AttrStore},
	KindBreakerTripped:       {AttrDown, AttrReplica, AttrReplicas, AttrStore},
	KindClockOffsetFatal:     {AttrFatal, AttrHealthy, AttrKnown, AttrMaxOffset},
	KindClockOffsetUncertain: {AttrMaxOffset, AttrOffset, AttrPeer, AttrUncertainty},
	KindDiskSlow:             {AttrBytes, AttrDuration, AttrOp, AttrPath, AttrStore},
	KindDiskStall:            {AttrDuration, AttrFatal, AttrOp, AttrPath, AttrReason, AttrStore},
	KindEpochIncremented:     {AttrEpoch, AttrStore, AttrTarget},
	KindHeartbeatFailed:      {AttrError},
	KindHeartbeatSlow:        {AttrDuration, AttrError},
	KindNLHE:                 {AttrClient, AttrGateway, AttrHolderUnknown, AttrLeaseAcq, AttrLeaseEpoch, AttrLeaseExp, AttrLeaseMinExp, AttrLeasePro, AttrLeaseReplica, AttrLeaseSeq, AttrLeaseStart, AttrLeaseTerm, AttrReason, AttrReplica, AttrTrace, AttrTxn},
	KindNewLease:             {AttrLeaseAcq, AttrLeaseEpoch, AttrLeaseMinExp, AttrLeasePro, AttrLeaseReplica, AttrLeaseSeq, AttrLeaseStart, AttrLeaseTerm, AttrPrevLeaseAcq, AttrPrevLeaseEpoch, AttrPrevLeaseMinExp, AttrPrevLeasePro, AttrPrevLeaseReplica, AttrPrevLeaseSeq, AttrPrevLeaseStart, AttrPrevLeaseTerm, AttrTrace},
	KindNextPeer:             {AttrClient, AttrGateway, AttrNext, AttrNLHE, AttrTrace, AttrTxn},
	KindProposalFinished:     {AttrCommand, AttrDuration, AttrError, AttrStore},
	KindProposalNonLive:      {AttrDown},
	KindProposalSlow:         {AttrCommand, AttrDuration, AttrStore, AttrUnavailable},
	KindRPC:                  {AttrClient, AttrGateway, AttrTarget, AttrTrace, AttrTxn},
	KindSend:                 {AttrBatch, AttrClient, AttrGateway, AttrReplica, AttrTrace, AttrTxn},
	KindSlowRPC:              {AttrAttempts, AttrBatch, AttrClient, AttrGateway, AttrReplica, AttrResp, AttrSeconds, AttrTrace},
	KindTraceDiscarded:       {AttrCount, AttrTrace},
	KindTraceStart:           {AttrDurationUs, AttrElapsed, AttrOperation, AttrTitle, AttrTrace, AttrTraceID},
}
