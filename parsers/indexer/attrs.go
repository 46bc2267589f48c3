package indexer

import "forensics"

// The attribute keys the indexer parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrHwtSeqno      forensics.AttrKey = "hwt_seqno"
	AttrHwtSnapEnd    forensics.AttrKey = "hwt_snap_end"
	AttrHwtSnapStart  forensics.AttrKey = "hwt_snap_start"
	AttrKeyspace      forensics.AttrKey = "keyspace"
	AttrKVHost        forensics.AttrKey = "kv_host"
	AttrKVNode        forensics.AttrKey = "kv_node"
	AttrManifest      forensics.AttrKey = "manifest"
	AttrRollbackSeqno forensics.AttrKey = "rollback_seqno"
	AttrSeqno         forensics.AttrKey = "seqno"
	AttrSession       forensics.AttrKey = "session"
	AttrSnapEnd       forensics.AttrKey = "snap_end"
	AttrSnapStart     forensics.AttrKey = "snap_start"
	AttrStream        forensics.AttrKey = "stream"
	AttrVbuuid        forensics.AttrKey = "vbuuid"
	AttrVbuuidHex     forensics.AttrKey = "vbuuid_hex"
	AttrError         forensics.AttrKey = "error"
	AttrOp            forensics.AttrKey = "op"
	AttrOsoCount      forensics.AttrKey = "oso_count"
	AttrProjector     forensics.AttrKey = "projector"
	AttrVbuckets      forensics.AttrKey = "vbuckets"
	AttrMemUsed       forensics.AttrKey = "mem_used"
	AttrMemQuota      forensics.AttrKey = "mem_quota"
	AttrState         forensics.AttrKey = "state"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrError, Type: forensics.AttrText, Doc: "the error the projector answered"},
	{Key: AttrHwtSeqno, Type: forensics.AttrInt, Doc: "the seqno of the stream's high water timestamp for the vbucket"},
	{Key: AttrHwtSnapEnd, Type: forensics.AttrInt, Doc: "the snapshot end of the stream's high water timestamp for the vbucket"},
	{Key: AttrHwtSnapStart, Type: forensics.AttrInt, Doc: "the snapshot start of the stream's high water timestamp for the vbucket"},
	{Key: AttrKVHost, Type: forensics.AttrText, Doc: "the host of kv_node or of the projector, without the port"},
	{Key: AttrKVNode, Type: forensics.AttrText, Doc: "the KV node whose projector opened the stream, as host:port"},
	{Key: AttrKeyspace, Type: forensics.AttrText, Doc: "the GSI keyspace id: bucket, or bucket:scope:collection"},
	{Key: AttrManifest, Type: forensics.AttrHex, Doc: "the collection manifest uid of the vbucket's timestamp"},
	{Key: AttrMemQuota, Type: forensics.AttrInt, Doc: "the indexer's memory quota in bytes, from the last PeriodicStats line in the log before the change (memory_quota)"},
	{Key: AttrMemUsed, Type: forensics.AttrInt, Doc: "the memory the indexer used at its last memory check before the change, in bytes"},
	{Key: AttrOp, Type: forensics.AttrText, Doc: "the request the projector answered (restartVbuckets, …)"},
	{Key: AttrOsoCount, Type: forensics.AttrInt, Doc: "the out-of-sequence-order snapshot count of the vbucket's timestamp"},
	{Key: AttrProjector, Type: forensics.AttrText, Doc: "the projector that answered, as host:port"},
	{Key: AttrRollbackSeqno, Type: forensics.AttrInt, Doc: "the seqno the KV node asked the indexer to roll back to"},
	{Key: AttrSeqno, Type: forensics.AttrInt, Doc: "the vbucket's seqno in the message"},
	{Key: AttrSession, Type: forensics.AttrInt, Doc: "the stream's session id"},
	{Key: AttrSnapEnd, Type: forensics.AttrInt, Doc: "the end of the vbucket's snapshot"},
	{Key: AttrSnapStart, Type: forensics.AttrInt, Doc: "the start of the vbucket's snapshot"},
	{Key: AttrState, Type: forensics.AttrText, Doc: "the indexer's state as logged: Paused, PrepareUnpause, Active"},
	{Key: AttrStream, Type: forensics.AttrText, Doc: "the indexer's stream: MAINT_STREAM, INIT_STREAM, CATCHUP_STREAM"},
	{Key: AttrVbuckets, Type: forensics.AttrList, Doc: "the vbuckets concerned, space-separated as logged"},
	{Key: AttrVbuuid, Type: forensics.AttrInt, Doc: "the vbucket uuid, in decimal"},
	{Key: AttrVbuuidHex, Type: forensics.AttrHex, Doc: "the vbucket uuid, in hexadecimal as logged"},
}
