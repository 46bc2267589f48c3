package projector

import "forensics"

// The attribute keys the projector parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrCluster       forensics.AttrKey = "cluster"
	AttrConsumer      forensics.AttrKey = "consumer"
	AttrConsumerShort forensics.AttrKey = "consumer_short"
	AttrKeyspace      forensics.AttrKey = "keyspace"
	AttrKvdata        forensics.AttrKey = "kvdata"
	AttrOpaque        forensics.AttrKey = "opaque"
	AttrReason        forensics.AttrKey = "reason"
	AttrRollbackSeqno forensics.AttrKey = "rollback_seqno"
	AttrSeqno         forensics.AttrKey = "seqno"
	AttrStage         forensics.AttrKey = "stage"
	AttrStatus        forensics.AttrKey = "status"
	AttrTopic         forensics.AttrKey = "topic"
	AttrVbuuid        forensics.AttrKey = "vbuuid"
	AttrVbuuidHex     forensics.AttrKey = "vbuuid_hex"
	AttrBucket        forensics.AttrKey = "bucket"
	AttrCount         forensics.AttrKey = "count"
	AttrPool          forensics.AttrKey = "pool"
	AttrSession       forensics.AttrKey = "session"
	AttrVbuckets      forensics.AttrKey = "vbuckets"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrBucket, Type: forensics.AttrText, Doc: "the bucket of the vbucket map"},
	{Key: AttrCluster, Type: forensics.AttrText, Doc: "the cluster address the projector's feed reads from, as host:port"},
	{Key: AttrConsumer, Type: forensics.AttrText, Doc: "the DCP connection's name"},
	{Key: AttrConsumerShort, Type: forensics.AttrText, Doc: "the DCP connection's name without the keyspace, as 7.x truncates it"},
	{Key: AttrCount, Type: forensics.AttrInt, Doc: "how many vbuckets the map holds"},
	{Key: AttrKeyspace, Type: forensics.AttrText, Doc: "the GSI keyspace id: bucket, or bucket:scope:collection"},
	{Key: AttrKvdata, Type: forensics.AttrText, Doc: "the id of the projector's KV data path"},
	{Key: AttrOpaque, Type: forensics.AttrHex, Doc: "the opaque of the stream request"},
	{Key: AttrPool, Type: forensics.AttrText, Doc: "the pool of the vbucket map"},
	{Key: AttrReason, Type: forensics.AttrText, Doc: "why the connection closed, as logged"},
	{Key: AttrRollbackSeqno, Type: forensics.AttrInt, Doc: "the seqno the KV node asked to roll back to"},
	{Key: AttrSeqno, Type: forensics.AttrInt, Doc: "the vbucket's seqno in the response"},
	{Key: AttrSession, Type: forensics.AttrInt, Doc: "the stream's session id"},
	{Key: AttrStage, Type: forensics.AttrText, Doc: "the stage the stream response reached: posted, flushed, ignored"},
	{Key: AttrStatus, Type: forensics.AttrText, Doc: "the status of the stream response: SUCCESS, ROLLBACK, NOT_MY_VBUCKET, …"},
	{Key: AttrTopic, Type: forensics.AttrText, Doc: "the feed's topic, which names the indexer's stream"},
	{Key: AttrVbuckets, Type: forensics.AttrList, Doc: "the vbuckets, space-separated as logged"},
	{Key: AttrVbuuid, Type: forensics.AttrInt, Doc: "the vbucket uuid, in decimal"},
	{Key: AttrVbuuidHex, Type: forensics.AttrHex, Doc: "the vbucket uuid, in hexadecimal as logged"},
}
