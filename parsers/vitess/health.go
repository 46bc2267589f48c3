package vitess

import (
	"bytes"
	"strconv"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of what vtgate says about the tablets it routes to, and of a
// tablet's own health.
const (
	KindNoHealthyTablet forensics.Kind = "vtgate.no_healthy_tablet"
	KindBuffering       forensics.Kind = "vtgate.buffering"
	KindTabletHealth    forensics.Kind = "vttablet.health"
)

var healthDocs = []forensics.KindDoc{
	{Kind: KindNoHealthyTablet, Category: forensics.CategoryError, Label: "no healthy tablet", Component: "vtgate",
		Doc:   "vtgate found no healthy tablet of the type for a keyspace and shard and failed the query (go/vt/vtgate/tabletgateway.go withRetry: no healthy tablet available for '<target>'; logged by go/vt/vtgate/vtgate.go recordAndAnnotateError at INFO through the Execute, StreamExecute, … throttled loggers)",
		Attrs: attrs.Of(AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrTabletType)},
	{Kind: KindBuffering, Category: forensics.CategoryFailover, Label: "vtgate buffering", Component: "vtgate",
		Doc:   "vtgate began or stopped holding the queries of a shard's primary during a failover (go/vt/vtgate/buffer/shard_buffer.go: Starting buffering for shard: <ks>/<shard> …; Stopping buffering for shard: <ks>/<shard> after: N seconds due to: <reason>. Draining N buffered requests now.); step start or stop",
		Attrs: attrs.Of(AttrBuffered, AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrReason, AttrSeconds, AttrShard, AttrStep)},
	{Kind: KindTabletHealth, Category: forensics.CategoryError, Label: "tablet health", Component: "vttablet",
		Doc:   "the tablet's health changed: replication_error (Going unhealthy due to replication error: …), high_lag (Going unhealthy due to high replication lag: …), healthy (Replication is healthy), serving or not_serving (TabletServer transition: <type>: <state> -> <type>: <state> for tablet <cell>:<ks>/<shard>); go/vt/vttablet/tabletserver/state_manager.go. Keyspace and shard are the tablet's, from its last transition in the file; tablet its alias, from v20's Changing Tablet Type: <type> for <alias>",
		Attrs: attrs.Of(AttrCaller, AttrError, AttrHealth, AttrKeyspace, AttrLag, AttrLevel, AttrServing, AttrShard, AttrTablet, AttrTabletType)},
}

// tabletScope is the tablet a vttablet log is written by, as its state
// transitions name it: lines about the tablet's own health and pools do not
// name their keyspace and shard.
type tabletScope struct {
	keyspace, shard, tabletType string
	alias                       string // from v20's "Changing Tablet Type: <type> for <alias>"
}

// fill gives a tablet's own step the keyspace, shard and tablet type of the
// log's tablet, and learns them from a transition.
func (t *tabletScope) fill(s *step) {
	switch s.kind {
	case KindTabletType:
		if a := attrOf(s, AttrTablet); a != "" {
			t.alias = a
		}
	case KindTabletHealth:
		if s.keyspace != "" { // a transition
			t.keyspace, t.shard = s.keyspace, s.shard
			if typ := attrOf(s, AttrTabletType); typ != "" {
				t.tabletType = typ
			}
		}
	case KindTxPoolFull, KindTxLogged, KindOnlineDDL, KindSemiSync:
	default:
		return
	}
	if s.keyspace == "" {
		s.keyspace, s.shard = t.keyspace, t.shard
	}
	if s.kind == KindTabletType || s.kind == KindSemiSync {
		return
	}
	if t.alias != "" && attrOf(s, AttrTablet) == "" {
		s.attrs = append(s.attrs, attr{AttrTablet, t.alias})
	}
	if s.kind == KindTabletHealth && t.tabletType != "" && attrOf(s, AttrTabletType) == "" {
		s.attrs = append(s.attrs, attr{AttrTabletType, t.tabletType})
	}
}

func attrOf(s *step, key forensics.AttrKey) string {
	for _, a := range s.attrs {
		if a.key == key {
			return a.value
		}
	}
	return ""
}

// classifyHealth reads vtgate's and vttablet's lines about the health of
// the tablets, their transaction pool and their Online DDL migrations.
func classifyHealth(first, msg []byte) (step, bool) {
	if i := bytes.Index(first, noHealthy); i >= 0 {
		return noHealthyTablet(first, i)
	}
	for _, t := range healthTemplates {
		if scan.HasPrefix(first, t.prefix) {
			return t.build(first[len(t.prefix):], first, msg)
		}
	}
	return classifyPool(first, msg)
}

var noHealthy = []byte("no healthy tablet available for '")

// noHealthyTablet reads the target vtgate names: the Target proto as text,
// keyspace:"ks" shard:"-80" tablet_type:REPLICA (the spaces between fields
// vary with the protobuf release), and, before it, the shard error's
// "target: ks.-80.replica: " (go/vt/vtgate/errors.go NewShardError).
func noHealthyTablet(first []byte, at int) (step, bool) {
	target := first[at+len(noHealthy):]
	if j := bytes.IndexByte(target, '\''); j >= 0 {
		target = target[:j]
	}
	ks, shard, typ := protoString(target, "keyspace:"), protoString(target, "shard:"), protoWord(target, "tablet_type:")
	if ks == "" {
		// "target: ks.-80.replica: no healthy tablet …"
		if _, t, ok := bytes.Cut(first[:at], []byte("target: ")); ok {
			t, _, _ = bytes.Cut(t, []byte(": "))
			parts := strings.Split(string(t), ".")
			if len(parts) == 3 {
				ks, shard, typ = parts[0], parts[1], strings.ToUpper(parts[2])
			}
		}
	}
	if ks == "" {
		return step{}, false
	}
	s := step{kind: KindNoHealthyTablet, keyspace: ks, shard: shard, attrs: []attr{{AttrTabletType, typ}}}
	s.err = "no healthy tablet available for '" + string(target) + "'"
	return s, true
}

// protoString returns the quoted value after key in a proto's text form.
func protoString(b []byte, key string) string {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	v := bytes.TrimLeft(b[i+len(key):], " ")
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	v = v[1:]
	if j := bytes.IndexByte(v, '"'); j >= 0 {
		return string(v[:j])
	}
	return ""
}

// protoWord returns the bare word (an enum's name) after key.
func protoWord(b []byte, key string) string {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	v := bytes.TrimLeft(b[i+len(key):], " ")
	if j := bytes.IndexAny(v, " ,'}"); j >= 0 {
		v = v[:j]
	}
	return string(v)
}

// healthTemplates are vtgate's and vttablet's messages about the tablets'
// health, in the traffic switch's template type.
var healthTemplates = [...]stepTemplate{
	{"Going unhealthy due to replication error: ", "vttablet state_manager.go refreshReplHealthLocked: Going unhealthy due to replication error: %v",
		func(rest, _, msg []byte) (step, bool) {
			return step{kind: KindTabletHealth, err: string(rest) + continuation(msg), attrs: []attr{{AttrHealth, "replication_error"}}}, true
		}},
	{"Going unhealthy due to high replication lag: ", "vttablet state_manager.go refreshReplHealthLocked: Going unhealthy due to high replication lag: %v",
		func(rest, _, _ []byte) (step, bool) {
			return step{kind: KindTabletHealth, attrs: []attr{{AttrHealth, "high_lag"}, {AttrLag, strings.TrimSpace(string(rest))}}}, true
		}},
	{"Replication is healthy", "vttablet state_manager.go refreshReplHealthLocked: Replication is healthy",
		func(_, _, _ []byte) (step, bool) {
			return step{kind: KindTabletHealth, attrs: []attr{{AttrHealth, "healthy"}}}, true
		}},
	{"TabletServer transition: ", "vttablet state_manager.go setState: TabletServer transition: %v -> %v for tablet %s:%s/%s (each side <type>: <state>[, <primary term start>]; v8+)",
		transition},
	{"Starting buffering for shard: ", "vtgate buffer/shard_buffer.go startBufferingLocked: Starting buffering for shard: %s (window: %v, size: %v, max failover duration: %v) (A failover was detected by this seen error: %v.)",
		func(rest, _, _ []byte) (step, bool) {
			target, tail, _ := strings.Cut(string(rest), " ")
			ks, shard, ok := strings.Cut(target, "/")
			if !ok {
				return step{}, false
			}
			s := step{kind: KindBuffering, name: "start", keyspace: ks, shard: shard}
			if _, e, ok := strings.Cut(tail, "seen error: "); ok {
				s.err = strings.TrimSuffix(strings.TrimSpace(e), ".)")
			}
			return s, true
		}},
	{"Stopping buffering for shard: ", "vtgate buffer/shard_buffer.go stopBufferingLocked: Stopping buffering for shard: %s after: %.1f seconds due to: %v. Draining %d buffered requests now.",
		func(rest, _, _ []byte) (step, bool) {
			target, tail, _ := strings.Cut(string(rest), " after: ")
			ks, shard, ok := strings.Cut(target, "/")
			if !ok {
				return step{}, false
			}
			secs, tail, _ := strings.Cut(tail, " seconds due to: ")
			reason, tail, _ := strings.Cut(tail, ". Draining ")
			n, _, _ := strings.Cut(tail, " ")
			return step{kind: KindBuffering, name: "stop", keyspace: ks, shard: shard,
				attrs: []attr{{AttrSeconds, secs}, {AttrReason, reason}, {AttrBuffered, n}}}, true
		}},
}

// transition reads "REPLICA: Serving -> REPLICA: Not Serving for tablet
// zone1:commerce/0". The states are servingState's names, "Serving", "Not
// Serving", "Not Connected" (older releases: SERVING, NOT_SERVING).
func transition(rest, _, _ []byte) (step, bool) {
	change, tablet, ok := strings.Cut(string(rest), " for tablet ")
	if !ok {
		return step{}, false
	}
	_, after, ok := strings.Cut(change, " -> ")
	if !ok {
		return step{}, false
	}
	typ, state, ok := strings.Cut(after, ": ")
	if !ok {
		return step{}, false
	}
	state, _, _ = strings.Cut(state, ",")
	serving := strings.EqualFold(strings.ReplaceAll(strings.TrimSpace(state), "_", " "), "serving")
	_, target, _ := strings.Cut(strings.TrimSpace(tablet), ":")
	ks, shard, ok := strings.Cut(target, "/")
	if !ok || ks == "" {
		return step{}, false
	}
	health := "not_serving"
	if serving {
		health = "serving"
	}
	return step{kind: KindTabletHealth, keyspace: ks, shard: shard,
		attrs: []attr{{AttrHealth, health}, {AttrServing, strconv.FormatBool(serving)}, {AttrTabletType, strings.TrimSpace(typ)}}}, true
}
