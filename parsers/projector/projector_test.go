package projector

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/indexer"
	"forensics/parsers/parsertest"
)

var origin = forensics.Origin{Path: "ns_server.projector.log", Name: "ns_server.projector.log", Node: "ns_1@172.23.100.15"}

func parse(input string) parsertest.Result {
	return parsertest.Parse(Format, origin, []byte(input))
}

const (
	topic    = "MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd"
	consumer = "secidx:proj-test3-" + topic + "-2556451229124417097/1"
	feedPfx  = "FEED[<=>" + topic + "(127.0.0.1:8091)]"
	vbrtPfx  = "VBRT[<-141<-test3<-127.0.0.1:8091 #" + topic + "]"
	kvdtPfx  = "KVDT[<-test3<-127.0.0.1:8091 #" + topic + "]"
)

type want = parsertest.Want

// The projector on the failed node, around the seed incident: memcached dies
// (EOF), the vbucket's stream ends, memcached restarts and the projector
// reconnects, asks for vb 141 from seqno 4168 and is told to roll back to
// 4109, which it passes on to the indexer.
func TestIncident(t *testing.T) {
	lines := []string{
		"2022-07-21T17:39:12.109-07:00 [Info] DCPT[" + consumer + "] EOF received",
		"2022-07-21T17:39:12.110-07:00 [Info] " + vbrtPfx + " ##1 ##1 StreamEnd",
		"2022-07-21T17:39:17.650-07:00 [Info] DCPT[secidx:proj-test3-" + topic + "-3019817428290271231/1] ##2 feed started ...",
		"2022-07-21T17:39:17.690-07:00 [Info] " + feedPfx + " ##2 vbmap {default,test3} - [128 129 141]",
		"2022-07-21T17:39:17.706-07:00 [Warn] DCPT[" + consumer + "] ##2 STREAMREQ(141) with rollback 4109",
		"2022-07-21T17:39:17.706-07:00 [Info] " + kvdtPfx + " ##2 StreamRequest ROLLBACK: <ud>(DCP_STREAMREQ)</ud>",
		"2022-07-21T17:39:17.707-07:00 [Info] " + vbrtPfx + " ##2 ##1 created",
		"2022-07-21T17:39:17.707-07:00 [Info] " + vbrtPfx + " ##2 ##1 StreamBegin",
		"2022-07-21T17:39:17.707-07:00 [Info] " + feedPfx + " ##2 backch *projector.controlStreamRequest {controlStreamRequest, ROLLBACK, test3, 141, 46674030171a, 4109, ##2, 8717358306498734085}",
		"2022-07-21T17:39:17.708-07:00 [Info] " + feedPfx + " ##2 backch flush rollback *projector.controlStreamRequest: {controlStreamRequest, ROLLBACK, test3, 141, 46674030171a, 4109, ##2, 8717358306498734085}",
	}
	res := parse(strings.Join(lines, "\n") + "\n")
	parsertest.Expect(t, res, []want{
		{Kind: DCPClosed, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"consumer": consumer, "reason": "EOF", "topic": topic, "keyspace": "test3",
			"consumer_short": "secidx:proj-" + topic + "-2556451229124417097/1"}},
		{Kind: StreamEnd, Line: 2, VB: 141, Bucket: "test3", Attrs: map[string]string{"keyspace": "test3", "cluster": "127.0.0.1:8091", "topic": topic, "opaque": "1", "session": "1"}},
		{Kind: DCPConnected, Line: 3, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"opaque": "2", "consumer": "secidx:proj-test3-" + topic + "-3019817428290271231/1"}},
		{Kind: VBMap, Line: 4, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"pool": "default", "bucket": "test3", "vbuckets": "128 129 141", "count": "3", "topic": topic}},
		{Kind: StreamRollback, Line: 5, VB: 141, Bucket: "test3", Attrs: map[string]string{"consumer": consumer, "opaque": "2", "rollback_seqno": "4109", "keyspace": "test3"}},
		{Kind: StreamRollbackNotice, Line: 6, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"keyspace": "test3", "topic": topic, "cluster": "127.0.0.1:8091", "opaque": "2"}},
		{Kind: StreamBegin, Line: 8, VB: 141, Bucket: "test3", Attrs: map[string]string{"opaque": "2", "session": "1"}},
		// 0x46674030171a is the uuid memcached names in its rollback answer.
		{Kind: StreamResponse, Line: 9, VB: 141, Bucket: "test3", Attrs: map[string]string{"status": "ROLLBACK", "keyspace": "test3", "vbuuid_hex": "46674030171a",
			"vbuuid": "77409272469274", "seqno": "4109", "opaque": "2", "kvdata": "8717358306498734085", "stage": "posted", "topic": topic}},
		{Kind: StreamResponse, Line: 10, VB: 141, Bucket: "test3", Attrs: map[string]string{"status": "ROLLBACK", "stage": "flushed", "seqno": "4109"}},
	})
}

func TestEvents(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []want
	}{{
		name:  "refused while the vbucket is not active here",
		input: "2022-07-21T17:39:17.001-07:00 [Error] DCPT[" + consumer + "] ##2 STREAMREQ(142) unexpected status: NOT_MY_VBUCKET\n",
		want:  []want{{Kind: StreamError, Line: 1, VB: 142, Bucket: "test3", Attrs: map[string]string{"status": "NOT_MY_VBUCKET", "opaque": "2", "consumer": consumer}}},
	}, {
		name:  "7.x collection errors",
		input: "2023-05-01T10:00:00.000+00:00 [Error] DCPT[secidx:proj-travel-sample:inventory:airline-INIT_STREAM_TOPIC_5b1c9a3e-123/0] ##a3 STREAMREQ(7) with status: UNKNOWN_COLLECTION, stream request value: &{Flags:0 StartSeqno:0}\n",
		want: []want{{Kind: StreamError, Line: 1, VB: 7, Bucket: "travel-sample", Attrs: map[string]string{"status": "UNKNOWN_COLLECTION", "opaque": "a3",
			"keyspace": "travel-sample:inventory:airline", "topic": "INIT_STREAM_TOPIC_5b1c9a3e", "consumer_short": "secidx:proj-INIT_STREAM_TOPIC_5b1c9a3e-123/0"}}},
	}, {
		name:  "a rollback to zero on the new active",
		input: "2022-07-21T17:39:20.100-07:00 [Warn] DCPT[secidx:proj-default-MAINT_STREAM_TOPIC_5b1c9a3e-987/0] ##a3 STREAMREQ(7) with rollback 0\n",
		want:  []want{{Kind: StreamRollback, Line: 1, VB: 7, Bucket: "default", Attrs: map[string]string{"rollback_seqno": "0", "opaque": "a3"}}},
	}, {
		name:  "8.0 DCPT prefix",
		input: "2025-01-10T08:00:00.000+00:00 [Warn] DCPT:MAINT_STREAM_TOPIC_5b1c9a3e:b1:s1:c1:2556451229124417097:##a3:1 ##a3 STREAMREQ(141) with rollback 4109\n",
		want: []want{{Kind: StreamRollback, Line: 1, VB: 141, Bucket: "b1", Attrs: map[string]string{"keyspace": "b1:s1:c1", "topic": "MAINT_STREAM_TOPIC_5b1c9a3e",
			"consumer": "DCPT:MAINT_STREAM_TOPIC_5b1c9a3e:b1:s1:c1:2556451229124417097:##a3:1", "consumer_short": ""}}},
	}, {
		name:  "a successful stream request handed to the indexer",
		input: "2022-07-21T17:39:22.000-07:00 [Info] " + feedPfx + " ##3 backch flush success *projector.controlStreamRequest: {controlStreamRequest, SUCCESS, test3, 141, 9b30ac28ee3f, 4109, ##3, 42}\n",
		want:  []want{{Kind: StreamResponse, Line: 1, VB: 141, Bucket: "test3", Attrs: map[string]string{"status": "SUCCESS", "vbuuid": "170633349099071", "seqno": "4109", "stage": "flushed"}}},
	}, {
		name:  "a stale answer dropped",
		input: "2022-07-21T17:39:22.000-07:00 [Warn] " + feedPfx + " ##3 ignoring backch message *projector.controlStreamRequest: {controlStreamRequest, NOT_MY_VBUCKET, test3, 142, 0, 0, ##3, 42}\n",
		want:  []want{{Kind: StreamResponse, Line: 1, VB: 142, Bucket: "test3", Attrs: map[string]string{"status": "NOT_MY_VBUCKET", "vbuuid": "0", "stage": "ignored"}}},
	}, {
		name:  "the connection fails",
		input: "2022-07-21T17:39:12.109-07:00 [Error] DCPT[" + consumer + "] doReceive(): read tcp 127.0.0.1:52018->127.0.0.1:11210: read: connection reset by peer\n",
		want:  []want{{Kind: DCPClosed, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"reason": "read tcp 127.0.0.1:52018->127.0.0.1:11210: read: connection reset by peer"}}},
	}, {
		name:  "7.6 feed started wording",
		input: "2024-03-01T10:00:00.000+00:00 [Info] DCPT[" + consumer + "] ##b feed started. useMutationQueue: true ...\n",
		want:  []want{{Kind: DCPConnected, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"opaque": "b"}}},
	}, {
		name:  "an IPv6 cluster address",
		input: "2024-03-01T10:00:00.000+00:00 [Info] VBRT[<-7<-b:s:c<-[::1]:8091 #INIT_STREAM_TOPIC_5b1c9a3e] ##1f ##12 StreamEnd\n",
		want:  []want{{Kind: StreamEnd, Line: 1, VB: 7, Bucket: "b", Attrs: map[string]string{"keyspace": "b:s:c", "cluster": "[::1]:8091", "topic": "INIT_STREAM_TOPIC_5b1c9a3e", "opaque": "1f", "session": "12"}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsertest.Expect(t, parse(tt.input), tt.want)
		})
	}
}

func TestNotEvents(t *testing.T) {
	input := strings.Join([]string{
		"2022-07-21T17:39:17.650-07:00 [Info] DCPT[secidx:getseqnos-default-123/0] ##0 feed started ...",
		"2022-07-21T17:39:17.650-07:00 [Info] DCPT[secidx:getseqnos-default-123/0] EOF received",
		"2022-07-21T17:39:17.650-07:00 [Info] " + feedPfx + " ##2 feed started ...",
		"2022-07-21T17:39:17.707-07:00 [Info] " + feedPfx + " ##2 backch *projector.controlStreamEnd {controlStreamEnd, SUCCESS, test3, 141, ##2, 8717358306498734085}",
		"2022-07-21T17:39:17.707-07:00 [Info] " + feedPfx + " ##2 start-timestamp bucket: test3, scope :, collectionIDs: [], vbuckets: 1 -",
		"    {vbno, vbuuid, manifest, seqno, snapshot-start, snapshot-end}",
		"    {  141     46674030171a 0       4168       4163       4168}",
		"2022-07-21T17:39:17.707-07:00 [Info] " + kvdtPfx + " ##2 stats: {\"hbCount\":12,\"eventCount\":0,\"reqCount\":1,\"endCount\":0,\"rollbackCount\":1}",
		"2022-07-21T17:39:17.707-07:00 [Info] " + kvdtPfx + " ##2 started, uuid: 8717358306498734085 ...",
		"2022-07-21T17:39:17.707-07:00 [Info] " + vbrtPfx + " ##2 ##1 created",
		"2022-07-21T17:39:17.707-07:00 [Error] " + vbrtPfx + " ##2 StreamBeginData NOT PUBLISHED",
		"2022-07-21T17:39:17.706-07:00 [Error] DCPT[" + consumer + "] ##2 STREAMREQ(141) invalid rollback: <ud>([0 0])</ud>",
		"2022-07-21T17:39:17.706-07:00 [Error] DCPT[" + consumer + "] ##2 STREAMREQ(141) parseFailoverLog: short body",
		"2022-07-21T17:39:17.706-07:00 [Info] DCPT[" + consumer + "] ##2 DCP_SNAPSHOT for vb 141 snapshot {0,60000}",
		"2022-07-21T17:39:17.706-07:00 [Info] PROJ[:9999] ##2 MutationTopicRequest MAINT_STREAM_TOPIC_x for [test3]",
		"2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer) eq_dcpq:" + consumer + " - (vb:141) Stream request requires rollback to seqno:4109",
		"DCPT[" + consumer + "] ##2 STREAMREQ(141) with rollback 4109",
		"",
	}, "\n")
	res := parse(input)
	if len(res.Events) > 0 || len(res.Errors) > 0 {
		t.Fatalf("got events %v errors %v", res.Kinds(), res.Errors)
	}
}

func TestMalformed(t *testing.T) {
	for _, line := range []string{
		"2022-07-21T17:39:17.706-07:00 [Warn] DCPT[" + consumer + "] ##2 STREAMREQ(14x) with rollback 4109",
		"2022-07-21T17:39:17.706-07:00 [Warn] DCPT[" + consumer + "] ##2 STREAMREQ(141) with rollback abc",
		"2022-07-21T17:39:17.706-07:00 [Warn] DCPT[" + consumer + "] ##2 STREAMREQ(141 with rollback 4109",
		"2022-07-21T17:39:17.706-07:00 [Error] DCPT[" + consumer + "] ##2 STREAMREQ(141) unexpected status: ",
		"2022-07-21T17:39:17.707-07:00 [Info] " + feedPfx + " ##2 backch *projector.controlStreamRequest {controlStreamRequest, ROLLBACK, test3, 141, zz, 4109, ##2, 1}",
		"2022-07-21T17:39:17.707-07:00 [Info] " + feedPfx + " ##2 backch *projector.controlStreamRequest {controlStreamRequest, ROLLBACK, test3, 141}",
		"2022-07-21T17:39:17.707-07:00 [Info] VBRT[<-141 #" + topic + "] ##2 ##1 StreamBegin",
		"2022-07-21T17:39:17.707-07:00 [Info] " + vbrtPfx + " ##2 StreamBegin",
		"2022-07-21T17:39:17.690-07:00 [Info] " + feedPfx + " ##2 vbmap {default,test3} - [128 x]",
	} {
		res := parse(line)
		if len(res.Errors) != 1 || len(res.Events) != 0 {
			t.Errorf("%s\ngot errors %v and events %v, want one error", line, res.Errors, res.Kinds())
			continue
		}
		if msg := res.Errors[0].Err.Error(); msg[0] < 'a' || msg[0] > 'z' {
			t.Errorf("error %q does not start lowercase", msg)
		}
	}
}

func TestDetect(t *testing.T) {
	projectorHead := "2022-07-21T17:39:17.650-07:00 [Info] " + feedPfx + " ##2 feed started ...\n" +
		"2022-07-21T17:39:17.707-07:00 [Info] " + kvdtPfx + " ##2 started, uuid: 8717358306498734085 ...\n"
	indexerHead := "2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168\n" +
		"2022-07-21T17:40:00.000-07:00 [Info] PeriodicStats = {\"cpu_utilization\":4.5}\n"
	aleHead := "[ns_server:debug,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.1.0>:ns_log:consume_log:76]x\n"
	for _, tt := range []struct {
		name, head string
		min, max   int
	}{
		{"ns_server.projector.log", projectorHead, 95, 95},
		{"projector.log.1", projectorHead, 95, 95},
		{"node1.txt", projectorHead, 80, 80},
		{"ns_server.debug.log", aleHead, 0, 0},
		{"ns_server.indexer.log", indexerHead, 1, 40},
	} {
		if got := Format.Detect(tt.name, []byte(tt.head)); got < tt.min || got > tt.max {
			t.Errorf("Detect(%q) = %d, want %d..%d", tt.name, got, tt.min, tt.max)
		}
	}
	// Each format wins its own file.
	if p, i := Format.Detect("ns_server.projector.log", []byte(projectorHead)), indexer.Format.Detect("ns_server.projector.log", []byte(projectorHead)); p <= i {
		t.Errorf("projector.log: projector %d, indexer %d", p, i)
	}
	if p, i := Format.Detect("ns_server.indexer.log", []byte(indexerHead)), indexer.Format.Detect("ns_server.indexer.log", []byte(indexerHead)); p >= i {
		t.Errorf("indexer.log: projector %d, indexer %d", p, i)
	}
}
