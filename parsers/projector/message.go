package projector

import (
	"bytes"
	"errors"
	"fmt"

	"forensics"
	"forensics/parsers/cbgo"
	"forensics/parsers/scan"
)

// The templates below are verified against couchbase/indexing (mad-hatter =
// 6.5/6.6, cheshire-cat = 7.0, 7.1.x, neo = 7.2, trinity = 7.6, morpheus =
// 8.0); none changed wording between those releases except where noted.

// dcpName is what a DCPT prefix says about its connection.
type dcpName struct {
	consumer []byte // the connection name as logged
	short    []byte // "secidx:proj-<topic>-<uuid>/<n>", set only for projector feeds (see below)
	keyspace []byte
	topic    []byte
}

// parseDCPT splits a DCPT line into its connection name and the rest.
//
// Up to 7.6 the prefix is "DCPT[%s]" with the name the projector gives the
// connection, "secidx:proj-<keyspace>-<topic>-<uuid>/<n>" (projector/feed.go
// newDCPConnectionName, dcp/upr.go). From 7.0 on, DCP_OPEN sends memcached the
// name without the keyspace (dcp_feed.go truncFeedName, MB-43994), so
// memcached's eq_dcpq:<name> is the short form. Topics and uuids hold no '-';
// keyspaces may. 8.0 prints "DCPT:<topic>:<keyspace>:<stream uuid>:##<opaque>:<n>".
func parseDCPT(msg []byte) (name dcpName, rest []byte, ok bool) {
	if msg[4] == ':' { // 8.0
		i := bytes.IndexByte(msg, ' ')
		if i < 0 {
			return name, nil, false
		}
		name.consumer, rest = msg[:i], msg[i+1:]
		parts := msg[len("DCPT:"):i]
		if j := bytes.Index(parts, []byte(":##")); j >= 0 {
			parts = parts[:j]
		}
		t := bytes.IndexByte(parts, ':')
		u := bytes.LastIndexByte(parts, ':')
		if t > 0 && u > t+1 {
			name.topic, name.keyspace = parts[:t], parts[t+1:u]
		}
		return name, rest, true
	}
	i := bytes.Index(msg, []byte("] "))
	if i < 0 {
		return name, nil, false
	}
	name.consumer, rest = msg[len("DCPT["):i], msg[i+2:]
	const proj = "secidx:proj-"
	if !bytes.HasPrefix(name.consumer, []byte(proj)) {
		return name, rest, true
	}
	body := name.consumer[len(proj):]
	u := bytes.LastIndexByte(body, '-')
	if u <= 0 {
		return name, rest, true
	}
	t := bytes.LastIndexByte(body[:u], '-')
	if t <= 0 {
		return name, rest, true
	}
	name.keyspace, name.topic = body[:t], body[t+1:u]
	name.short = body[t+1:]
	return name, rest, true
}

func (n *dcpName) set(e *forensics.Event) {
	add(e, AttrConsumer, string(n.consumer))
	if n.short != nil {
		add(e, AttrConsumerShort, "secidx:proj-"+string(n.short))
	}
	if len(n.keyspace) > 0 {
		cbgo.SetKeyspace(e, string(n.keyspace))
	}
	if len(n.topic) > 0 {
		add(e, AttrTopic, string(n.topic))
	}
}

// opaque reads "##%x " at the start of b.
func opaque(b []byte) (op, rest []byte, ok bool) {
	if !scan.HasPrefix(b, "##") {
		return nil, b, false
	}
	b = b[2:]
	i := bytes.IndexByte(b, ' ')
	if i <= 0 || !cbgo.IsHex(b[:i]) {
		return nil, b, false
	}
	return b[:i], b[i+1:], true
}

func (p *parser) dcpt(n int64, text []byte, h cbgo.Header, msg []byte, emit forensics.Emit) error {
	name, rest, ok := parseDCPT(msg)
	if !ok {
		return nil
	}
	if scan.HasPrefix(rest, "EOF received") || scan.HasPrefix(rest, "doReceive(): ") {
		// dcp_feed.go doReceive: "%v EOF received" (Info) when memcached
		// closes the connection; "%v doReceive(): %v" otherwise.
		if name.keyspace == nil {
			return nil
		}
		reason := "EOF"
		if r, ok := scan.Cut(rest, "doReceive(): "); ok {
			reason = string(bytes.TrimRight(r, " "))
		}
		e := p.start(DCPClosed, n, h.Stamp, text)
		name.set(e)
		add(e, AttrReason, reason)
		emit(e)
		return nil
	}
	op, rest, ok := opaque(rest)
	if !ok {
		return nil
	}
	switch {
	case scan.HasPrefix(rest, "STREAMREQ("):
		return p.streamReq(n, text, h, &name, op, rest[len("STREAMREQ("):], emit)
	case scan.HasPrefix(rest, "feed started"):
		// dcp_feed.go NewDcpFeed: "%v ##%x feed started ..." (7.6: "feed
		// started. useMutationQueue: %v ...").
		if name.keyspace == nil {
			return nil
		}
		e := p.start(DCPConnected, n, h.Stamp, text)
		name.set(e)
		add(e, AttrOpaque, string(op))
		emit(e)
	}
	return nil
}

// dcp_feed.go handleStreamRequest:
//
//	"%v ##%x STREAMREQ(%v) with rollback %d"                                (Warn)
//	"%v ##%x STREAMREQ(%v) unexpected status: %v"                           (Error)
//	"%v ##%x STREAMREQ(%v) with status: %v, stream request value: %+v"      (Error; 7.0+ collection errors)
//
// The success line is Debug and not in default logs.
func (p *parser) streamReq(n int64, text []byte, h cbgo.Header, name *dcpName, op, rest []byte, emit forensics.Emit) error {
	i := bytes.IndexByte(rest, ')')
	if i < 0 {
		return errors.New("malformed STREAMREQ: want STREAMREQ(vbucket)")
	}
	vbText, rest := rest[:i], rest[i+1:]
	var kind forensics.Kind
	var key forensics.AttrKey
	var value []byte
	switch {
	case scan.HasPrefix(rest, " with rollback "):
		kind, key, value = StreamRollback, AttrRollbackSeqno, bytes.TrimRight(rest[len(" with rollback "):], " ")
		if !cbgo.IsDecimal(value) {
			return errors.New("malformed STREAMREQ with rollback: want a decimal seqno")
		}
	case scan.HasPrefix(rest, " unexpected status: "):
		kind, key, value = StreamError, AttrStatus, bytes.TrimRight(rest[len(" unexpected status: "):], " ")
	case scan.HasPrefix(rest, " with status: "):
		kind, key, value = StreamError, AttrStatus, rest[len(" with status: "):]
		if j := bytes.IndexByte(value, ','); j >= 0 {
			value = value[:j]
		}
	default:
		return nil
	}
	vb, ok := cbgo.ParseVB(vbText)
	if !ok {
		return fmt.Errorf("malformed STREAMREQ: bad vbucket %.20q", vbText)
	}
	if len(value) == 0 {
		return errors.New("malformed STREAMREQ: no status")
	}
	e := p.start(kind, n, h.Stamp, text)
	e.VB = vb
	name.set(e)
	add(e, AttrOpaque, string(op))
	add(e, key, string(value))
	emit(e)
	return nil
}

// "KVDT[<-%v<-%v #%v]" keyspace, cluster, topic (kvdata.go NewKVData).
func parseKVDT(msg []byte) (keyspace, cluster, topic, rest []byte, ok bool) {
	b, ok := scan.Cut(msg, "KVDT[<-")
	if !ok {
		return
	}
	i := bytes.Index(b, []byte("<-"))
	j := bytes.Index(b, []byte(" #"))
	k := bytes.Index(b, []byte("] "))
	if i <= 0 || j < i || k < j {
		return nil, nil, nil, nil, false
	}
	return b[:i], b[i+2 : j], b[j+2 : k], b[k+2:], true
}

// kvdata.go scatterMutation: "%v ##%x StreamRequest ROLLBACK: %v" (Info),
// where %v is the DcpEvent tagged as user data: it names no vbucket.
func (p *parser) kvdt(n int64, text []byte, h cbgo.Header, msg []byte, emit forensics.Emit) error {
	keyspace, cluster, topic, rest, ok := parseKVDT(msg)
	if !ok {
		return nil
	}
	op, rest, ok := opaque(rest)
	if !ok || !scan.HasPrefix(rest, "StreamRequest ROLLBACK") {
		return nil
	}
	e := p.start(StreamRollbackNotice, n, h.Stamp, text)
	cbgo.SetKeyspace(e, string(keyspace))
	add(e, AttrCluster, string(cluster))
	add(e, AttrTopic, string(topic))
	add(e, AttrOpaque, string(op))
	emit(e)
	return nil
}

// vbucket.go: prefix "VBRT[<-%v<-%v<-%v #%v]" (vbno, keyspace, cluster,
// topic), then "%v ##%x ##%v StreamBegin" and "%v ##%x ##%v StreamEnd"
// (Info) with the DCP opaque and the indexer's session (opaque2).
func (p *parser) vbrt(n int64, text []byte, h cbgo.Header, msg []byte, emit forensics.Emit) error {
	k := bytes.Index(msg, []byte("] "))
	if k < 0 {
		return nil
	}
	rest := bytes.TrimRight(msg[k+2:], " ")
	var kind forensics.Kind
	switch {
	case bytes.HasSuffix(rest, []byte(" StreamBegin")):
		kind, rest = StreamBegin, rest[:len(rest)-len(" StreamBegin")]
	case bytes.HasSuffix(rest, []byte(" StreamEnd")):
		kind, rest = StreamEnd, rest[:len(rest)-len(" StreamEnd")]
	default:
		return nil
	}
	const bad = "malformed VBRT stream line: want VBRT[<-vb<-keyspace<-cluster #topic] ##opaque ##session"
	prefix, ok := scan.Cut(msg[:k], "VBRT[<-")
	if !ok {
		return errors.New(bad)
	}
	// vb, keyspace and cluster hold no "<-"; the topic holds no " #".
	i := bytes.Index(prefix, []byte("<-"))
	j := -1
	if i > 0 {
		if j = bytes.Index(prefix[i+2:], []byte("<-")); j >= 0 {
			j += i + 2
		}
	}
	t := bytes.LastIndex(prefix, []byte(" #"))
	sp := bytes.IndexByte(rest, ' ')
	if i <= 0 || j <= i+2 || t < j || sp < 0 {
		return errors.New(bad)
	}
	op, ok1 := scan.Cut(rest[:sp], "##")
	session, ok2 := scan.Cut(rest[sp+1:], "##")
	if !ok1 || !ok2 || !cbgo.IsHex(op) || !cbgo.IsDecimal(session) {
		return errors.New(bad)
	}
	vb, ok := cbgo.ParseVB(prefix[:i])
	if !ok {
		return fmt.Errorf("malformed VBRT stream line: bad vbucket %.20q", prefix[:i])
	}
	e := p.start(kind, n, h.Stamp, text)
	e.VB = vb
	cbgo.SetKeyspace(e, string(prefix[i+2:j]))
	add(e, AttrCluster, string(prefix[j+2:t]))
	add(e, AttrTopic, string(prefix[t+2:]))
	add(e, AttrOpaque, string(op))
	add(e, AttrSession, string(session))
	emit(e)
	return nil
}

// feed.go: prefix "FEED[<=>%v(%v)]" (topic, cluster).
func (p *parser) feed(n int64, text []byte, h cbgo.Header, msg []byte, emit forensics.Emit) error {
	b, ok := scan.Cut(msg, "FEED[<=>")
	k := bytes.Index(b, []byte(")] "))
	if !ok || k < 0 {
		return nil
	}
	head, rest := b[:k], b[k+3:]
	op, rest, ok := opaque(rest)
	if !ok {
		return nil
	}
	i := bytes.LastIndexByte(head, '(')
	if i < 0 {
		return nil
	}
	topic, cluster := head[:i], head[i+1:]
	if scan.HasPrefix(rest, "vbmap {") {
		return p.vbmap(n, text, h, topic, cluster, rest[len("vbmap {"):], emit)
	}
	if !bytes.HasPrefix(rest, []byte("backch ")) && !bytes.HasPrefix(rest, []byte("ignoring backch message ")) {
		return nil
	}
	j := bytes.Index(rest, []byte("{controlStreamRequest, "))
	if j < 0 {
		return nil
	}
	var stage string
	switch {
	case scan.HasPrefix(rest, "backch *"):
		stage = "posted"
	case scan.HasPrefix(rest, "backch flush rollback "), scan.HasPrefix(rest, "backch flush success "), scan.HasPrefix(rest, "backch flush error "):
		stage = "flushed"
	case scan.HasPrefix(rest, "ignoring backch message "):
		stage = "ignored"
	default:
		return nil
	}
	return p.streamResponse(n, text, h, topic, cluster, op, stage, rest[j+len("{controlStreamRequest, "):], emit)
}

// controlStreamRequest.Repr (feed.go), logged by PostStreamRequest as
// "%v ##%x backch %T %v" when memcached answers, and again when the feed
// hands it to the indexer ("backch flush rollback|success|error %T: %v") or
// drops it ("ignoring backch message %T: %v"):
//
//	"{controlStreamRequest, %v, %s, %d, %x, %d, ##%x, %v}"
//	status, keyspace, vbno, vbuuid, seqno (the rollback seqno on ROLLBACK,
//	else the requested start), opaque, kvdata uuid
func (p *parser) streamResponse(n int64, text []byte, h cbgo.Header, topic, cluster, feedOp []byte, stage string, repr []byte, emit forensics.Emit) error {
	const bad = "malformed controlStreamRequest: want {controlStreamRequest, status, keyspace, vbucket, vbuuid, seqno, ##opaque, uuid}"
	end := bytes.IndexByte(repr, '}')
	if end < 0 {
		return errors.New(bad)
	}
	var f [7][]byte
	b := repr[:end]
	for i := range f {
		j := bytes.Index(b, []byte(", "))
		if i == len(f)-1 {
			if j >= 0 {
				return errors.New(bad)
			}
			f[i] = b
			break
		}
		if j < 0 {
			return errors.New(bad)
		}
		f[i], b = b[:j], b[j+2:]
	}
	status, keyspace, vbText, uuidHex, seqno, op, kvdata := f[0], f[1], f[2], f[3], f[4], f[5], f[6]
	vb, ok := cbgo.ParseVB(vbText)
	uuid, okUUID := cbgo.VBUUID(uuidHex)
	op, okOp := scan.Cut(op, "##")
	if !ok || !okUUID || !okOp || !cbgo.IsHex(op) || len(status) == 0 || len(keyspace) == 0 || !cbgo.IsDecimal(seqno) {
		return errors.New(bad)
	}
	e := p.start(StreamResponse, n, h.Stamp, text)
	e.VB = vb
	add(e, AttrStatus, string(status))
	cbgo.SetKeyspace(e, string(keyspace))
	add(e, AttrVbuuidHex, string(uuidHex))
	add(e, AttrVbuuid, uuid)
	add(e, AttrSeqno, string(seqno))
	add(e, AttrOpaque, string(op))
	add(e, AttrKvdata, string(kvdata))
	add(e, AttrStage, stage)
	add(e, AttrTopic, string(topic))
	add(e, AttrCluster, string(cluster))
	emit(e)
	return nil
}

// feed.go getLocalVbuckets: "%v ##%x vbmap {%v,%v} - %v" (pool, bucket, the
// vbuckets as a Go slice): what the projector believes its node holds.
func (p *parser) vbmap(n int64, text []byte, h cbgo.Header, topic, cluster, rest []byte, emit forensics.Emit) error {
	const bad = "malformed vbmap: want vbmap {pool,bucket} - [vbuckets]"
	i := bytes.IndexByte(rest, ',')
	j := bytes.Index(rest, []byte("} - ["))
	if i < 0 || j < i {
		return errors.New(bad)
	}
	pool, bucket := rest[:i], rest[i+1:j]
	list := bytes.TrimRight(rest[j+len("} - ["):], " ")
	list, ok := bytes.CutSuffix(list, []byte("]"))
	if !ok || len(bucket) == 0 {
		return errors.New(bad)
	}
	count := 0
	for r := list; len(r) > 0; {
		k := bytes.IndexByte(r, ' ')
		t := r
		if k >= 0 {
			t, r = r[:k], r[k+1:]
		} else {
			r = nil
		}
		if _, ok := cbgo.ParseVB(t); !ok {
			return errors.New(bad)
		}
		count++
	}
	e := p.start(VBMap, n, h.Stamp, text)
	e.Bucket = string(bucket)
	add(e, AttrPool, string(pool))
	add(e, AttrBucket, e.Bucket)
	add(e, AttrVbuckets, string(list))
	add(e, AttrCount, fmt.Sprint(count))
	add(e, AttrTopic, string(topic))
	add(e, AttrCluster, string(cluster))
	emit(e)
	return nil
}
