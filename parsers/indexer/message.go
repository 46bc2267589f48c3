package indexer

import (
	"bytes"
	"errors"
	"fmt"

	"forensics"
	"forensics/parsers/cbgo"
	"forensics/parsers/scan"
)

// The templates below are verified against couchbase/indexing
// secondary/indexer (watson, alice, mad-hatter = 6.5/6.6, cheshire-cat =
// 7.0, 7.1.x, neo = 7.2, trinity = 7.6, morpheus = 8.0). Up to 6.6 the
// indexer says Bucket where 7.0 says KeyspaceId; both are matched.

const (
	// timekeeper.go handleStreamBegin (Warn), 6.5+:
	// "Timekeeper::handleStreamBegin StreamBegin rollback for StreamId %v KeyspaceId %v vbucket %v. Rollback (%v, %16x). "
	rollbackPrefix = "Timekeeper::handleStreamBegin StreamBegin rollback for StreamId "
	// timekeeper.go repairStream: "Timekeeper::repairStream need rollback for %v %v %v. Sending Init Prepare."
	repairRollbackPrefix = "Timekeeper::repairStream need rollback for "
	// indexer.go handleKVStreamRepair: "… Initiate Stream Repair %v KeyspaceId %v StreamId %v"
	// (6.5/6.6: Bucket; up to 6.0: no StreamId).
	streamRepairPrefix = "Indexer::handleKVStreamRepair Initiate Stream Repair "
)

// split cuts b at single spaces into out and returns the number of fields,
// or -1 when b has more fields than out holds.
func split(b []byte, out [][]byte) int {
	n := 0
	for {
		if n == len(out) {
			return -1
		}
		i := bytes.IndexByte(b, ' ')
		if i < 0 {
			out[n] = b
			return n + 1
		}
		out[n] = b[:i]
		n++
		b = b[i+1:]
	}
}

// splitSpaces cuts b at runs of spaces, as the padded columns of a TsVbuuid
// row need, and returns the number of fields or -1 when there are too many.
func splitSpaces(b []byte, out [][]byte) int {
	n := 0
	for {
		for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
			b = b[1:]
		}
		if len(b) == 0 {
			return n
		}
		if n == len(out) {
			return -1
		}
		i := bytes.IndexAny(b, " \t")
		if i < 0 {
			i = len(b)
		}
		out[n] = b[:i]
		n++
		b = b[i:]
	}
}

// "TK StreamEnd %v %v %v %v %v": stream, keyspace, vb, vbuuid, seqno
// (timekeeper.go handleStreamEnd, Info, every release).
func (p *parser) streamEnd(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	var f [5][]byte
	if split(rest, f[:]) != 5 || len(f[0]) == 0 || len(f[1]) == 0 || !cbgo.IsDecimal(f[3]) || !cbgo.IsDecimal(f[4]) {
		return errors.New("malformed TK StreamEnd: want stream, keyspace, vbucket, vbuuid, seqno")
	}
	vb, ok := cbgo.ParseVB(f[2])
	if !ok {
		return fmt.Errorf("malformed TK StreamEnd: bad vbucket %.20q", f[2])
	}
	e := p.start(StreamEnd, n, h.Stamp, text)
	e.VB = vb
	add(e, AttrStream, string(f[0]))
	cbgo.SetKeyspace(e, string(f[1]))
	add(e, AttrVbuuid, string(f[3]))
	add(e, AttrSeqno, string(f[4]))
	emit(e)
	return nil
}

// "TK StreamBegin %v %v %v %v %v %v %v. HWT [%v-%v,%v]." (7.0+): stream,
// keyspace, vb, vbuuid, seqno, session (opaque), KV node host:port (empty
// when unknown), then the high-water snapshot and seqno. 6.5/6.6 print
// the first six, up to 6.0 the first five (timekeeper.go handleStreamBegin).
// On a rollback the seqno is the rollback seqno.
func (p *parser) streamBegin(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	pre, hwt := rest, []byte(nil)
	if i := bytes.Index(rest, []byte(". HWT [")); i >= 0 {
		pre, hwt = rest[:i], rest[i+len(". HWT ["):]
	}
	var f [7][]byte
	k := split(pre, f[:])
	if hwt != nil && k != 7 || hwt == nil && k != 5 && k != 6 {
		return errors.New("malformed TK StreamBegin: want stream, keyspace, vbucket, vbuuid, seqno, session, KV node")
	}
	if len(f[0]) == 0 || len(f[1]) == 0 || !cbgo.IsDecimal(f[3]) || !cbgo.IsDecimal(f[4]) || k >= 6 && !cbgo.IsDecimal(f[5]) {
		return errors.New("malformed TK StreamBegin: want stream, keyspace, vbucket, vbuuid, seqno, session, KV node")
	}
	vb, ok := cbgo.ParseVB(f[2])
	if !ok {
		return fmt.Errorf("malformed TK StreamBegin: bad vbucket %.20q", f[2])
	}
	var ss, se, seq []byte
	if hwt != nil {
		var ok bool
		if ss, se, seq, ok = parseHWT(hwt); !ok {
			return errors.New("malformed TK StreamBegin: bad HWT, want [start-end,seqno]")
		}
	}
	e := p.start(StreamBegin, n, h.Stamp, text)
	e.VB = vb
	add(e, AttrStream, string(f[0]))
	cbgo.SetKeyspace(e, string(f[1]))
	add(e, AttrVbuuid, string(f[3]))
	add(e, AttrSeqno, string(f[4]))
	if k >= 6 {
		add(e, AttrSession, string(f[5]))
	}
	if k == 7 && len(f[6]) > 0 {
		add(e, AttrKVNode, string(f[6]))
		add(e, AttrKVHost, string(hostOf(f[6])))
	}
	if hwt != nil {
		add(e, AttrHwtSnapStart, string(ss))
		add(e, AttrHwtSnapEnd, string(se))
		add(e, AttrHwtSeqno, string(seq))
	}
	emit(e)
	return nil
}

// parseHWT reads "start-end,seqno]." (the text after "HWT [").
func parseHWT(b []byte) (ss, se, seq []byte, ok bool) {
	i := bytes.IndexByte(b, '-')
	j := bytes.IndexByte(b, ',')
	k := bytes.IndexByte(b, ']')
	if i < 0 || j < i || k < j {
		return nil, nil, nil, false
	}
	ss, se, seq = b[:i], b[i+1:j], b[j+1:k]
	return ss, se, seq, cbgo.IsDecimal(ss) && cbgo.IsDecimal(se) && cbgo.IsDecimal(seq)
}

// hostOf returns the host of a host:port, without the brackets of an IPv6
// address, so it matches the host in the node name ns_1@host.
func hostOf(b []byte) []byte {
	if len(b) > 0 && b[0] == '[' {
		if i := bytes.IndexByte(b, ']'); i > 0 {
			return b[1:i]
		}
		return b
	}
	i := bytes.LastIndexByte(b, ':')
	if i < 0 || bytes.IndexByte(b[:i], ':') >= 0 {
		return b // no port, or a bare IPv6 address
	}
	return b[:i]
}

// "…StreamBegin rollback for StreamId %v KeyspaceId %v vbucket %v. Rollback (%v, %16x). "
func (p *parser) rollback(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	const bad = "malformed StreamBegin rollback: want StreamId, KeyspaceId, vbucket and Rollback (seqno, vbuuid)"
	stream, rest := token(rest)
	label, rest := token(rest)
	if len(stream) == 0 || string(label) != "KeyspaceId" && string(label) != "Bucket" {
		return errors.New(bad)
	}
	keyspace, rest := token(rest)
	rest, ok := scan.Cut(rest, "vbucket ")
	i := bytes.Index(rest, []byte(". Rollback ("))
	if len(keyspace) == 0 || !ok || i < 0 {
		return errors.New(bad)
	}
	vb, ok := cbgo.ParseVB(rest[:i])
	if !ok {
		return fmt.Errorf("malformed StreamBegin rollback: bad vbucket %.20q", rest[:i])
	}
	rest = rest[i+len(". Rollback ("):]
	j := bytes.Index(rest, []byte(", "))
	k := bytes.IndexByte(rest, ')')
	if j < 0 || k < j {
		return errors.New(bad)
	}
	seqno, uuid := rest[:j], bytes.TrimLeft(rest[j+2:k], " ")
	if !cbgo.IsDecimal(seqno) || !cbgo.IsHex(uuid) {
		return errors.New(bad)
	}
	e := p.start(Rollback, n, h.Stamp, text)
	e.VB = vb
	add(e, AttrStream, string(stream))
	cbgo.SetKeyspace(e, string(keyspace))
	add(e, AttrRollbackSeqno, string(seqno))
	add(e, AttrVbuuidHex, string(uuid))
	dec, _ := cbgo.VBUUID(uuid) // checked with IsHex above
	add(e, AttrVbuuid, dec)
	emit(e)
	return nil
}

// "Timekeeper::repairStream need rollback for %v %v %v. Sending Init Prepare."
func (p *parser) repairRollback(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	rest, ok := bytes.CutSuffix(bytes.TrimRight(rest, " "), []byte(". Sending Init Prepare."))
	var f [3][]byte
	if !ok || split(rest, f[:]) != 3 || len(f[0]) == 0 || len(f[1]) == 0 || !cbgo.IsDecimal(f[2]) {
		return errors.New("malformed repairStream need rollback: want stream, keyspace, session")
	}
	e := p.start(RepairRollback, n, h.Stamp, text)
	add(e, AttrStream, string(f[0]))
	cbgo.SetKeyspace(e, string(f[1]))
	add(e, AttrSession, string(f[2]))
	emit(e)
	return nil
}

// "… Initiate Stream Repair %v KeyspaceId %v StreamId %v" (the StreamId
// value is the session id); 6.5/6.6 "Bucket"; up to 6.0 "… Repair %v Bucket %v".
func (p *parser) streamRepair(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	var f [5][]byte
	k := split(bytes.TrimRight(rest, " "), f[:])
	if k != 3 && k != 5 || len(f[0]) == 0 || len(f[2]) == 0 ||
		string(f[1]) != "KeyspaceId" && string(f[1]) != "Bucket" ||
		k == 5 && (string(f[3]) != "StreamId" || !cbgo.IsDecimal(f[4])) {
		return errors.New("malformed Initiate Stream Repair: want stream, KeyspaceId, StreamId")
	}
	e := p.start(StreamRepair, n, h.Stamp, text)
	add(e, AttrStream, string(f[0]))
	cbgo.SetKeyspace(e, string(f[2]))
	if k == 5 {
		add(e, AttrSession, string(f[4]))
	}
	emit(e)
	return nil
}

// "Indexer::startKeyspaceIdStream Stream: %v KeyspaceId: %v SessionId %v RestartTS %v"
// (7.0+); "Indexer::startBucketStream Stream: %v Bucket: %v SessionId %v RestartTS %v"
// (6.5/6.6; up to 6.0 without SessionId). RestartTS is a TsVbuuid whose
// rows follow on lines of their own, or <nil>.
func (p *parser) streamRestart(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	const bad = "malformed stream start: want Stream, KeyspaceId, SessionId, RestartTS"
	stream, rest := token(rest)
	label, rest := token(rest)
	keyspace, rest := token(rest)
	if len(stream) == 0 || len(keyspace) == 0 || string(label) != "KeyspaceId:" && string(label) != "Bucket:" {
		return errors.New(bad)
	}
	var session []byte
	if r, ok := scan.Cut(rest, "SessionId "); ok {
		session, rest = token(r)
		if !cbgo.IsDecimal(session) {
			return errors.New(bad)
		}
	}
	ts, ok := scan.Cut(rest, "RestartTS ")
	if !ok {
		return errors.New(bad)
	}
	e := p.start(StreamRestart, n, h.Stamp, text)
	add(e, AttrStream, string(stream))
	cbgo.SetKeyspace(e, string(keyspace))
	if session != nil {
		add(e, AttrSession, string(session))
	}
	emit(e)
	if scan.HasPrefix(ts, "bucket: ") {
		p.open(RestartTS, h.Stamp, e)
	}
	return nil
}

// "StorageMgr::handleRollback %v %v rollbackTs %v" (7.0+: stream, keyspace,
// TsVbuuid); 6.5/6.6: "StorageMgr::handleRollback rollbackTs is %v". Other
// handleRollback lines (per index snapshot choices) are not this template.
func (p *parser) storageRollback(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	var stream, keyspace, ts []byte
	if r, ok := scan.Cut(rest, "rollbackTs is "); ok {
		ts = r
		if b, ok := scan.Cut(ts, "bucket: "); ok {
			keyspace, _ = cutByte(b, ',')
		}
	} else {
		var r []byte
		stream, r = token(rest)
		keyspace, r = token(r)
		var ok bool
		if ts, ok = scan.Cut(r, "rollbackTs "); !ok {
			return nil
		}
		if len(stream) == 0 || len(keyspace) == 0 {
			return errors.New("malformed StorageMgr::handleRollback: want stream, keyspace, rollbackTs")
		}
	}
	e := p.start(StorageRB, n, h.Stamp, text)
	if stream != nil {
		add(e, AttrStream, string(stream))
	}
	if len(keyspace) > 0 {
		cbgo.SetKeyspace(e, string(keyspace))
	}
	emit(e)
	if scan.HasPrefix(ts, "bucket: ") {
		p.open(RollbackTS, h.Stamp, e)
	}
	return nil
}

// "StorageMgr::rollbackAllToZero %v %v": stream, keyspace.
func (p *parser) rollbackToZero(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	var f [2][]byte
	if split(bytes.TrimRight(rest, " "), f[:]) != 2 || len(f[0]) == 0 || len(f[1]) == 0 {
		return errors.New("malformed StorageMgr::rollbackAllToZero: want stream, keyspace")
	}
	e := p.start(RollbackToZero, n, h.Stamp, text)
	add(e, AttrStream, string(f[0]))
	cbgo.SetKeyspace(e, string(f[1]))
	emit(e)
	return nil
}

// "KVSender::openMutationStream %v %v Error Received %v from %v" and the
// same for restartVbuckets (kv_sender.go): stream, keyspace, the error, the
// projector's host:port. Other KVSender lines are not this template.
func (p *parser) projectorError(n int64, text []byte, h cbgo.Header, op string, rest []byte, emit forensics.Emit) error {
	stream, r := token(rest)
	keyspace, r := token(r)
	r, ok := scan.Cut(r, "Error Received ")
	if !ok {
		return nil
	}
	i := bytes.LastIndex(r, []byte(" from "))
	if i < 0 || len(stream) == 0 || len(keyspace) == 0 {
		return errors.New("malformed KVSender error: want stream, keyspace, Error Received … from host:port")
	}
	addr := r[i+len(" from "):]
	e := p.start(ProjectorError, n, h.Stamp, text)
	add(e, AttrOp, op)
	add(e, AttrStream, string(stream))
	cbgo.SetKeyspace(e, string(keyspace))
	add(e, AttrError, string(r[:i]))
	add(e, AttrProjector, string(addr))
	add(e, AttrKVHost, string(hostOf(addr)))
	emit(e)
	return nil
}

// "TK ConnError %v %v %v": stream, keyspace, the vbuckets as a Go slice
// ("[12 13]"). VB is set when the list holds one vbucket.
func (p *parser) connError(n int64, text []byte, h cbgo.Header, rest []byte, emit forensics.Emit) error {
	const bad = "malformed TK ConnError: want stream, keyspace, [vbuckets]"
	stream, r := token(rest)
	keyspace, r := token(r)
	r = bytes.TrimRight(r, " ")
	if len(stream) == 0 || len(keyspace) == 0 || len(r) < 2 || r[0] != '[' || r[len(r)-1] != ']' {
		return errors.New(bad)
	}
	list := r[1 : len(r)-1]
	count, one := 0, -1
	for rest := list; len(rest) > 0; {
		var t []byte
		t, rest = token(rest)
		vb, ok := cbgo.ParseVB(t)
		if !ok {
			return errors.New(bad)
		}
		count++
		one = vb
	}
	e := p.start(ConnError, n, h.Stamp, text)
	if count == 1 {
		e.VB = one
	}
	add(e, AttrStream, string(stream))
	cbgo.SetKeyspace(e, string(keyspace))
	add(e, AttrVbuckets, string(list))
	emit(e)
	return nil
}

// open starts reading the rows of the TsVbuuid printed at the end of the
// event just emitted.
func (p *parser) open(k forensics.Kind, st forensics.Stamp, header *forensics.Event) {
	p.dump = dump{kind: k, stamp: st, stream: header.Attr(AttrStream), keyspace: header.Attr(AttrKeyspace), session: header.Attr(AttrSession)}
}

// row reads a line that follows a TsVbuuid header (common/timestamp.go
// TsVbuuid.String):
//
//	"    {vbno, vbuuid, seqno, snapshot-start, snapshot-end}"              (up to 6.6)
//	"    {%5d %16x %10d %10d %10d}"
//	"    {vbno, vbuuid, manifest, seqno, snapshot-start, snapshot-end}"    (7.0+)
//	"    {%5d %16x %v %10d %10d %10d}"
//	"    {vbno, vbuuid, manifest, seqno, osocount, snapshot-start, snapshot-end}"
//	"    {%5d %16x %v %10d %10d %10d %10d}"
//
// Blank lines are skipped (copies pasted into tickets have them); any other
// line ends the dump.
func (p *parser) row(n int64, text []byte, emit forensics.Emit) error {
	t := bytes.Trim(text, " \t")
	if len(t) == 0 {
		return nil
	}
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		p.dump.kind = ""
		return nil
	}
	inner := t[1 : len(t)-1]
	if bytes.Contains(inner, []byte("vbno")) {
		p.dump.oso = bytes.Contains(inner, []byte("osocount")) || bytes.Contains(inner, []byte("oscount"))
		return nil
	}
	var f [7][]byte
	k := splitSpaces(inner, f[:])
	var manifest, seqno, oso []byte
	switch {
	case k == 7:
		manifest, seqno, oso = f[2], f[3], f[4]
	case k == 6 && p.dump.oso: // an empty manifest
		seqno, oso = f[2], f[3]
	case k == 6:
		manifest, seqno = f[2], f[3]
	case k == 5 && !p.dump.oso:
		seqno = f[2]
	default:
		return errors.New("malformed TsVbuuid row: want {vbno vbuuid [manifest] seqno [osocount] snapshot-start snapshot-end}")
	}
	vb, ok := cbgo.ParseVB(f[0])
	start, end := f[k-2], f[k-1]
	if !ok || !cbgo.IsHex(f[1]) || !cbgo.IsDecimal(seqno) || !cbgo.IsDecimal(start) || !cbgo.IsDecimal(end) ||
		manifest != nil && !cbgo.IsHex(manifest) || oso != nil && !cbgo.IsDecimal(oso) {
		return errors.New("malformed TsVbuuid row: want {vbno vbuuid [manifest] seqno [osocount] snapshot-start snapshot-end}")
	}
	d := &p.dump
	e := p.start(d.kind, n, d.stamp, text)
	e.VB = vb
	if d.stream != "" {
		add(e, AttrStream, d.stream)
	}
	if d.keyspace != "" {
		cbgo.SetKeyspace(e, d.keyspace)
	}
	if d.session != "" {
		add(e, AttrSession, d.session)
	}
	add(e, AttrVbuuidHex, string(f[1]))
	dec, _ := cbgo.VBUUID(f[1]) // checked with IsHex above
	add(e, AttrVbuuid, dec)
	add(e, AttrSeqno, string(seqno))
	add(e, AttrSnapStart, string(start))
	add(e, AttrSnapEnd, string(end))
	if manifest != nil {
		add(e, AttrManifest, string(manifest))
	}
	if oso != nil {
		add(e, AttrOsoCount, string(oso))
	}
	emit(e)
	return nil
}

// cutByte returns b up to the first c and what follows it.
func cutByte(b []byte, c byte) (before, after []byte) {
	if i := bytes.IndexByte(b, c); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}
