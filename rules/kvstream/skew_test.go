package kvstream

import (
	"strings"
	"testing"
	"time"
)

// ixRollback19 is the indexer on .19 logging the rollback of vb at ms.
func ixRollback19(ms float64, vb int, to string, line int64) []ev {
	return []ev{
		{ms: ms, node: n19, kind: ixStreamBegin, bucket: "test3", vb: vb, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": to, "kv_host": "172.23.100.15"}, source: "ix", line: line},
		{ms: ms, node: n19, kind: ixRollback, bucket: "test3", vb: vb, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "rollback_seqno": to}, source: "ix", line: line + 1},
	}
}

// The indexer on .19 logs receiving vb 141's rollback 40 ms before memcached
// on .15 logged sending it: .15's clock reads at least 40 ms ahead, and the
// note quotes both lines.
func TestSkewFromAnEffectBeforeItsCause(t *testing.T) {
	evs := []ev{exit15(), start15(), rollback15(5586.652, 141, "4109"), created15(5590, 150)}
	evs = append(evs, ixRollback19(5546, 141, "4109", 10)...)
	got := findings(t, mk(evs...))
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1", len(got))
	}
	sk := got[0].Skew
	if len(sk) != 1 {
		t.Fatalf("skew %+v, want one", sk)
	}
	s := sk[0]
	if s.Ahead != n15 || s.Behind != n19 || s.By != 40652*time.Microsecond {
		t.Errorf("skew %s ahead of %s by %s, want .15 ahead of .19 by 40.652ms", s.Ahead, s.Behind, s.By)
	}
	if s.Cause == nil || s.Effect == nil || s.Cause.Node != n15 || s.Effect.Node != n19 || s.Effect.Path != "ix" {
		t.Fatalf("the note must quote both lines: cause %+v, effect %+v", s.Cause, s.Effect)
	}
	if !strings.Contains(s.Basis, "memcached logs its answer for vb 141 before sending it") {
		t.Errorf("basis does not say why the order is causal: %s", s.Basis)
	}
}

// Near misses: an effect 2 ms "early" on a millisecond clock is within what
// the times' resolution and logging delays explain; a stream end read before
// ns_server's report of the exit (which ns_server logs after the fact) and
// after the projector on the node saw the connection drop shows nothing.
func TestNoSkewWithinLoggingDelays(t *testing.T) {
	evs := []ev{exit15(), start15(), rollback15(5586.652, 141, "4109"), created15(5590, 150),
		{ms: -11, node: n15, kind: prClosed, bucket: "test3", attrs: a{"consumer": proj, "reason": "EOF"}},
		{ms: -9, node: n19, kind: ixStreamEnd, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": "4168"}},
	}
	evs = append(evs, ixRollback19(5584, 141, "4109", 10)...)
	got := findings(t, mk(evs...))
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1", len(got))
	}
	if len(got[0].Skew) != 0 {
		t.Errorf("skew %+v, want none", got[0].Skew)
	}
}

// The projector on .15 logs the end of its DCP stream 30 ms after the
// indexer on .19 logged the StreamEnd it caused.
func TestSkewFromAStreamEndBeforeTheProjectorSawIt(t *testing.T) {
	evs := []ev{exit15(), start15(), rollback15(5586.652, 141, "4109"), created15(5590, 150),
		{ms: 21, node: n15, kind: prClosed, bucket: "test3", attrs: a{"consumer": proj, "reason": "EOF"}},
		{ms: -9, node: n19, kind: ixStreamEnd, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": "4168"}},
	}
	got := findings(t, mk(evs...))
	if len(got) != 1 || len(got[0].Skew) != 1 || got[0].Skew[0].By != 30*time.Millisecond {
		t.Fatalf("findings %+v, want one with .15 30ms ahead of .19", got)
	}
}
