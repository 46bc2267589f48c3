package memcached

import "forensics"

// The attribute keys the memcached parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrConnID            forensics.AttrKey = "conn_id"
	AttrConsumer          forensics.AttrKey = "consumer"
	AttrConsumerKind      forensics.AttrKey = "consumer_kind"
	AttrCookies           forensics.AttrKey = "cookies"
	AttrDump              forensics.AttrKey = "dump"
	AttrDumpWritten       forensics.AttrKey = "dump_written"
	AttrDuration          forensics.AttrKey = "duration"
	AttrEndSeqno          forensics.AttrKey = "end_seqno"
	AttrFlags             forensics.AttrKey = "flags"
	AttrForce             forensics.AttrKey = "force"
	AttrFrom              forensics.AttrKey = "from"
	AttrHighSeqno         forensics.AttrKey = "high_seqno"
	AttrKeys              forensics.AttrKey = "keys"
	AttrManifestUID       forensics.AttrKey = "manifest_uid"
	AttrMeta              forensics.AttrKey = "meta"
	AttrOrigin            forensics.AttrKey = "origin"
	AttrPeer              forensics.AttrKey = "peer"
	AttrReason            forensics.AttrKey = "reason"
	AttrReqEnd            forensics.AttrKey = "req_end"
	AttrReqStart          forensics.AttrKey = "req_start"
	AttrRequestedEndSeqno forensics.AttrKey = "requested_end_seqno"
	AttrRollbackSeqno     forensics.AttrKey = "rollback_seqno"
	AttrSeqno             forensics.AttrKey = "seqno"
	AttrSnapEnd           forensics.AttrKey = "snap_end"
	AttrSnapStart         forensics.AttrKey = "snap_start"
	AttrStartSeqno        forensics.AttrKey = "start_seqno"
	AttrStatus            forensics.AttrKey = "status"
	AttrStore             forensics.AttrKey = "store"
	AttrSystem            forensics.AttrKey = "system"
	AttrTakeover          forensics.AttrKey = "takeover"
	AttrTo                forensics.AttrKey = "to"
	AttrTopFrame          forensics.AttrKey = "top_frame"
	AttrType              forensics.AttrKey = "type"
	AttrUnclean           forensics.AttrKey = "unclean"
	AttrUser              forensics.AttrKey = "user"
	AttrUUID              forensics.AttrKey = "uuid"
	AttrValues            forensics.AttrKey = "values"
	AttrVersion           forensics.AttrKey = "version"
	AttrWarmup            forensics.AttrKey = "warmup"
	AttrCriterion         forensics.AttrKey = "criterion"
	AttrPitr              forensics.AttrKey = "pitr"
	AttrSid               forensics.AttrKey = "sid"
	AttrSigint            forensics.AttrKey = "sigint"
	AttrSigterm           forensics.AttrKey = "sigterm"
	AttrConnType          forensics.AttrKey = "conn_type"
	AttrConnections       forensics.AttrKey = "connections"
	AttrDurationMS        forensics.AttrKey = "duration_ms"
	AttrFailures          forensics.AttrKey = "failures"
	AttrLimit             forensics.AttrKey = "limit"
	AttrOpcode            forensics.AttrKey = "opcode"
	AttrAgent             forensics.AttrKey = "agent"
	AttrClientIP          forensics.AttrKey = "client_ip"
	AttrPurgedTombstones  forensics.AttrKey = "purged_tombstones"
	AttrResult            forensics.AttrKey = "result"
	AttrSizeAfter         forensics.AttrKey = "size_after"
	AttrSizeBefore        forensics.AttrKey = "size_before"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrAgent, Type: forensics.AttrText, Doc: "the name a client gave itself in its HELO: the SDK and its version (gocbcore/v10.3.1 gocb/v2.7.1), a service's name"},
	{Key: AttrClientIP, Type: forensics.AttrText, Doc: "the client's IP address, from the connection's peer"},
	{Key: AttrConnID, Type: forensics.AttrInt, Doc: "the connection id memcached logged"},
	{Key: AttrConnType, Type: forensics.AttrText, Doc: "which connections: user (the client ports) or system (the internal ones)"},
	{Key: AttrConnections, Type: forensics.AttrInt, Doc: "the connections in use when the new one was refused, as logged"},
	{Key: AttrConsumer, Type: forensics.AttrText, Doc: "the DCP connection's name"},
	{Key: AttrConsumerKind, Type: forensics.AttrText, Doc: "who opened the DCP connection, from its name: projector, replication, eventing, xdcr, …"},
	{Key: AttrCookies, Type: forensics.AttrInt, Doc: "how many connections were waiting for warmup and are unblocked"},
	{Key: AttrCriterion, Type: forensics.AttrText, Doc: "what was enough loaded to enable traffic: number of items, MB of data, low water mark"},
	{Key: AttrDump, Type: forensics.AttrText, Doc: "the path of the minidump breakpad wrote"},
	{Key: AttrDumpWritten, Type: forensics.AttrText, Doc: "whether the minidump was written, as logged"},
	{Key: AttrDuration, Type: forensics.AttrDuration, Doc: "how long it took, as logged: warmup (1.2 s), a slow operation (1263 ms, 12 s, 10m:5s)"},
	{Key: AttrDurationMS, Type: forensics.AttrNumber, Doc: "how long the slow operation took, in milliseconds"},
	{Key: AttrEndSeqno, Type: forensics.AttrInt, Doc: "the end seqno of the stream as created"},
	{Key: AttrFailures, Type: forensics.AttrInt, Doc: "the connections refused since the first refusal of the episode (8.0.2+, which logs once a minute)"},
	{Key: AttrFlags, Type: forensics.AttrText, Doc: "the DCP flags, as logged"},
	{Key: AttrForce, Type: forensics.AttrBool, Doc: "true when warmup was forced (the bucket's force config)"},
	{Key: AttrFrom, Type: forensics.AttrText, Doc: "the vbucket's state before"},
	{Key: AttrHighSeqno, Type: forensics.AttrInt, Doc: "the vbucket's high seqno"},
	{Key: AttrKeys, Type: forensics.AttrInt, Doc: "the keys warmup loaded"},
	{Key: AttrLimit, Type: forensics.AttrInt, Doc: "the limit of connections of that kind (max_connections less the system ones, or system_connections)"},
	{Key: AttrManifestUID, Type: forensics.AttrHex, Doc: "the collection manifest uid warmup read"},
	{Key: AttrMeta, Type: forensics.AttrJSON, Doc: "the vbucket's state metadata (the topology), as logged"},
	{Key: AttrOpcode, Type: forensics.AttrText, Doc: "the request's opcode, as memcached names it: GET, SET, DCP_MUTATION, COMPACT_DB, …"},
	{Key: AttrOrigin, Type: forensics.AttrText, Doc: "the code that wrote the failover table entry"},
	{Key: AttrPeer, Type: forensics.AttrJSON, Doc: "the client's address, as logged: {\"ip\":…,\"port\":…} from 7.0, ip:port before (a DCP client, the client of a slow operation or of a HELO)"},
	{Key: AttrPitr, Type: forensics.AttrBool, Doc: "true when the stream asked for point-in-time recovery"},
	{Key: AttrPurgedTombstones, Type: forensics.AttrInt, Doc: "the tombstones (deleted documents' metadata) the compaction purged"},
	{Key: AttrReason, Type: forensics.AttrText, Doc: "why, as logged"},
	{Key: AttrReqEnd, Type: forensics.AttrInt, Doc: "the end seqno the stream request asked for"},
	{Key: AttrReqStart, Type: forensics.AttrInt, Doc: "the start seqno the stream request asked for"},
	{Key: AttrRequestedEndSeqno, Type: forensics.AttrInt, Doc: "the end seqno the client asked for, before memcached adjusted it"},
	{Key: AttrResult, Type: forensics.AttrText, Doc: "how the compaction ended: Success, Aborted or Failed (7.0's ok and failed read as Success and Failed)"},
	{Key: AttrRollbackSeqno, Type: forensics.AttrInt, Doc: "the seqno the producer told the consumer to roll back to"},
	{Key: AttrSeqno, Type: forensics.AttrInt, Doc: "the seqno of the failover table entry"},
	{Key: AttrSid, Type: forensics.AttrInt, Doc: "the DCP stream id, when the connection has several streams per vbucket"},
	{Key: AttrSigint, Type: forensics.AttrBool, Doc: "whether the shutdown came from SIGINT"},
	{Key: AttrSigterm, Type: forensics.AttrBool, Doc: "whether the shutdown came from SIGTERM"},
	{Key: AttrSizeAfter, Type: forensics.AttrInt, Doc: "the vbucket file's size after the compaction, in bytes"},
	{Key: AttrSizeBefore, Type: forensics.AttrInt, Doc: "the vbucket file's size before the compaction, in bytes"},
	{Key: AttrSnapEnd, Type: forensics.AttrInt, Doc: "the end of the snapshot"},
	{Key: AttrSnapStart, Type: forensics.AttrInt, Doc: "the start of the snapshot"},
	{Key: AttrStartSeqno, Type: forensics.AttrInt, Doc: "the start seqno of the stream as created"},
	{Key: AttrStatus, Type: forensics.AttrText, Doc: "the status of the request (a slow operation's response: Success, Etmpfail, …) or of the unblocked connections"},
	{Key: AttrStore, Type: forensics.AttrText, Doc: "the storage engine that failed to write: couchstore or magma"},
	{Key: AttrSystem, Type: forensics.AttrText, Doc: "the operating system's error, when logged: No space left on device"},
	{Key: AttrTakeover, Type: forensics.AttrBool, Doc: "true when the stream is a takeover stream (a vbucket move)"},
	{Key: AttrTo, Type: forensics.AttrText, Doc: "the vbucket's state after"},
	{Key: AttrTopFrame, Type: forensics.AttrText, Doc: "the first frame of the crash's backtrace"},
	{Key: AttrType, Type: forensics.AttrText, Doc: "the bucket type asked for (Couchbase, ephemeral, …)"},
	{Key: AttrUUID, Type: forensics.AttrInt, Doc: "a vbucket uuid, in decimal: the failover entry's, or the one the rollback names"},
	{Key: AttrUnclean, Type: forensics.AttrBool, Doc: "true when the previous start in the file had no graceful shutdown or log close after it"},
	{Key: AttrUser, Type: forensics.AttrText, Doc: "the connection's user, when authenticated (user data marked <ud>): a DCP connection's, a HELO's"},
	{Key: AttrValues, Type: forensics.AttrInt, Doc: "the values warmup loaded"},
	{Key: AttrVersion, Type: forensics.AttrText, Doc: "the release of memcached"},
	{Key: AttrWarmup, Type: forensics.AttrText, Doc: "which warmup ended: Primary or Secondary"},
}
