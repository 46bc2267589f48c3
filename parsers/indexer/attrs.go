package indexer

import "forensics"

// The attribute keys the indexer parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrHwtSeqno      = "hwt_seqno"
	AttrHwtSnapEnd    = "hwt_snap_end"
	AttrHwtSnapStart  = "hwt_snap_start"
	AttrKeyspace      = "keyspace"
	AttrKVHost        = "kv_host"
	AttrKVNode        = "kv_node"
	AttrManifest      = "manifest"
	AttrRollbackSeqno = "rollback_seqno"
	AttrSeqno         = "seqno"
	AttrSession       = "session"
	AttrSnapEnd       = "snap_end"
	AttrSnapStart     = "snap_start"
	AttrStream        = "stream"
	AttrVbuuid        = "vbuuid"
	AttrVbuuidHex     = "vbuuid_hex"
)

// Attrs lists, for each kind the indexer parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	RepairRollback: {AttrKeyspace, AttrSession, AttrStream},
	RestartTS:      {AttrKeyspace, AttrManifest, AttrSeqno, AttrSession, AttrSnapEnd, AttrSnapStart, AttrStream, AttrVbuuid, AttrVbuuidHex},
	Rollback:       {AttrKeyspace, AttrRollbackSeqno, AttrStream, AttrVbuuid, AttrVbuuidHex},
	StreamBegin:    {AttrHwtSeqno, AttrHwtSnapEnd, AttrHwtSnapStart, AttrKeyspace, AttrKVHost, AttrKVNode, AttrSeqno, AttrSession, AttrStream, AttrVbuuid},
	StreamEnd:      {AttrKeyspace, AttrSeqno, AttrStream, AttrVbuuid},
	StreamRepair:   {AttrKeyspace, AttrSession, AttrStream},
	StreamRestart:  {AttrKeyspace, AttrSession, AttrStream},
}
