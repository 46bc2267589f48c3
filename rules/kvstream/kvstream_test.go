package kvstream

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"forensics"
)

// Constructed timelines for the rule's logic. The end-to-end cases under
// testdata/couchbase/ run the same rule on real-looking cbcollect_info.

const (
	n15 = "ns_1@172.23.100.15"
	n16 = "ns_1@172.23.100.16"
	n19 = "ns_1@172.23.100.19"
)

var t0 = time.Date(2022, 7, 22, 0, 39, 12, 120e6, time.UTC)

// at returns t0 plus ms milliseconds.
func at(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }

type ev struct {
	ms     float64
	node   string
	kind   forensics.Kind
	bucket string
	vb     int
	attrs  map[string]string
	source string
	line   int64
}

var lineNo int64

func mk(evs ...ev) []forensics.Event {
	out := make([]forensics.Event, 0, len(evs))
	for _, e := range evs {
		lineNo++
		src := e.source
		if src == "" {
			src = "cbcollect_info_" + e.node + "_20220722-004733/" + strings.SplitN(string(e.kind), ".", 2)[0] + ".log"
		}
		ln := e.line
		if ln == 0 {
			ln = lineNo
		}
		fe := forensics.Event{
			Stamp: forensics.Stamp{Time: at(e.ms), Offset: -7 * 3600}, Node: e.node, Path: src, Line: ln,
			Kind: e.kind, Subject: forensics.Subject{Bucket: e.bucket, VB: forensics.NoVB},
			Text: fmt.Sprintf("%s line %d", e.kind, ln),
		}
		if e.vb != 0 {
			fe.VB = e.vb
		}
		for k, v := range e.attrs {
			fe.Set(forensics.AttrKey(k), v)
		}
		out = append(out, fe)
	}
	return out
}

type a = map[string]string

const proj = "secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1"

func exit15() ev {
	return ev{ms: 0, node: n15, kind: nsExited, attrs: a{"service": "memcached", "status": "137"}}
}
func start15() ev {
	return ev{ms: 1200, node: n15, kind: mcStart, attrs: a{"unclean": "true", "version": "7.1.1-3175-enterprise"}}
}
func rollback15(ms float64, vb int, to string) ev {
	return ev{ms: ms, node: n15, kind: mcRollback, bucket: "test3", vb: vb,
		attrs: a{"consumer": proj, "consumer_kind": "projector", "rollback_seqno": to, "reason": "consumer ahead of producer - producer upper at " + to}}
}
func created15(ms float64, vb int) ev {
	return ev{ms: ms, node: n15, kind: mcCreated, bucket: "test3", vb: vb,
		attrs: a{"consumer": proj, "consumer_kind": "projector", "start_seqno": "100"}}
}
func traffic15(ms float64) ev {
	return ev{ms: ms, node: n15, kind: mcTraffic, bucket: "test3"}
}

func findings(t *testing.T, evs []forensics.Event) []forensics.Finding {
	t.Helper()
	var got []forensics.Finding
	p := &forensics.Pass{Context: context.Background(), Rule: Rule, Timeline: sliceTimeline(evs),
		Report: func(f forensics.Finding) { got = append(got, f) }}
	if err := Rule.Run(p); err != nil {
		t.Fatal(err)
	}
	return got
}

// sliceTimeline serves events by kind, node and time, in time order, as
// the store does.
type sliceTimeline []forensics.Event

func (s sliceTimeline) Events(ctx context.Context, q forensics.Query) iter.Seq2[*forensics.Event, error] {
	return forensics.Cursor(s.events(ctx, q))
}

func (s sliceTimeline) events(_ context.Context, q forensics.Query) ([]forensics.Event, error) {
	want := map[forensics.Kind]bool{}
	for _, k := range q.Kinds {
		want[k] = true
	}
	var out []forensics.Event
	for _, e := range s {
		switch {
		case len(want) > 0 && !want[e.Kind],
			len(q.Nodes) > 0 && !slices.Contains(q.Nodes, e.Node),
			!q.Since.IsZero() && e.Time.Before(q.Since),
			!q.Until.IsZero() && !e.Time.Before(q.Until):
			continue
		}
		out = append(out, e)
	}
	ptrs := make([]*forensics.Event, len(out))
	for i := range out {
		ptrs[i] = &out[i]
	}
	sortEvents(ptrs)
	sorted := make([]forensics.Event, len(ptrs))
	for i, p := range ptrs {
		sorted[i] = *p
	}
	return sorted, nil
}

func TestSeedShapeIsCriticalWithSecondRollback(t *testing.T) {
	evs := mk(
		ev{ms: -9, node: n19, kind: ixStreamEnd, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": "4168"}},
		exit15(), start15(),
		ev{ms: 2000, node: n15, kind: mcFailoverEntry, bucket: "test3", vb: 141, attrs: a{"reason": "unclean shutdown", "origin": "Warmup::createVBuckets"}},
		rollback15(5586.652, 141, "4109"),
		rollback15(5587, 142, "3980"),
		created15(5590, 150),
		// The indexer sees 141's rollback, after memcached logged it.
		ev{ms: 5587, node: n19, kind: ixStreamBegin, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": "4109", "kv_host": "172.23.100.15"}, source: "ix", line: 10},
		ev{ms: 5587, node: n19, kind: ixRollback, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "rollback_seqno": "4109"}, source: "ix", line: 11},
		ev{ms: 6114, node: n15, kind: nsFailoverStart, attrs: a{"nodes": n15, "via": "diag"}},
		ev{ms: 7188, node: n15, kind: nsFailoverEnd, attrs: a{"via": "diag"}},
		ev{ms: 7300, node: n16, kind: mcVBState, bucket: "test3", vb: 141, attrs: a{"from": "replica", "to": "active"}},
		ev{ms: 9000, node: n19, kind: ixStreamBegin, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": "0", "kv_host": "172.23.100.16"}, source: "ix", line: 20},
		ev{ms: 9000, node: n19, kind: ixRollback, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "rollback_seqno": "0"}, source: "ix", line: 21},
	)
	got := findings(t, evs)
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1: %+v", len(got), got)
	}
	f := got[0]
	if f.Severity != forensics.Critical {
		t.Errorf("severity %s, want critical", f.Severity)
	}
	if f.Subject.Node != n15 || f.Subject.Bucket != "test3" || fmt.Sprint(f.Subject.VBuckets) != "[141 142 150]" {
		t.Errorf("subject %+v", f.Subject)
	}
	if fmt.Sprint(f.Subject.Details.List("consumers")) != "["+proj+"]" {
		t.Errorf("consumers %v, want the projector's DCP name once", f.Subject.Details.List("consumers"))
	}
	if !strings.Contains(f.Explanation, "vb 141 to seqno 0 on "+n16) {
		t.Errorf("explanation does not tell the second rollback on the new active:\n%s", f.Explanation)
	}
	if !f.Start.Equal(t0) {
		t.Errorf("start %v, want the exit %v", f.Start, t0)
	}
	// The indexer's stream end reads 9 ms before ns_server logged the exit,
	// but ns_server logs the exit after the fact: no causal pair, no skew.
	if len(f.Skew) != 0 {
		t.Errorf("skew %+v, want none: the indexer logged every effect after its cause", f.Skew)
	}
	for i := 1; i < len(f.Evidence); i++ {
		if f.Evidence[i].Time.Before(f.Evidence[i-1].Time) {
			t.Errorf("evidence out of time order at %d", i)
		}
	}
}

func TestTrafficBeforeStreamsIsQuiet(t *testing.T) {
	evs := mk(exit15(), start15(), traffic15(4000), rollback15(5000, 141, "4109"), created15(5100, 150))
	if got := findings(t, evs); len(got) != 0 {
		t.Fatalf("streams after traffic enablement flagged: %+v", got)
	}
}

func TestRefusedDuringWarmupIsQuiet(t *testing.T) {
	evs := mk(exit15(), start15(),
		ev{ms: 2000, node: n15, kind: "memcached.stream_refused", bucket: "test3", vb: 141, attrs: a{"status": "not_my_vbucket", "consumer": proj}},
		traffic15(4000), created15(4100, 141))
	if got := findings(t, evs); len(got) != 0 {
		t.Fatalf("refused requests flagged: %+v", got)
	}
}

func TestClosersOtherThanMemcached(t *testing.T) {
	for _, c := range []ev{
		{ms: 3000, node: n15, kind: nsEnabling, bucket: "test3"},
		{ms: 3000, node: n15, kind: nsWarmed, bucket: "test3", attrs: a{"seconds": "3"}},
		{ms: 3000, node: n16, kind: nsReady, attrs: a{"ready_node": n15, "buckets": "default,test3"}},
		{ms: 3000, node: n15, kind: nsOnline, bucket: "test3", attrs: a{"via": "event_log"}},
	} {
		evs := mk(exit15(), start15(), c, rollback15(5000, 141, "4109"))
		if got := findings(t, evs); len(got) != 0 {
			t.Errorf("%s did not close the window: %+v", c.kind, got)
		}
	}
}

func TestWarmupDoneIsNotTraffic(t *testing.T) {
	evs := mk(exit15(), start15(),
		ev{ms: 3000, node: n15, kind: mcWarmupComplete, bucket: "test3"},
		ev{ms: 3000, node: n15, kind: mcWarmupEnough, bucket: "test3"},
		ev{ms: 3100, node: n15, kind: nsLoaded, bucket: "test3", attrs: a{"loaded_node": n15}},
		rollback15(5000, 141, "4109"), traffic15(9000))
	got := findings(t, evs)
	if len(got) != 1 || got[0].Severity != forensics.High {
		t.Fatalf("want one high finding, got %+v", got)
	}
}

func TestReadyForAnotherNodeOrBucketDoesNotClose(t *testing.T) {
	evs := mk(exit15(), start15(),
		ev{ms: 3000, node: n15, kind: nsReady, attrs: a{"ready_node": n16, "buckets": "test3"}},
		ev{ms: 3000, node: n15, kind: nsWarmed, bucket: "other"},
		rollback15(5000, 141, "4109"))
	if got := findings(t, evs); len(got) != 1 {
		t.Fatalf("want one finding, got %d", len(got))
	}
}

func TestCleanStartIsNotARestart(t *testing.T) {
	evs := mk(ev{ms: 0, node: n15, kind: mcStart, attrs: a{"unclean": "false"}}, rollback15(5000, 141, "4109"), traffic15(9000))
	if got := findings(t, evs); len(got) != 0 {
		t.Fatalf("clean start flagged: %+v", got)
	}
}

func TestReplicationStreamsAreNotFlagged(t *testing.T) {
	evs := mk(exit15(), start15(),
		ev{ms: 5000, node: n15, kind: mcCreated, bucket: "test3", vb: 141,
			attrs: a{"consumer": "replication:ns_1@172.23.100.15->ns_1@172.23.100.16:test3", "consumer_kind": "replication"}},
		traffic15(9000))
	if got := findings(t, evs); len(got) != 0 {
		t.Fatalf("ns_server replication flagged: %+v", got)
	}
}

func TestOneFindingPerRestartAndBucket(t *testing.T) {
	evs := mk(exit15(), start15(),
		rollback15(5000, 141, "4109"), rollback15(5001, 142, "10"),
		ev{ms: 5002, node: n15, kind: mcRollback, bucket: "default", vb: 7, attrs: a{"consumer": proj, "rollback_seqno": "5"}},
		traffic15(9000),
		ev{ms: 9100, node: n15, kind: mcTraffic, bucket: "default"},
		// A second crash, minutes later.
		ev{ms: 300000, node: n15, kind: nsExited, attrs: a{"service": "memcached", "status": "134"}},
		ev{ms: 301000, node: n15, kind: mcStart, attrs: a{"unclean": "true"}},
		rollback15(303000, 141, "4300"),
		traffic15(305000),
	)
	got := findings(t, evs)
	if len(got) != 3 {
		t.Fatalf("got %d findings, want 3 (test3 and default at the first restart, test3 at the second)", len(got))
	}
	if fmt.Sprint(got[0].Subject.VBuckets) != "[7]" || got[0].Subject.Bucket != "default" {
		t.Errorf("first finding %+v", got[0].Subject)
	}
	if fmt.Sprint(got[1].Subject.VBuckets) != "[141 142]" {
		t.Errorf("second finding vbuckets %v", got[1].Subject.VBuckets)
	}
	if !got[2].Start.Equal(at(300000)) {
		t.Errorf("third finding starts %v, want the second crash", got[2].Start)
	}
}

func TestFailedFailoverIsNotCritical(t *testing.T) {
	evs := mk(exit15(), start15(), rollback15(5000, 141, "4109"),
		ev{ms: 6000, node: n16, kind: nsFailoverStart, attrs: a{"nodes": n15}},
		ev{ms: 6500, node: n16, kind: nsFailoverFailed, attrs: a{"error": "interrupted"}},
		traffic15(9000))
	got := findings(t, evs)
	if len(got) != 1 || got[0].Severity != forensics.High {
		t.Fatalf("want one high finding, got %+v", got)
	}
}

func TestFailoverOfAnotherNodeIsNotCritical(t *testing.T) {
	evs := mk(exit15(), start15(), rollback15(5000, 141, "4109"),
		ev{ms: 6000, node: n16, kind: nsFailoverStart, attrs: a{"nodes": n19}},
		traffic15(9000))
	got := findings(t, evs)
	if len(got) != 1 || got[0].Severity != forensics.High {
		t.Fatalf("want one high finding, got %+v", got)
	}
}

func TestAutoFailoverIsCritical(t *testing.T) {
	evs := mk(exit15(), start15(), rollback15(5000, 141, "4109"),
		ev{ms: 40000, node: n16, kind: nsAutoFailover, attrs: a{"nodes": n15}})
	got := findings(t, evs)
	if len(got) != 1 || got[0].Severity != forensics.Critical {
		t.Fatalf("want one critical finding, got %+v", got)
	}
	if !strings.Contains(got[0].Explanation, "No second rollback") {
		t.Errorf("explanation should say no second rollback was found:\n%s", got[0].Explanation)
	}
}

func TestProjectorAloneShowsTheAnswer(t *testing.T) {
	evs := mk(exit15(), start15(),
		ev{ms: 5000, node: n15, kind: prRollback, bucket: "test3", vb: 141,
			attrs: a{"consumer": proj, "rollback_seqno": "4109", "consumer_short": "secidx:proj-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1"}},
		traffic15(9000))
	got := findings(t, evs)
	if len(got) != 1 || fmt.Sprint(got[0].Subject.VBuckets) != "[141]" {
		t.Fatalf("want one finding for vb 141, got %+v", got)
	}
}

func TestIndexerOnlyCountsItsKVHost(t *testing.T) {
	evs := mk(exit15(), start15(),
		ev{ms: 5000, node: n19, kind: ixStreamBegin, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": "4109", "kv_host": "172.23.100.16"}, source: "ix", line: 10},
		traffic15(9000))
	if got := findings(t, evs); len(got) != 0 {
		t.Fatalf("a stream begin from another KV node flagged: %+v", got)
	}
	evs = mk(exit15(), start15(),
		ev{ms: 5000, node: n19, kind: ixStreamBegin, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "seqno": "4109", "kv_host": "172.23.100.15"}, source: "ix", line: 10},
		ev{ms: 5000, node: n19, kind: ixRollback, bucket: "test3", vb: 141, attrs: a{"stream": "MAINT_STREAM", "keyspace": "test3", "rollback_seqno": "4109"}, source: "ix", line: 11},
		traffic15(9000))
	got := findings(t, evs)
	if len(got) != 1 || !strings.Contains(got[0].Explanation, "vb 141 to 4109") {
		t.Fatalf("want one finding from the indexer's view, got %+v", got)
	}
}

func TestDiagCopiesAreOneEvidenceLine(t *testing.T) {
	var evs []ev
	for _, n := range []string{n15, n16, n19} {
		evs = append(evs, ev{ms: 6114, node: n15, kind: nsFailoverStart, attrs: a{"nodes": n15, "via": "diag"},
			source: "cbcollect_info_" + n + "_20220722-004733/diag.log", line: 42})
	}
	evs = append(evs, exit15(), start15(), rollback15(5000, 141, "4109"))
	got := findings(t, mk(evs...))
	if len(got) != 1 {
		t.Fatalf("want one finding, got %d", len(got))
	}
	n := 0
	for _, e := range got[0].Evidence {
		if e.Time.Equal(at(6114)) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the failover start appears %d times in the evidence, want once", n)
	}
}

// The indexer fix is offered only where the node's release lacks it.
func TestCarriesMB53111(t *testing.T) {
	for v, want := range map[string]bool{
		"7.1.1-3175-enterprise": false, "7.1.2-3454-enterprise": true, "7.0.5-7658-enterprise": false,
		"7.6.4-5146-enterprise": true, "8.0.0-3777-enterprise": true, "6.6.5-10080-enterprise": false,
		"": false, "7.6": false, "x.y.z": false,
	} {
		if got := carriesMB53111(v); got != want {
			t.Errorf("carriesMB53111(%q) = %v, want %v", v, got, want)
		}
	}
}
