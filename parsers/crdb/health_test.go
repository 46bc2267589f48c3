package crdb

import (
	"fmt"
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// Lines of the health templates in every format. The real ones are quoted
// from issues and upstream tests; the others follow the upstream format
// strings cited in health.go with made-up ids.
func TestHealthLines(t *testing.T) {
	tests := []struct {
		name   string
		format forensics.Format
		line   string
		want   *want
	}{
		{
			// Real line (a v20.2 deployment's notes, crdb-v1).
			name:   "clock fatal, crdb-v1",
			format: LogFormat,
			line:   "F210415 00:13:41.913691 2763 server/server.go:276 ⋮ [n1] clock synchronization error: this node is more than 500ms away from at least half of the known nodes (0 of 1 are within the offset)",
			want:   &want{KindClockOffsetFatal, 0, "n1", map[string]string{"max_offset": "500ms", "healthy": "0", "known": "1", "fatal": "true"}},
		},
		{
			name:   "clock fatal, crdb-v2 v23.2 tolerated offset, OPS channel",
			format: LogFormat,
			line:   "F240611 10:15:02.100200 412 1@rpc/peer.go:604 ⋮ [T1,Vsystem,n3,rnode=1,raddr=‹10.0.0.1:26257›,class=system,rpc] 212  clock synchronization error: this node is more than 400ms away from at least half of the known nodes (1 of 4 are within the offset)",
			want:   &want{KindClockOffsetFatal, 0, "n3", map[string]string{"max_offset": "400ms", "healthy": "1", "known": "4", "fatal": "true"}},
		},
		{
			name:   "uncertain offset, crdb-v2 HEALTH channel, peer from rnode",
			format: LogFormat,
			line:   "W240611 10:14:57.004400 412 2@rpc/clock_offset.go:328 ⋮ [T1,Vsystem,n3,rnode=2,raddr=‹10.0.0.2:26257›,class=system,rpc] 198  uncertain remote offset off=-391.203ms, err=14.1ms, at=2024-06-11 10:14:56.990001 +0000 UTC for maximum tolerated offset 400ms, treating as healthy",
			want: &want{KindClockOffsetUncertain, 0, "n3", map[string]string{"offset": "-391.203ms", "uncertainty": "14.1ms",
				"max_offset": "400ms", "peer": "n2"}},
		},
		{
			name:   "pebble disk stall, crdb-v1 debug zip (v21.2)",
			format: LogFormat,
			line:   "F220308 14:40:11.210005 1023 storage/pebble.go:861 ⋮ [n2] disk stall detected: pebble unable to write to ‹/cockroach/cockroach-data/000123.log› in 20.48 seconds",
			want: &want{KindDiskStall, 0, "n2", map[string]string{"path": "/cockroach/cockroach-data/000123.log", "duration": "20.48s",
				"reason": "pebble unable to write to /cockroach/cockroach-data/000123.log in 20.48 seconds", "fatal": "true"}},
		},
		{
			name:   "engine health stall, legacy (v20.1) with store tag",
			format: LogFormat,
			line:   "F200601 03:00:20.000100 155 server/node.go:859  [n4,s4] disk stall detected: unable to write to <no-attributes>=/mnt/data1/cockroach within 10s",
			want: &want{KindDiskStall, 0, "n4", map[string]string{"path": "<no-attributes>=/mnt/data1/cockroach", "duration": "10s",
				"reason": "unable to write to <no-attributes>=/mnt/data1/cockroach within 10s", "store": "s4", "fatal": "true"}},
		},
		{
			name:   "file write stall, crdb-v2 (v23.1)",
			format: LogFormat,
			line:   "F230915 08:01:44.700100 88 3@storage/pebble.go:1212 ⋮ [T1,n1,s1,pebble] 8812  file write stall detected: disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 20.0s",
			want: &want{KindDiskStall, 0, "n1", map[string]string{"op": "syncdata", "path": "000457.log", "duration": "20.0s",
				"reason": "disk slowness detected: syncdata on file 000457.log has been ongoing for 20.0s", "store": "s1", "fatal": "true"}},
		},
		{
			name:   "disk slowness warning with size",
			format: LogFormat,
			line:   "W230915 08:01:34.700100 88 3@storage/pebble.go:1198 ⋮ [T1,n1,s1,pebble] 8790  disk slowness detected: write on file ‹000457.log› (4096 bytes) has been ongoing for 10.0s",
			want:   &want{KindDiskSlow, 0, "n1", map[string]string{"op": "write", "path": "000457.log", "bytes": "4096", "duration": "10.0s", "store": "s1"}},
		},
		{
			// The docs' critical log messages: "slow heartbeat took %s; err=context deadline exceeded".
			name:   "slow heartbeat, crdb-v2",
			format: LogFormat,
			line:   "W230915 08:01:30.100000 301 kv/kvserver/liveness/liveness.go:1213 ⋮ [T1,n1,liveness-hb] 8781  slow heartbeat took 4.500210312s; err=context deadline exceeded",
			want:   &want{KindHeartbeatSlow, 0, "n1", map[string]string{"duration": "4.500210312s", "error": "context deadline exceeded"}},
		},
		{
			// Real line (cockroachdb/cockroach#49607, v20.1): no error after the duration.
			name:   "slow heartbeat, legacy without err",
			format: LogFormat,
			line:   "W200527 19:02:28.688809 100209 storage/node_liveness.go:523  [n4,s4,r15732/2:/System/tsd/cr.store.raft.pro…] slow heartbeat took 14.6s",
			want:   &want{KindHeartbeatSlow, 15732, "n4", map[string]string{"duration": "14.6s", "store": "s4"}},
		},
		{
			// Real line (cockroachdb/cockroach#49607, v20.1).
			name:   "failed heartbeat, legacy",
			format: LogFormat,
			line:   "W200527 19:02:21.981911 1459 storage/node_liveness.go:463  [n4,hb] failed node liveness heartbeat: operation \"node liveness heartbeat\" timed out after 4.5s",
			want:   &want{KindHeartbeatFailed, 0, "n4", map[string]string{"error": "operation \"node liveness heartbeat\" timed out after 4.5s"}},
		},
		{
			name:   "failed heartbeat, crdb-v1 multi-line entry",
			format: LogFormat,
			line:   "W220308 14:40:05.000012 299 kv/kvserver/liveness/liveness.go:670 ⋮ [n2,liveness-hb] failed node liveness heartbeat: ‹operation \"node liveness heartbeat\" timed out after 4.5s›: context deadline exceeded",
			want:   &want{KindHeartbeatFailed, 0, "n2", map[string]string{"error": "operation \"node liveness heartbeat\" timed out after 4.5s: context deadline exceeded"}},
		},
		{
			name:   "epoch incremented",
			format: LogFormat,
			line:   "I220308 14:40:19.400100 5551 kv/kvserver/liveness/liveness.go:1102 ⋮ [n1,s1,r36/1:‹/Table/5{6-7}›] incremented n2 liveness epoch to 4",
			want:   &want{KindEpochIncremented, 36, "n1", map[string]string{"target": "n2", "epoch": "4", "store": "s1"}},
		},
		{
			// The docs' critical log messages: "range unavailable: have been waiting 60.00s for proposing command RequestLease".
			name:   "slow proposal, v21.1 range unavailable",
			format: LogFormat,
			line:   "E210512 11:00:15.000321 7123 kv/kvserver/replica_write.go:219 ⋮ [n1,s1,r84/1:‹/Table/111/1/{600-700}›] 991  range unavailable: have been waiting 60.00s for proposing command RequestLease [‹/Table/111/1/600›,‹/Min›).",
			want: &want{KindProposalSlow, 84, "n1", map[string]string{"duration": "60.00s", "command": "RequestLease [/Table/111/1/600,/Min)",
				"unavailable": "true", "store": "s1"}},
		},
		{
			name:   "slow proposal, v22.1+ before the breaker trips",
			format: LogFormat,
			line:   "W251010 15:33:40.610002 882 kv/kvserver/replica_raft.go:1607 ⋮ [T1,Vsystem,n1,s1,r84/1:‹/Table/111/1/{600-700}›,raft] 4409  have been waiting 60.50s for slow proposal ResolveIntent [‹/Table/111/1/666/0›]",
			want:   &want{KindProposalSlow, 84, "n1", map[string]string{"duration": "60.50s", "command": "ResolveIntent [/Table/111/1/666/0]", "store": "s1"}},
		},
		{
			name:   "slow command finished",
			format: LogFormat,
			line:   "I210512 11:00:31.004000 7123 kv/kvserver/replica_write.go:180 ⋮ [n1,s1,r84/1:‹/Table/111/1/{600-700}›] 1002  slow command RequestLease [‹/Table/111/1/600›,‹/Min›) finished after 76.01s with error ‹<nil>›",
			want: &want{KindProposalFinished, 84, "n1", map[string]string{"duration": "76.01s", "command": "RequestLease [/Table/111/1/600,/Min)",
				"error": "<nil>", "store": "s1"}},
		},
		{
			// The error is quoted from cockroachdb/cockroach issue text (v25.x workload error).
			name:   "breaker tripped, crdb-v2",
			format: LogFormat,
			line:   "I251010 15:33:40.120000 882 kv/kvserver/replica_circuit_breaker.go:167 ⋮ [T1,Vsystem,n1,s1,r84/1:‹/Table/111/1/{600-700}›] 4410  breaker: tripped with error: replica unavailable: (n1,s1):1 unable to serve request to r84:‹/Table/111/1/{600-700}› [(n1,s1):1, (n3,s3):5, (n2,s2):3, next=6, gen=32, sticky=9223372036.854775807,2147483647]: lost quorum (down: (n3,s3):5,(n2,s2):3); closed timestamp: 1760110417.669200006,0 (2025-10-10 15:33:37); raft status: {\"id\":\"1\",\"term\":9}: have been waiting 60.50s for slow proposal ResolveIntent [‹/Table/111/1/666/0›]",
			want: &want{KindBreakerTripped, 84, "n1", map[string]string{"replica": "(n1,s1):1", "replicas": "(n1,s1):1,(n3,s3):5,(n2,s2):3",
				"down": "(n3,s3):5,(n2,s2):3", "store": "s1"}},
		},
		{
			name:   "breaker reset",
			format: LogFormat,
			line:   "I251010 15:35:02.000000 882 kv/kvserver/replica_circuit_breaker.go:167 ⋮ [T1,Vsystem,n1,s1,r84/1:‹/Table/111/1/{600-700}›] 4502  breaker: breaker reset",
			want:   &want{KindBreakerReset, 84, "n1", map[string]string{"store": "s1"}},
		},
		{
			name:   "json: slow heartbeat, node from node_id",
			format: JSONLogFormat,
			line:   `{"channel_numeric":0,"channel":"DEV","timestamp":"1663037000.100000000","cluster_id":"6e3b0d0a-7f5e-4b61-9a0f-2c6f1b0f3e11","node_id":4,"severity_numeric":2,"severity":"WARNING","goroutine":301,"file":"kv/kvserver/liveness/liveness.go","line":1213,"entry_counter":90,"redactable":1,"tags":{"liveness-hb":""},"message":"slow heartbeat took 1.204s; err=‹<nil>›"}`,
			want:   &want{KindHeartbeatSlow, 0, "n4", map[string]string{"duration": "1.204s", "error": "<nil>"}},
		},
		{
			name:   "json-compact: failed heartbeat keeps the first line",
			format: JSONLogFormat,
			line:   `{"c":0,"t":"1663037004.500000000","N":4,"s":2,"sev":"W","g":301,"f":"kv/kvserver/liveness/liveness.go","l":670,"n":91,"r":1,"tags":{"n":"4","liveness-hb":""},"message":"failed node liveness heartbeat: ‹operation \"node liveness heartbeat\" timed out after 4.5s›\n\nAn inability to maintain liveness will prevent a node from participating in a\ncluster."}`,
			want:   &want{KindHeartbeatFailed, 0, "n4", map[string]string{"error": "operation \"node liveness heartbeat\" timed out after 4.5s"}},
		},
		{
			name:   "json: fatal clock offset",
			format: JSONLogFormat,
			line:   `{"channel_numeric":1,"channel":"OPS","timestamp":"1663037100.000000000","node_id":4,"severity_numeric":4,"severity":"FATAL","goroutine":412,"file":"rpc/context.go","line":1980,"entry_counter":3,"redactable":1,"tags":{"n":"4","rnode":"1"},"message":"clock synchronization error: this node is more than 500ms away from at least half of the known nodes (1 of 3 are within the offset)"}`,
			want:   &want{KindClockOffsetFatal, 0, "n4", map[string]string{"max_offset": "500ms", "healthy": "1", "known": "3", "fatal": "true"}},
		},
		{
			name:   "not a health message: disk stall words inside another message",
			format: LogFormat,
			line:   "I220308 14:40:11.210005 1023 server/status.go:861 ⋮ [n2] the last disk stall detected: none",
		},
		{
			name:   "not a health message: a breaker of another name",
			format: LogFormat,
			line:   "I220308 14:40:11.210005 1023 rpc/peer.go:861 ⋮ [n2,rnode=3] 12  peer breaker: tripped with error: connection refused",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parsertest.Parse(tt.format, forensics.Origin{Node: "n9"}, []byte(tt.line+"\n"))
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			if tt.want == nil {
				if len(res.Events) > 0 {
					t.Fatalf("events %v, want none", res.Kinds())
				}
				return
			}
			if len(res.Events) != 1 {
				t.Fatalf("events %v, want one %s", res.Kinds(), tt.want.kind)
			}
			checkEvent(t, res.Events[0], *tt.want)
			parsertest.Check(t, tt.format, forensics.Origin{Node: "n9"}, []byte(tt.line+"\n"))
		})
	}
}

// The replicas a slow proposal could not reach come on the entry's later
// lines in the text formats and inside the message in JSON.
func TestProposalNonLive(t *testing.T) {
	const v1 = "E220518 06:11:04.002911 71001 kv/kvserver/replica_write.go:219 ⋮ [n2,s2,r1201/2:‹/Table/77/1/{1200-1300}›] range unavailable: have been waiting 60.00s for proposing command RequestLease [‹/Table/77/1/1200›,‹/Min›).\n" +
		"This range is likely unavailable.\n" +
		"Descriptor:  r1201:‹{-}› [(n1,s1):1, (n2,s2):2, (n4,s4):3, next=4, gen=18]\n" +
		"Live:        (n2,s2):2\n" +
		"Non-live:    (n1,s1):1,(n4,s4):3\n" +
		"Non-live:    not this one, the entry's Non-live line was read\n"
	const v2 = "W251010 15:32:55.120044 883412 kv/kvserver/replica_write.go:229 ⋮ [T1,Vsystem,n1,s1,r84/1:‹/Table/111/1/{600-700}›] 25  have been waiting 15.00s for proposing command ‹ResolveIntent [/Table/111/1/666/0,/Min)›.\n" +
		"W251010 15:32:55.120044 883412 kv/kvserver/replica_write.go:229 ⋮ [T1,Vsystem,n1,s1,r84/1:‹/Table/111/1/{600-700}›] 25 +This range is likely unavailable.\n" +
		"W251010 15:32:55.120044 883412 kv/kvserver/replica_write.go:229 ⋮ [T1,Vsystem,n1,s1,r84/1:‹/Table/111/1/{600-700}›] 25 +Non-live:    ‹(n3,s3):5›,(n2,s2):3\n"
	const json = `{"channel_numeric":0,"channel":"DEV","timestamp":"1706843731.050000000","node_id":5,"severity":"WARNING","goroutine":7781,"file":"kv/kvserver/replica_write.go","line":229,"entry_counter":9,"redactable":1,"tags":{"n":"5","s":"5","r":"97/2:‹/Table/112/1/{40-90}›"},"message":"have been waiting 15.00s for proposing command ‹Put›.\nThis range is likely unavailable.\n\nNon-live:    (n4,s4):1\nRaft Status: {}"}` + "\n"
	for _, tc := range []struct {
		name   string
		format forensics.Format
		text   string
		kinds  []forensics.Kind
		down   string
		line   int64
	}{
		{"crdb-v1", LogFormat, v1, []forensics.Kind{KindProposalSlow, KindProposalNonLive}, "(n1,s1):1,(n4,s4):3", 5},
		{"crdb-v2", LogFormat, v2, []forensics.Kind{KindProposalSlow, KindProposalNonLive}, "(n3,s3):5,(n2,s2):3", 3},
		{"json", JSONLogFormat, json, []forensics.Kind{KindProposalSlow}, "(n4,s4):1", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parsertest.Parse(tc.format, forensics.Origin{}, []byte(tc.text))
			got := res.Kinds()
			if fmt.Sprint(got) != fmt.Sprint(tc.kinds) {
				t.Fatalf("kinds %v, want %v", got, tc.kinds)
			}
			last := res.Events[len(res.Events)-1]
			if last.Attr("down") != tc.down || last.Line != tc.line || last.Range == 0 || last.Node == "" {
				t.Errorf("event %+v", last)
			}
			parsertest.Check(t, tc.format, forensics.Origin{}, []byte(tc.text))
		})
	}
}

// A node that never logs its id in tags takes it from the debug zip's folder.
func TestHealthOrigin(t *testing.T) {
	res := parsertest.Parse(LogFormat, forensics.Origin{Node: "n2"},
		[]byte("W220308 14:40:05.000012 299 kv/kvserver/liveness/liveness.go:670 ⋮ [liveness-hb] slow heartbeat took 2.1s; err=<nil>\n"))
	if len(res.Events) != 1 || res.Events[0].Node != "n2" {
		t.Fatalf("events %+v, want one of n2", res.Events)
	}
}

// healthLog is a crdb-v2 log where one line in 100 is a health message:
// the rest must cost what they did before (no allocation, prefix checks).
func healthLog(n int) []byte {
	var b strings.Builder
	msgs := []string{
		"slow heartbeat took 4.5s; err=context deadline exceeded",
		"failed node liveness heartbeat: operation ‹\"node liveness heartbeat\"› timed out after 4.5s: context deadline exceeded",
		"disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 10.0s",
		"uncertain remote offset off=-391.203ms, err=14.1ms, at=2024-06-11 10:14:56.990400 +0000 UTC for maximum tolerated offset 400ms, treating as healthy",
		"breaker: tripped with error: replica unavailable: (n1,s1):1 unable to serve request to r84:‹/Table/111/1/{600-700}› [(n1,s1):1, (n3,s3):5, (n2,s2):3, next=6, gen=32]: lost quorum (down: (n3,s3):5,(n2,s2):3); closed timestamp: 1760110417.669200006,0",
	}
	for i := 0; i < n; i++ {
		msg := "raft ready handling: 0.51s [append=0.00s, apply=0.31s, commit-batch-sync=0.20s, other=0.00s], wrote 12 KiB sync; node might be overloaded"
		if i%100 == 0 {
			msg = msgs[(i/100)%len(msgs)]
		}
		fmt.Fprintf(&b, "W240611 10:14:%02d.%06d 412 kv/kvserver/store_raft.go:701 ⋮ [T1,Vsystem,n3,s3,r84/1:‹/Table/111/1/{600-700}›,rnode=2] %d  %s\n", i/1000%60, i%1000000, i+1, msg)
	}
	return []byte(b.String())
}

func BenchmarkHealthLog(b *testing.B) {
	parsertest.Bench(b, LogFormat, forensics.Origin{Node: "n3"}, healthLog(20000))
}
