package projector

import "forensics"

// The attribute keys the projector parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrCluster       = "cluster"
	AttrConsumer      = "consumer"
	AttrConsumerShort = "consumer_short"
	AttrKeyspace      = "keyspace"
	AttrKvdata        = "kvdata"
	AttrOpaque        = "opaque"
	AttrReason        = "reason"
	AttrRollbackSeqno = "rollback_seqno"
	AttrSeqno         = "seqno"
	AttrStage         = "stage"
	AttrStatus        = "status"
	AttrTopic         = "topic"
	AttrVbuuid        = "vbuuid"
	AttrVbuuidHex     = "vbuuid_hex"
)

// Attrs lists, for each kind the projector parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	DCPClosed:      {AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrReason, AttrTopic},
	DCPConnected:   {AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrOpaque, AttrTopic},
	StreamError:    {AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrOpaque, AttrStatus, AttrTopic},
	StreamResponse: {AttrCluster, AttrKeyspace, AttrKvdata, AttrOpaque, AttrSeqno, AttrStage, AttrStatus, AttrTopic, AttrVbuuid, AttrVbuuidHex},
	StreamRollback: {AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrOpaque, AttrRollbackSeqno, AttrTopic},
}
