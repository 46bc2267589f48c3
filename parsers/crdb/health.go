package crdb

import (
	"bytes"
	"encoding/json"
	"fmt"

	"forensics"
	"forensics/parsers/scan"
)

// The messages a node logs when it is about to die or a range stops
// serving: clock offset, disk stalls, liveness heartbeats, slow proposals and
// the replica circuit breaker. The docs list most of them among the critical
// log messages (cockroachdb/docs critical-log-messages.md). They are read
// from every log format, with the node, store and range from the tags.
const (
	KindClockOffsetFatal     forensics.Kind = "clock.offset_fatal"
	KindClockOffsetUncertain forensics.Kind = "clock.offset_uncertain"
	KindDiskStall            forensics.Kind = "storage.disk_stall"
	KindDiskSlow             forensics.Kind = "storage.disk_slow"
	KindHeartbeatFailed      forensics.Kind = "liveness.heartbeat_failed"
	KindHeartbeatSlow        forensics.Kind = "liveness.heartbeat_slow"
	KindEpochIncremented     forensics.Kind = "liveness.epoch_incremented"
	KindProposalSlow         forensics.Kind = "kv.proposal_slow"
	KindProposalFinished     forensics.Kind = "kv.proposal_finished"
	KindBreakerTripped       forensics.Kind = "kv.breaker_tripped"
	KindBreakerReset         forensics.Kind = "kv.breaker_reset"
	KindProposalNonLive      forensics.Kind = "kv.proposal_nonlive"
)

// healthDocs are the kinds of this file, for the log formats' Kinds.
var healthDocs = []forensics.KindDoc{
	{Kind: KindClockOffsetFatal, Category: forensics.CategoryOther, Label: "offset fatal", Component: "clock", Doc: "a node stops because its clock is too far from at least half of the known nodes (clock synchronization error: …); max_offset, healthy, known", Attrs: attrs.Of(AttrFatal, AttrHealthy, AttrKnown, AttrMaxOffset)},
	{Kind: KindClockOffsetUncertain, Category: forensics.CategoryOther, Label: "offset uncertain", Component: "clock", Doc: "the remote clock monitor measured an offset to a peer close to the maximum (uncertain remote offset …); peer, offset, uncertainty, max_offset", Attrs: attrs.Of(AttrMaxOffset, AttrOffset, AttrPeer, AttrUncertainty)},
	{Kind: KindDiskStall, Category: forensics.CategoryOther, Label: "disk stall", Component: "storage", Doc: "a store's disk or the log files did not complete a write in time (disk stall detected: …, file write stall detected: …); path, duration, fatal", Attrs: attrs.Of(AttrDuration, AttrFatal, AttrOp, AttrPath, AttrReason, AttrStore)},
	{Kind: KindDiskSlow, Category: forensics.CategoryOther, Label: "disk slow", Component: "storage", Doc: "a disk operation has been running for long (disk slowness detected: …); op, path, duration", Attrs: attrs.Of(AttrBytes, AttrDuration, AttrOp, AttrPath, AttrStore)},
	{Kind: KindHeartbeatFailed, Category: forensics.CategoryError, Label: "heartbeat failed", Component: "liveness", Doc: "the node failed to heartbeat its liveness record (failed node liveness heartbeat: …); error", Attrs: attrs.Of(AttrError)},
	{Kind: KindHeartbeatSlow, Category: forensics.CategoryOther, Label: "heartbeat slow", Component: "liveness", Doc: "a liveness heartbeat took over a second (slow heartbeat took …; err=…); duration, error", Attrs: attrs.Of(AttrDuration, AttrError, AttrStore)},
	{Kind: KindEpochIncremented, Category: forensics.CategoryOther, Label: "epoch incremented", Component: "liveness", Doc: "a node incremented another node's liveness epoch, ending its epoch leases (incremented nN liveness epoch to E); target, epoch", Attrs: attrs.Of(AttrEpoch, AttrStore, AttrTarget)},
	{Kind: KindProposalSlow, Category: forensics.CategoryOther, Label: "proposal slow", Component: "kv", Doc: "a command has waited long for Raft to apply it (have been waiting …s for proposing command …); range, duration, command", Attrs: attrs.Of(AttrCommand, AttrDown, AttrDuration, AttrStore, AttrUnavailable)},
	{Kind: KindProposalFinished, Category: forensics.CategoryOther, Label: "proposal finished", Component: "kv", Doc: "a slow command finally finished (slow command … finished after …s with error …); range, duration, error", Attrs: attrs.Of(AttrCommand, AttrDuration, AttrError, AttrStore)},
	{Kind: KindBreakerTripped, Category: forensics.CategoryOther, Label: "breaker tripped", Component: "kv", Doc: "a replica's circuit breaker tripped: the range cannot serve requests (breaker: tripped with error: replica unavailable: …); range, replica, replicas, down", Attrs: attrs.Of(AttrDown, AttrReplica, AttrReplicas, AttrStore)},
	{Kind: KindProposalNonLive, Category: forensics.CategoryOther, Label: "proposal nonlive", Component: "kv", Doc: "the replicas of a slow proposal's range that were not live (Non-live: … in its message, v20.1–v22.x); range, down", Attrs: attrs.Of(AttrDown)},
	{Kind: KindBreakerReset, Category: forensics.CategoryOther, Label: "breaker reset", Component: "kv", Doc: "a replica's circuit breaker reset: the range serves again (breaker: breaker reset); range", Attrs: attrs.Of(AttrStore)},
}

// healthTmpl is the health message a text may be.
type healthTmpl uint8

const (
	hNone healthTmpl = iota
	hClockFatal
	hClockUncertain
	hDiskStall
	hFileWriteStall
	hDiskSlow
	hHeartbeatFailed
	hHeartbeatSlow
	hEpoch
	hProposalSlow
	hProposalFinished
	hBreakerTripped
	hBreakerReset
	hIOOverload
	hChangefeed
	hPush
	hDecommissionStall
	hReplicaLeft
)

// Message prefixes, with the upstream file (cockroachdb/cockroach) that logs
// each and the releases that do. The release bounds come from the branches
// read and may be off by a release; the matching does not depend on them.
const (
	// pkg/rpc/clock_offset.go VerifyClockOffset, every release; newer
	// releases (RemoteClockMonitor.toleratedOffset) print the tolerated offset,
	// 80% of --max-offset, instead of the maximum.
	// Logged by log.Fatal in server.go (≤ v21.1) and by peer.go/context.go
	// log.Ops.Fatalf (v21.2+): "clock synchronization error: this node is more
	// than %s away from at least half of the known nodes (%d of %d are within
	// the offset)".
	preClockFatal = "clock synchronization error: this node is more than "
	// pkg/rpc/clock_offset.go isHealthy: "uncertain remote offset %s for
	// maximum tolerated offset %s, treating as healthy" (log.Health.Warningf
	// v22.2+; Infof at V(1) before, "for maximum offset %s" up to v20.1). The
	// offset prints as RemoteOffset.String, "off=%s, err=%s, at=%s"
	// (pkg/rpc/heartbeat.go); the peer is the heartbeat's rnode= tag.
	preClockUncertain = "uncertain remote offset "
	// Disk stalls:
	//   pkg/server/node.go assertEngineHealth (v1.1–v22.1): "disk stall detected: unable to write to %s within %s %s"
	//   pkg/storage/pebble.go (v20.2–v22.1): "disk stall detected: pebble unable to write to %s in %.2f seconds"
	//   pkg/util/log file sync (v19.2–v22.1): "disk stall detected: unable to sync log files within %s"
	preDiskStall = "disk stall detected: "
	// v22.2+ (docs, critical log messages: "file write stall detected: %s"),
	// with pebble's DiskSlowInfo as the %s.
	preFileWriteStall = "file write stall detected: "
	// pebble vfs disk_health.go DiskSlowInfo (v22.2+): "disk slowness
	// detected: %s on file %s [(%d bytes)] has been ongoing for %0.1fs"; and the
	// log files' warning (v23.1+): "disk slowness detected: unable to sync log
	// files within %s".
	preDiskSlow = "disk slowness detected: "
	// pkg/kv/kvserver/liveness/liveness.go (pkg/storage/node_liveness.go
	// before v20.2): heartbeatFailureLogFormat "failed node liveness
	// heartbeat: %+v" followed by help lines (v20.2+); "slow heartbeat took %s;
	// err=%v" (heartbeatInternal; "slow heartbeat took %s" up to v20.1); "incremented n%d liveness epoch to %d"
	// (IncrementEpoch, Infof v20.1+; "incremented node %d …" as a VEventf before).
	preHeartbeatFailed = "failed node liveness heartbeat: "
	preHeartbeatSlow   = "slow heartbeat took "
	preEpoch           = "incremented n"
	preEpochOld        = "incremented node "
	// pkg/kv/kvserver/replica_raft.go (replica_write.go v20.2+):
	// "have been waiting %.2fs for proposing command %s.\nThis range is likely
	// unavailable. …" (Warningf), prefixed "range unavailable: " (Errorf,
	// rangeUnavailableMessage, v20.1–v21.2); and when it ends "slow command %s
	// finished after %.2fs with error %v" (Infof).
	//
	// v22.1+ no longer logs those: replica_raft.go refreshProposalsLocked warns
	// "have been waiting %.2fs for slow proposal %s" and trips the breaker.
	preProposalWait     = "have been waiting "
	preRangeUnavailable = "range unavailable: "
	midProposing        = " for proposing command "
	midSlowProposal     = " for slow proposal "
	preSlowCommand      = "slow command "
	midFinishedAfter    = " finished after "
	// pkg/util/circuit/event_handler.go EventFormatter (v22.1+), for the
	// breaker named "breaker" in replica_circuit_breaker.go: "%s: tripped
	// with error: %s", "%s: now tripped with error: %s (previously: %s)",
	// "%s: breaker reset". The error is kvpb.ReplicaUnavailableError
	// (roachpb/errors.go): "replica unavailable: %s unable to serve request to
	// %s: %s", the cause holding "lost quorum (down: %v); " when no quorum is live.
	preBreakerTripped    = "breaker: tripped with error: "
	preBreakerNowTripped = "breaker: now tripped with error: "
	preBreakerReset      = "breaker: breaker reset"
)

// healthCandidate tells which health template msg may be: prefix checks
// only, no allocation, run on every message DistSender's test rejected.
func healthCandidate(msg []byte) healthTmpl {
	if len(msg) < 16 {
		return hNone
	}
	switch msg[0] {
	case 'c':
		if scan.HasPrefix(msg, preClockFatal) {
			return hClockFatal
		}
	case 'u':
		if scan.HasPrefix(msg, preClockUncertain) {
			return hClockUncertain
		}
	case 'd':
		if scan.HasPrefix(msg, preDiskStall) {
			return hDiskStall
		}
		if scan.HasPrefix(msg, preDiskSlow) {
			return hDiskSlow
		}
	case 'f':
		if scan.HasPrefix(msg, preFileWriteStall) {
			return hFileWriteStall
		}
		if scan.HasPrefix(msg, preHeartbeatFailed) {
			return hHeartbeatFailed
		}
	case 's':
		if scan.HasPrefix(msg, preHeartbeatSlow) {
			return hHeartbeatSlow
		}
		if scan.HasPrefix(msg, preSlowCommand) {
			return hProposalFinished
		}
	case 'i':
		if scan.HasPrefix(msg, preEpoch) || scan.HasPrefix(msg, preEpochOld) {
			return hEpoch
		}
	case 'h':
		if scan.HasPrefix(msg, preProposalWait) {
			return hProposalSlow
		}
	case 'r':
		if scan.HasPrefix(msg, preRangeUnavailable+preProposalWait) {
			return hProposalSlow
		}
	case 'b':
		switch {
		case scan.HasPrefix(msg, preBreakerTripped), scan.HasPrefix(msg, preBreakerNowTripped):
			return hBreakerTripped
		case scan.HasPrefix(msg, preBreakerReset):
			return hBreakerReset
		}
	case 'I':
		if scan.HasPrefix(msg, preIOOverload) {
			return hIOOverload
		}
	case 'C', 'W':
		if scan.HasPrefix(msg, preCFRetryOld) || scan.HasPrefix(msg, preCFTransient) ||
			scan.HasPrefix(msg, preCFRetryWarning) || scan.HasPrefix(msg, preCFShutdown) {
			return hChangefeed
		}
	case 'p':
		switch {
		case scan.HasPrefix(msg, prePusher):
			return hPush
		case scan.HasPrefix(msg, preDecommissionStall):
			return hDecommissionStall
		}
	case 'n':
		if scan.IsDigit(msg[1]) {
			return hReplicaLeft
		}
	}
	return hNone
}

// health turns health messages into events. Each log parser has one.
type health struct {
	ev  forensics.Event
	buf []byte
	// proposal is the slow proposal whose entry may go on with the lines of
	// rangeUnavailableMessage: "Descriptor:  …", "Live:        …",
	// "Non-live:    …" (replica_raft.go / replica_write.go, v20.1+).
	proposal struct {
		left  int // continuation lines still to look at; 0 when none
		stamp forensics.Stamp
		node  string
		rng   int64
	}
}

// proposalLines is how far into a slow proposal's entry its Non-live line
// may be: after the message, "This range is likely unavailable.", the
// support text and the descriptor.
const proposalLines = 12

const preNonLive = "Non-live:"

// healthMsg is one logged message that may be a health event.
type healthMsg struct {
	n     int64
	stamp forensics.Stamp
	text  []byte // the line or entry as logged
	tags  []byte // without brackets; nil when none
	msg   []byte
	sev   byte   // 'I', 'W', 'E', 'F'
	node  string // the node when the tags name none (JSON's node_id)
}

// text reads a message of the text formats; it reports whether it was a
// health event.
func (hl *health) text(n int64, b []byte, h *logHeader, origin string, emit forensics.Emit) bool {
	hl.proposal.left = 0 // a new entry
	t := healthCandidate(h.msg)
	if t == hNone {
		return false
	}
	return hl.handle(t, healthMsg{n: n, stamp: h.stamp, text: b, tags: h.tags, msg: h.msg, sev: b[0]}, origin, emit)
}

// healthJSON holds the fields a health event needs. As in jsonEntry, the
// one-letter keys that differ only in case are all declared, since
// encoding/json matches keys without regard to case.
type healthJSON struct {
	Message  string          `json:"message"`
	Tags     json.RawMessage `json:"tags"`
	Severity string          `json:"severity"`
	Sev      string          `json:"sev"`
	NodeID   json.RawMessage `json:"node_id"`
	N        json.RawMessage `json:"N"`
	Counter  json.RawMessage `json:"n"`
	T        json.RawMessage `json:"t"`
	TenantID json.RawMessage `json:"T"`
	S        json.RawMessage `json:"s"`
	TenantS  json.RawMessage `json:"S"`
}

// json reads an entry of the JSON formats whose message starts at raw
// (still JSON-escaped). It decodes the entry only when the prefix matches.
func (hl *health) json(n int64, b, line []byte, st forensics.Stamp, raw []byte, origin string, emit forensics.Emit) error {
	if healthCandidate(raw) == hNone {
		return nil
	}
	var e healthJSON
	if err := json.Unmarshal(line, &e); err != nil {
		return fmt.Errorf("json log entry: %w", err)
	}
	msg := []byte(e.Message)
	t := healthCandidate(msg)
	if t == hNone {
		return nil
	}
	m := healthMsg{n: n, stamp: st, text: b, tags: jsonTags(e.Tags), msg: msg, sev: 'I'}
	switch {
	case e.Severity != "":
		m.sev = e.Severity[0]
	case e.Sev != "":
		m.sev = e.Sev[0]
	}
	for _, id := range []json.RawMessage{e.NodeID, e.N} {
		if d := digits(id); d > 0 && d == len(id) {
			m.node = "n" + string(id)
		}
	}
	hl.handle(t, m, origin, emit)
	return nil
}

// handle emits the event for m and reports whether it did.
func (hl *health) handle(t healthTmpl, m healthMsg, origin string, emit forensics.Emit) bool {
	ev := &hl.ev
	ev.Reset()
	if hl.buf == nil { // stripMarkers would return the line itself
		hl.buf = make([]byte, 0, 256)
	}
	hl.buf = stripMarkers(hl.buf[:0], m.msg)
	msg := hl.buf
	if i := bytes.IndexByte(msg, '\n'); i >= 0 { // JSON keeps an entry's lines in one message
		msg = msg[:i]
	}
	tg := readHealthTags(m.tags)

	read := healthReads[t]
	if read == nil || !read(ev, msg, tg) {
		return false
	}

	node := m.node
	if node == "" {
		node = origin
	}
	if tg.node != nil {
		node = string(tg.node)
	}
	if tg.store != nil {
		ev.Set(AttrStore, string(tg.store))
	}
	if ev.Range == 0 {
		ev.Range = tg.rng
	}
	if m.sev == 'F' {
		ev.Set(AttrFatal, "true")
	}
	ev.Node = node
	ev.Stamp = m.stamp
	ev.Line = m.n
	ev.Text = string(m.text)
	if ev.Kind == KindProposalSlow {
		// JSON keeps the entry's lines in its message; the text formats
		// give them as continuation lines.
		if i := bytes.Index(hl.buf, []byte("\n"+preNonLive)); i >= 0 {
			if down := nonLive(hl.buf[i+1:]); down != "" {
				ev.Set(AttrDown, down)
			}
		}
		hl.proposal.left, hl.proposal.stamp, hl.proposal.node, hl.proposal.rng = proposalLines, m.stamp, node, ev.Range
	}
	emit(ev)
	return true
}

// healthReads reads the message of each template into ev: its kind and
// attributes. It reports false when the message, past its prefix, is not
// the template after all. The grammar and the upstream source of each
// template are with its prefix above.
var healthReads = [...]func(ev *forensics.Event, msg []byte, tg healthTags) bool{
	hClockFatal:       readClockFatal,
	hClockUncertain:   readClockUncertain,
	hDiskStall:        readDiskStall,
	hFileWriteStall:   readFileWriteStall,
	hDiskSlow:         readDiskSlow,
	hHeartbeatFailed:  readHeartbeatFailed,
	hHeartbeatSlow:    readHeartbeatSlow,
	hEpoch:            readEpoch,
	hProposalSlow:     readProposalSlow,
	hProposalFinished: readProposalFinished,
	hBreakerTripped:   readBreakerTripped,
	hBreakerReset:     readBreakerReset,

	hIOOverload:        readIOOverload,
	hChangefeed:        readChangefeed,
	hPush:              readPush,
	hDecommissionStall: readDecommissionStall,
	hReplicaLeft:       readReplicaLeft,
}

// readClockFatal reads preClockFatal: the clock offset that stops a node.
func readClockFatal(ev *forensics.Event, msg []byte, tg healthTags) bool {
	// "%s away from at least half of the known nodes (%d of %d are within the offset)"
	rest := msg[len(preClockFatal):]
	max, after, ok := bytes.Cut(rest, []byte(" away from at least half of the known nodes ("))
	if !ok {
		return false
	}
	ev.Kind = KindClockOffsetFatal
	ev.Set(AttrMaxOffset, string(max))
	if healthy, known, ok := bytes.Cut(after, []byte(" of ")); ok && digits(healthy) == len(healthy) && digits(known) > 0 {
		ev.Set(AttrHealthy, string(healthy))
		ev.Set(AttrKnown, string(known[:digits(known)]))
	}
	return true
}

// readClockUncertain reads preClockUncertain: an offset close to the maximum; the peer is the rnode= tag.
func readClockUncertain(ev *forensics.Event, msg []byte, tg healthTags) bool {
	// "off=%s, err=%s, at=%s for maximum [tolerated ]offset %s, treating as healthy"
	rest := msg[len(preClockUncertain):]
	off, ok := field(rest, "off=", ",")
	if !ok {
		return false
	}
	ev.Kind = KindClockOffsetUncertain
	ev.Set(AttrOffset, string(off))
	if e, ok := field(rest, "err=", ","); ok {
		ev.Set(AttrUncertainty, string(e))
	}
	if i := bytes.Index(rest, []byte(" offset ")); i >= 0 {
		if max, _, ok := bytes.Cut(rest[i+len(" offset "):], []byte(",")); ok {
			ev.Set(AttrMaxOffset, string(max))
		}
	}
	if tg.peer != nil {
		ev.Set(AttrPeer, "n"+string(tg.peer))
	}
	return true
}

// readDiskStall reads preDiskStall, in each release's wording.
func readDiskStall(ev *forensics.Event, msg []byte, tg healthTags) bool {
	ev.Kind = KindDiskStall
	rest := msg[len(preDiskStall):]
	switch {
	case scan.HasPrefix(rest, "pebble unable to write to "):
		path, secs, ok := bytes.Cut(rest[len("pebble unable to write to "):], []byte(" in "))
		if ok {
			ev.Set(AttrPath, string(path))
			if s, _, ok := bytes.Cut(secs, []byte(" seconds")); ok {
				ev.Set(AttrDuration, string(s)+"s")
			}
		}
	case scan.HasPrefix(rest, "unable to sync log files within "):
		ev.Set(AttrPath, "log files")
		ev.Set(AttrDuration, string(firstWord(rest[len("unable to sync log files within "):])))
	case scan.HasPrefix(rest, "unable to write to "):
		r := rest[len("unable to write to "):]
		if i := bytes.LastIndex(r, []byte(" within ")); i >= 0 {
			ev.Set(AttrPath, string(r[:i]))
			ev.Set(AttrDuration, string(firstWord(r[i+len(" within "):])))
		}
	default:
		slowInfo(ev, rest)
	}
	ev.Set(AttrReason, string(rest))
	return true
}

// readFileWriteStall reads preFileWriteStall, with pebble's DiskSlowInfo.
func readFileWriteStall(ev *forensics.Event, msg []byte, tg healthTags) bool {
	ev.Kind = KindDiskStall
	rest := msg[len(preFileWriteStall):]
	if scan.HasPrefix(rest, preDiskSlow) {
		slowInfo(ev, rest[len(preDiskSlow):])
	}
	ev.Set(AttrReason, string(rest))
	return true
}

// readDiskSlow reads preDiskSlow: pebble's DiskSlowInfo or the log files' sync.
func readDiskSlow(ev *forensics.Event, msg []byte, tg healthTags) bool {
	ev.Kind = KindDiskSlow
	rest := msg[len(preDiskSlow):]
	if scan.HasPrefix(rest, "unable to sync log files within ") {
		ev.Set(AttrOp, "sync")
		ev.Set(AttrPath, "log files")
		ev.Set(AttrDuration, string(firstWord(rest[len("unable to sync log files within "):])))
	} else if !slowInfo(ev, rest) {
		return false
	}
	return true
}

// readHeartbeatFailed reads preHeartbeatFailed.
func readHeartbeatFailed(ev *forensics.Event, msg []byte, tg healthTags) bool {
	ev.Kind = KindHeartbeatFailed
	ev.Set(AttrError, string(bytes.TrimSpace(msg[len(preHeartbeatFailed):])))
	return true
}

// readHeartbeatSlow reads preHeartbeatSlow.
func readHeartbeatSlow(ev *forensics.Event, msg []byte, tg healthTags) bool {
	// "%s; err=%v" (v20.2+); "%s" before, the failure on a line of its own.
	d, e, ok := bytes.Cut(msg[len(preHeartbeatSlow):], []byte("; err="))
	if digits(d) == 0 {
		return false
	}
	ev.Kind = KindHeartbeatSlow
	ev.Set(AttrDuration, string(d))
	if ok {
		ev.Set(AttrError, string(e))
	}
	return true
}

// readEpoch reads preEpoch and preEpochOld.
func readEpoch(ev *forensics.Event, msg []byte, tg healthTags) bool {
	// "incremented n%d liveness epoch to %d", "incremented node %d liveness epoch to %d"
	rest := msg[len(preEpoch):]
	if scan.HasPrefix(msg, preEpochOld) {
		rest = msg[len(preEpochOld):]
	}
	d := digits(rest)
	if d == 0 || !scan.HasPrefix(rest[d:], " liveness epoch to ") {
		return false
	}
	ev.Kind = KindEpochIncremented
	ev.Set(AttrTarget, "n"+string(rest[:d]))
	if ep := rest[d+len(" liveness epoch to "):]; digits(ep) > 0 {
		ev.Set(AttrEpoch, string(ep[:digits(ep)]))
	}
	return true
}

// readProposalSlow reads preProposalWait, with or without preRangeUnavailable.
func readProposalSlow(ev *forensics.Event, msg []byte, tg healthTags) bool {
	rest := msg
	if scan.HasPrefix(rest, preRangeUnavailable) {
		rest = rest[len(preRangeUnavailable):]
		ev.Set(AttrUnavailable, "true")
	}
	d, cmd, ok := bytes.Cut(rest[len(preProposalWait):], []byte(midProposing))
	if !ok {
		if d, cmd, ok = bytes.Cut(rest[len(preProposalWait):], []byte(midSlowProposal)); !ok {
			return false
		}
	}
	ev.Kind = KindProposalSlow
	ev.Set(AttrDuration, string(d))
	ev.Set(AttrCommand, string(bytes.TrimSuffix(cmd, []byte("."))))
	return true
}

// readProposalFinished reads preSlowCommand.
func readProposalFinished(ev *forensics.Event, msg []byte, tg healthTags) bool {
	// "slow command %s finished after %.2fs with error %v"
	rest := msg[len(preSlowCommand):]
	i := bytes.LastIndex(rest, []byte(midFinishedAfter))
	if i < 0 {
		return false
	}
	ev.Kind = KindProposalFinished
	ev.Set(AttrCommand, string(rest[:i]))
	d, e, _ := bytes.Cut(rest[i+len(midFinishedAfter):], []byte(" with error "))
	ev.Set(AttrDuration, string(d))
	ev.Set(AttrError, string(e))
	return true
}

// readBreakerTripped reads preBreakerTripped and preBreakerNowTripped.
func readBreakerTripped(ev *forensics.Event, msg []byte, tg healthTags) bool {
	ev.Kind = KindBreakerTripped
	rest := msg[len(preBreakerTripped):]
	if scan.HasPrefix(msg, preBreakerNowTripped) {
		rest = msg[len(preBreakerNowTripped):]
	}
	unavailable(ev, rest)
	return true
}

// readBreakerReset reads preBreakerReset.
func readBreakerReset(ev *forensics.Event, msg []byte, tg healthTags) bool {
	ev.Kind = KindBreakerReset
	return true
}

// continued reads a continuation line of the entry before: a bare line
// (crdb-v1, legacy) with a zero stamp, or a crdb-v2 "+" line with the
// entry's stamp and b its message. It emits the Non-live replicas of a slow
// proposal.
func (hl *health) continued(n int64, line, b []byte, st forensics.Stamp, emit forensics.Emit) {
	p := &hl.proposal
	if p.left == 0 {
		return
	}
	p.left--
	if !st.IsZero() && !st.Time.Equal(p.stamp.Time) {
		p.left = 0 // another entry's continuation
		return
	}
	if !scan.HasPrefix(b, preNonLive) {
		return
	}
	p.left = 0
	if hl.buf == nil {
		hl.buf = make([]byte, 0, 256)
	}
	hl.buf = stripMarkers(hl.buf[:0], b)
	down := nonLive(hl.buf)
	if down == "" {
		return
	}
	ev := &hl.ev
	ev.Reset()
	ev.Kind = KindProposalNonLive
	ev.Range = p.rng
	ev.Node = p.node
	ev.Set(AttrDown, down)
	ev.Stamp = p.stamp
	if !st.IsZero() {
		ev.Stamp = st
	}
	ev.Line = n
	ev.Text = string(line)
	emit(ev)
}

// nonLive reads "Non-live:    (n1,s1):1,(n4,s4):3" up to the end of its line.
func nonLive(b []byte) string {
	b = b[len(preNonLive):]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(bytes.TrimSpace(b))
}

// slowInfo reads pebble's DiskSlowInfo: "%s on file %s [(%d bytes)] has
// been ongoing for %0.1fs".
func slowInfo(ev *forensics.Event, b []byte) bool {
	op, rest, ok := bytes.Cut(b, []byte(" on file "))
	if !ok {
		return false
	}
	path, dur, ok := bytes.Cut(rest, []byte(" has been ongoing for "))
	if !ok {
		return false
	}
	if i := bytes.Index(path, []byte(" (")); i >= 0 && bytes.HasSuffix(path, []byte(" bytes)")) {
		ev.Set(AttrBytes, string(path[i+2:len(path)-len(" bytes)")]))
		path = path[:i]
	}
	ev.Set(AttrOp, string(op))
	ev.Set(AttrPath, string(path))
	ev.Set(AttrDuration, string(firstWord(dur)))
	return true
}

// unavailable reads a ReplicaUnavailableError: "replica unavailable: %s
// unable to serve request to %s: %s", the descriptor being
// "r84:/Table/111/1/{600-700} [(n1,s1):1, (n3,s3):5, next=6, gen=32]" and
// the cause possibly holding "lost quorum (down: (n3,s3):5,(n2,s2):3); ".
func unavailable(ev *forensics.Event, b []byte) {
	rest, ok := bytes.CutPrefix(b, []byte("replica unavailable: "))
	if !ok {
		return
	}
	repl, desc, ok := bytes.Cut(rest, []byte(" unable to serve request to "))
	if !ok {
		return
	}
	ev.Set(AttrReplica, string(repl))
	if scan.HasPrefix(desc, "r") {
		if d := digits(desc[1:]); d > 0 {
			ev.Range = atoi(desc[1 : 1+d])
		}
	}
	if i := bytes.Index(desc, []byte(" [")); i >= 0 {
		if j := bytes.IndexByte(desc[i:], ']'); j >= 0 {
			var rs []string
			for _, r := range bytes.Split(desc[i+2:i+j], []byte(", ")) {
				if len(r) > 0 && r[0] == '(' {
					rs = append(rs, string(r))
				}
			}
			ev.Set(AttrReplicas, joinComma(rs))
		}
	}
	// The replicas end in ")" and ":<id>", so the list ends at "); ".
	if down, ok := field(desc, "lost quorum (down: ", "); "); ok {
		ev.Set(AttrDown, string(down))
	}
}

func joinComma(xs []string) string {
	var b []byte
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, x...)
	}
	return string(b)
}

// field returns the text after key up to end (or the end of b).
func field(b []byte, key, end string) ([]byte, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil, false
	}
	v := b[i+len(key):]
	if j := bytes.Index(v, []byte(end)); j >= 0 {
		v = v[:j]
	}
	return v, true
}

func firstWord(b []byte) []byte {
	if i := bytes.IndexAny(b, " \n"); i >= 0 {
		return b[:i]
	}
	return b
}

// healthTags is what health events take from the logging tags: the node
// (n1), the store (s1), the range (r12/3:…) and, on the RPC heartbeat's
// context, the remote node (rnode=2).
type healthTags struct {
	node, store, peer []byte
	span              []byte // the range's key span after "r12/3:", markers and all
	rng               int64
}

func readHealthTags(tags []byte) healthTags {
	var t healthTags
	for len(tags) > 0 {
		var tag []byte
		tag, tags = nextTag(tags)
		tag = bytes.Trim(tag, markStart+markEnd)
		if len(tag) < 2 {
			continue
		}
		switch tag[0] {
		case 'n':
			if d := digits(tag[1:]); d > 0 && d == len(tag)-1 {
				t.node = tag
			}
		case 's':
			if d := digits(tag[1:]); d > 0 && d == len(tag)-1 {
				t.store = tag
			}
		case 'r':
			if d := digits(tag[1:]); d > 0 && (d == len(tag)-1 || tag[1+d] == '/') {
				t.rng = atoi(tag[1 : 1+d])
				if _, span, ok := bytes.Cut(tag[1+d:], []byte(":")); ok && len(span) > 0 {
					t.span = span
				}
			}
			if v, ok := bytes.CutPrefix(tag, []byte("rnode=")); ok && digits(v) == len(v) {
				t.peer = v
			}
		}
	}
	return t
}
