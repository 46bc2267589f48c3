package indexer

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

var origin = forensics.Origin{Path: "ns_server.indexer.log", Name: "ns_server.indexer.log", Node: "ns_1@172.23.100.17"}

func parse(input string) parsertest.Result {
	return parsertest.Parse(Format, origin, []byte(input))
}

type want = parsertest.Want

func TestSeed(t *testing.T) {
	// The indexer lines of the seed incident, verbatim (the ticket puts blank
	// lines between the RestartTS header and its rows).
	input := `2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168
2022-07-21T17:39:16.284-07:00 [Info] Indexer::handleKVStreamRepair Initiate Stream Repair MAINT_STREAM Bucket test3 StreamId 1
2022-07-21T17:39:16.284-07:00 [Info] Indexer::startBucketStream Stream: MAINT_STREAM Bucket: test3 SessionId 1 RestartTS bucket: test3, vbuckets: 1024 Crc64: 0 snapType NO_SNAP -

{vbno, vbuuid, seqno, snapshot-start, snapshot-end}

{  141     46674030171a       4168       4163       4168}
`
	res := parse(input)
	parsertest.Expect(t, res, []want{
		{Kind: StreamEnd, Line: 1, VB: 141, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3", "vbuuid": "77409272469274", "seqno": "4168"}},
		{Kind: StreamRepair, Line: 2, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3", "session": "1"}},
		{Kind: StreamRestart, Line: 3, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3", "session": "1"}},
		// 0x46674030171a is the decimal uuid memcached prints for this stream request.
		{Kind: RestartTS, Line: 7, VB: 141, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3", "session": "1",
			"vbuuid_hex": "46674030171a", "vbuuid": "77409272469274", "seqno": "4168", "snap_start": "4163", "snap_end": "4168", "manifest": ""}},
	})
	end := res.Events[0]
	wantTime := time.Date(2022, 7, 22, 0, 39, 12, 111e6, time.UTC)
	if !end.Time.Equal(wantTime) || end.Offset != -7*3600 || end.Zone != forensics.ZoneLogged {
		t.Errorf("StreamEnd stamp = %v offset %d zone %v, want %v -07:00 logged", end.Time, end.Offset, end.Zone, wantTime)
	}
	if end.Text != "2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168" {
		t.Errorf("Text = %q", end.Text)
	}
	row := res.Events[3]
	if !row.Time.Equal(res.Events[2].Time) || row.Text != "{  141     46674030171a       4168       4163       4168}" {
		t.Errorf("row: time %v text %q; want the header's time and the row's own text", row.Time, row.Text)
	}
	// The rows have no time of their own: they continue the header's entry.
	for _, n := range []int{4, 5, 6, 7} {
		if !res.Stamps[n-1].IsZero() {
			t.Errorf("line %d has a stamp", n)
		}
	}
}

func TestEvents(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []want
	}{{
		name:  "7.x stream begin names the KV node and the high-water mark",
		input: "2022-07-21T17:39:17.712-07:00 [Info] TK StreamBegin MAINT_STREAM test3 141 77409272469274 4109 1 172.23.100.15:8091. HWT [4163-4168,4168].\n",
		want: []want{{Kind: StreamBegin, Line: 1, VB: 141, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3",
			"vbuuid": "77409272469274", "seqno": "4109", "session": "1", "kv_node": "172.23.100.15:8091", "kv_host": "172.23.100.15",
			"hwt_snap_start": "4163", "hwt_snap_end": "4168", "hwt_seqno": "4168"}}},
	}, {
		name:  "7.x stream begin from a node the indexer cannot name",
		input: "2023-03-02T10:00:00.001+05:30 [Info] TK StreamBegin INIT_STREAM travel-sample:inventory:airline 7 125 0 3 . HWT [0-0,0].\n",
		want: []want{{Kind: StreamBegin, Line: 1, VB: 7, Bucket: "travel-sample", Attrs: map[string]string{"keyspace": "travel-sample:inventory:airline",
			"session": "3", "kv_node": "", "kv_host": "", "seqno": "0"}}},
	}, {
		name:  "7.x stream begin from an IPv6 node",
		input: "2023-03-02T10:00:00.001Z [Info] TK StreamBegin MAINT_STREAM default 1023 2 10 4 [fd63:6f75:6368:2068::1004]:8091. HWT [9-10,10].\n",
		want:  []want{{Kind: StreamBegin, Line: 1, VB: 1023, Bucket: "default", Attrs: map[string]string{"kv_node": "[fd63:6f75:6368:2068::1004]:8091", "kv_host": "fd63:6f75:6368:2068::1004"}}},
	}, {
		name:  "6.5 stream begin has the session but no node",
		input: "2020-01-10T08:00:00.000+00:00 [Info] TK StreamBegin MAINT_STREAM default 7 201523403720145 5813 2\n",
		want:  []want{{Kind: StreamBegin, Line: 1, VB: 7, Bucket: "default", Attrs: map[string]string{"session": "2", "seqno": "5813", "kv_node": ""}}},
	}, {
		name:  "5.x stream begin",
		input: "2018-01-10T08:00:00.000+00:00 [Info] TK StreamBegin MAINT_STREAM default 7 201523403720145 5813\n",
		want:  []want{{Kind: StreamBegin, Line: 1, VB: 7, Bucket: "default", Attrs: map[string]string{"vbuuid": "201523403720145", "session": ""}}},
	}, {
		name:  "7.x rollback",
		input: "2022-07-21T17:39:17.712-07:00 [Warn] Timekeeper::handleStreamBegin StreamBegin rollback for StreamId MAINT_STREAM KeyspaceId test3 vbucket 141. Rollback (4109,     46674030171a). \n",
		want: []want{{Kind: Rollback, Line: 1, VB: 141, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3",
			"rollback_seqno": "4109", "vbuuid_hex": "46674030171a", "vbuuid": "77409272469274"}}},
	}, {
		name:  "6.5 rollback to zero with a full-width vbuuid",
		input: "2020-01-10T08:00:00.000+00:00 [Warn] Timekeeper::handleStreamBegin StreamBegin rollback for StreamId MAINT_STREAM Bucket default vbucket 7. Rollback (0, ffffffffffffffff). \n",
		want: []want{{Kind: Rollback, Line: 1, VB: 7, Bucket: "default", Attrs: map[string]string{"rollback_seqno": "0", "vbuuid_hex": "ffffffffffffffff",
			"vbuuid": "18446744073709551615"}}},
	}, {
		name:  "repair gives up and rolls back",
		input: "2022-07-21T17:39:19.500-07:00 [Info] Timekeeper::repairStream need rollback for MAINT_STREAM test3 1. Sending Init Prepare.\n",
		want:  []want{{Kind: RepairRollback, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3", "session": "1"}}},
	}, {
		name:  "7.x stream repair",
		input: "2022-07-21T17:39:16.284-07:00 [Info] Indexer::handleKVStreamRepair Initiate Stream Repair INIT_STREAM KeyspaceId b1:s1:c1 StreamId 4\n",
		want:  []want{{Kind: StreamRepair, Line: 1, VB: forensics.NoVB, Bucket: "b1", Attrs: map[string]string{"stream": "INIT_STREAM", "keyspace": "b1:s1:c1", "session": "4"}}},
	}, {
		name:  "5.x stream repair has no session",
		input: "2018-01-10T08:00:00.000+00:00 [Info] Indexer::handleKVStreamRepair Initiate Stream Repair MAINT_STREAM Bucket default\n",
		want:  []want{{Kind: StreamRepair, Line: 1, VB: forensics.NoVB, Bucket: "default", Attrs: map[string]string{"stream": "MAINT_STREAM", "session": ""}}},
	}, {
		name: "7.1 restart with manifest column",
		input: "2022-07-21T17:39:16.284-07:00 [Info] Indexer::startKeyspaceIdStream Stream: MAINT_STREAM KeyspaceId: test3 SessionId 2 RestartTS bucket: test3, scopeId: , collectionId: , vbuckets: 2 Crc64: 0 snapType NO_SNAP OpenOSOSnap false -\n" +
			"    {vbno, vbuuid, manifest, seqno, snapshot-start, snapshot-end}\n" +
			"    {  140     9b30ac28ee3f 0       4207       4201       4207}\n" +
			"    {  141     46674030171a 0       4168       4163       4168}\n" +
			"2022-07-21T17:39:16.290-07:00 [Info] KVSender::openMutationStream restartTsList <nil>\n" +
			"    {  142     46674030171a 0       4168       4163       4168}\n",
		want: []want{
			{Kind: StreamRestart, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"session": "2"}},
			{Kind: RestartTS, Line: 3, VB: 140, Bucket: "test3", Attrs: map[string]string{"vbuuid_hex": "9b30ac28ee3f", "vbuuid": "170633349099071", "manifest": "0", "seqno": "4207", "snap_start": "4201", "snap_end": "4207", "session": "2"}},
			{Kind: RestartTS, Line: 4, VB: 141, Bucket: "test3", Attrs: map[string]string{"vbuuid": "77409272469274", "seqno": "4168"}},
		},
	}, {
		name: "7.x restart with OSO counts and an empty manifest",
		input: "2022-07-21T17:39:16.284-07:00 [Info] Indexer::startKeyspaceIdStream Stream: INIT_STREAM KeyspaceId: b:s:c SessionId 5 RestartTS bucket: b, scopeId: 8, collectionId: 9, vbuckets: 2 Crc64: 0 snapType DISK_SNAP OpenOSOSnap true -\n" +
			"    {vbno, vbuuid, manifest, seqno, osocount, snapshot-start, snapshot-end}\n" +
			"    {    0     5ee1d2c4a13c 1a        120         40          0        120}\n" +
			"    {    1     5ee1d2c4a13d         99          3          0         99}\n",
		want: []want{
			{Kind: StreamRestart, Line: 1, VB: forensics.NoVB, Bucket: "b", Attrs: map[string]string{"keyspace": "b:s:c"}},
			{Kind: RestartTS, Line: 3, VB: 0, Bucket: "b", Attrs: map[string]string{"manifest": "1a", "seqno": "120", "oso_count": "40", "snap_start": "0", "snap_end": "120"}},
			{Kind: RestartTS, Line: 4, VB: 1, Bucket: "b", Attrs: map[string]string{"manifest": "", "seqno": "99", "oso_count": "3", "snap_end": "99"}},
		},
	}, {
		name:  "restart without a timestamp has no rows",
		input: "2022-07-21T17:39:16.284-07:00 [Info] Indexer::startKeyspaceIdStream Stream: MAINT_STREAM KeyspaceId: test3 SessionId 2 RestartTS <nil>\n    {  141     46674030171a 0       4168       4163       4168}\n",
		want:  []want{{Kind: StreamRestart, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: nil}},
	}, {
		name:  "5.x restart",
		input: "2018-01-10T08:00:00.000+00:00 [Info] Indexer::startBucketStream Stream: MAINT_STREAM Bucket: default RestartTS <nil>\n",
		want:  []want{{Kind: StreamRestart, Line: 1, VB: forensics.NoVB, Bucket: "default", Attrs: map[string]string{"session": ""}}},
	}, {
		name: "storage rollback with its rollback timestamp",
		input: "2022-07-21T17:39:20.001-07:00 [Info] StorageMgr::handleRollback MAINT_STREAM test3 rollbackTs bucket: test3, scopeId: , collectionId: , vbuckets: 1 Crc64: 0 snapType NO_SNAP OpenOSOSnap false -\n" +
			"    {vbno, vbuuid, manifest, seqno, snapshot-start, snapshot-end}\n" +
			"    {  141     46674030171a 0       4109       4109       4109}\n" +
			"2022-07-21T17:39:20.002-07:00 [Info] StorageMgr::rollbackAllToZero MAINT_STREAM test3\n",
		want: []want{
			{Kind: StorageRB, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM"}},
			{Kind: RollbackTS, Line: 3, VB: 141, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "seqno": "4109", "vbuuid": "77409272469274"}},
			{Kind: RollbackToZero, Line: 4, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"stream": "MAINT_STREAM", "keyspace": "test3"}},
		},
	}, {
		name: "6.5 storage rollback names the bucket in the timestamp",
		input: "2020-01-10T08:00:00.000+00:00 [Info] StorageMgr::handleRollback rollbackTs is bucket: default, vbuckets: 1 Crc64: 0 snapType NO_SNAP -\n" +
			"    {vbno, vbuuid, seqno, snapshot-start, snapshot-end}\n" +
			"    {    7     b748f2b1a25f       5813       5813       5813}\n",
		want: []want{
			{Kind: StorageRB, Line: 1, VB: forensics.NoVB, Bucket: "default", Attrs: map[string]string{"stream": ""}},
			{Kind: RollbackTS, Line: 3, VB: 7, Bucket: "default", Attrs: map[string]string{"seqno": "5813", "vbuuid_hex": "b748f2b1a25f"}},
		},
	}, {
		name:  "conn error with one vbucket",
		input: "2022-07-21T17:39:12.200-07:00 [Info] TK ConnError MAINT_STREAM test3 [141]\n",
		want:  []want{{Kind: ConnError, Line: 1, VB: 141, Bucket: "test3", Attrs: map[string]string{"vbuckets": "141"}}},
	}, {
		name:  "conn error with several vbuckets",
		input: "2022-07-21T17:39:12.200-07:00 [Info] TK ConnError MAINT_STREAM test3 [140 141 512]\n",
		want:  []want{{Kind: ConnError, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"vbuckets": "140 141 512", "stream": "MAINT_STREAM"}}},
	}, {
		name:  "a projector refuses a vbucket restart",
		input: "2022-07-21T17:39:16.900-07:00 [Error] KVSender::restartVbuckets MAINT_STREAM test3 Error Received feed.invalidBucket from 172.23.100.15:9999\n",
		want: []want{{Kind: ProjectorError, Line: 1, VB: forensics.NoVB, Bucket: "test3", Attrs: map[string]string{"op": "restartVbuckets", "error": "feed.invalidBucket",
			"projector": "172.23.100.15:9999", "kv_host": "172.23.100.15"}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsertest.Expect(t, parse(tt.input), tt.want)
		})
	}
}

// Lines that look like the events' but are other templates, and the
// indexer's everyday noise: none is an event or an error.
func TestNotEvents(t *testing.T) {
	input := strings.Join([]string{
		`2022-07-21T17:39:16.284-07:00 [Info] Indexer::startKeyspaceIdStream Nothing to Start. Stream: MAINT_STREAM KeyspaceId: test3`,
		`2022-07-21T17:39:16.284-07:00 [Info] Indexer::handleKVStreamRepair Skip KVStreamRepair MAINT_STREAM test3 1`,
		`2022-07-21T17:39:16.284-07:00 [Warn] Indexer::handleKVStreamRepair Skipped Repair Stream MAINT_STREAM KeyspaceId test3 SessionId 1`,
		`2022-07-21T17:39:17.712-07:00 [Warn] Timekeeper::handleStreamBegin StreamBegin UNKNOWN_COLLECTION for StreamId INIT_STREAM KeyspaceId b:s:c vbucket 7`,
		`2022-07-21T17:39:17.712-07:00 [Warn] Timekeeper::handleStreamBegin Ignore StreamBegin for StreamId MAINT_STREAM KeyspaceId test3. SessionId 1. Current Session 2 `,
		`2022-07-21T17:39:17.712-07:00 [Info] Timekeeper::handleStreamBegin start repairStream. StreamId MAINT_STREAM MutationMeta &{test3 141 77409272469274 4109 false 2 1}`,
		`2022-07-21T17:39:17.712-07:00 [Info] Timekeeper::repairStream Found Stream MAINT_STREAM KeyspaceId test3 In State 3. Skipping Repair.`,
		`2022-07-21T17:39:20.001-07:00 [Info] StorageMgr::handleRollback 14467360447212374216 latestSnapInfo <nil> lastRollbackTs <nil>. Use latest snapshot.`,
		`2022-07-21T17:39:20.001-07:00 [Info] StorageMgr::handleRollback Rollback Index: 14467360447212374216 PartitionId: 0 SliceId: 0 To Snapshot <nil> `,
		`2022-07-21T17:39:16.900-07:00 [Error] KVSender::restartVbuckets MAINT_STREAM test3 Error in fetching cluster info dial tcp: i/o timeout`,
		`2022-07-21T17:39:16.900-07:00 [Info] KVSender::openMutationStream MAINT_STREAM test3 Projector 172.23.100.16:9999 Rollback Received pool:"default" bucket:"test3"`,
		`2022-07-21T17:39:12.111-07:00 [Verbose] TK SystemEvent MAINT_STREAM test3 141 77409272469274 4170 1 1 0`,
		`2022-07-21T17:40:00.000-07:00 [Info] PeriodicStats = {"avg_resident_percent":100,"cpu_utilization":4.5,"test3:idx1:num_docs_indexed":1024}`,
		`2022-07-21T17:40:00.000-07:00 [Info] plasmaSlice 14467360447212374216:0 mutation rate 0.00 drain rate 0.00 saturateCount 0 minimum drain rate 0.00`,
		`    {  141     46674030171a 0       4168       4163       4168}`,
		`2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer) eq_dcpq:secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1 - (vb:141) Stream request requires rollback to seqno:4109`,
		`[ns_server:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.1.0>:ns_log:consume_log:76]TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168`,
		`2022-07-21T17:39:12.111-07:00 [INFO] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168`,
		`2022-07-21T17:39:12.111-07:00 TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168`,
		`goroutine 1 [running]:`,
		``,
	}, "\n")
	res := parse(input)
	if len(res.Events) > 0 || len(res.Errors) > 0 {
		t.Fatalf("got events %v errors %v", res.Kinds(), res.Errors)
	}
	// The GSI lines have their time; the memcached, ns_server, upper-case and
	// level-less lines are not in this grammar and continue the entry.
	for i, st := range res.Stamps {
		header := i < 14
		if st.IsZero() == header {
			t.Errorf("line %d: stamp %v, want a stamp %v", i+1, st, header)
		}
	}
}

func TestMalformed(t *testing.T) {
	for _, line := range []string{
		`2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274`,
		`2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 vb141 77409272469274 4168`,
		`2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 70000 77409272469274 4168`,
		`2022-07-21T17:39:17.712-07:00 [Info] TK StreamBegin MAINT_STREAM test3 141 77409272469274 4109 1 172.23.100.15:8091. HWT [4163,4168].`,
		`2022-07-21T17:39:17.712-07:00 [Info] TK StreamBegin MAINT_STREAM test3 141`,
		`2022-07-21T17:39:17.712-07:00 [Warn] Timekeeper::handleStreamBegin StreamBegin rollback for StreamId MAINT_STREAM KeyspaceId test3 vbucket 141. Rollback (4109, zz). `,
		`2022-07-21T17:39:17.712-07:00 [Warn] Timekeeper::handleStreamBegin StreamBegin rollback for StreamId MAINT_STREAM KeyspaceId test3 vbucket 141.`,
		`2022-07-21T17:39:19.500-07:00 [Info] Timekeeper::repairStream need rollback for MAINT_STREAM test3. Sending Init Prepare.`,
		`2022-07-21T17:39:16.284-07:00 [Info] Indexer::handleKVStreamRepair Initiate Stream Repair MAINT_STREAM Keyspace test3 StreamId 1`,
		`2022-07-21T17:39:16.284-07:00 [Info] Indexer::startKeyspaceIdStream Stream: MAINT_STREAM KeyspaceId: test3 SessionId 2`,
		`2022-07-21T17:39:12.200-07:00 [Info] TK ConnError MAINT_STREAM test3 141`,
	} {
		res := parse(line)
		if len(res.Errors) != 1 || len(res.Events) != 0 {
			t.Errorf("%s\ngot %d errors %v and events %v, want one error", line, len(res.Errors), res.Errors, res.Kinds())
			continue
		}
		if msg := res.Errors[0].Err.Error(); msg == "" || msg[0] < 'a' || msg[0] > 'z' {
			t.Errorf("error %q does not start lowercase", msg)
		}
		if res.Stamps[0].IsZero() {
			t.Errorf("%s: a malformed message still has its time", line)
		}
	}
	// A broken row is reported and the rows after it are still read.
	res := parse("2022-07-21T17:39:16.284-07:00 [Info] Indexer::startKeyspaceIdStream Stream: MAINT_STREAM KeyspaceId: test3 SessionId 2 RestartTS bucket: test3, vbuckets: 2 -\n" +
		"    {  140     9b30ac28ee3f 0       4207}\n" +
		"    {  141     46674030171a 0       4168       4163       4168}\n")
	if len(res.Errors) != 1 || res.Errors[0].Line != 2 || len(res.OfKind(RestartTS)) != 1 {
		t.Errorf("got errors %v, events %v; want an error on line 2 and the row on line 3", res.Errors, res.Kinds())
	}
}

func TestDetect(t *testing.T) {
	indexerHead := "2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168\n" +
		"2022-07-21T17:40:00.000-07:00 [Info] PeriodicStats = {\"cpu_utilization\":4.5}\n"
	projectorHead := "2022-07-21T17:39:17.707-07:00 [Info] FEED[<=>MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd(127.0.0.1:8091)] ##1 feed started ...\n" +
		"2022-07-21T17:39:17.707-07:00 [Info] KVDT[<-test3<-127.0.0.1:8091 #MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd] ##1 started, uuid: 1234 ...\n"
	aleHead := "[ns_server:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.1.0>:ns_log:consume_log:76]Service 'memcached' exited with status 137.\n"
	memcachedHead := "2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer) eq_dcpq:x - (vb:141) Stream request requires rollback to seqno:4109\n"
	cbcollectBlock := strings.Repeat("=", 78) + "\nIndexer logs\ncbbrowse_logs indexer.log\n" + strings.Repeat("=", 78) + "\n"
	for _, tt := range []struct {
		name, head string
		min, max   int
	}{
		{"ns_server.indexer.log", cbcollectBlock + indexerHead, 95, 95},
		{"indexer.log", indexerHead, 95, 95},
		{"indexer.log.3", indexerHead, 95, 95},
		{"indexer.log", "", 50, 50},
		{"indexer.log.bak", indexerHead, 80, 80},
		{"node1.txt", indexerHead, 80, 80},
		{"node1.txt", projectorHead, 1, 40},
		{"ns_server.debug.log", aleHead, 0, 0},
		{"memcached.log", memcachedHead, 0, 0},
		{"ns_server.projector.log", projectorHead, 1, 40},
	} {
		if got := Format.Detect(tt.name, []byte(tt.head)); got < tt.min || got > tt.max {
			t.Errorf("Detect(%q) = %d, want %d..%d", tt.name, got, tt.min, tt.max)
		}
	}
}

// The indexer names its build once it is up (trinity, morpheus).
func TestRelease(t *testing.T) {
	p := Format.New(forensics.Origin{Name: "ns_server.indexer.log"})
	for i, l := range []string{
		"2025-10-21T09:12:44.771-07:00 [Info] Indexer::indexer version 10 with priority 8.0.0-3777 (8000037) PRODUCT_VERSION - 8.0.0-3777",
		"2025-10-21T09:12:44.772-07:00 [Info] Indexer::indexer version 10 with priority  (0) PRODUCT_VERSION - 0.0.0-0000",
	} {
		p.Line(int64(i+1), []byte(l), func(*forensics.Event) {})
	}
	if got := p.(forensics.Releaser).Release(); got != "8.0.0-3777" {
		t.Errorf("release = %q, want 8.0.0-3777 (a build without a version says nothing)", got)
	}
}
