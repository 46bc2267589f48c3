package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forensics"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (review, then run with -update); got:\n%s", path, got)
	}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func ptime(s string) *time.Time { t := at(s); return &t }

const (
	memcachedLog = "collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip!cbcollect_info_ns_1@172.23.100.15_20220722-004733/memcached.log"
	nsInfoLog    = "collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip!cbcollect_info_ns_1@172.23.100.15_20220722-004733/ns_server.info.log"
	indexerLog   = "collectinfo-2022-07-22T004733-ns_1@172.23.100.19.zip!cbcollect_info_ns_1@172.23.100.19_20220722-004733/ns_server.indexer.log"
	crdbLog      = "cockroach-debug-20240311.zip!debug/nodes/2/logs/cockroach.crdb-2.root.2024-03-11T14_20_01Z.000871.log"
	absTrace     = "/var/tmp/incident 42/trace.txt"
)

// fixtureReport is a report with the shapes the writers must handle: a
// Couchbase finding with evidence in archive members, consumers, clock skew
// and fix commands; a CockroachDB finding with evidence in an absolute path
// with a space; and a low finding whose text carries Markdown, HTML and
// terminal control sequences that must come out inert.
func fixtureReport() *Report {
	kv := forensics.Finding{
		ID: "849cb65fdd33", Rule: "kv-stream-before-traffic", Severity: forensics.Critical,
		Title:   "ns_1@172.23.100.15 answered DCP stream requests for 2 vbucket(s) of test3 while warming up, before traffic was enabled, then was failed over",
		Subject: forensics.FindingSubject{Node: "ns_1@172.23.100.15", Bucket: "test3", VBuckets: []int{139, 141}, Details: forensics.Details{{Key: "consumers", Value: []string{"secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1"}}}},
		Start:   at("2022-07-22T00:39:12.120Z"), End: at("2022-07-22T00:39:19.301Z"),
		Explanation: "memcached on ns_1@172.23.100.15 exited with status 137 at 00:39:12.120Z and was restarted.\n" +
			"From 00:39:17.706652Z, before ns_server had enabled traffic on test3 there, the node answered 2 stream request(s): 2 with a rollback (vb 139 to 4112, vb 141 to 4109).",
		Evidence: []forensics.Evidence{
			{Path: indexerLog, Line: 167, Time: at("2022-07-22T00:39:12.111Z"), Node: "ns_1@172.23.100.19", Note: "the indexer lost vb 141's stream when memcached died",
				Text: "2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168"},
			{Path: nsInfoLog, Line: 69, Time: at("2022-07-22T00:39:12.120Z"), Node: "ns_1@172.23.100.15", Note: "memcached exited with status 137 and is restarted",
				Text: "[user:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.17188.0>:ns_log:consume_log:76]Service 'memcached' exited with status 137. Restarting. Messages:"},
			{Path: memcachedLog, Line: 177, Time: at("2022-07-22T00:39:17.706652Z"), Node: "ns_1@172.23.100.15", Note: "the node answers vb 141's stream request with a rollback to seqno 4109 before traffic is enabled",
				Text: "2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer) eq_dcpq:secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1 - (vb:141) Stream request requires rollback to seqno:4109 because consumer ahead of producer - producer upper at 4109. Client requested seqnos:{4168,18446744073709551615} snapshot:{4163,4168} uuid:77409272469274"},
			{Path: memcachedLog, Line: 178, Time: at("2022-07-22T00:39:17.706825Z"), Node: "ns_1@172.23.100.15", Note: "the node answers vb 139's stream request with a rollback to seqno 4112 before traffic is enabled",
				Text: "2022-07-21T17:39:17.706825-07:00 WARNING 382: (test3) DCP (Producer) eq_dcpq:secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1 - (vb:139) Stream request requires rollback to seqno:4112 because consumer ahead of producer - producer upper at 4112. Client requested seqnos:{4134,18446744073709551615} snapshot:{4132,4134} uuid:275004373324948"},
			{Path: "cbcollect_info_ns_1@172.23.100.15_20220722-004733/diag.log", Line: 8, Time: at("2022-07-22T00:39:18.230Z"), Node: "ns_1@172.23.100.15", Note: "failover of the node starts before traffic was enabled on it",
				Text: "2022-07-21T17:39:18.230-07:00, ns_orchestrator:0:info:message(ns_1@172.23.100.15) - Starting failover of nodes ['ns_1@172.23.100.15']. Operation Id = 844feb0020c0f32bd93ff5ab83c2d60c"},
		},
		Fixes: []forensics.Fix{
			{Title: "Keep auto-failover and manual failover away from 172.23.100.15 while it is still warming up",
				Steps:    []string{"Set the auto-failover timeout longer than the bucket's warmup on this node."},
				Commands: []string{"cbstats 172.23.100.15:11210 -u Administrator -p PASSWORD -b test3 warmup", "curl -s -u Administrator:PASSWORD http://172.23.100.16:8091/pools/default/buckets/test3 | jq '.nodes[] | {hostname, status}'"}},
			{Title: "Run an indexer that has MB-53111", Steps: []string{"It is in 7.1.2 and later."}},
		},
		Skew: []forensics.Skew{{Ahead: "ns_1@172.23.100.15", Behind: "ns_1@172.23.100.19", By: 9 * time.Millisecond, Basis: "stream end at 00:39:12.111Z before the exit at 00:39:12.120Z"}},
	}
	pingpong := forensics.Finding{
		ID: "0a1b2c3d4e5f", Rule: "nlhe-ping-pong", Severity: forensics.High,
		Title:   "DistSender on n2 was redirected 6 times between n1 and n3 for r57",
		Subject: forensics.FindingSubject{Node: "n2", Range: 57, Details: forensics.Details{{Key: "replicas", Value: []string{"n1", "n3"}}, {Key: "redirects", Value: int64(6)}}},
		Start:   at("2024-03-11T14:21:07.100Z"), End: at("2024-03-11T14:21:07.160Z"),
		Explanation: "From 14:21:07.100Z to 14:21:07.160Z DistSender on n2 sent the batch for r57 to n1 and n3 in turn; each said the other holds the lease.",
		Evidence: []forensics.Evidence{
			{Path: crdbLog, Line: 31, Time: at("2024-03-11T14:21:07.100Z"), Node: "n2", Note: "first redirect",
				Text: `I240311 14:21:07.100000 5123 kv/kvclient/kvcoord/dist_sender.go:2406 ⋮ [n2] 1  r57: application error: [NotLeaseHolderError] lease held by replica (n3,s3):2; trying next peer (n3,s3):2`},
			{Path: absTrace, Line: 12, Time: at("2024-03-11T14:21:07.160Z"), Node: "n2", Note: "the trace of the batch shows the same hops",
				Text: `     0.060ms      0.010ms    event:kv/kvclient/kvcoord/dist_sender.go:2406 [n2] r57: sending batch 1 Get to (n1,s1):1`},
		},
		Fixes: []forensics.Fix{{Title: "Upgrade to a release with the fix", Commands: []string{"cockroach node status --host n2:26257 --certs-dir certs"}}},
	}
	hostile := forensics.Finding{
		ID: "ffee00112233", Rule: "hostile-text", Severity: forensics.Low,
		Title:   "A title with *stars*, _underscores_, `ticks`, <b>tags</b> and | pipes",
		Subject: forensics.FindingSubject{Node: "ns_1@evil|host", Bucket: "b<script>"},
		Start:   at("2022-07-22T00:40:00Z"), End: at("2022-07-22T00:40:00Z"),
		Explanation: "# not a heading\n<script>alert(1)</script> [link](javascript:alert(1)) *emphasis* MAINT_STREAM_TOPIC stays as it is.",
		Evidence: []forensics.Evidence{
			{Path: "odd ```name```.log", Line: 3, Time: at("2022-07-22T00:40:00Z"), Note: "a note with </script> in it",
				Text: "```\n</script><img src=x onerror=alert(1)> \x1b[31mred\x1b[0m \xff"},
		},
		Fixes: []forensics.Fix{{Title: "A fix whose command has ``` in it", Commands: []string{"echo '```' | cat"}}},
	}
	srcs := []Source{
		{Path: memcachedLog, Node: "ns_1@172.23.100.15", Format: "memcached", Component: "memcached", Bytes: 61213, Lines: 283, Events: 40, Plain: 243,
			First: ptime("2022-07-22T00:02:11.204311Z"), Last: ptime("2022-07-22T00:46:29.37678Z")},
		{Path: nsInfoLog, Node: "ns_1@172.23.100.15", Format: "nsserver", Component: "ns_server", Bytes: 30211, Lines: 136, Events: 13, Plain: 123,
			First: ptime("2022-07-22T00:02:15.359Z"), Last: ptime("2022-07-22T00:46:29.189Z")},
		{Path: "cbcollect_info_ns_1@172.23.100.15_20220722-004733/diag.log", Node: "ns_1@172.23.100.15", Format: "nsserver-diag", Component: "ns_server", Bytes: 4952, Lines: 38, Events: 14, Plain: 24,
			First: ptime("2022-07-22T00:02:15.365Z"), Last: ptime("2022-07-22T00:39:19.309Z")},
		{Path: indexerLog, Node: "ns_1@172.23.100.19", Format: "indexer", Component: "indexer", Bytes: 402113, Lines: 1378, Events: 1063, Plain: 315,
			First: ptime("2022-07-22T00:31:07.254Z"), Last: ptime("2022-07-22T00:46:28.911Z")},
		{Path: crdbLog, Node: "n2", Format: "crdb-v2", Component: "cockroach", Bytes: 90112, Lines: 512, Events: 300, Plain: 212,
			First: ptime("2024-03-11T14:20:01.000871Z"), Last: ptime("2024-03-11T14:25:00Z")},
		{Path: absTrace, Node: "n2", Format: "crdb-trace", Component: "cockroach", Bytes: 2048, Lines: 40, Events: 12, Plain: 28},
	}
	return &Report{
		Findings: []forensics.Finding{kv, pingpong, hostile},
		Rules:    fixtureRules(),
		Sources:  srcs,
		Skipped: []Skipped{
			{Path: "collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip!cbcollect_info_ns_1@172.23.100.15_20220722-004733/couchbase.log", Reason: "not a log format forensics reads"},
			{Path: "collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip!cbcollect_info_ns_1@172.23.100.15_20220722-004733/stats.log", Reason: "not a log format forensics reads"},
		},
		Problems: []forensics.Problem{
			{Path: "collectinfo-2022-07-22T004733-ns_1@172.23.100.17.zip", Reason: "archive cut short, members after this point lost: unexpected EOF", Lost: true},
			{Path: crdbLog, Line: 77, Reason: "line looks like crdb-v2 but has no timestamp"},
		},
		Summary: Summary{Read: 6, Skipped: 2, Problems: 2, Findings: map[string]int{"critical": 1, "high": 1, "low": 1}},
	}
}

// fixtureRules are the rules of the fixture's findings, as `rules explain`
// would show them, with the details of their subjects; hostile-text has
// none, so its results carry no ruleIndex.
func fixtureRules() []*forensics.Rule {
	return []*forensics.Rule{
		{Name: "kv-stream-before-traffic", Doc: forensics.Doc{
			Title:   "DCP stream requests answered by a KV node still warming up",
			Detects: "A Couchbase data node whose memcached restarted answered DCP stream requests before ns_server enabled traffic.",
			Why:     "Consumers roll back on the word of a node that may be failed over moments later.",
			Confirm: "memcached.log shows Stream request requires rollback before enableTraffic.",
			Inputs:  "cbcollect_info of the restarted node and of the index nodes.",
			Fixes:   "Keep failover away from warming nodes; make consumers wait for traffic.",
		}, Details: []forensics.Detail{{Key: "consumers", Type: forensics.DetailList, Show: forensics.ShowApart}}},
		{Name: "nlhe-ping-pong", Doc: forensics.Doc{
			Title:   "DistSender redirected back and forth between replicas",
			Detects: "NotLeaseHolderErrors that send a batch between the same replicas again and again.",
			Why:     "The request spins until its deadline.",
			Fixes:   "Upgrade; check lease transfers.",
		}, Details: []forensics.Detail{{Key: "replicas", Type: forensics.DetailList, Join: " "}, {Key: "redirects", Type: forensics.DetailInt}}},
	}
}

// fixtureEvents are the timeline's events around the fixture's findings:
// the evidence lines as events, noise on other lanes, and a dense run of
// redirects.
func fixtureEvents() []forensics.Event {
	ev := func(ts, node, src string, line int64, kind, text string) forensics.Event {
		return forensics.Event{Stamp: forensics.Stamp{Time: at(ts), Zone: forensics.ZoneLogged}, Node: node, Path: src, Line: line, Kind: forensics.Kind(kind), Text: text}
	}
	out := []forensics.Event{
		ev("2022-07-22T00:39:12.111Z", "ns_1@172.23.100.19", indexerLog, 167, "indexer.stream_end", "2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168"),
		ev("2022-07-22T00:39:12.120Z", "ns_1@172.23.100.15", nsInfoLog, 69, "nsserver.service_exited", "[user:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.17188.0>:ns_log:consume_log:76]Service 'memcached' exited with status 137. Restarting. Messages:"),
		ev("2022-07-22T00:39:13.209189Z", "ns_1@172.23.100.15", memcachedLog, 157, "memcached.start", "2022-07-21T17:39:13.209189-07:00 INFO Couchbase version 7.1.1-3175-enterprise starting."),
		ev("2022-07-22T00:39:14.410669Z", "ns_1@172.23.100.15", memcachedLog, 167, "memcached.failover_entry", "2022-07-21T17:39:14.410669-07:00 INFO (test3) Warmup::createVBuckets: vb:139 created new failover entry with uuid:58285129286079 and seqno:4112 due to unclean shutdown"),
		ev("2022-07-22T00:39:17.706652Z", "ns_1@172.23.100.15", memcachedLog, 177, "memcached.stream_rollback", "2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer) … (vb:141) Stream request requires rollback to seqno:4109"),
		ev("2022-07-22T00:39:17.706825Z", "ns_1@172.23.100.15", memcachedLog, 178, "memcached.stream_rollback", "2022-07-21T17:39:17.706825-07:00 WARNING 382: (test3) DCP (Producer) … (vb:139) Stream request requires rollback to seqno:4112"),
		ev("2022-07-22T00:39:17.9Z", "ns_1@172.23.100.19", indexerLog, 201, "indexer.rollback", "2022-07-21T17:39:17.900-07:00 [Info] StreamBegin rollback MAINT_STREAM test3 vbucket 141 </script><b>x</b>"),
		// Diag.log's failover line is evidence but, in this fixture, no event: it must still be drawn.
		ev("2022-07-22T00:39:40Z", "ns_1@172.23.100.16", "cbcollect_info_ns_1@172.23.100.16_20220722-004733/memcached.log", 90, "memcached.vb_state", "2022-07-21T17:39:40.000000-07:00 INFO (test3) VBucket::setState: transitioning vb:139 with high seqno:4134 from:replica to:active"),
		ev("2022-07-22T01:30:00Z", "ns_1@172.23.100.16", "cbcollect_info_ns_1@172.23.100.16_20220722-004733/memcached.log", 400, "memcached.vb_state", "far outside every window"),
	}
	for i := 0; i < 700; i++ {
		ts := at("2024-03-11T14:21:07.100Z").Add(time.Duration(i) * 80 * time.Microsecond)
		replica := []string{"(n3,s3):2", "(n1,s1):1"}[i%2]
		out = append(out, ev(ts.Format(time.RFC3339Nano), "n2", crdbLog, int64(31+i), "distsender.nlhe",
			fmt.Sprintf("I240311 %s 5123 kv/kvclient/kvcoord/dist_sender.go:2406 ⋮ [n2] 1  r57: application error: [NotLeaseHolderError] lease held by replica %s", ts.Format("15:04:05.000000"), replica)))
	}
	return out
}

// sliceTimeline serves events from a slice the way the store does: the
// query's window, in the slice's order, each event a copy.
type sliceTimeline []forensics.Event

func (tl sliceTimeline) Events(ctx context.Context, q forensics.Query) iter.Seq2[*forensics.Event, error] {
	return func(yield func(*forensics.Event, error) bool) {
		for _, e := range tl {
			if !q.Since.IsZero() && e.Time.Before(q.Since) || !q.Until.IsZero() && !e.Time.Before(q.Until) {
				continue
			}
			c := e
			if !yield(&c, nil) {
				return
			}
		}
	}
}
