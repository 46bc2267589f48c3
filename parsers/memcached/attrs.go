package memcached

import "forensics"

// The attribute keys the memcached parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrConnID            = "conn_id"
	AttrConsumer          = "consumer"
	AttrConsumerKind      = "consumer_kind"
	AttrCookies           = "cookies"
	AttrDump              = "dump"
	AttrDumpWritten       = "dump_written"
	AttrDuration          = "duration"
	AttrEndSeqno          = "end_seqno"
	AttrFlags             = "flags"
	AttrForce             = "force"
	AttrFrom              = "from"
	AttrHighSeqno         = "high_seqno"
	AttrKeys              = "keys"
	AttrManifestUID       = "manifest_uid"
	AttrMeta              = "meta"
	AttrOrigin            = "origin"
	AttrPeer              = "peer"
	AttrReason            = "reason"
	AttrReqEnd            = "req_end"
	AttrReqStart          = "req_start"
	AttrRequestedEndSeqno = "requested_end_seqno"
	AttrRollbackSeqno     = "rollback_seqno"
	AttrSeqno             = "seqno"
	AttrSnapEnd           = "snap_end"
	AttrSnapStart         = "snap_start"
	AttrStartSeqno        = "start_seqno"
	AttrStatus            = "status"
	AttrStore             = "store"
	AttrSystem            = "system"
	AttrTakeover          = "takeover"
	AttrTo                = "to"
	AttrTopFrame          = "top_frame"
	AttrType              = "type"
	AttrUnclean           = "unclean"
	AttrUser              = "user"
	AttrUUID              = "uuid"
	AttrValues            = "values"
	AttrVersion           = "version"
	AttrWarmup            = "warmup"
)

// Attrs lists, for each kind the memcached parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	BreakpadCrash:  {AttrDump, AttrDumpWritten, AttrTopFrame, AttrVersion},
	BucketCreate:   {AttrConnID, AttrType},
	BucketCreated:  {AttrConnID},
	DCPProducer:    {AttrConnID, AttrConsumer, AttrConsumerKind, AttrFlags, AttrPeer, AttrUser},
	FailoverEntry:  {AttrOrigin, AttrReason, AttrSeqno, AttrUUID},
	Start:          {AttrUnclean, AttrVersion},
	StreamCreated:  {AttrConnID, AttrConsumer, AttrConsumerKind, AttrEndSeqno, AttrFlags, AttrRequestedEndSeqno, AttrSnapEnd, AttrSnapStart, AttrStartSeqno, AttrTakeover},
	StreamRefused:  {AttrConnID, AttrConsumer, AttrConsumerKind, AttrReason, AttrStatus},
	StreamRollback: {AttrConnID, AttrConsumer, AttrConsumerKind, AttrReason, AttrReqEnd, AttrReqStart, AttrRollbackSeqno, AttrSnapEnd, AttrSnapStart, AttrUUID},
	VBState:        {AttrFrom, AttrHighSeqno, AttrMeta, AttrTo},
	WarmupComplete: {AttrDuration, AttrKeys, AttrValues, AttrWarmup},
	WarmupStart:    {AttrForce, AttrManifestUID},
	WarmupUnblock:  {AttrCookies, AttrStatus},
	WriteFailed:    {AttrStore, AttrSystem},
}
