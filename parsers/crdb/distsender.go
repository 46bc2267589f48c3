package crdb

import (
	"bytes"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of events. The distsender kinds come from the messages DistSender
// (pkg/kv/dist_sender.go, later pkg/kv/kvclient/kvcoord/dist_sender.go), its
// transport and node dialer log with VEventf, which reach traces always and
// logs only with --vmodule=dist_sender=2; they are the same in every format.
const (
	KindNLHE           forensics.Kind = "distsender.nlhe"
	KindNextPeer       forensics.Kind = "distsender.next_peer"
	KindSend           forensics.Kind = "distsender.send"
	KindRPC            forensics.Kind = "distsender.rpc"
	KindBackoff        forensics.Kind = "distsender.backoff"
	KindNewLease       forensics.Kind = "distsender.new_lease"
	KindTraceStart     forensics.Kind = "trace.start"
	KindTraceDiscarded forensics.Kind = "trace.discarded"
)

var kindDocs = map[forensics.Kind]forensics.KindDoc{
	KindNLHE:           {Category: forensics.CategoryRedirect, Label: "NotLeaseHolderError: redirect", Component: "distsender", Doc: "DistSender got a NotLeaseHolderError from a replica: one redirect (application error: [NotLeaseHolderError] …); range, refusing replica, the lease it reported", Attrs: attrs.Of(AttrClient, AttrGateway, AttrHolderUnknown, AttrLeaseAcq, AttrLeaseEpoch, AttrLeaseExp, AttrLeaseMinExp, AttrLeasePro, AttrLeaseReplica, AttrLeaseSeq, AttrLeaseStart, AttrLeaseTerm, AttrOffsetMS, AttrReason, AttrReplica, AttrTrace, AttrTxn)},
	KindNextPeer:       {Category: forensics.CategoryRedirect, Label: "trying the next replica", Component: "distsender", Doc: "DistSender retries the batch on the next replica after an error (…trying next peer); next is the replica tried", Attrs: attrs.Of(AttrClient, AttrGateway, AttrNext, AttrNLHE, AttrOffsetMS, AttrTrace, AttrTxn)},
	KindSend:           {Category: forensics.CategoryRequest, Label: "batch sent to the range", Component: "distsender", Doc: "DistSender starts sending a batch to a range (rN: sending batch … to replica)", Attrs: attrs.Of(AttrBatch, AttrClient, AttrGateway, AttrOffsetMS, AttrReplica, AttrTrace, AttrTxn)},
	KindRPC:            {Category: forensics.CategoryRequest, Label: "RPC sent", Component: "distsender", Doc: "DistSender's transport sends one RPC to a node (sending request to host:port | local server | local client)", Attrs: attrs.Of(AttrClient, AttrGateway, AttrOffsetMS, AttrTarget, AttrTrace, AttrTxn)},
	KindBackoff:        {Category: forensics.CategoryRedirect, Label: "backing off: lease already seen", Component: "distsender", Doc: "DistSender backs off because a NotLeaseHolderError named a lease it had already seen (backing off due to NotLeaseHolderErr …)", Attrs: attrs.Of(AttrClient, AttrGateway, AttrLeaseSeq, AttrMaxSeenSeq, AttrReason, AttrTrace, AttrTxn)},
	KindNewLease:       {Category: forensics.CategoryRedirect, Label: "new lease applied", Component: "distsender", Doc: "a replica applied a new range lease (new range lease … following …)", Attrs: attrs.Of(AttrLeaseAcq, AttrLeaseEpoch, AttrLeaseMinExp, AttrLeasePro, AttrLeaseReplica, AttrLeaseSeq, AttrLeaseStart, AttrLeaseTerm, AttrPrevLeaseAcq, AttrPrevLeaseEpoch, AttrPrevLeaseExp, AttrPrevLeaseMinExp, AttrPrevLeasePro, AttrPrevLeaseReplica, AttrPrevLeaseSeq, AttrPrevLeaseStart, AttrPrevLeaseTerm, AttrTrace)},
	KindTraceStart:     {Category: forensics.CategoryRequest, Label: "trace begins", Component: "trace", Doc: "a trace or span begins (/debug/requests trace header, trace.txt === operation:, Jaeger span); trace groups its events", Attrs: attrs.Of(AttrDuration, AttrDurationUs, AttrElapsed, AttrOffsetMS, AttrOperation, AttrTitle, AttrTrace, AttrTraceID)},
	KindTraceDiscarded: {Category: forensics.CategoryOther, Label: "trace events discarded", Component: "trace", Doc: "a full /debug/requests trace dropped events ((N events discarded))", Attrs: attrs.Of(AttrCount, AttrTrace)},
	KindSlowRPC:        {Category: forensics.CategoryOther, Label: "slow rpc", Component: "distsender", Doc: "DistSender waited longer than the slow replica RPC threshold for one replica (slow replica RPC: have been waiting …s (N attempts) for RPC … to replica …); replica, seconds, attempts, batch, resp; pusher and pushee of a PushTxn", Attrs: attrs.Of(AttrAttempts, AttrBatch, AttrClient, AttrGateway, AttrPushee, AttrPusher, AttrReplica, AttrResp, AttrSeconds, AttrTrace)},
}

func docs(kinds ...forensics.Kind) []forensics.KindDoc {
	out := make([]forensics.KindDoc, len(kinds))
	for i, k := range kinds {
		out[i] = kindDocs[k]
		out[i].Kind = k
	}
	return out
}

var distSenderKinds = []forensics.Kind{KindNLHE, KindNextPeer, KindSend, KindRPC, KindBackoff, KindNewLease, KindSlowRPC}

// template is the DistSender message a text may be.
type template uint8

const (
	tmplNone     template = iota
	tmplNLHE              // application error: %s (every version)
	tmplSend              // r%d: sending batch %s to %s (v1.1+)
	tmplSendOld           // sending batch %s to r%d (v1.0), … to range %d (earlier)
	tmplRPC               // sending request to %s
	tmplNextPeer          // error: %v; trying next peer %s, … and the other versions
	tmplBackoff           // backing off due to NotLeaseHolderErr …
	tmplNewLease          // new range lease %s following %s
	tmplSlowRPC           // slow replica RPC: %v (v22.2+)
)

// candidate tells which template msg may be. It is the cheap test run on
// every message: prefix checks only, no allocation.
func candidate(msg []byte) template {
	if len(msg) < 14 {
		return tmplNone
	}
	switch msg[0] {
	case 'a':
		if scan.HasPrefix(msg, "application error: ") && bytes.Contains(msg, []byte(nlheMarker)) {
			return tmplNLHE
		}
	case 'r':
		if d := digits(msg[1:]); d > 0 && scan.HasPrefix(msg[1+d:], ": sending batch ") {
			return tmplSend
		}
	case 's':
		if scan.HasPrefix(msg, "sending batch ") {
			return tmplSendOld
		}
		if scan.HasPrefix(msg, "sending request to ") {
			return tmplRPC
		}
		if scan.HasPrefix(msg, slowRPCPrefix) {
			return tmplSlowRPC
		}
	case 'e':
		// v2.0: "error: %v; trying next peer %s"; v2.1–v20.1: "error: %v %v;
		// trying next peer %s"; v1.1: "error, trying next peer"; earlier:
		// "error, trying next peer: %s".
		if scan.HasPrefix(msg, "error, trying next peer") ||
			scan.HasPrefix(msg, "error: ") && bytes.Contains(msg, []byte("; trying next peer")) {
			return tmplNextPeer
		}
	case 't':
		if scan.HasPrefix(msg, "trying next peer ") { // v20.2+
			return tmplNextPeer
		}
	case 'b':
		if scan.HasPrefix(msg, "backing off due to NotLeaseHolderErr") {
			return tmplBackoff
		}
	case 'n':
		if scan.HasPrefix(msg, "new range lease ") {
			return tmplNewLease
		}
	}
	return tmplNone
}

// message is one logged message that may be a DistSender event, with what
// its format knows around it.
type message struct {
	n     int64
	stamp forensics.Stamp
	text  []byte // the line or entry as logged
	tags  []byte // the logging tags, without brackets; nil when none
	msg   []byte // the message after the tags
	trace string // the trace or span it belongs to; "" derives one from the tags
	node  string // the node when the tags name none
	extra []forensics.Attr
}

// sender turns DistSender messages into events. Each parser has one.
type sender struct {
	ev  forensics.Event
	buf []byte
	// lastRange remembers the range each trace last sent to, for the
	// backoff lines, which do not name it.
	lastRange map[string]int64
	// The tags of a request repeat on each of its lines.
	tags, node, client, txn cached
	// origin is the node the source belongs to (a debug zip's
	// debug/nodes/N), for messages whose tags name none.
	origin string
	// strs interns attribute values: a redirect loop repeats its replicas
	// and leases on every hop.
	strs map[string]string
	// last is the NotLeaseHolderError last read from an application error
	// line, which the retry line after it repeats.
	last seenNLHE
}

type seenNLHE struct {
	trace string
	e     NLHE
}

// retryNLHE emits the redirect of a retry line that embeds the whole
// NotLeaseHolderError (v2.0–v20.1: "error: (err: [NotLeaseHolderError] …)
// <nil>; trying next peer …"), unless the application error line before it
// in the same trace already reported it: logs with --vmodule=dist_sender=1
// have only the retry line, traces and /debug/requests have both.
func (s *sender) retryNLHE(e NLHE, m *message, trace, gateway string, tags tagInfo, emit forensics.Emit) {
	if s.last == (seenNLHE{trace: trace, e: e}) {
		s.last = seenNLHE{}
		return
	}
	ev := &s.ev
	ev.Reset()
	ev.Kind = KindNLHE
	ev.Range = e.RangeID
	setNLHE(ev, e)
	s.finish(tmplNLHE, m, trace, gateway, tags, emit)
	ev.Reset()
}

const maxStrs = 4096

// str returns b as a string, the same string for the same bytes.
func (s *sender) str(b []byte) string {
	if v, ok := s.strs[string(b)]; ok {
		return v
	}
	v := string(b)
	if s.strs == nil || len(s.strs) >= maxStrs {
		s.strs = make(map[string]string)
	}
	s.strs[v] = v
	return v
}

// cached is the string of the last bytes it was asked for.
type cached struct {
	raw []byte
	str string
	set bool
}

// get returns b without redaction markers, as a string.
func (c *cached) get(b []byte) string {
	if !c.set || !bytes.Equal(c.raw, b) {
		c.raw = append(c.raw[:0], b...)
		c.str = unmarked(b)
		c.set = true
	}
	return c.str
}

const maxTraces = 4096

// handle emits the event for m, of template t, and reports whether it did.
func (s *sender) handle(t template, m *message, emit forensics.Emit) bool {
	ev := &s.ev
	ev.Reset()
	tags := readTags(m.tags)
	trace := m.trace
	if trace == "" && len(m.tags) > 0 && string(m.tags) != "-" { // crdb-v2 writes [-] for no tags
		trace = s.tags.get(m.tags)
	}
	// s.buf outlives the line, so it must hold a copy: stripMarkers returns
	// its input itself when dst is nil and there is nothing to strip.
	if s.buf == nil {
		s.buf = make([]byte, 0, 512)
	}
	s.buf = stripMarkers(s.buf[:0], m.msg)
	msg := s.buf
	gateway := m.node
	if gateway == "" {
		gateway = s.origin
	}
	if tags.node != nil {
		gateway = s.node.get(tags.node)
	}

	switch t {
	case tmplNLHE:
		e, ok := parseNLHE(m.msg, s.str)
		if !ok {
			return false
		}
		ev.Kind = KindNLHE
		ev.Range = e.RangeID
		setNLHE(ev, e)
		s.last = seenNLHE{trace: trace, e: e}
	case tmplSend:
		d := digits(msg[1:])
		rest := msg[1+d+len(": sending batch "):]
		to := bytes.LastIndex(rest, []byte(" to "))
		if to < 0 {
			return false
		}
		ev.Kind = KindSend
		ev.Range = atoi(msg[1 : 1+d])
		ev.Set(AttrReplica, s.str(rest[to+len(" to "):]))
		ev.Set(AttrBatch, s.str(rest[:to]))
	case tmplSendOld:
		if !s.sendOld(ev, msg) {
			return false
		}
	case tmplRPC:
		ev.Kind = KindRPC
		ev.Set(AttrTarget, s.str(msg[len("sending request to "):]))
	case tmplNextPeer:
		e, isNLHE := parseNLHE(msg, s.str)
		if isNLHE {
			s.retryNLHE(e, m, trace, gateway, tags, emit)
		}
		ev.Kind = KindNextPeer
		if i := bytes.LastIndex(msg, []byte("trying next peer ")); i >= 0 {
			ev.Set(AttrNext, s.str(bytes.TrimSpace(msg[i+len("trying next peer "):])))
		}
		if isNLHE {
			ev.Range = e.RangeID
			ev.Set(AttrNLHE, "true")
		} else {
			// v20.2+ logs the error on a line of its own before.
			ev.Range = s.lastRange[trace]
		}
	case tmplBackoff:
		ev.Kind = KindBackoff
		backoff(ev, bytes.TrimSpace(msg[len("backing off due to NotLeaseHolderErr"):]))
		ev.Range = s.lastRange[trace]
	case tmplNewLease:
		rest := msg[len("new range lease "):]
		l, ok := parseLease(rest, s.str)
		if !ok {
			return false
		}
		ev.Kind = KindNewLease
		ev.Range = tags.rng
		setLease(ev, &leaseKeys, l)
		if i := bytes.Index(rest, []byte(" following ")); i >= 0 {
			if prev, ok := parseLease(rest[i+len(" following "):], s.str); ok {
				setLease(ev, &prevLeaseKeys, prev)
			}
		}
	case tmplSlowRPC:
		if !s.slowRPC(ev, msg) {
			return false
		}
	default:
		return false
	}
	s.finish(t, m, trace, gateway, tags, emit)
	return true
}

// sendOld reads "sending batch %s to r%d" (v1.0) and "… to range %d"
// (earlier), which name the range only after the batch.
func (s *sender) sendOld(ev *forensics.Event, msg []byte) bool {
	rest := msg[len("sending batch "):]
	to := bytes.LastIndex(rest, []byte(" to "))
	if to < 0 {
		return false
	}
	r := rest[to+len(" to "):]
	switch {
	case scan.HasPrefix(r, "range "):
		r = r[len("range "):]
	case scan.HasPrefix(r, "r"):
		r = r[1:]
	default:
		return false
	}
	if d := digits(r); d == 0 || d != len(r) {
		return false
	}
	ev.Kind = KindSend
	ev.Range = atoi(r)
	ev.Set(AttrBatch, s.str(rest[:to]))
	return true
}

// backoff reads why DistSender backed off: rest follows "backing off due
// to NotLeaseHolderErr".
func backoff(ev *forensics.Event, rest []byte) {
	switch {
	case scan.HasPrefix(rest, "with "):
		ev.Set(AttrReason, string(rest[len("with "):]))
	case scan.HasPrefix(rest, "at LeaseSequence "):
		// v19.1–v20.1: "at LeaseSequence %d <= %d".
		r := rest[len("at LeaseSequence "):]
		if d := digits(r); d > 0 {
			ev.Set(AttrLeaseSeq, string(r[:d]))
			r = r[d:]
		}
		if r, ok := bytes.CutPrefix(r, []byte(" <= ")); ok && digits(r) > 0 {
			ev.Set(AttrMaxSeenSeq, string(r[:digits(r)]))
		}
		ev.Set(AttrReason, "lease sequence already seen")
	}
}

// finish adds what every event of m has and emits it.
func (s *sender) finish(t template, m *message, trace, gateway string, tags tagInfo, emit forensics.Emit) {
	ev := &s.ev
	if trace != "" {
		ev.Set(AttrTrace, trace)
	}
	if gateway != "" && t != tmplNewLease {
		ev.Set(AttrGateway, gateway)
	}
	if tags.client != nil {
		ev.Set(AttrClient, s.client.get(tags.client))
	}
	if tags.txn != nil {
		ev.Set(AttrTxn, s.txn.get(tags.txn))
	}
	ev.Attrs = append(ev.Attrs, m.extra...)
	ev.Node = gateway
	ev.Stamp = m.stamp
	ev.Line = m.n
	ev.Text = string(m.text)
	if ev.Range != 0 && trace != "" && t != tmplNewLease {
		s.remember(trace, ev.Range)
	}
	emit(ev)
}

func (s *sender) remember(trace string, rng int64) {
	if s.lastRange == nil || len(s.lastRange) >= maxTraces {
		s.lastRange = make(map[string]int64)
	}
	s.lastRange[trace] = rng
}

// setNLHE adds the attributes of a NotLeaseHolderError.
func setNLHE(ev *forensics.Event, e NLHE) {
	if e.Replica != "" {
		ev.Set(AttrReplica, e.Replica)
	}
	if target := e.Target(); target != "" {
		ev.Set(AttrLeaseReplica, target)
	}
	setLease(ev, &leaseKeys, e.Lease)
	if e.Reason != "" {
		ev.Set(AttrReason, e.Reason)
	}
	if e.HolderUnknown {
		ev.Set(AttrHolderUnknown, "true")
	}
}

// Attribute keys of a lease's fields, for the lease and the one it follows.
var (
	leaseKeys     = [...]forensics.AttrKey{AttrLeaseReplica, AttrLeaseSeq, AttrLeaseStart, AttrLeaseEpoch, AttrLeaseExp, AttrLeaseMinExp, AttrLeaseTerm, AttrLeasePro, AttrLeaseAcq}
	prevLeaseKeys = [...]forensics.AttrKey{AttrPrevLeaseReplica, AttrPrevLeaseSeq, AttrPrevLeaseStart, AttrPrevLeaseEpoch, AttrPrevLeaseExp, AttrPrevLeaseMinExp, AttrPrevLeaseTerm, AttrPrevLeasePro, AttrPrevLeaseAcq}
)

// setLease adds a lease's fields under keys ("lease_seq", "lease_start", …).
func setLease(ev *forensics.Event, keys *[9]forensics.AttrKey, l Lease) {
	for i, v := range [...]string{l.Replica, l.Seq, l.Start, l.Epoch, l.Expiration, l.MinExpiration, l.Term, l.Proposed, l.Acquisition} {
		if v != "" {
			ev.Set(keys[i], v)
		}
	}
}
