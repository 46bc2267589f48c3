// Package indexer reads the log of Couchbase's GSI indexer (indexer.log;
// ns_server.indexer.log in a cbcollect_info zip), releases 6.x to 8.0. Its
// lines are in the GSI logger's grammar (parsers/cbgo), as the projector's are.
//
// The events are the ones that follow a vbucket's mutation stream through a
// KV failure: the stream ending, the repair that restarts it (with the
// seqnos it restarts from), the KV node that answers (TK StreamBegin), the
// rollbacks that node asks for, and the storage rollback that follows.
// Every other line is a plain line.
package indexer

import (
	"bytes"

	"forensics"
	"forensics/parsers/cbgo"
	"forensics/parsers/scan"
)

// Event kinds. Subject.Bucket is the bucket part of the keyspace (a
// keyspace id is "bucket" or "bucket:scope:collection"); attr keyspace holds
// it whole. Subject.VB is set where the line names one vbucket.
const (
	StreamEnd      forensics.Kind = "indexer.stream_end"
	StreamBegin    forensics.Kind = "indexer.stream_begin"
	Rollback       forensics.Kind = "indexer.rollback"
	RepairRollback forensics.Kind = "indexer.repair_rollback"
	StreamRepair   forensics.Kind = "indexer.stream_repair"
	StreamRestart  forensics.Kind = "indexer.stream_restart"
	RestartTS      forensics.Kind = "indexer.restart_ts"
	ConnError      forensics.Kind = "indexer.conn_error"
	StorageRB      forensics.Kind = "indexer.storage_rollback"
	RollbackTS     forensics.Kind = "indexer.rollback_ts"
	RollbackToZero forensics.Kind = "indexer.rollback_to_zero"
	ProjectorError forensics.Kind = "indexer.projector_error"
)

// Format reads the indexer's log.
var Format = forensics.Format{
	Name:      "indexer",
	Component: "indexer",
	Detect:    detect,
	New:       func(forensics.Origin) forensics.Parser { return &parser{} },
	Kinds: append([]forensics.KindDoc{
		{Kind: StreamEnd, Category: forensics.CategoryStream, Label: "stream end", Doc: "a KV node ended a vbucket's stream to the indexer (TK StreamEnd): the last seqno the indexer had", Attrs: attrs.Of(AttrKeyspace, AttrSeqno, AttrStream, AttrVbuuid)},
		{Kind: StreamBegin, Category: forensics.CategoryStream, Label: "stream begin", Doc: "a KV node's projector opened a vbucket's stream (TK StreamBegin), success or rollback; kv_node names the KV node", Attrs: attrs.Of(AttrHwtSeqno, AttrHwtSnapEnd, AttrHwtSnapStart, AttrKeyspace, AttrKVHost, AttrKVNode, AttrSeqno, AttrSession, AttrStream, AttrVbuuid)},
		{Kind: Rollback, Category: forensics.CategoryRollback, Label: "stream begin with a rollback", Doc: "the KV node answered a stream request with a rollback (StreamBegin rollback): rollback_seqno and the vbuuid it named", Attrs: attrs.Of(AttrKeyspace, AttrRollbackSeqno, AttrStream, AttrVbuuid, AttrVbuuidHex)},
		{Kind: RepairRollback, Category: forensics.CategoryRollback, Label: "stream repair needs a rollback", Doc: "the timekeeper gave up repairing the stream and starts recovery by rolling back (repairStream need rollback)", Attrs: attrs.Of(AttrKeyspace, AttrSession, AttrStream)},
		{Kind: StreamRepair, Category: forensics.CategoryStream, Label: "stream repair", Doc: "the indexer restarts a keyspace's stream after a stream end or error (handleKVStreamRepair); session is the stream session id", Attrs: attrs.Of(AttrKeyspace, AttrSession, AttrStream)},
		{Kind: StreamRestart, Category: forensics.CategoryStream, Label: "stream restart requested", Doc: "the indexer asks the projectors to start a keyspace's stream from a restart timestamp (startKeyspaceIdStream / startBucketStream)", Attrs: attrs.Of(AttrKeyspace, AttrSession, AttrStream)},
		{Kind: RestartTS, Category: forensics.CategoryStream, Label: "restart timestamp", Doc: "one vbucket of the restart timestamp of a stream restart: the seqno, vbuuid and snapshot it restarts from", Attrs: attrs.Of(AttrKeyspace, AttrManifest, AttrOsoCount, AttrSeqno, AttrSession, AttrSnapEnd, AttrSnapStart, AttrStream, AttrVbuuid, AttrVbuuidHex)},
		{Kind: ConnError, Category: forensics.CategoryError, Label: "stream connection lost", Doc: "the indexer lost the stream of some vbuckets (TK ConnError); vbuckets lists them", Attrs: attrs.Of(AttrKeyspace, AttrStream, AttrVbuckets)},
		{Kind: StorageRB, Category: forensics.CategoryRollback, Label: "index storage rolls back", Doc: "index storage starts rolling back a keyspace's indexes to the rollback timestamp (StorageMgr::handleRollback)", Attrs: attrs.Of(AttrKeyspace, AttrStream)},
		{Kind: RollbackTS, Category: forensics.CategoryRollback, Label: "rollback timestamp", Doc: "one vbucket of the rollback timestamp of a storage rollback", Attrs: attrs.Of(AttrKeyspace, AttrManifest, AttrOsoCount, AttrSeqno, AttrSnapEnd, AttrSnapStart, AttrStream, AttrVbuuid, AttrVbuuidHex)},
		{Kind: RollbackToZero, Category: forensics.CategoryRollback, Label: "rollback to zero: indexes rebuilt", Doc: "no usable snapshot: the keyspace's indexes are rolled back to zero and rebuilt (StorageMgr::rollbackAllToZero)", Attrs: attrs.Of(AttrKeyspace, AttrStream)},
		{Kind: ProjectorError, Category: forensics.CategoryError, Label: "projector answered with an error", Doc: "a projector answered a stream start or vbucket restart request with an error (KVSender)", Attrs: attrs.Of(AttrError, AttrKeyspace, AttrKVHost, AttrOp, AttrProjector, AttrStream)},
	}, memoryKinds...),
}

var indexerPrefixes = []string{
	"Indexer::", "Timekeeper::", "TK ", "StorageMgr::", "KVSender::", "MutationMgr::",
	"PeriodicStats", "ScanCoordinator", "ClustMgr:", "MutationStreamReader", "plasmaSlice",
	"StreamState::", "SettingsMgr", "LSS ", "Plasma:",
}

func detect(name string, head []byte) int {
	headers, marked := cbgo.Sniff(head, indexerPrefixes)
	return cbgo.Score(cbgo.NamedLike(name, "indexer.log"), headers, marked)
}

// dump is the TsVbuuid being read: its rows are the untimestamped lines
// that follow the line that printed it.
type dump struct {
	kind     forensics.Kind // RestartTS or RollbackTS; "" when no dump is open
	stamp    forensics.Stamp
	stream   string
	keyspace string
	session  string
	oso      bool // the column header named an OSO count (7 columns)
}

type parser struct {
	ev       forensics.Event
	dump     dump
	release  string // the build the indexer named at start (release.go)
	memUsed  []byte // the memory the last check measured (memory.go)
	memQuota []byte // the quota the last PeriodicStats gave (memory.go)
}

func (p *parser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	h, ok := cbgo.ParseHeader(text)
	if !ok {
		if p.dump.kind == "" {
			return forensics.Stamp{}, nil
		}
		return forensics.Stamp{}, p.row(n, text, emit)
	}
	p.dump.kind = ""
	msg := h.Msg
	if len(msg) < 12 {
		return h.Stamp, nil
	}
	var err error
	switch msg[0] {
	case 'T':
		switch {
		case scan.HasPrefix(msg, "TK StreamEnd "):
			err = p.streamEnd(n, text, h, msg[len("TK StreamEnd "):], emit)
		case scan.HasPrefix(msg, "TK StreamBegin "):
			err = p.streamBegin(n, text, h, msg[len("TK StreamBegin "):], emit)
		case scan.HasPrefix(msg, "TK ConnError "):
			err = p.connError(n, text, h, msg[len("TK ConnError "):], emit)
		case scan.HasPrefix(msg, rollbackPrefix):
			err = p.rollback(n, text, h, msg[len(rollbackPrefix):], emit)
		case scan.HasPrefix(msg, repairRollbackPrefix):
			err = p.repairRollback(n, text, h, msg[len(repairRollbackPrefix):], emit)
		}
	case 'I':
		switch {
		case scan.HasPrefix(msg, streamRepairPrefix):
			err = p.streamRepair(n, text, h, msg[len(streamRepairPrefix):], emit)
		case scan.HasPrefix(msg, "Indexer::startKeyspaceIdStream Stream: "):
			err = p.streamRestart(n, text, h, msg[len("Indexer::startKeyspaceIdStream Stream: "):], emit)
		case scan.HasPrefix(msg, "Indexer::startBucketStream Stream: "):
			err = p.streamRestart(n, text, h, msg[len("Indexer::startBucketStream Stream: "):], emit)
		case scan.HasPrefix(msg, versionPrefix):
			p.readVersion(msg)
		default:
			p.memoryLine(n, text, h, msg, emit)
		}
	case 'M':
		p.memoryLine(n, text, h, msg, emit)
	case 'P':
		if scan.HasPrefix(msg, statsPrefix) {
			p.periodicStats(msg)
		}
	case 'S':
		switch {
		case scan.HasPrefix(msg, "StorageMgr::handleRollback "):
			err = p.storageRollback(n, text, h, msg[len("StorageMgr::handleRollback "):], emit)
		case scan.HasPrefix(msg, "StorageMgr::rollbackAllToZero "):
			err = p.rollbackToZero(n, text, h, msg[len("StorageMgr::rollbackAllToZero "):], emit)
		}
	case 'K':
		switch {
		case scan.HasPrefix(msg, "KVSender::openMutationStream "):
			err = p.projectorError(n, text, h, "openMutationStream", msg[len("KVSender::openMutationStream "):], emit)
		case scan.HasPrefix(msg, "KVSender::restartVbuckets "):
			err = p.projectorError(n, text, h, "restartVbuckets", msg[len("KVSender::restartVbuckets "):], emit)
		}
	}
	return h.Stamp, err
}

func (p *parser) End(forensics.Emit) error {
	p.dump.kind = ""
	return nil
}

// start resets the scratch event for a new event of kind k on line n.
func (p *parser) start(k forensics.Kind, n int64, st forensics.Stamp, text []byte) *forensics.Event {
	e := &p.ev
	e.Reset()
	e.Kind = k
	e.Line = n
	e.Stamp = st
	e.Text = string(text)
	return e
}

func add(e *forensics.Event, key forensics.AttrKey, value string) {
	e.Attrs = append(e.Attrs, forensics.NewAttr(key, value))
}

// token returns b up to the first space, and what follows that space.
func token(b []byte) (tok, rest []byte) {
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}
