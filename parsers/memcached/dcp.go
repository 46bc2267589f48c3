package memcached

import (
	"bytes"
	"errors"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// maxPending bounds the DCP producer connections waiting for their name.
const maxPending = 512

// openProducer is a DCP producer connection whose open line was read but
// whose name was not logged yet.
type openProducer struct {
	cid  string
	ev   forensics.Event
	done bool // emitted when a later line named it; its slot waits to be compacted
}

// dcpOpen reads daemon/protocol/mcbp/dcp_open_executor.cc's "{cid}: DCP
// connection opened successfully. {PRODUCER|CONSUMER}[, {flag}…] {description}"
// where the description is "[ {peer} - {local} ({user}) ]". It is the only
// line at INFO when a DCP producer is created (dcpconnmap.cc logs
// "Connection created" at DEBUG), and it does not name the connection: the
// name comes with the first line the connection's own logger writes, which
// carries the same connection id. The event waits for it.
func (p *parser) dcpOpen(l *line, msg []byte, emit forensics.Emit) error {
	r, ok := scan.Cut(msg, "DCP connection opened successfully. ")
	if !ok || !scan.HasPrefix(r, "PRODUCER") {
		return nil
	}
	flags, desc := r, []byte(nil)
	if i := bytes.Index(r, []byte(" [ ")); i >= 0 {
		flags, desc = r[:i], r[i+1:]
	}
	e := p.event(l, DCPProducer)
	e.Set(AttrFlags, l.txt.Str(flags))
	// daemon/connection.cc updateDescription: the peer and local addresses
	// (JSON in 7.x), then "(System, <ud>user</ud>)", "(<ud>user</ud> (LDAP))"
	// or "(not authenticated)".
	if r, ok := scan.Cut(desc, "[ "); ok {
		if i := bytes.Index(r, []byte(" - ")); i > 0 {
			e.Set(AttrPeer, l.txt.Str(r[:i]))
			r = r[i+3:]
			if j := bytes.Index(r, []byte(" (")); j >= 0 {
				if user, ok := bytes.CutSuffix(r[j+2:], []byte(") ]")); ok && string(user) != "not authenticated" {
					e.Set(AttrUser, l.txt.Str(user))
				}
			}
		}
	}
	p.wait(l, e, emit)
	return nil
}

// wait holds e, the open line of producer connection l.cid, until a line
// of the connection names it.
func (p *parser) wait(l *line, e *forensics.Event, emit forensics.Emit) {
	if p.live >= maxPending {
		p.flushPending(emit, 1)
	}
	op := openProducer{cid: l.txt.Str(l.cid), ev: *e}
	op.ev.Attrs = append([]forensics.Attr(nil), e.Attrs...)
	p.pending = append(p.pending, op)
	p.live++
	p.waiting[op.cid]++
}

// isWaiting reports whether producer connection cid waits for its name.
// Every line of every producer's logger asks, and a dense log holds
// hundreds of connections that never say their name, so this is a map
// lookup rather than a scan of the pending list.
func (p *parser) isWaiting(cid []byte) bool { return p.waiting[string(cid)] > 0 }

// settle marks a pending connection emitted. The list is a queue from
// p.head: a busy log opens producers for hours while hundreds stay
// unnamed, so taking one out must not shift all the others.
func (p *parser) settle(op *openProducer) {
	if p.waiting[op.cid]--; p.waiting[op.cid] <= 0 {
		delete(p.waiting, op.cid)
	}
	op.done, op.ev = true, forensics.Event{}
	p.live--
	for p.head < len(p.pending) && p.pending[p.head].done {
		p.head++
	}
	if p.head == len(p.pending) {
		p.pending, p.head = p.pending[:0], 0
		return
	}
	// Slots of emitted connections, before head or behind a connection
	// that stays unnamed, are dropped once they outnumber the waiting
	// ones, so the list stays within a small multiple of maxPending.
	if dead := len(p.pending) - p.live; dead > maxPending && dead > p.live {
		kept := p.pending[:0]
		for _, op := range p.pending[p.head:] {
			if !op.done {
				kept = append(kept, op)
			}
		}
		clear(p.pending[len(kept):])
		p.pending, p.head = kept, 0
	}
}

// flushPending emits the first n waiting producer connections without a name.
func (p *parser) flushPending(emit forensics.Emit, n int) {
	for ; n > 0 && p.live > 0; n-- {
		op := &p.pending[p.head] // settle keeps head on a live entry
		emit(&op.ev)
		p.settle(op)
	}
}

// resolve emits the waiting producer connection with id cid, now that one
// of its lines named it.
func (p *parser) resolve(cid, bucket, name []byte, emit forensics.Emit) {
	if !p.isWaiting(cid) {
		return
	}
	for i := p.head; i < len(p.pending); i++ {
		op := &p.pending[i]
		if op.done || op.cid != string(cid) {
			continue
		}
		op.ev.Bucket = string(bucket)
		if name != nil {
			consumer := string(name)
			op.ev.Set(AttrConsumer, consumer)
			op.ev.Set(AttrConsumerKind, consumerKind(consumer))
		}
		emit(&op.ev)
		p.settle(op)
		return
	}
}

// dcpLine reads a line of a DCP producer's logger. Its prefix is
// "DCP (Producer) eq_dcpq:{name} -" (dcp/producer.cc setLogHeader; the name
// is DCP_OPEN's, prefixed by dcpconnmap.cc). A stream whose producer was
// already destroyed logs through the global logger with "DCP (Producer):
// **Deleted conn**" glued to its message (dcp/active_stream_impl.h).
func (p *parser) dcpLine(l *line, emit forensics.Emit) error {
	var name, msg []byte
	if r, ok := scan.Cut(l.body, "DCP (Producer) "); ok {
		i := bytes.Index(r, []byte(" - "))
		if i < 0 {
			return nil
		}
		name, msg = r[:i], r[i+3:]
		name, _ = scan.Cut(name, "eq_dcpq:")
		if p.live > 0 && l.cid != nil {
			p.resolve(l.cid, l.bucket, name, emit)
		}
	} else if r, ok := scan.Cut(l.body, "DCP (Producer): **Deleted conn**"); ok {
		msg = r
	} else {
		return nil
	}

	// Messages about one stream start with "(vb:N) " and, for streams with
	// an id, "(sid:N) ".
	vb := -1
	var sid []byte
	if len(msg) > 0 && msg[0] == '(' {
		v, r, ok := vbID(msg[1:])
		if !ok || !scan.HasPrefix(r, ") ") {
			return nil
		}
		vb, msg = v, r[2:]
		if r, ok := scan.Cut(msg, "(sid:"); ok {
			if i := bytes.IndexByte(r, ')'); i >= 0 && scan.HasPrefix(r[i:], ") ") {
				sid, msg = r[:i], r[i+2:]
			}
		}
	}
	if len(msg) == 0 {
		return nil
	}
	switch msg[0] {
	case 'C':
		if r, ok := scan.Cut(msg, "Creating "); ok && vb >= 0 {
			return p.streamCreated(l, name, vb, sid, r, emit)
		}
	case 'S':
		if r, ok := scan.Cut(msg, "Stream request requires rollback to seqno:"); ok && vb >= 0 {
			return p.streamRollback(l, name, vb, sid, r, emit)
		} else if scan.HasPrefix(msg, "Stream request f") || scan.HasPrefix(msg, "Stream (") {
			p.streamRefused(l, name, vb, sid, msg, emit)
		}
	case 'n':
		// producer.cc: a stream request for xattrs or collections on a
		// connection without noop.
		if vb >= 0 && scan.HasPrefix(msg, "noop is mandatory for ") {
			p.refuse(l, name, vb, sid, msg, "not_supported", emit)
		}
	}
	return nil
}

// dcpEvent starts an event about one stream of a producer.
func (p *parser) dcpEvent(l *line, kind forensics.Kind, name []byte, vb int, sid []byte) *forensics.Event {
	e := p.event(l, kind)
	e.VB = vb
	if name != nil {
		consumer := l.txt.Str(name)
		e.Set(AttrConsumer, consumer)
		e.Set(AttrConsumerKind, consumerKind(consumer))
	}
	if len(sid) > 0 && string(sid) != "none" {
		e.Set(AttrSid, l.txt.Str(sid))
	}
	return e
}

var errStreamCreated = errors.New("stream creation line without its seqnos")

// streamCreated reads dcp/active_stream.cc's "{(vb)} Creating {|takeover
// |PiTR }stream with start seqno {} and end seqno {}; requested end seqno
// was {}, …": then "collections-filter-size:{} {sid}" (7.0), "snapshot:{{a,b}}
// collections-filter-size:{} {sid}" (7.1–7.2), "flags:{hex},
// snapshot:{{a,b}} {filter}, {sid}" (7.6).
func (p *parser) streamCreated(l *line, name []byte, vb int, sid, r []byte, emit forensics.Emit) error {
	takeover, pitr := false, false
	if rest, ok := scan.Cut(r, "takeover "); ok {
		takeover, r = true, rest
	} else if rest, ok := scan.Cut(r, "PiTR "); ok {
		pitr, r = true, rest
	}
	r, ok := scan.Cut(r, "stream with start seqno ")
	if !ok {
		return nil
	}
	start, r, ok := number(r)
	if !ok {
		return errStreamCreated
	}
	if r, ok = scan.Cut(r, " and end seqno "); !ok {
		return errStreamCreated
	}
	end, r, ok := number(r)
	if !ok {
		return errStreamCreated
	}
	if r, ok = scan.Cut(r, "; requested end seqno was "); !ok {
		return errStreamCreated
	}
	requested, r, ok := number(r)
	if !ok {
		return errStreamCreated
	}
	e := p.dcpEvent(l, StreamCreated, name, vb, sid)
	e.Set(AttrStartSeqno, l.txt.Str(start))
	e.Set(AttrEndSeqno, l.txt.Str(end))
	e.Set(AttrRequestedEndSeqno, l.txt.Str(requested))
	if i := bytes.Index(r, []byte("snapshot:{")); i >= 0 {
		if a, b, _, ok := pair(r[i+len("snapshot:"):]); ok {
			e.Set(AttrSnapStart, l.txt.Str(a))
			e.Set(AttrSnapEnd, l.txt.Str(b))
		}
	}
	if v, ok := field(r, ", flags:", ','); ok {
		e.Set(AttrFlags, l.txt.Str(v))
	}
	if takeover {
		e.Set(AttrTakeover, "true")
	} else {
		e.Set(AttrTakeover, "false")
	}
	if pitr {
		e.Set(AttrPitr, "true")
	}
	if e.Attr(AttrSid) == "" {
		// 7.0–7.2 print the stream id last: "sid:none" or "sid:N".
		if v, ok := field(r, " sid:", ' '); ok && string(v) != "none" && len(v) > 0 {
			e.Set(AttrSid, l.txt.Str(v))
		}
	}
	emit(e)
	return nil
}

var errRollback = errors.New("rollback line without its seqnos and uuid")

// streamRollback reads dcp/producer.cc's "({vb}) Stream request requires
// rollback to seqno:{} because {reason}. Client requested seqnos:{{{},{}}}
// snapshot:{{{},{}}} uuid:{}" (7.2.9 and 7.6.4+ add "({sid}) " after the
// vbucket). The reasons come from failover-table.cc: "consumer ahead of
// producer - producer upper at {}", "vBucket UUID not found in failover
// table, consumer and producer have no common history", "purge seqno ({})
// is greater than start seqno - could miss purged deletions", and others.
func (p *parser) streamRollback(l *line, name []byte, vb int, sid, r []byte, emit forensics.Emit) error {
	to, r, ok := number(r)
	if !ok {
		return errRollback
	}
	if r, ok = scan.Cut(r, " because "); !ok {
		return errRollback
	}
	i := bytes.LastIndex(r, []byte(". Client requested seqnos:"))
	if i < 0 {
		return errRollback
	}
	reason := r[:i]
	r = r[i+len(". Client requested seqnos:"):]
	reqStart, reqEnd, r, ok := pair(r)
	if !ok {
		return errRollback
	}
	if r, ok = scan.Cut(r, " snapshot:"); !ok {
		return errRollback
	}
	snapStart, snapEnd, r, ok := pair(r)
	if !ok {
		return errRollback
	}
	if r, ok = scan.Cut(r, " uuid:"); !ok {
		return errRollback
	}
	uuid, _, ok := number(r)
	if !ok {
		return errRollback
	}
	e := p.dcpEvent(l, StreamRollback, name, vb, sid)
	e.Set(AttrRollbackSeqno, l.txt.Str(to))
	e.Set(AttrReason, l.txt.Str(reason))
	e.Set(AttrReqStart, l.txt.Str(reqStart))
	e.Set(AttrReqEnd, l.txt.Str(reqEnd))
	e.Set(AttrSnapStart, l.txt.Str(snapStart))
	e.Set(AttrSnapEnd, l.txt.Str(snapEnd))
	e.Set(AttrUUID, l.txt.Str(uuid))
	emit(e)
	return nil
}

// streamRefused reads dcp/producer.cc's refusals of a stream request:
// "({vb}) Stream request failed because {reason}", "({vb}) Stream ({sid})
// request failed because a stream already exists for this vbucket",
// "({vb}) Stream request failed for filtered collections + sync-writes" and
// "Stream request for {vb} failed because|while {reason}".
func (p *parser) streamRefused(l *line, name []byte, vb int, sid, msg []byte, emit forensics.Emit) {
	r := msg
	if rest, ok := scan.Cut(r, "Stream request for "); ok {
		v, rest, ok := vbID(rest)
		if !ok {
			return
		}
		vb, r = v, rest
		if r, ok = scan.Cut(r, " failed "); !ok {
			return
		}
		r, _ = scan.Cut(r, "because ")
	} else if rest, ok := scan.Cut(r, "Stream ("); ok {
		i := bytes.Index(rest, []byte(") request failed because "))
		if i < 0 {
			return
		}
		if s, ok := scan.Cut(rest[:i], "sid:"); ok {
			sid = s
		}
		r = rest[i+len(") request failed because "):]
	} else if rest, ok := scan.Cut(r, "Stream request failed because "); ok {
		r = rest
	} else if rest, ok := scan.Cut(r, "Stream request failed "); ok {
		r = rest
	} else {
		return
	}
	if vb < 0 {
		return
	}
	p.refuse(l, name, vb, sid, r, refusalStatus(r), emit)
}

func (p *parser) refuse(l *line, name []byte, vb int, sid, reason []byte, status string, emit forensics.Emit) {
	e := p.dcpEvent(l, StreamRefused, name, vb, sid)
	e.Set(AttrReason, l.txt.Str(bytes.TrimRight(reason, " ")))
	if status != "" {
		e.Set(AttrStatus, status)
	}
	emit(e)
}

// refusalStatus names the status DcpProducer::streamRequest returns with
// each refusal (cb::engine_errc), or "" when the line does not tell.
func refusalStatus(reason []byte) string {
	switch {
	case scan.HasPrefix(reason, "this vbucket doesn't exist"),
		scan.HasPrefix(reason, "this vbucket is in dead state"),
		scan.HasPrefix(reason, "the vbucket is in state:"):
		return "not_my_vbucket"
	case scan.HasPrefix(reason, "the start seqno ("), scan.HasPrefix(reason, "the snap start seqno ("):
		return "out_of_range"
	case scan.HasPrefix(reason, "a valid stream-ID is required"), scan.HasPrefix(reason, "a stream-ID:"):
		return "dcp_streamid_invalid"
	case scan.HasPrefix(reason, "a stream already exists"):
		return "key_already_exists"
	case scan.HasPrefix(reason, "for filtered collections + sync-writes"):
		return "not_supported"
	case scan.HasPrefix(reason, "memory usage is above quota"):
		return "no_memory"
	case scan.HasPrefix(reason, "while calculating latest seqno"):
		return "unknown_collection"
	case bytes.Contains(reason, []byte("is currently receiving its initial disk snapshot")):
		return "temporary_failure"
	}
	return ""
}

// consumerKind says which service a DCP connection belongs to, from the
// prefix of its name. ns_server's stat_names_mappings.erl groups DCP
// connections by the same prefixes (replication, xdcr, fts, cbas, eventing,
// secidx, mapreduce_view, spatial_view; the rest is "other"). The projector
// names its feeds "secidx:proj-<bucket>-<topic>-<uuid>/<n>" (indexing
// secondary/dcp/transport/client/dcp_feed.go); the indexer's other connections are
// "secidx:getseqnos…". 8.0's projector names them "DCPT:<topic>:<keyspace>:…"
// (indexing morpheus dcp_feed.go DcpFeedname2, which truncFeedName sends
// as it is). Sync Gateway's cbgt feeds use "sg:"; cbbackupmgr's
// "cbbackupmgr" prefix is taken from support notes, not source.
func consumerKind(name string) string {
	prefix, _, _ := strings.Cut(name, ":")
	switch prefix {
	case "secidx":
		if strings.HasPrefix(name, "secidx:proj-") {
			return "projector"
		}
		return "indexer"
	case "replication":
		return "replication"
	case "xdcr":
		return "xdcr"
	case "fts":
		return "fts"
	case "eventing":
		return "eventing"
	case "cbas":
		return "analytics"
	case "mapreduce_view", "spatial_view":
		return "views"
	case "sg":
		return "sync_gateway"
	}
	if strings.HasPrefix(name, "cbbackupmgr") {
		return "backup"
	}
	if strings.HasPrefix(name, "DCPT:") {
		return "projector"
	}
	return "other"
}
