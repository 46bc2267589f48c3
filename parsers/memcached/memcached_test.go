package memcached

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/logtime"
	"forensics/parsers/parsertest"
)

var origin = forensics.Origin{Path: "cbcollect_info_ns_1@172.23.100.15_20220722-004733/memcached.log", Name: "memcached.log", Node: "ns_1@172.23.100.15"}

// The real line from the incident seed (MB-53075).
const seedRollback = `2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer) eq_dcpq:secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1 - (vb:141) Stream request requires rollback to seqno:4109 because consumer ahead of producer - producer upper at 4109. Client requested seqnos:{4168,18446744073709551615} snapshot:{4163,4168} uuid:77409272469274`

const projector = "secidx:proj-test3-MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd-2556451229124417097/1"
const replication = "replication:ns_1@node1.example->ns_1@node2.example:default"

func parse(t *testing.T, lines ...string) parsertest.Result {
	t.Helper()
	res := parsertest.Parse(Format, origin, []byte(strings.Join(lines, "\n")+"\n"))
	for _, err := range res.Errors {
		t.Errorf("unexpected error: %v", err)
	}
	return res
}

func TestSeedRollback(t *testing.T) {
	res := parse(t, seedRollback)
	if len(res.Events) != 1 {
		t.Fatalf("got %d events, want 1: %+v", len(res.Events), res.Events)
	}
	e := res.Events[0]
	if e.Kind != StreamRollback || e.Bucket != "test3" || e.VB != 141 || e.Line != 1 || e.Text != seedRollback {
		t.Errorf("got %s bucket=%q vb=%d line=%d", e.Kind, e.Bucket, e.VB, e.Line)
	}
	want := map[string]string{
		"conn_id":        "382",
		"consumer":       projector,
		"consumer_kind":  "projector",
		"rollback_seqno": "4109",
		"reason":         "consumer ahead of producer - producer upper at 4109",
		"req_start":      "4168",
		"req_end":        "18446744073709551615",
		"snap_start":     "4163",
		"snap_end":       "4168",
		"uuid":           "77409272469274",
	}
	checkAttrs(t, e, want)
	if len(e.Attrs) != len(want) {
		t.Errorf("attrs %v, want exactly %v", e.Attrs, want)
	}
	wantTime := time.Date(2022, 7, 22, 0, 39, 17, 706652000, time.UTC)
	if !e.Time.Equal(wantTime) || e.Offset != -7*3600 || e.Zone != forensics.ZoneLogged {
		t.Errorf("stamp %v offset %d zone %v, want %v -07:00 logged", e.Time, e.Offset, e.Zone, wantTime)
	}
}

func checkAttrs(t *testing.T, e forensics.Event, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got := e.Attr(forensics.AttrKey(k))
		if v == "-" {
			if got != "" {
				t.Errorf("%s: attr %s = %q, want none", e.Kind, k, got)
			}
			continue
		}
		if got != v {
			t.Errorf("%s: attr %s = %q, want %q", e.Kind, k, got, v)
		}
	}
}

// One line, one event (or none). Lines follow the templates of kv_engine
// v7.0.0, v7.1.1, v7.2.9 and v7.6.x; names and numbers are made up.
func TestLines(t *testing.T) {
	const ts = "2022-07-21T17:39:13.601029-07:00 "
	tests := []struct {
		name   string
		line   string
		kind   forensics.Kind // "" = no event
		bucket string
		vb     int
		attrs  map[string]string // "-" = must be absent
	}{
		{"log opened", ts + "INFO ---------- Opening logfile: ", LogOpened, "", -1, nil},
		{"log closed", ts + "INFO ---------- Closing logfile", LogClosed, "", -1, nil},
		{"start", ts + "INFO Couchbase version 7.1.1-3175-enterprise starting.", Start, "", -1,
			map[string]string{"version": "7.1.1-3175-enterprise", "unclean": "-"}},
		{"shutdown 7.1", ts + "INFO Initiating graceful shutdown.", Shutdown, "", -1, map[string]string{"sigterm": "-"}},
		{"shutdown 7.6", ts + "INFO Initiating graceful shutdown. sigint:false sigterm:true", Shutdown, "", -1,
			map[string]string{"sigint": "false", "sigterm": "true"}},
		{"bucket create 7.1", ts + "INFO 47: Create Couchbase bucket [test3]", BucketCreate, "test3", -1,
			map[string]string{"type": "Couchbase", "conn_id": "47"}},
		{"bucket create 7.0", ts + "INFO 47: Create bucket [default]", BucketCreate, "default", -1, map[string]string{"type": "-"}},
		{"bucket create failed 7.0", ts + "ERROR 47: Create bucket [default] failed - Already exists", "", "", -1, nil},
		{"bucket create failed 7.6", ts + "ERROR 47: Create bucket [default] failed - key_already_exists", "", "", -1, nil},
		{"bucket created", ts + "INFO 47: Bucket [test3] created successfully", BucketCreated, "test3", -1, nil},
		{"bucket delete", ts + "INFO 47: Delete bucket [test3]. Notifying engine", "", "", -1, nil},
		{"warmup start 7.1", ts + "INFO (test3) Collections::Manager::warmupLoadManifest: starting at uid:0x2", WarmupStart, "test3", -1,
			map[string]string{"manifest_uid": "0x2", "force": "-"}},
		{"warmup start 7.0", ts + "INFO (default) Collections::Manager::warmupLoadManifest: starting at uid:0x0 force:false", WarmupStart, "default", -1,
			map[string]string{"manifest_uid": "0x0", "force": "false"}},
		{"failover entry unclean", ts + "INFO (test3) Warmup::createVBuckets: vb:141 created new failover entry with uuid:198475390723419 and seqno:4109 due to unclean shutdown", FailoverEntry, "test3", 141,
			map[string]string{"uuid": "198475390723419", "seqno": "4109", "reason": "unclean shutdown", "origin": "Warmup::createVBuckets"}},
		{"failover entry manifest", ts + "INFO (default) Warmup::createVBuckets: vb:7 created new failover entry with uuid:55189217392712 and seqno:0 due to manifest uid", FailoverEntry, "default", 7,
			map[string]string{"reason": "manifest uid", "seqno": "0"}},
		{"failover entry promotion", ts + "INFO (default) KVBucket::setVBucketState: vb:7 created new failover entry with uuid:240514917766451 and seqno:12", FailoverEntry, "default", 7,
			map[string]string{"uuid": "240514917766451", "seqno": "12", "reason": "-", "origin": "KVBucket::setVBucketState"}},
		{"set state blocking", ts + "INFO (default) KVBucket::setVBucketState blocking vb:7, to:active, transfer:false, cookie:0x7f2a5c0e8d00", "", "", -1, nil},
		{"unblock 7.1", ts + "INFO (test3) Warmup::processCreateVBucketsComplete unblocking 2 cookie(s)", WarmupUnblock, "test3", -1,
			map[string]string{"cookies": "2", "status": "-"}},
		{"unblock 7.6", ts + "INFO (default) Warmup::notifyWaitingCookies unblocking 1 cookie(s) status:success", WarmupUnblock, "default", -1,
			map[string]string{"cookies": "1", "status": "success"}},
		{"enough items", ts + "INFO (test3) Enough number of items loaded to enable traffic (value eviction): warmedUpValues(1024) >= (warmedUpKeys(1024) * warmupNumReadCap(1))", WarmupEnough, "test3", -1,
			map[string]string{"criterion": "number of items"}},
		{"enough memory", ts + "INFO (default) Enough MB of data loaded to enable traffic: memoryUsed (9.4e+07) > (maxSize(1.048576e+08) * warmupMemUsedCap(0.5))", WarmupEnough, "default", -1,
			map[string]string{"criterion": "MB of data"}},
		{"low water mark", ts + "INFO (default) Total memory use reached to the low water mark, stop warmup: memoryUsed (7.9e+07) >= low water mark (78643200)", WarmupEnough, "default", -1,
			map[string]string{"criterion": "low water mark"}},
		{"warmup completed", ts + "INFO (test3) Warmup completed: 1024 keys and 1024 values loaded in 6817 ms (150 keys/s), mem_used now at 24.3571 MB (3.57296 MB/s)", WarmupComplete, "test3", -1,
			map[string]string{"keys": "1024", "values": "1024", "duration": "6817 ms"}},
		{"metadata loaded", ts + "INFO (test3) metadata loaded in 212 ms", "", "", -1, nil},
		{"traffic cmd 7.1", ts + "INFO (test3) EventuallyPersistentEngine::handleTrafficControlCmd() Data traffic to persistence engine is enabled", TrafficEnabled, "test3", -1, nil},
		{"traffic flip alone 7.1", ts + "INFO (test3) EventuallyPersistentEngine::enableTraffic() result true", "", "", -1, nil},
		{"traffic 7.6", ts + "INFO (default) EventuallyPersistentEngine::enableTraffic: Traffic successfully enabled", TrafficEnabled, "default", -1, nil},
		{"traffic off 7.6", ts + "INFO (default) EventuallyPersistentEngine::enableTraffic: Traffic successfully disabled", TrafficDisabled, "default", -1, nil},
		{"traffic already 7.6", ts + "WARNING (default) EventuallyPersistentEngine::enableTraffic: Failed to enable traffic - traffic was already enabled", "", "", -1, nil},
		{"vb state", ts + "INFO (test3) VBucket::setState: transitioning vb:141 with high seqno:4109 from:active to:dead", VBState, "test3", 141,
			map[string]string{"high_seqno": "4109", "from": "active", "to": "dead", "meta": "-"}},
		{"vb state meta", ts + `INFO (default) VBucket::setState: transitioning vb:7 with high seqno:0 from:replica to:active meta:{"topology":[["ns_1@node1.example","ns_1@node2.example"]]}`, VBState, "default", 7,
			map[string]string{"from": "replica", "to": "active", "meta": `{"topology":[["ns_1@node1.example","ns_1@node2.example"]]}`}},
		{"vb state no engine", ts + "INFO (No Engine) VBucket::setState: transitioning vb:3 with high seqno:0 from:dead to:replica", VBState, "", 3, nil},
		{"created 7.1", ts + "INFO 382: (test3) DCP (Producer) eq_dcpq:" + projector + " - (vb:140) Creating stream with start seqno 4000 and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{3990,4000} collections-filter-size:0 sid:none", StreamCreated, "test3", 140,
			map[string]string{"consumer": projector, "consumer_kind": "projector", "conn_id": "382", "start_seqno": "4000", "end_seqno": "18446744073709551615",
				"requested_end_seqno": "18446744073709551615", "snap_start": "3990", "snap_end": "4000", "takeover": "false", "sid": "-", "flags": "-"}},
		{"created 7.0", ts + "INFO 90: (default) DCP (Producer) eq_dcpq:" + replication + " - (vb:7) Creating stream with start seqno 0 and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, collections-filter-size:0 sid:none", StreamCreated, "default", 7,
			map[string]string{"consumer": replication, "consumer_kind": "replication", "start_seqno": "0", "snap_start": "-", "snap_end": "-"}},
		{"created takeover 7.6", ts + "INFO 91: (default) DCP (Producer) eq_dcpq:" + replication + " - (vb:7) Creating takeover stream with start seqno 12 and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, flags:1, snapshot:{12,12} filter:{passthrough, size:0}, sid:none", StreamCreated, "default", 7,
			map[string]string{"takeover": "true", "flags": "1", "snap_start": "12", "snap_end": "12", "sid": "-"}},
		{"created sid", ts + "INFO 93: (default) DCP (Producer) eq_dcpq:xdcr:dcp_f58e0727200a19771e4459925908dd66/default/target_10.17.2.102:12000_0 - (vb:7) (sid:3) Creating stream with start seqno 5 and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{5,5} collections-filter-size:1 sid:3", StreamCreated, "default", 7,
			map[string]string{"consumer_kind": "xdcr", "sid": "3"}},
		{"created deleted conn", ts + "INFO (default) DCP (Producer): **Deleted conn**(vb:7) Creating stream with start seqno 5 and end seqno 9; requested end seqno was 9, snapshot:{5,5} collections-filter-size:0 sid:none", StreamCreated, "default", 7,
			map[string]string{"consumer": "-", "consumer_kind": "-", "end_seqno": "9"}},
		{"rollback no history sid", ts + "WARNING 91: (default) DCP (Producer) eq_dcpq:fts:travel_3c5d7e_13aa53f3-2f4e1b9a - (vb:7) (sid:none) Stream request requires rollback to seqno:0 because vBucket UUID not found in failover table, consumer and producer have no common history. Client requested seqnos:{12,18446744073709551615} snapshot:{12,12} uuid:1234", StreamRollback, "default", 7,
			map[string]string{"consumer_kind": "fts", "rollback_seqno": "0", "reason": "vBucket UUID not found in failover table, consumer and producer have no common history", "uuid": "1234", "sid": "-"}},
		{"rollback purge", ts + "WARNING 92: (default) DCP (Producer) eq_dcpq:eventing:10.0.0.5:8096_10.0.0.1:11210_worker_0 - (vb:7) Stream request requires rollback to seqno:0 because purge seqno (100) is greater than start seqno - could miss purged deletions. Client requested seqnos:{50,18446744073709551615} snapshot:{50,50} uuid:55189217392712", StreamRollback, "default", 7,
			map[string]string{"consumer_kind": "eventing", "reason": "purge seqno (100) is greater than start seqno - could miss purged deletions", "req_start": "50"}},
		{"refused missing", ts + "WARNING 382: (test3) DCP (Producer) eq_dcpq:" + projector + " - (vb:141) Stream request failed because this vbucket doesn't exist", StreamRefused, "test3", 141,
			map[string]string{"reason": "this vbucket doesn't exist", "status": "not_my_vbucket", "consumer_kind": "projector"}},
		{"refused dead", ts + "WARNING 90: (default) DCP (Producer) eq_dcpq:" + replication + " - (vb:7) Stream request failed because this vbucket is in dead state", StreamRefused, "default", 7,
			map[string]string{"reason": "this vbucket is in dead state", "status": "not_my_vbucket"}},
		{"refused state 7.6", ts + "INFO 90: (default) DCP (Producer) eq_dcpq:" + replication + " - (vb:7) Stream request failed because the vbucket is in state:replica flags:16", StreamRefused, "default", 7,
			map[string]string{"status": "not_my_vbucket"}},
		{"refused exists", ts + "WARNING 90: (default) DCP (Producer) eq_dcpq:cbas:Local:default:12 - (vb:7) Stream (sid:2) request failed because a stream already exists for this vbucket", StreamRefused, "default", 7,
			map[string]string{"status": "key_already_exists", "sid": "2", "consumer_kind": "analytics"}},
		{"refused range global logger", ts + "WARNING (default) DCP (Producer) eq_dcpq:fts:idx_1a2b3c-4d5e6f - (vb:7) Stream request failed because the start seqno (10) is larger than the end seqno (5); Incorrect params passed by the DCP client", StreamRefused, "default", 7,
			map[string]string{"status": "out_of_range", "conn_id": "-"}},
		{"refused stream id", ts + "WARNING 94: (default) DCP (Producer) eq_dcpq:cbbackupmgr_2022-07-21T17:39:00-07:00_1234_0 - Stream request for vb:9 failed because a valid stream-ID is required.", StreamRefused, "default", 9,
			map[string]string{"status": "dcp_streamid_invalid", "reason": "a valid stream-ID is required.", "consumer_kind": "backup"}},
		{"refused collections", ts + "WARNING 95: (default) DCP (Producer) eq_dcpq:sg:db_import_1 - (vb:9) Stream request failed for filtered collections + sync-writes ", StreamRefused, "default", 9,
			map[string]string{"status": "not_supported", "consumer_kind": "sync_gateway", "reason": "for filtered collections + sync-writes"}},
		{"refused noop", ts + "WARNING 96: (default) DCP (Producer) eq_dcpq:java-dcp-client-1 - (vb:9) noop is mandatory for v5 features like xattrs and collections", StreamRefused, "default", 9,
			map[string]string{"status": "not_supported", "consumer_kind": "other"}},
		{"refused snapshot", ts + "INFO 96: (default) DCP (Producer) eq_dcpq:" + replication + " - (vb:9) Stream request failed because this vbucketis currently receiving its initial disk snapshot", StreamRefused, "default", 9,
			map[string]string{"status": "temporary_failure"}},

		// daemon/cookie.cc, 7.1–7.6 and 7.0; server_socket.cc, 7.1–7.6.
		{"slow op", ts + `WARNING 47: Slow operation: {"bucket":"test3","cid":"127.0.0.1:52372/0","command":"GET","duration":"1263 ms","packet":{"bodylen":10,"cas":0,"datatype":"raw","extlen":0,"key":"<ud>.doc1.</ud>","keylen":10,"magic":"ClientRequest","opaque":0,"opcode":"GET","vbucket":141},"peer":{"ip":"127.0.0.1","port":52372},"trace":"request=20221:1263","worker_tid":140213}`, SlowOp, "test3", -1,
			map[string]string{"opcode": "GET", "duration": "1263 ms", "duration_ms": "1263", "conn_id": "47", "peer": `{"ip":"127.0.0.1","port":52372}`, "status": ""}},
		{"slow op response", ts + `WARNING 2377: Slow operation: {"bucket":"sessions","cid":"10.9.0.5:46080/ef4e6","command":"SET","duration":"12 s","packet":{"bodylen":13,"cas":0,"datatype":"raw","extlen":8,"key":"<ud>key::547411</ud>","keylen":13,"magic":"ClientRequest","opaque":1862,"opcode":"SET","vbucket":486},"peer":{"ip":"10.9.0.5","port":45040},"response":"Etmpfail","trace":"request=706900566827747:12000619","worker_tid":7}`, SlowOp, "sessions", -1,
			map[string]string{"opcode": "SET", "duration_ms": "12000", "status": "Etmpfail"}},
		{"slow op 7.0", ts + `WARNING 53: Slow operation. {"cid":"10.0.0.7:57512/2a","duration":"10m:5s","trace":"request=113:605","command":"COMPACT_DB","peer":"{"ip":"10.0.0.7","port":57512}","bucket":"travel-sample","packet":{"bodylen":24,"cas":0,"datatype":"raw","extlen":24,"key":"<ud></ud>","keylen":0,"magic":"ClientRequest","opaque":42,"opcode":"COMPACT_DB","vbucket":7}}`, SlowOp, "travel-sample", -1,
			map[string]string{"opcode": "COMPACT_DB", "duration": "10m:5s", "duration_ms": "605000"}},
		{"connections exhausted", ts + "WARNING Shutting down client as we're running out of connections: 60001 of 60000", ConnRejected, "", -1,
			map[string]string{"conn_type": "user", "connections": "60001", "limit": "60000"}},
		{"system connections exhausted", ts + "WARNING Shutting down client as we're running out of connections on system interface: 5001 of 5000", ConnRejected, "", -1,
			map[string]string{"conn_type": "system", "connections": "5001", "limit": "5000"}},

		// Lines that must not become events.
		{"consumer attempt", ts + "INFO 61: (default) DCP (Consumer) eq_dcpq:" + replication + " - (vb:7) Attempting to add stream: opaque_:12, start_seqno_:0, end_seqno_:18446744073709551615, vb_uuid:0, snap_start_seqno_:0, snap_end_seqno_:0, last_seqno:0, stream_req_value:{\"uid\":\"0\"}", "", "", -1, nil},
		{"transition", ts + "INFO 382: (test3) DCP (Producer) eq_dcpq:" + projector + " - (vb:141) ActiveStream::transitionState: Transitioning from backfilling to in-memory", "", "", -1, nil},
		{"stream closing", ts + "WARNING 382: (test3) DCP (Producer) eq_dcpq:" + projector + " - (vb:141) Stream closing, sent until seqno 4200 remaining items 0, reason: The stream closed early because the conn was disconnected", "", "", -1, nil},
		{"paused", ts + "INFO (test3) DCP (Producer) eq_dcpq:" + projector + " - Notifying paused connection now that DcpProducer::BufferLog is no longer full; ackedBytes:1052, bytesSent:0, maxBytes:10485760", "", "", -1, nil},
		{"consumer open", ts + `INFO 61: DCP connection opened successfully. CONSUMER [ {"ip":"127.0.0.1","port":52314} - {"ip":"127.0.0.1","port":11209} (System, <ud>@ns_server</ud>) ]`, "", "", -1, nil},
		{"process id", ts + "INFO Process identifier: 23614", "", "", -1, nil},
		{"compaction", ts + "INFO (test3) Compaction of vb:141 done (ok). purged tombstones:0, prepares:0, prepareBytes:0 collection_items_erased:alive:0,deleted:0, collections_erased:0, size/items/tombstones/purge_seqno pre{1298, 5, 0, 0}, post{1298, 5, 0, 0}", CompactionDone, "test3", 141,
			map[string]string{"result": "Success", "purged_tombstones": "0", "size_before": "1298", "size_after": "1298"}},
		{"cluster config", ts + `INFO 47: [ {"ip":"127.0.0.1","port":52101} - {"ip":"127.0.0.1","port":11209} (System, <ud>@ns_server</ud>) ] Updated global cluster configuration. New revision: 1234`, "", "", -1, nil},
		{"version elsewhere", ts + `INFO 47: HELO [{"a":"Couchbase version 7.1.1 starting."}] XATTR, Snappy [ {"ip":"10.0.0.7","port":52372} - {"ip":"10.0.0.1","port":11210} (not authenticated) ]`, Hello, "", -1,
			map[string]string{"agent": "Couchbase version 7.1.1 starting.", "client_ip": "10.0.0.7", "version": "-", "user": "-"}},
		{"bucket name with space", ts + "INFO (my bucket) Warmup completed: 1 keys and 1 values loaded in 1 ms (1 keys/s), mem_used now at 1 MB (1 MB/s)", "", "", -1, nil},
		{"debug transition", ts + `DEBUG (test3) Warmup transition from state "initialize" to "creating vbuckets"`, "", "", -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parse(t, tt.line)
			if res.Stamps[0].IsZero() {
				t.Errorf("line has no stamp")
			}
			if tt.kind == "" {
				if len(res.Events) != 0 {
					t.Fatalf("got events %v, want none", res.Kinds())
				}
				return
			}
			if len(res.Events) != 1 {
				t.Fatalf("got events %v, want one %s", res.Kinds(), tt.kind)
			}
			e := res.Events[0]
			if e.Kind != tt.kind || e.Bucket != tt.bucket || e.VB != tt.vb {
				t.Errorf("got %s bucket=%q vb=%d, want %s bucket=%q vb=%d", e.Kind, e.Bucket, e.VB, tt.kind, tt.bucket, tt.vb)
			}
			if e.Text != tt.line || e.Line != 1 {
				t.Errorf("event text/line = %q/%d", e.Text, e.Line)
			}
			checkAttrs(t, e, tt.attrs)
		})
	}
}

func TestUncleanStart(t *testing.T) {
	const (
		open    = "2022-07-21T17:30:00.000001-07:00 INFO ---------- Opening logfile: "
		start   = "2022-07-21T17:30:00.000100-07:00 INFO Couchbase version 7.1.1-3175-enterprise starting."
		pid     = "2022-07-21T17:30:00.000110-07:00 INFO Process identifier: 23614"
		work    = "2022-07-21T17:35:00.000000-07:00 INFO 47: Bucket [test3] created successfully"
		closing = "2022-07-21T17:36:00.000000-07:00 INFO ---------- Closing logfile"
		grace   = "2022-07-21T17:36:00.000000-07:00 INFO Initiating graceful shutdown."
	)
	tests := []struct {
		name  string
		lines []string
		want  []string // unclean attr of each start; "-" = none
	}{
		{"single start", []string{open, start, pid, work}, []string{"-"}},
		{"killed", []string{open, start, pid, work, open, start, pid}, []string{"-", "true"}},
		{"graceful", []string{open, start, work, grace, work, closing, open, start}, []string{"-", "false"}},
		{"closed without shutdown line", []string{open, start, work, closing, open, start}, []string{"-", "false"}},
		{"graceful without close", []string{start, work, grace, open, start}, []string{"-", "false"}},
		{"killed after rotation", []string{open, start, work, closing, open, work, work, open, start}, []string{"-", "true"}},
		{"killed right after rotation", []string{open, start, work, closing, open, open, start}, []string{"-", "true"}},
		{"three processes", []string{open, start, work, open, start, grace, closing, open, start}, []string{"-", "true", "false"}},
		{"header block between", []string{open, start, work, closing,
			strings.Repeat("=", 78), "Memcached logs", "['sh', '-c', 'cd \"$1\"; for file in $(ls -tr memcached.log.*); do cat \"$file\"; done', '--', '/opt/couchbase/var/lib/couchbase/logs']", strings.Repeat("=", 78),
			open, start}, []string{"-", "false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parse(t, tt.lines...)
			starts := res.OfKind(Start)
			if len(starts) != len(tt.want) {
				t.Fatalf("got %d starts, want %d", len(starts), len(tt.want))
			}
			for i, e := range starts {
				got := e.Attr("unclean")
				if got == "" {
					got = "-"
				}
				if got != tt.want[i] {
					t.Errorf("start %d: unclean=%s, want %s", i+1, got, tt.want[i])
				}
			}
		})
	}
}

func TestTraffic(t *testing.T) {
	const (
		create   = "2022-07-21T17:39:13.501162-07:00 INFO 47: Create Couchbase bucket [test3]"
		created  = "2022-07-21T17:39:13.534611-07:00 INFO 47: Bucket [test3] created successfully"
		flip     = "2022-07-21T17:39:25.100001-07:00 INFO (test3) EventuallyPersistentEngine::enableTraffic() result true"
		enabled  = "2022-07-21T17:39:25.100002-07:00 INFO (test3) EventuallyPersistentEngine::handleTrafficControlCmd() Data traffic to persistence engine is enabled"
		other    = "2022-07-21T17:39:25.100003-07:00 INFO (other) EventuallyPersistentEngine::enableTraffic() result true"
		start    = "2022-07-21T17:39:30.000100-07:00 INFO Couchbase version 7.1.1-3175-enterprise starting."
		enabled6 = "2024-03-01T10:00:00.000001+00:00 INFO (test3) EventuallyPersistentEngine::enableTraffic: Traffic successfully enabled"
	)
	tests := []struct {
		name  string
		lines []string
		want  []string // kind@line
	}{
		{"enable command", []string{create, created, flip, enabled}, []string{"bucket_create@1", "bucket_created@2", "traffic_enabled@4"}},
		{"enable then disable", []string{create, created, flip, enabled, flip}, []string{"bucket_create@1", "bucket_created@2", "traffic_enabled@4", "traffic_disabled@5"}},
		{"enabled at initialize", []string{create, flip, created}, []string{"bucket_create@1", "traffic_enabled@2", "bucket_created@3"}},
		{"creation not seen", []string{flip, enabled}, []string{"traffic_enabled@2"}},
		{"disable of unknown state", []string{flip}, nil},
		{"other bucket", []string{create, created, flip, enabled, other}, []string{"bucket_create@1", "bucket_created@2", "traffic_enabled@4"}},
		{"restart forgets", []string{create, created, flip, enabled, start, flip}, []string{"bucket_create@1", "bucket_created@2", "traffic_enabled@4", "start@5"}},
		{"7.6", []string{enabled6}, []string{"traffic_enabled@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parse(t, tt.lines...)
			var got []string
			for _, e := range res.Events {
				got = append(got, fmt.Sprintf("%s@%d", strings.TrimPrefix(string(e.Kind), "memcached."), e.Line))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDCPProducer(t *testing.T) {
	const (
		openProj = `2022-07-21T17:39:17.100000-07:00 INFO 382: DCP connection opened successfully. PRODUCER, INCLUDE_XATTRS [ {"ip":"127.0.0.1","port":52372} - {"ip":"127.0.0.1","port":11209} (System, <ud>@projector</ud>) ]`
		openRepl = `2022-07-21T17:39:17.200000-07:00 INFO 400: DCP connection opened successfully. PRODUCER, INCLUDE_XATTRS, DELETE_TIMES [ {"ip":"10.0.0.2","port":40112} - {"ip":"10.0.0.1","port":11209} (System, <ud>@ns_server</ud>) ]`
		openLDAP = `2022-07-21T17:39:17.300000-07:00 INFO 401: DCP connection opened successfully. PRODUCER [ {"ip":"10.0.0.9","port":40113} - {"ip":"10.0.0.1","port":11210} (<ud>alice</ud> (LDAP)) ]`
		other    = "2022-07-21T17:39:17.400000-07:00 INFO 47: Bucket [test3] created successfully"
		replLine = "2022-07-21T17:39:17.500000-07:00 INFO 400: (default) DCP (Producer) eq_dcpq:" + replication + " - (vb:7) ActiveStream::transitionState: Transitioning from backfilling to in-memory"
		start    = "2022-07-21T17:39:30.000100-07:00 INFO Couchbase version 7.1.1-3175-enterprise starting."
	)
	res := parse(t, openProj, openRepl, other, replLine, seedRollback, openLDAP, start)
	var got []string
	for _, e := range res.Events {
		got = append(got, fmt.Sprintf("%s@%d", strings.TrimPrefix(string(e.Kind), "memcached."), e.Line))
	}
	want := "bucket_created@3 dcp_producer@2 dcp_producer@1 stream_rollback@5 dcp_producer@6 start@7"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	repl, proj, ldap := res.Events[1], res.Events[2], res.Events[4]
	if repl.Bucket != "default" || repl.Text != openRepl || repl.Time.Nanosecond() != 200000000 {
		t.Errorf("replication producer: bucket %q, text %q, time %v", repl.Bucket, repl.Text, repl.Time)
	}
	checkAttrs(t, repl, map[string]string{"conn_id": "400", "consumer": replication, "consumer_kind": "replication",
		"flags": "PRODUCER, INCLUDE_XATTRS, DELETE_TIMES", "peer": `{"ip":"10.0.0.2","port":40112}`, "user": "System, <ud>@ns_server</ud>"})
	if proj.Bucket != "test3" {
		t.Errorf("projector producer bucket %q", proj.Bucket)
	}
	checkAttrs(t, proj, map[string]string{"conn_id": "382", "consumer": projector, "consumer_kind": "projector", "flags": "PRODUCER, INCLUDE_XATTRS"})
	// Never named before the process restarted: emitted without a consumer.
	if ldap.Bucket != "" {
		t.Errorf("unnamed producer bucket %q", ldap.Bucket)
	}
	checkAttrs(t, ldap, map[string]string{"conn_id": "401", "consumer": "-", "consumer_kind": "-", "flags": "PRODUCER", "user": "<ud>alice</ud> (LDAP)"})

	// A connection never named is emitted at the end.
	res = parse(t, openLDAP, other)
	if k := res.Kinds(); len(k) != 2 || k[1] != DCPProducer || res.Events[1].Line != 1 {
		t.Errorf("got %v", k)
	}
}

func TestContinuationAndHeader(t *testing.T) {
	res := parse(t,
		strings.Repeat("=", 78),
		"Memcached logs",
		`['sh', '-c', 'cd "$1"; for file in $(ls -tr memcached.log.*); do cat "$file"; done', '--', '/opt/couchbase/var/lib/couchbase/logs']`,
		strings.Repeat("=", 78),
		"2022-07-21T17:39:12.421907-07:00 INFO ---------- Opening logfile: ",
		"2022-07-21T17:39:12.500000-07:00 CRITICAL Breakpad caught a crash (Couchbase version 7.1.1-3175). Writing crash dump to /opt/couchbase/var/lib/couchbase/crash/2c3fe9a1.dmp before terminating.",
		"2022-07-21T17:39:12.500001-07:00 CRITICAL Stack backtrace of crashed thread:",
		"    /opt/couchbase/bin/memcached() [0x400000+0x13b0d2]",
		"2022-07-21 error text without the T",
		"",
	)
	for i, st := range res.Stamps {
		stamped := i == 4 || i == 5 || i == 6
		if st.IsZero() == stamped {
			t.Errorf("line %d: stamp %v", i+1, st.Time)
		}
	}
	// The crash report's frame is a line of its own (no time): the crash
	// ends with the file.
	if k := res.Kinds(); len(k) != 2 || k[0] != LogOpened || k[1] != BreakpadCrash || res.Events[1].Attr(AttrTopFrame) != "" {
		t.Errorf("events %v", k)
	}
}

func TestErrors(t *testing.T) {
	input := strings.Join([]string{
		"2022-13-21T17:39:12.421907-07:00 INFO Couchbase version 7.1.1 starting.",
		"2022-07-21T17:39:12.421907-07:00",
		"2022-07-21T17:39:12.421907-07:00 NOTICE something",
		"2022-07-21T17:39:12.421907-07:00 INFO Couchbase version  starting",
		"2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer) eq_dcpq:" + projector + " - (vb:141) Stream request requires rollback to seqno:4109 because consumer ahead of producer - producer upper at 4109. Client requested seqnos:{4168,18446",
		"2022-07-21T17:39:17.706652-07:00 INFO 382: (test3) DCP (Producer) eq_dcpq:" + projector + " - (vb:140) Creating stream with start seqno 4000 and end seqno ",
		seedRollback,
	}, "\n")
	res := parsertest.Parse(Format, origin, []byte(input))
	var lines []int64
	for _, err := range res.Errors {
		lines = append(lines, err.Line)
		if msg := err.Err.Error(); msg == "" || strings.ToLower(msg[:1]) != msg[:1] {
			t.Errorf("error %q is not lowercase", msg)
		}
	}
	if fmt.Sprint(lines) != "[1 2 3 4 5 6]" {
		t.Errorf("errors on lines %v (%v), want 1-6", lines, res.Errors)
	}
	if k := res.Kinds(); len(k) != 1 || k[0] != StreamRollback || res.Events[0].Line != 7 {
		t.Errorf("events %v, want the rollback on line 7", k)
	}
	if !res.Stamps[0].IsZero() || res.Stamps[1].IsZero() {
		t.Errorf("stamps: bad date %v, bare timestamp %v", res.Stamps[0], res.Stamps[1])
	}
}

func TestDetect(t *testing.T) {
	mc := []byte("2022-07-21T17:39:12.421907-07:00 INFO ---------- Opening logfile: \n2022-07-21T17:39:12.422310-07:00 INFO Couchbase version 7.1.1-3175-enterprise starting.\n")
	plain := []byte("2022-07-21T17:39:12.421907-07:00 INFO 47: something\n2022-07-21T17:39:12.421908-07:00 WARNING 47: something else\n")
	header := []byte(strings.Repeat("=", 78) + "\nMemcached logs\n")
	indexer := []byte("2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168\n")
	goxdcr := []byte("2022-07-21T17:39:12.111-07:00 INFO GOXDCR.PipelineMgr: Replication status is updated\n")
	ale := []byte("[ns_server:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.1.0>:ns_log:consume_log:76]Service 'memcached' exited with status 137.\n")
	tests := []struct {
		name string
		head []byte
		min  int
		max  int
	}{
		{"memcached.log", mc, 95, 100},
		{"memcached.log.000012.txt", plain, 95, 100},
		{"memcached.log", header, 40, 60},
		{"renamed.txt", mc, 85, 94},
		{"renamed.txt", plain, 50, 70},
		{"indexer.log", indexer, 0, 0},
		{"goxdcr.log", goxdcr, 0, 0},
		{"ns_server.info.log", ale, 0, 0},
		{"memcached.log", ale, 40, 60},
	}
	for _, tt := range tests {
		got := Format.Detect(tt.name, tt.head)
		if got < tt.min || got > tt.max {
			t.Errorf("Detect(%s, %.30q) = %d, want %d..%d", tt.name, tt.head, got, tt.min, tt.max)
		}
	}
}

// The minute shortcut must read every timestamp as logtime.ISO does.
func TestStampShortcut(t *testing.T) {
	lines := strings.Split(string(benchInput(3000)), "\n")
	lines = append(lines,
		"2022-07-21T17:39:59.999999-07:00 INFO a",
		"2022-07-21T17:39:60.000000-07:00 INFO leap",
		"2022-07-21T17:39:07.5-07:00 INFO short fraction",
		"2022-07-21T17:39:07.500000+05:30 INFO other zone",
		"2022-07-21T17:39:07.500000+05:30 INFO same",
		"2022-07-21T17:39:17.12345678901Z INFO long fraction",
		"2022-07-21T17:39:18.99999978901Z INFO long fraction",
		"2022-07-21T17:39:1x.500000+05:30 INFO bad",
		"2022-07-21 17:39:19.500000+05:30 INFO space",
	)
	p := newParser(origin).(*parser)
	for _, l := range lines {
		got, gn, gok := p.stamp([]byte(l))
		want, wn, wok := logtime.ISO([]byte(l))
		if gn != wn || gok != wok || !got.Time.Equal(want.Time) || got.Offset != want.Offset || got.Zone != want.Zone {
			t.Errorf("%.40q: got %v %d %v, want %v %d %v", l, got, gn, gok, want, wn, wok)
		}
	}
}

func TestKindsDocumented(t *testing.T) {
	for _, k := range Format.Kinds {
		if !strings.HasPrefix(string(k.Kind), "memcached.") || k.Doc == "" {
			t.Errorf("kind %q doc %q", k.Kind, k.Doc)
		}
	}
}

// Lines that are not events must not allocate.
func TestNoAllocPlainLines(t *testing.T) {
	checkNoAllocPlain(t, benchInput(300))
}

// checkNoAllocPlain feeds the plain lines of in to one parser, after the
// lines in warmup, and fails on any allocation.
func checkNoAllocPlain(t *testing.T, in []byte, warmup ...string) {
	t.Helper()
	var plain [][]byte
	for _, l := range strings.Split(string(in), "\n") {
		res := parsertest.Parse(Format, origin, []byte(l))
		if len(res.Events) == 0 && len(res.Errors) == 0 {
			plain = append(plain, []byte(l))
		}
	}
	if len(plain) < 100 {
		t.Fatalf("only %d plain lines", len(plain))
	}
	p := Format.New(origin)
	n := int64(0)
	for _, l := range warmup {
		n++
		p.Line(n, []byte(l), func(*forensics.Event) {})
	}
	emit := func(*forensics.Event) { t.Fatal("plain line emitted an event") }
	allocs := testing.AllocsPerRun(20, func() {
		for i, l := range plain {
			p.Line(n+int64(i+1), l, emit)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass over %d plain lines", allocs, len(plain))
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(seedRollback))
	f.Add(benchInput(40))
	f.Add([]byte("2022-07-21T17:39:17.1-07:00 INFO 1: (a) DCP (Producer) eq_dcpq:x - (vb:1) (sid:"))
	f.Add([]byte("2022-07-21T17:39:17.100000-07:00 INFO 9: DCP connection opened successfully. PRODUCER [ a - b (c) ]\n2022-07-21T17:39:17.100000-07:00 INFO 9: (b) DCP (Producer) eq_dcpq:y - x"))
	// The 8.0 form: message, then a JSON context (whole, cut, odd).
	f.Add([]byte(strings.Join([]string{banner80, dcpOpen80, dcpCtl80, streamOK80, rollback80, traffic80, setState80, refused80}, "\n")))
	f.Add([]byte(rollback80[:len(rollback80)-30]))
	f.Add([]byte(`2025-06-11T10:15:10.016101+00:00 INFO Creating stream {"vb":"vb:","snapshot":[1],"takeover":true}`))
	f.Add([]byte(`2025-06-11T10:15:10.016101+00:00 INFO Stream request requires rollback to seqno {"vb":"vb:1","snapshot":[1,2] } x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsertest.Check(t, Format, origin, data)
	})
}

func BenchmarkParse(b *testing.B) {
	parsertest.Bench(b, Format, origin, benchInput(40000))
}

// BenchmarkParseChurn reads a node whose DCP streams open and close all day
// (indexer and XDCR restarts, rebalances): a quarter of the lines are
// events, and producer connections that never log their name keep the
// waiting list full.
func BenchmarkParseChurn(b *testing.B) {
	parsertest.Bench(b, Format, origin, churnInput(40000))
}

// churnInput returns about n lines of a memcached.log with DCP stream churn.
func churnInput(n int) []byte {
	r := rand.New(rand.NewPCG(5, 6))
	t := time.Date(2022, 7, 21, 6, 0, 0, 0, time.FixedZone("", -7*3600))
	conns := []string{replication, projector, "xdcr:test3-3f3504832cb846ee/2", "fts:travel_3c5d7e_13aa53f3-2f4e1b9a"}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		t = t.Add(time.Duration(r.IntN(5000)) * time.Microsecond)
		ts := t.Format("2006-01-02T15:04:05.000000-07:00")
		cid := 40 + r.IntN(4000)
		vb := r.IntN(1024)
		conn := conns[r.IntN(len(conns))]
		seq := r.IntN(100000)
		var line string
		switch k := r.IntN(100); {
		case k < 24:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) Creating stream with start seqno %d and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{%d,%d} collections-filter-size:0 sid:none", ts, cid, conn, vb, seq, seq, seq)
		case k < 26:
			// Most of these connections never log a line of their own.
			line = fmt.Sprintf(`%s INFO %d: DCP connection opened successfully. PRODUCER, INCLUDE_XATTRS [ {"ip":"10.0.0.%d","port":%d} - {"ip":"10.0.0.1","port":11210} (<ud>@goxdcr</ud>) ]`, ts, 10000+i, r.IntN(250), 30000+r.IntN(30000))
		case k < 50:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) ActiveStream::markDiskSnapshot: Sending disk snapshot with start %d, end %d, and high completed none, max visible %d", ts, cid, conn, vb, seq, seq+r.IntN(100), seq+50)
		case k < 66:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) ActiveStream::transitionState: Transitioning from backfilling to in-memory", ts, cid, conn, vb)
		case k < 74:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) ActiveStream::setDead_UNLOCKED Stream closing, sent until seqno %d remaining items 0, reason: The stream closed early because the conn was disconnected", ts, cid, conn, vb, seq)
		case k < 90:
			line = fmt.Sprintf(`%s INFO %d: Client {"ip":"10.0.0.%d","port":%d} authenticated as <ud>Administrator</ud>`, ts, cid, r.IntN(250), 30000+r.IntN(30000))
		case k < 95:
			line = fmt.Sprintf("%s INFO (default) Compaction of vb:%d done (ok). purged tombstones:%d, prepares:0, prepareBytes:0 collection_items_erased:alive:0,deleted:0, collections_erased:0, size/items/tombstones/purge_seqno pre{%d, %d, 0, 0}, post{%d, %d, 0, 0}", ts, vb, r.IntN(10), r.IntN(1<<20), r.IntN(500), r.IntN(1<<20), r.IntN(500))
		default:
			line = fmt.Sprintf("%s WARNING (default) Slow runtime for 'Checkpoint Remover' on thread nonIO_worker_%d: %d ms", ts, r.IntN(8), r.IntN(100))
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// benchInput returns about n lines of a memcached.log as a data node writes it
// during the day: mostly connection, DCP replication and housekeeping lines
// at INFO, a few warnings, and now and then a stream request answered.
func benchInput(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	t := time.Date(2022, 7, 21, 17, 0, 0, 0, time.FixedZone("", -7*3600))
	conns := []string{replication, "replication:ns_1@node1.example->ns_1@node3.example:default", projector,
		"fts:travel_3c5d7e_13aa53f3-2f4e1b9a", "eventing:10.0.0.5:8096_10.0.0.1:11210_worker_0"}
	var sb strings.Builder
	sb.WriteString(strings.Repeat("=", 78) + "\nMemcached logs\n['sh', '-c', 'cd \"$1\"; for file in $(ls -tr memcached.log.*); do cat \"$file\"; done', '--', '/opt/couchbase/var/lib/couchbase/logs']\n" + strings.Repeat("=", 78) + "\n")
	sb.WriteString(t.Format("2006-01-02T15:04:05.000000-07:00") + " INFO ---------- Opening logfile: \n")
	for i := 0; i < n; i++ {
		t = t.Add(time.Duration(r.IntN(20000)) * time.Microsecond)
		ts := t.Format("2006-01-02T15:04:05.000000-07:00")
		cid := 40 + r.IntN(400)
		vb := r.IntN(1024)
		conn := conns[r.IntN(len(conns))]
		seq := r.IntN(100000)
		var line string
		switch k := r.IntN(100); {
		case k < 14:
			line = fmt.Sprintf(`%s INFO %d: HELO [{"a":"gocbcore/v10.1.4 projector/7.1.1","i":"%016x/%016x"}] Datatype=JSON,XATTR,XERROR,SELECT_BUCKET,Snappy,Collections [ {"ip":"10.0.0.%d","port":%d} - {"ip":"10.0.0.1","port":11210} (not authenticated) ]`, ts, cid, r.Uint64(), r.Uint64(), r.IntN(250), 30000+r.IntN(30000))
		case k < 24:
			line = fmt.Sprintf(`%s INFO %d: Client {"ip":"10.0.0.%d","port":%d} authenticated as <ud>Administrator</ud>`, ts, cid, r.IntN(250), 30000+r.IntN(30000))
		case k < 44:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) ActiveStream::markDiskSnapshot: Sending disk snapshot with start %d, end %d, and high completed none, max visible %d", ts, cid, conn, vb, seq, seq+r.IntN(100), seq+50)
		case k < 54:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) ActiveStream::transitionState: Transitioning from backfilling to in-memory", ts, cid, conn, vb)
		case k < 62:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) Backfill complete. %d items consisting of %d bytes read from disk, 0 items from memory, lastReadSeqno:%d lastSentSeqnoAdvance:0, pendingBackfill:False. Total runtime 1204 us (831 item/s, 0.39 MB/s)", ts, cid, conn, vb, r.IntN(1000), r.IntN(100000), seq)
		case k < 70:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Consumer) eq_dcpq:replication:ns_1@node2.example->ns_1@node1.example:default - (vb:%d) Attempting to add stream: opaque_:%d, start_seqno_:%d, end_seqno_:18446744073709551615, vb_uuid:%d, snap_start_seqno_:%d, snap_end_seqno_:%d, last_seqno:%d, stream_req_value:{\"uid\":\"2\"}", ts, cid, vb, r.IntN(5000), seq, r.Uint64()>>16, seq, seq, seq)
		case k < 78:
			line = fmt.Sprintf("%s INFO (default) Compaction of vb:%d done (ok). purged tombstones:%d, prepares:0, prepareBytes:0 collection_items_erased:alive:0,deleted:0, collections_erased:0, size/items/tombstones/purge_seqno pre{%d, %d, 0, 0}, post{%d, %d, 0, 0}", ts, vb, r.IntN(10), r.IntN(1<<20), r.IntN(500), r.IntN(1<<20), r.IntN(500))
		case k < 83:
			line = fmt.Sprintf(`%s WARNING %d: Slow operation: {"bucket":"default","cid":"10.0.0.%d:%d/%x","command":"SET","duration":"%d ms","packet":{"bodylen":210,"cas":0,"datatype":"JSON","extlen":8,"key":"<ud>.doc%d.</ud>","keylen":12,"magic":"ClientRequest","opaque":%d,"opcode":"SET","vbucket":%d},"peer":{"ip":"10.0.0.%d","port":%d},"response":"Success","trace":"request=4470201:%d store=4470203:3","worker_tid":140213}`, ts, cid, r.IntN(250), 30000+r.IntN(30000), r.IntN(1<<20), 500+r.IntN(2000), r.IntN(100000), r.IntN(1<<20), vb, r.IntN(250), 30000+r.IntN(30000), 500+r.IntN(2000))
		case k < 87:
			line = fmt.Sprintf("%s WARNING %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) Stream closing, sent until seqno %d remaining items 0, reason: The stream closed early because the conn was disconnected", ts, cid, conn, vb, seq)
		case k < 90:
			line = fmt.Sprintf(`%s INFO %d: [ {"ip":"127.0.0.1","port":%d} - {"ip":"127.0.0.1","port":11209} (System, <ud>@ns_server</ud>) ] Updated global cluster configuration. New revision: %d`, ts, cid, 30000+r.IntN(30000), 1000+i)
		case k < 92:
			line = fmt.Sprintf("%s INFO (default) Flusher::wait: had to wait %d ms for shutdown", ts, r.IntN(50))
		case k < 94:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) Creating stream with start seqno %d and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{%d,%d} collections-filter-size:0 sid:none", ts, cid, conn, vb, seq, seq, seq)
		case k < 95:
			line = fmt.Sprintf("%s WARNING %d: (default) DCP (Producer) eq_dcpq:%s - (vb:%d) Stream request requires rollback to seqno:%d because consumer ahead of producer - producer upper at %d. Client requested seqnos:{%d,18446744073709551615} snapshot:{%d,%d} uuid:%d", ts, cid, conn, vb, seq, seq, seq+60, seq+55, seq+60, r.Uint64()>>16)
		case k < 96:
			line = fmt.Sprintf("%s INFO (default) VBucket::setState: transitioning vb:%d with high seqno:%d from:replica to:active", ts, vb, seq)
		case k < 97:
			line = fmt.Sprintf("%s INFO (default) KVBucket::setVBucketState blocking vb:%d, to:active, transfer:false, cookie:0x7f2a5c0e%04x", ts, vb, r.IntN(1<<16))
		default:
			line = fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - Destroying connection. Created %d s ago. Paused %d times, for %d ms total. Details: {Initializing: count:1, duration:0 ms, ReadyListEmpty: count:%d, duration:%d ms}", ts, cid, conn, r.IntN(3600), r.IntN(100), r.IntN(1000), r.IntN(100), r.IntN(1000))
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// The release is the version of the last start: a file that spans an
// upgrade was written last by the newer release.
func TestRelease(t *testing.T) {
	p := Format.New(origin).(forensics.Releaser)
	if got := p.Release(); got != "" {
		t.Errorf("release before any line = %q", got)
	}
	lines := []string{
		"2024-11-05T09:12:40.118923+00:00 INFO Couchbase version 7.2.4-7070 starting.",
		"2024-11-05T09:12:40.119001+00:00 INFO Process identifier: 2306",
		"2025-03-18T14:02:11.540217+00:00 INFO Couchbase version 7.6.4-5146 starting.",
	}
	pp := p.(forensics.Parser)
	for i, l := range lines {
		pp.Line(int64(i+1), []byte(l), func(*forensics.Event) {})
	}
	pp.End(func(*forensics.Event) {})
	if got := p.Release(); got != "7.6.4-5146" {
		t.Errorf("release = %q, want 7.6.4-5146", got)
	}
}

// A producer that never says its name must not make every later one cost
// more: the waiting list stays within a few times maxPending however many
// producers are opened and named behind it, and each is emitted once, named
// when its line named it.
func TestPendingProducersStayBounded(t *testing.T) {
	p := newParser(origin).(*parser)
	var evs []forensics.Event
	emit := func(e *forensics.Event) { evs = append(evs, *e) }
	n := int64(0)
	line := func(s string) {
		n++
		if _, err := p.Line(n, []byte(s), emit); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if len(p.pending) > 3*maxPending {
			t.Fatalf("line %d: %d producers held, %d of them waiting", n, len(p.pending), p.live)
		}
	}
	ts := "2022-07-21T17:39:17.100000-07:00"
	open := func(cid int) {
		line(fmt.Sprintf(`%s INFO %d: DCP connection opened successfully. PRODUCER [ {"ip":"10.0.0.2","port":40112} - {"ip":"10.0.0.1","port":11209} (System, <ud>@ns_server</ud>) ]`, ts, cid))
	}
	open(7)
	const named, silent = 5000, 1000
	for i := 0; i < named; i++ {
		open(10000 + i)
		if i%5 == 0 {
			open(90000 + i) // never named
		}
		line(fmt.Sprintf("%s INFO %d: (default) DCP (Producer) eq_dcpq:%s - (vb:7) ActiveStream::transitionState: Transitioning from backfilling to in-memory", ts, 10000+i, replication))
	}
	if err := p.End(emit); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	consumers := 0
	for _, e := range evs {
		if e.Kind != DCPProducer {
			continue
		}
		seen[e.Attr(AttrConnID)]++
		if e.Attr(AttrConsumer) == replication {
			consumers++
		}
	}
	if len(seen) != 1+named+silent || consumers != named {
		t.Errorf("%d producers emitted, %d named; want %d and %d", len(seen), consumers, 1+named+silent, named)
	}
	for cid, k := range seen {
		if k != 1 {
			t.Errorf("producer %s emitted %d times", cid, k)
		}
	}
}
