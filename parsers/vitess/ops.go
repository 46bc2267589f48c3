package vitess

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of reparents, as vtctld logs them for PlannedReparentShard and
// EmergencyReparentShard and VTOrc for the EmergencyReparentShard of its
// recoveries (both run go/vt/vtctl/reparentutil under a shard lock).
const (
	KindReparentStart  forensics.Kind = "vtctld.reparent_start"
	KindReparentStep   forensics.Kind = "vtctld.reparent_step"
	KindReparentFailed forensics.Kind = "vtctld.reparent_failed"
	KindReparentDone   forensics.Kind = "vtctld.reparent_done"
)

// Kinds of VReplication streams, as the target primary's vttablet logs them.
const (
	KindVReplError forensics.Kind = "vttablet.vreplication_error"
	KindVReplRetry forensics.Kind = "vttablet.vreplication_retry"
	KindVReplStart forensics.Kind = "vttablet.vreplication_start"
)

var opKinds = append([]forensics.KindDoc{
	recoveryDoc,
	{Kind: KindReparentStart, Category: forensics.CategoryStep, Label: "reparent start", Component: "vtctld", Doc: "a PlannedReparentShard or EmergencyReparentShard took the shard lock (action, new_primary when named)", Attrs: attrs.Of(AttrAction, AttrCaller, AttrKeyspace, AttrLevel, AttrNewPrimary, AttrShard, AttrStep)},
	{Kind: KindReparentStep, Category: forensics.CategoryStep, Label: "reparent step", Component: "vtctld", Doc: "a reparent chose or demoted a primary (old_primary, new_primary)", Attrs: attrs.Of(AttrCaller, AttrLevel, AttrOldPrimary, AttrStep)},
	{Kind: KindReparentFailed, Category: forensics.CategoryError, Label: "reparent failed", Component: "vtctld", Doc: "a reparent released the shard lock with an error (reason, error)", Attrs: attrs.Of(AttrAction, AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrNewPrimary, AttrReason, AttrShard, AttrStep)},
	{Kind: KindReparentDone, Category: forensics.CategoryStep, Label: "reparent done", Component: "vtctld", Doc: "a reparent released the shard lock after it succeeded", Attrs: attrs.Of(AttrAction, AttrCaller, AttrKeyspace, AttrLevel, AttrShard, AttrStep)},
	{Kind: KindVReplError, Category: forensics.CategoryError, Label: "vreplication error", Component: "vttablet", Doc: "a VReplication stream went into the error state and stopped retrying (stream, error)", Attrs: attrs.Of(AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrStream)},
	{Kind: KindVReplRetry, Category: forensics.CategoryOther, Label: "vreplication retry", Component: "vttablet", Doc: "a VReplication stream failed and will retry (stream, retry, error)", Attrs: attrs.Of(AttrCaller, AttrError, AttrLevel, AttrRetry, AttrStep, AttrStream)},
	{Kind: KindVReplStart, Category: forensics.CategoryOther, Label: "vreplication start", Component: "vttablet", Doc: "a VReplication stream's player started (stream, workflow when logged)", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrStream, AttrWorkflow)},
}, tabletDocs...)

// classifyOps reads the reparent and VReplication lines; first is the
// entry's first line, msg all of it.
func classifyOps(first, msg []byte) (step, bool) {
	switch first[0] {
	case 'L':
		// go/vt/topo/locks.go: "Locking shard %v/%v for action %v" (≤ v19) and
		// "Locking %s %s for action %s with options: %+v" (v20+, type shard).
		if rest, ok := cutReparent(first, "Locking shard "); ok {
			ks, shard, action := shardLock(rest)
			s := step{kind: KindReparentStart, name: "lock_shard", keyspace: ks, shard: shard,
				attrs: []attr{{AttrAction, actionName(action)}}}
			if np := actionAlias(action); np != "" {
				s.attrs = append(s.attrs, attr{AttrNewPrimary, np})
			}
			return s, true
		}
	case 'U':
		// go/vt/topo/locks.go: "Unlocking shard %v/%v for action %v with error
		// %v" and "… for successful action %v" (≤ v19); v20+ "Unlocking %v %v
		// for action %v with error %v" and "… for successful action %v".
		if rest, ok := cutReparent(first, "Unlocking shard "); ok {
			if target, action, ok := strings.Cut(rest, " for successful action "); ok {
				ks, shard, _ := strings.Cut(target, "/")
				return step{kind: KindReparentDone, name: "unlock_shard", keyspace: ks, shard: strings.TrimSpace(shard),
					attrs: []attr{{AttrAction, actionName(action)}}}, true
			}
			head, errText, ok := strings.Cut(rest, " with error ")
			if !ok {
				return step{}, false
			}
			ks, shard, action := shardLock(head)
			errText += continuation(msg)
			return step{kind: KindReparentFailed, name: "unlock_shard", keyspace: ks, shard: shard, err: errText,
				attrs: []attr{{AttrAction, actionName(action)}, {AttrReason, ReparentReason(errText)}}}, true
		}
	case 'w':
		// go/vt/vtctl/reparentutil/emergency_reparenter.go reparentShardLocked:
		// "will initiate emergency reparent shard in keyspace - %s, shard - %s".
		if rest, ok := cut(first, "will initiate emergency reparent shard in keyspace - "); ok {
			ks, shard, _ := strings.Cut(rest, ", shard - ")
			return step{kind: KindReparentStart, name: "initiate", keyspace: ks, shard: strings.TrimSpace(shard),
				attrs: []attr{{AttrAction, "EmergencyReparentShard"}}}, true
		}
	case 'e':
		// planned_reparenter.go preflightChecks: "elected new primary candidate %v".
		if rest, ok := cut(first, "elected new primary candidate "); ok {
			return step{kind: KindReparentStep, name: "elected", attrs: []attr{{AttrNewPrimary, strings.TrimSpace(rest)}}}, true
		}
		// go/vt/vttablet/tabletmanager/vreplication/controller.go run, through
		// binlogplayer.LogError: "error in stream %v, retrying after %v: %s".
		if rest, ok := cut(first, "error in stream "); ok {
			id, rest, _ := strings.Cut(rest, ", retrying after ")
			retry, errText, _ := strings.Cut(rest, ": ")
			return step{kind: KindVReplRetry, name: "retry", err: errText + continuation(msg),
				attrs: []attr{{AttrStream, id}, {AttrRetry, retry}}}, true
		}
	case 'd':
		// planned_reparenter.go performGracefulPromotion: "demoting current primary: %v".
		if rest, ok := cut(first, "demoting current primary: "); ok {
			return step{kind: KindReparentStep, name: "demote", attrs: []attr{{AttrOldPrimary, strings.TrimSpace(rest)}}}, true
		}
	case 'v':
		// controller.go runBlp: "vreplication stream %d going into error state due to %+v".
		if rest, ok := cut(first, "vreplication stream "); ok {
			id, errText, ok := strings.Cut(rest, " going into error state due to ")
			if !ok {
				return step{}, false
			}
			return step{kind: KindVReplError, name: "error_state", err: errText + continuation(msg),
				attrs: []attr{{AttrStream, id}}}, true
		}
	case 'S':
		// vplayer.go: "Starting VReplication player id: %v, startPos: %v, …"
		// and, from v21, "Starting VReplication player id: %v, name: %v, startPos: %v, stop: %v".
		if rest, ok := cut(first, "Starting VReplication player id: "); ok {
			id, rest, _ := strings.Cut(rest, ",")
			s := step{kind: KindVReplStart, name: "player_start", attrs: []attr{{AttrStream, strings.TrimSpace(id)}}}
			if name, ok := strings.CutPrefix(strings.TrimSpace(rest), "name: "); ok {
				s.workflow, _, _ = strings.Cut(name, ",")
			}
			return s, true
		}
	}
	return step{}, false
}

// cutReparent cuts a shard lock line, only when its action is a reparent.
func cutReparent(b []byte, prefix string) (string, bool) {
	if !scan.HasPrefix(b, prefix) || !switchActionPrefix(b, "PlannedReparentShard", "EmergencyReparentShard") {
		return "", false
	}
	return string(b[len(prefix):]), true
}

// switchActionPrefix reports whether the action of a lock line starts with
// one of the names: reparent actions carry their arguments,
// "PlannedReparentShard(zone1-0000000101, AvoidPrimary = <nil>)".
func switchActionPrefix(b []byte, names ...string) bool {
	for _, sep := range []string{" for action ", " for successful action "} {
		i := strings.Index(string(b), sep)
		if i < 0 {
			continue
		}
		rest := b[i+len(sep):]
		for _, n := range names {
			if scan.HasPrefix(rest, n) {
				return true
			}
		}
	}
	return false
}

// shardLock reads "<keyspace>/<shard> for action <action>[ with options: …]".
func shardLock(s string) (ks, shard, action string) {
	target, action, _ := strings.Cut(s, " for action ")
	ks, shard, _ = strings.Cut(target, "/")
	if i := strings.Index(action, " with options: "); i >= 0 {
		action = action[:i]
	}
	return ks, strings.TrimSpace(shard), action
}

// actionName is the reparent's name without its arguments.
func actionName(action string) string {
	if i := strings.IndexByte(action, '('); i >= 0 {
		return action[:i]
	}
	name, _, _ := strings.Cut(action, " ")
	return name
}

// actionAlias is the tablet a reparent action names as the new primary
// (reparentutil getLockAction): "PlannedReparentShard(zone1-0000000101,
// AvoidPrimary = …)", "EmergencyReparentShard(zone1-0000000101)"; "" for
// "<nil>" or none.
func actionAlias(action string) string {
	_, args, ok := strings.Cut(action, "(")
	if !ok {
		return ""
	}
	a, _, _ := strings.Cut(args, ",")
	a = strings.TrimSuffix(strings.TrimSpace(a), ")")
	if a == "<nil>" || a == "" || strings.ContainsAny(a, " =") {
		return ""
	}
	return a
}

// ReparentReason names the cause of a failed reparent from the error Vitess
// gives (go/vt/vtctl/reparentutil: planned_reparenter.go,
// emergency_reparenter.go, util.go), so rules and users can group them.
func ReparentReason(err string) string {
	switch e := strings.ToLower(err); {
	case strings.Contains(e, "lost topology lock"):
		return "lost_topology_lock"
	case strings.Contains(e, "errant gtid"):
		return "errant_gtid"
	case strings.Contains(e, "populatereparentjournal"), strings.Contains(e, "reparent journal"):
		return "reparent_journal"
	case strings.Contains(e, "cannot find a tablet to reparent to"), strings.Contains(e, "no valid candidates"),
		strings.Contains(e, "no valid candidate"), strings.Contains(e, "is not in the shard"):
		return "no_candidate"
	case strings.Contains(e, "did not catch up"), strings.Contains(e, "failed to catch up"),
		strings.Contains(e, "could not apply all relay logs"):
		return "replica_not_caught_up"
	case strings.Contains(e, "failed to reparent"), strings.Contains(e, "reparent replicas"), strings.Contains(e, "setreplicationsource"):
		return "replicas_failed"
	case strings.Contains(e, "failed to demoteprimary"), strings.Contains(e, "failed to be promoted"):
		return "promotion_failed"
	case strings.Contains(e, "deadline exceeded"), strings.Contains(e, "timed out"):
		return "timeout"
	}
	return "other"
}

// noteRelease keeps the release a log line gives in the form of
// go/vt/servenv/buildinfo.go versionInfo ("Version: 19.0.0-SNAPSHOT (Git
// revision b30be77 branch 'latest-19.0') built on … using go1.22.4
// darwin/arm64", as vitessio/vitess#17127 quotes it). Which releases log it
// at start is not verified: a log without it has no release.
func (p *vtctldParser) noteRelease(msg []byte) {
	if p.release != "" || len(msg) < 10 || msg[0] != 'V' || !scan.HasPrefix(msg, "Version: ") || !bytes.Contains(msg, []byte(" (Git revision ")) {
		return
	}
	v := msg[len("Version: "):]
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return
	}
	end := 0
	for end < len(v) && v[end] != ' ' && v[end] != '\n' {
		end++
	}
	p.release = string(v[:end])
}

// Release returns the release the log says wrote it, or "".
func (p *vtctldParser) Release() string { return p.release }

// reparentCommand remembers the reparent a vtctldclient command line echoed
// in the file runs, "vtctldclient PlannedReparentShard [--new-primary
// <alias>] <keyspace/shard>" (go/cmd/vtctldclient/command/reparents.go):
// its events carry no keyspace, and its failure is only vtctldclient's own
// error line.
func (p *vtctldParser) reparentCommand(line []byte) {
	if !bytes.Contains(line, []byte("ReparentShard")) {
		return
	}
	c, ok := parseCommand(line)
	if !ok || !(c.is("PlannedReparentShard") || c.is("EmergencyReparentShard")) || len(c.args) == 0 {
		return
	}
	ks, shard, _ := strings.Cut(c.args[len(c.args)-1], "/")
	s := &step{keyspace: ks, shard: shard, attrs: []attr{{AttrAction, c.name}}}
	if np := c.flag("new-primary", "new_primary"); np != "" {
		s.attrs = append(s.attrs, attr{AttrNewPrimary, np})
	}
	p.reparent = s
}

// reparentError reads vtctldclient's error line after a reparent command
// (go/cmd/vtctldclient/main.go logs the RPC's error: "E1031 15:38:45.079224
// 5090 main.go:56] rpc error: code = Unknown desc = …", as
// vitessio/vitess#17127 shows for another command).
func (p *vtctldParser) reparentError(first, msg []byte, e *logEntry) (step, bool) {
	r := p.reparent
	if r == nil || e.level != 'E' || !bytes.HasPrefix(e.buf[e.caller[0]:e.caller[1]], []byte("main.go:")) || !scan.HasPrefix(first, "rpc error: ") {
		return step{}, false
	}
	p.reparent = nil
	errText := string(first)
	if _, desc, ok := strings.Cut(errText, " desc = "); ok {
		errText = desc
	}
	errText += continuation(msg)
	s := step{kind: KindReparentFailed, name: "client_error", keyspace: r.keyspace, shard: r.shard, err: errText,
		attrs: append(append([]attr(nil), r.attrs...), attr{AttrReason, ReparentReason(errText)})}
	return s, true
}
