package memcached

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// Lines of a Couchbase 8.0 memcached.log (kv_engine v8.0.0, MB-60861):
// the message, then its context as one JSON object. Templates:
// daemon/memcached.cc, daemon/buckets.cc, daemon/protocol/mcbp/dcp_open_executor.cc,
// engines/ep/src/dcp/active_stream.cc, dcp/producer.cc, ep_engine.cc,
// vbucket.cc, warmup.cc, kv_bucket.cc; names and numbers are made up.
const (
	projName80   = "eq_dcpq:DCPT:MAINT_STREAM_TOPIC_5f1c7e9a0b2d4c6e8f0a1b2c3d4e5f60:test3:8812763054411092233:##1:0" // 8.0's projector (indexing dcp_feed.go DcpFeedname2)
	banner80     = `2025-06-11T10:15:02.112418+00:00 INFO Couchbase version starting {"version":"8.0.0-3777"}`
	pid80        = `2025-06-11T10:15:02.112460+00:00 INFO Process identifier {"pid":2306}`
	create80     = `2025-06-11T10:15:09.401220+00:00 INFO Create bucket {"conn_id":47,"bucket":"test3","type":"Couchbase"}`
	failover80   = `2025-06-11T10:15:09.552110+00:00 INFO Warmup(Primary)::createVBuckets: vb:141 created new failover entry with uuid:77409272469274 and seqno:4109 due to unclean shutdown {"bucket":"test3"}`
	created80    = `2025-06-11T10:15:09.701003+00:00 INFO Bucket created successfully {"conn_id":47,"bucket":"test3"}`
	unblock80    = `2025-06-11T10:15:09.705310+00:00 INFO Warmup(Primary)::notifyWaitingCookies unblocking 3 cookie(s) status:success {"bucket":"test3"}`
	dcpOpen80    = `2025-06-11T10:15:10.015220+00:00 INFO DCP connection opened successfully {"conn_id":382,"flags":["PRODUCER","INCLUDE_XATTRS","DELETE_TIMES"],"description":{"peer":{"ip":"10.1.2.5","port":53122},"socket":{"ip":"10.1.2.3","port":11210},"user":{"name":"<ud>@projector</ud>","system":true}}}`
	dcpCtl80     = `2025-06-11T10:15:10.015611+00:00 INFO Control [enable_noop] set [true] {"conn_id":382,"bucket":"test3","dcp":"producer","dcp_name":"` + projName80 + `"}`
	streamOK80   = `2025-06-11T10:15:10.016001+00:00 INFO Creating stream {"conn_id":382,"bucket":"test3","dcp":"producer","dcp_name":"` + projName80 + `","vb":"vb:140","takeover":false,"start_seqno":3952,"end_seqno":18446744073709551615,"requested_end_seqno":18446744073709551615,"flags":"None","snapshot":[3950,3952],"filter":"filter:{passthrough, size:0}"}`
	rollback80   = `2025-06-11T10:15:10.016101+00:00 WARNING Stream request requires rollback to seqno {"conn_id":382,"bucket":"test3","dcp":"producer","dcp_name":"` + projName80 + `","vb":"vb:141","rollback_seqno":4109,"rollback_reason":"consumer ahead of producer - producer upper at 4109","start_seqno":4168,"end_seqno":18446744073709551615,"snapshot":[4163,4168],"vb_uuid":77409272469274}`
	traffic80    = `2025-06-11T10:15:11.250977+00:00 INFO EventuallyPersistentEngine::enableTraffic {"bucket":"test3","state":"enabled"}`
	trafficDup80 = `2025-06-11T10:15:11.251102+00:00 WARNING EventuallyPersistentEngine::enableTraffic {"bucket":"test3","error":"traffic is already enabled","state":"enabled"}`
	complete80   = `2025-06-11T10:15:11.301447+00:00 INFO Warmup(Primary) completed: 20480 keys (total:20480) and 20480 values (total:20480) loaded in 812ms (25221.67 keys/s 25221.67 values/s), mem_used now at 48.5MiB (59.75MiB/s) {"bucket":"test3"}`
	setState80   = `2025-06-11T10:16:40.902511+00:00 INFO VBucket::setState: transitioning {"bucket":"test3","vb":"vb:141","high_seqno":4109,"from":"replica","to":"active","meta":{"topology":[["ns_1@10.1.2.3","ns_1@10.1.2.4"]]}}`
	refused80    = `2025-06-11T10:16:41.118003+00:00 WARNING Stream request failed because this vbucket doesn't exist {"conn_id":390,"bucket":"test3","dcp":"producer","dcp_name":"eq_dcpq:replication:ns_1@10.1.2.3->ns_1@10.1.2.4:test3","vb":"vb:900"}`
	vbState80    = `2025-06-11T10:16:41.118100+00:00 INFO Stream request failed due to vbucket state {"conn_id":390,"bucket":"test3","dcp":"producer","dcp_name":"eq_dcpq:replication:ns_1@10.1.2.3->ns_1@10.1.2.4:test3","vb":"vb:77","sid":"sid:2","vb_state":"dead","flags":"None"}`
	shutdown80   = `2025-06-11T11:02:13.000412+00:00 INFO Initiating graceful shutdown {"sigint":false,"sigterm":true}`
)

func TestStructured80(t *testing.T) {
	res := parse(t, banner80, pid80, create80, failover80, created80, unblock80, dcpOpen80, dcpCtl80, streamOK80, rollback80,
		traffic80, trafficDup80, complete80, setState80, refused80, vbState80, shutdown80, banner80)
	type want struct {
		kind  forensics.Kind
		line  int64
		vb    int
		attrs map[string]string
	}
	const proj = "DCPT:MAINT_STREAM_TOPIC_5f1c7e9a0b2d4c6e8f0a1b2c3d4e5f60:test3:8812763054411092233:##1:0"
	wants := []want{
		{Start, 1, forensics.NoVB, map[string]string{"version": "8.0.0-3777", "unclean": "-"}},
		{BucketCreate, 3, forensics.NoVB, map[string]string{"conn_id": "47", "type": "Couchbase"}},
		{FailoverEntry, 4, 141, map[string]string{"uuid": "77409272469274", "seqno": "4109", "reason": "unclean shutdown", "origin": "Warmup::createVBuckets"}},
		{BucketCreated, 5, forensics.NoVB, map[string]string{"conn_id": "47"}},
		{WarmupUnblock, 6, forensics.NoVB, map[string]string{"cookies": "3", "status": "success"}},
		{DCPProducer, 7, forensics.NoVB, map[string]string{"conn_id": "382", "consumer": proj, "consumer_kind": "projector", "flags": "PRODUCER, INCLUDE_XATTRS, DELETE_TIMES", "peer": `{"ip":"10.1.2.5","port":53122}`, "user": "<ud>@projector</ud>"}},
		{StreamCreated, 9, 140, map[string]string{"consumer": proj, "start_seqno": "3952", "end_seqno": "18446744073709551615", "requested_end_seqno": "18446744073709551615", "snap_start": "3950", "snap_end": "3952", "takeover": "false", "flags": "None", "sid": "-"}},
		{StreamRollback, 10, 141, map[string]string{"conn_id": "382", "consumer": proj, "consumer_kind": "projector", "rollback_seqno": "4109", "reason": "consumer ahead of producer - producer upper at 4109", "req_start": "4168", "req_end": "18446744073709551615", "snap_start": "4163", "snap_end": "4168", "uuid": "77409272469274"}},
		{TrafficEnabled, 11, forensics.NoVB, nil},
		{WarmupComplete, 13, forensics.NoVB, map[string]string{"keys": "20480", "values": "20480", "duration": "812ms", "warmup": "Primary"}},
		{VBState, 14, 141, map[string]string{"high_seqno": "4109", "from": "replica", "to": "active", "meta": `{"topology":[["ns_1@10.1.2.3","ns_1@10.1.2.4"]]}`}},
		{StreamRefused, 15, 900, map[string]string{"reason": "this vbucket doesn't exist", "status": "not_my_vbucket", "consumer_kind": "replication"}},
		{StreamRefused, 16, 77, map[string]string{"reason": "the vbucket is in state:dead", "status": "not_my_vbucket", "sid": "2"}},
		{Shutdown, 17, forensics.NoVB, map[string]string{"sigint": "false", "sigterm": "true"}},
		{Start, 18, forensics.NoVB, map[string]string{"version": "8.0.0-3777", "unclean": "false"}},
	}
	if len(res.Events) != len(wants) {
		for _, e := range res.Events {
			t.Logf("%d %s", e.Line, e.Kind)
		}
		t.Fatalf("got %d events, want %d", len(res.Events), len(wants))
	}
	for i, w := range wants {
		e := res.Events[i]
		if e.Kind != w.kind || e.Line != w.line || e.VB != w.vb {
			t.Errorf("event %d: %s line %d vb %d, want %s line %d vb %d", i, e.Kind, e.Line, e.VB, w.kind, w.line, w.vb)
			continue
		}
		if e.Kind != Start && e.Kind != Shutdown && e.Bucket != "test3" {
			t.Errorf("%s line %d: bucket %q, want test3 (from the context)", e.Kind, e.Line, e.Bucket)
		}
		checkAttrs(t, e, w.attrs)
	}
}

// The 8.0 restart banner is a start, not a problem, though 8.0 writes no
// "Opening logfile" marker; the release is the banner's version.
func TestStructured80Release(t *testing.T) {
	p := Format.New(origin)
	for i, l := range []string{banner80, pid80, create80} {
		if _, err := p.Line(int64(i+1), []byte(l), func(*forensics.Event) {}); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
	}
	if got := p.(forensics.Releaser).Release(); got != "8.0.0-3777" {
		t.Errorf("release = %q, want 8.0.0-3777", got)
	}
}

// A context cut short (a truncated file, a line split by a copy) is a
// positioned error; the line is kept and the next lines are read.
func TestStructured80Cut(t *testing.T) {
	cut := rollback80[:len(rollback80)-40]
	in := strings.Join([]string{banner80, cut, `2025-06-11T10:15:10.016101+00:00 INFO Create bucket {"conn_id":47,"bucket":"test3","type":}`, traffic80}, "\n") + "\n"
	res := parsertest.Parse(Format, origin, []byte(in))
	if len(res.Errors) != 2 {
		t.Fatalf("errors = %v, want two (the cut rollback, the malformed create)", res.Errors)
	}
	for _, err := range res.Errors {
		if !strings.Contains(err.Error(), "not a whole JSON object") {
			t.Errorf("error %q does not say the context is cut", err)
		}
	}
	if n := len(res.OfKind(TrafficEnabled)); n != 1 {
		t.Errorf("traffic events after the cut line = %d, want 1", n)
	}
	if n := len(res.OfKind(StreamRollback)); n != 0 {
		t.Errorf("a cut rollback line gave %d events", n)
	}
}

// 8.0 lines that are not events must not allocate, with producer
// connections waiting for their name or not.
func TestNoAllocPlainLines80(t *testing.T) {
	checkNoAllocPlain(t, benchInput80(300),
		`2025-06-11T10:15:10.015220+00:00 INFO DCP connection opened successfully {"conn_id":9999,"flags":["PRODUCER"],"description":{"peer":{"ip":"10.1.2.9","port":1},"socket":{"ip":"10.1.2.3","port":11210},"user":null}}`)
}

func BenchmarkParse80(b *testing.B) {
	parsertest.Bench(b, Format, origin, benchInput80(40000))
}

// benchInput80 is benchInput's day of a data node in the 8.0 form.
func benchInput80(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	t := time.Date(2025, 6, 11, 10, 0, 0, 0, time.UTC)
	conns := []string{"eq_dcpq:replication:ns_1@10.1.2.3->ns_1@10.1.2.4:default", "eq_dcpq:replication:ns_1@10.1.2.3->ns_1@10.1.2.5:default", projName80,
		"eq_dcpq:fts:travel_3c5d7e_13aa53f3-2f4e1b9a", "eq_dcpq:eventing:10.1.2.6:8096_10.1.2.3:11210_worker_0"}
	var sb strings.Builder
	sb.WriteString(strings.Repeat("=", 78) + "\nMemcached logs\n['sh', '-c', 'cd \"$1\"; for file in $(ls -tr memcached.log.*); do cat \"$file\"; done', '--', '/opt/couchbase/var/lib/couchbase/logs']\n" + strings.Repeat("=", 78) + "\n")
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
			line = fmt.Sprintf(`%s INFO HELO {"conn_id":%d,"client":{"a":"gocbcore/v10.3.1 projector/8.0.0","i":"%016x/%016x"},"features":["Datatype=JSON","XATTR","XERROR","SELECT_BUCKET","Snappy","Collections"],"peer":{"ip":"10.1.2.%d","port":%d}}`, ts, cid, r.Uint64(), r.Uint64(), r.IntN(250), 30000+r.IntN(30000))
		case k < 24:
			line = fmt.Sprintf(`%s INFO Client authenticated {"conn_id":%d,"peer":{"ip":"10.1.2.%d","port":%d},"user":"<ud>Administrator</ud>"}`, ts, cid, r.IntN(250), 30000+r.IntN(30000))
		case k < 44:
			line = fmt.Sprintf(`%s INFO ActiveStream::markDiskSnapshot: Sending disk snapshot {"conn_id":%d,"bucket":"default","dcp":"producer","dcp_name":"%s","vb":"vb:%d","snapshot":[%d,%d],"high_completed":"none","max_visible":%d}`, ts, cid, conn, vb, seq, seq+r.IntN(100), seq+50)
		case k < 54:
			line = fmt.Sprintf(`%s INFO ActiveStream::transitionState: Transitioning {"conn_id":%d,"bucket":"default","dcp":"producer","dcp_name":"%s","vb":"vb:%d","from":"backfilling","to":"in-memory"}`, ts, cid, conn, vb)
		case k < 62:
			line = fmt.Sprintf(`%s INFO Backfill complete {"conn_id":%d,"bucket":"default","dcp":"producer","dcp_name":"%s","vb":"vb:%d","items":%d,"bytes":%d,"last_read_seqno":%d,"runtime":"1204 us"}`, ts, cid, conn, vb, r.IntN(1000), r.IntN(100000), seq)
		case k < 78:
			line = fmt.Sprintf(`%s INFO Compaction of vb done {"bucket":"default","vb":"vb:%d","status":"ok","purged_tombstones":%d,"pre":{"size":%d,"items":%d},"post":{"size":%d,"items":%d}}`, ts, vb, r.IntN(10), r.IntN(1<<20), r.IntN(500), r.IntN(1<<20), r.IntN(500))
		case k < 83:
			line = fmt.Sprintf(`%s WARNING Slow operation {"conn_id":%d,"bucket":"default","command":"SET","duration":"%d ms","peer":{"ip":"10.1.2.%d","port":%d},"response":"Success"}`, ts, cid, 500+r.IntN(2000), r.IntN(250), 30000+r.IntN(30000))
		case k < 90:
			line = fmt.Sprintf(`%s INFO Updated global cluster configuration {"conn_id":%d,"revision":%d}`, ts, cid, 1000+i)
		case k < 92:
			line = fmt.Sprintf("%s INFO Flusher::wait: had to wait %d ms for shutdown {\"bucket\":\"default\"}", ts, r.IntN(50))
		case k < 94:
			line = fmt.Sprintf(`%s INFO Creating stream {"conn_id":%d,"bucket":"default","dcp":"producer","dcp_name":"%s","vb":"vb:%d","takeover":false,"start_seqno":%d,"end_seqno":18446744073709551615,"requested_end_seqno":18446744073709551615,"flags":"None","snapshot":[%d,%d],"filter":"filter:{passthrough, size:0}"}`, ts, cid, conn, vb, seq, seq, seq)
		case k < 95:
			line = fmt.Sprintf(`%s WARNING Stream request requires rollback to seqno {"conn_id":%d,"bucket":"default","dcp":"producer","dcp_name":"%s","vb":"vb:%d","rollback_seqno":%d,"rollback_reason":"consumer ahead of producer - producer upper at %d","start_seqno":%d,"end_seqno":18446744073709551615,"snapshot":[%d,%d],"vb_uuid":%d}`, ts, cid, conn, vb, seq, seq, seq+60, seq+55, seq+60, r.Uint64()>>16)
		case k < 96:
			line = fmt.Sprintf(`%s INFO VBucket::setState: transitioning {"bucket":"default","vb":"vb:%d","high_seqno":%d,"from":"replica","to":"active"}`, ts, vb, seq)
		default:
			line = fmt.Sprintf(`%s INFO Destroying connection {"conn_id":%d,"bucket":"default","dcp":"producer","dcp_name":"%s","created_s":%d,"paused":%d}`, ts, cid, conn, r.IntN(3600), r.IntN(100))
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// daemon/cookie.cc's slow command and server_socket.cc's refused client in
// 8.0's form: the message, then the context (the duration is
// cb::time2text's, the status the response's name).
func TestFrontEnd80(t *testing.T) {
	res := parse(t,
		`2025-10-21T17:31:11.392478-07:00 WARNING Slow operation {"conn_id":2330,"bucket":"test3","command":"GET","duration":"1322 ms","trace":"request=7744031:1322187 get=7744102:1321956","cid":"10.1.2.9:61281/ae0","peer":{"ip":"10.1.2.9","port":61281},"packet":{"bodylen":13,"cas":0,"datatype":"raw","extlen":0,"key":"<ud>key::062070</ud>","keylen":13,"magic":"ClientRequest","opaque":2792,"opcode":"GET","vbucket":306},"worker_tid":3,"status":"Success","document_bytes_read":1834}`,
		`2025-10-21T17:31:12.001000-07:00 WARNING Slow operation {"conn_id":2331,"bucket":"default","command":"RANGE_SCAN_CONTINUE","duration":"1h:2m:3s","trace":"","cid":"10.1.2.9:61282/1","peer":{"ip":"10.1.2.9","port":61282},"packet":{},"worker_tid":1}`,
		`2025-10-21T17:31:13.000000-07:00 WARNING Shutting down client as we're running out of connections {"system":false,"current":60001,"limit":60000}`,
		`2025-10-21T17:32:13.000000-07:00 WARNING Shutting down client as we're running out of connections {"system":true,"failures":212,"success":0,"first_failure":"60 s ago","limit":5000}`,
	)
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	if k := res.Kinds(); len(k) != 4 || k[0] != SlowOp || k[1] != SlowOp || k[2] != ConnRejected || k[3] != ConnRejected {
		t.Fatalf("kinds %v", k)
	}
	if e := res.Events[0]; e.Bucket != "test3" {
		t.Errorf("bucket %q", e.Bucket)
	}
	checkAttrs(t, res.Events[0], map[string]string{"conn_id": "2330", "opcode": "GET", "duration": "1322 ms", "duration_ms": "1322", "status": "Success", "peer": `{"ip":"10.1.2.9","port":61281}`})
	checkAttrs(t, res.Events[1], map[string]string{"opcode": "RANGE_SCAN_CONTINUE", "duration_ms": "3723000", "status": ""})
	checkAttrs(t, res.Events[2], map[string]string{"conn_type": "user", "connections": "60001", "limit": "60000", "failures": ""})
	checkAttrs(t, res.Events[3], map[string]string{"conn_type": "system", "connections": "", "limit": "5000", "failures": "212"})
}

func TestDurationMS(t *testing.T) {
	for in, want := range map[string]float64{"250 ns": 0.00025, "9999 us": 9.999, "1263 ms": 1263, "12 s": 12000,
		"10m:5s": 605000, "1h:0m:59s": 3659000} {
		if got, ok := durationMS(in); !ok || got != want {
			t.Errorf("durationMS(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "12", "12 minutes", "1h:2m", "m:5s", "10m:5s extra"} {
		if got, ok := durationMS(bad); ok {
			t.Errorf("durationMS(%q) = %v, want none", bad, got)
		}
	}
}
