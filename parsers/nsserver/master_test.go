package nsserver

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

var masterOrigin = forensics.Origin{Name: "master_events.log", Node: "ns_1@172.23.100.15"}

// 7.x lines follow master_activity_events:event_to_jsons/2 (keys sorted,
// chains appended last, ts a number); the last vbucketStateChange is the
// example of ns_server's doc/master-events.txt (strings for ts and vbucket).
var masterInput = lines(
	`{"hosts":["172.23.100.15:11210"],"ts":1658450358.234123,"type":"failover"}`,
	`{"bucket":"test3","hosts":["172.23.100.15:11210"],"node":"ns_1@172.23.100.15","pid":"<0.31250.3>","ts":1658450358.24,"type":"bucketFailoverStarted"}`,
	`{"bucket":"test3","ts":1658450358.8,"type":"updateMap","vbucket":141,"chainBefore":["172.23.100.15:11210","172.23.100.16:11210"],"chainAfter":["172.23.100.16:11210",""]}`,
	`{"bucket":"test3","ts":1658450358.801,"type":"updateMap","vbucket":142,"chainBefore":["172.23.100.16:11210","172.23.100.15:11210"],"chainAfter":["172.23.100.16:11210",""]}`,
	`{"bucket":"test3","host":"172.23.100.16:11210","meta":{"topology":[["ns_1@172.23.100.16",null]]},"state":"active","ts":1658450359.0125,"type":"vbucketStateChange","vbucket":141}`,
	`{"bucket":"test3","hosts":["172.23.100.15:11210"],"node":"ns_1@172.23.100.15","pid":"<0.31250.3>","ts":1658450359.3,"type":"bucketFailoverEnded"}`,
	`{"ts":1658450359.308,"type":"failover"}`,
	`{"bucket":"test3","connectionName":"replication:ns_1@172.23.100.16->ns_1@172.23.100.17:test3","opaque":18,"pid":"<0.4410.0>","side":"consumer","ts":1658450360.5,"type":"dcpAddStream","vbucket":141}`,
	`{"node":"ns_1@172.23.100.15","host":"172.23.100.15:11210","ts":1658450000,"type":"becameMaster"}`,
	`{"vbucket":"0","type":"vbucketStateChange","ts":"1333576042.549572","state":"active","host":"10.17.2.163:12000","bucket":"default"}`,
)

func TestMasterEvents(t *testing.T) {
	res := check(t, MasterEventsFormat, masterOrigin, masterInput, []want{
		{kind: FailoverStart, line: 1, time: "2022-07-22T00:39:18.234123Z", attrs: a{"nodes": "ns_1@172.23.100.15", "hosts": "172.23.100.15:11210", "via": "master_events"}},
		{kind: BucketFailoverStart, line: 2, bucket: "test3", attrs: a{"nodes": "ns_1@172.23.100.15"}},
		{kind: VBucketMap, line: 3, bucket: "test3", vb: vb(141), time: "2022-07-22T00:39:18.8Z",
			attrs: a{"chain_before": "172.23.100.15:11210,172.23.100.16:11210", "chain_after": "172.23.100.16:11210,",
				"active_before": "ns_1@172.23.100.15", "active_after": "ns_1@172.23.100.16"}},
		{kind: VBucketMap, line: 4, bucket: "test3", vb: vb(142), attrs: a{"active_before": "ns_1@172.23.100.16", "active_after": "ns_1@172.23.100.16"}},
		{kind: VBucketState, line: 5, bucket: "test3", vb: vb(141), time: "2022-07-22T00:39:19.0125Z",
			attrs: a{"state": "active", "host": "172.23.100.16:11210", "vb_node": "ns_1@172.23.100.16"}},
		{kind: BucketFailoverEnd, line: 6, bucket: "test3", attrs: a{"nodes": "ns_1@172.23.100.15"}},
		{kind: FailoverEnd, line: 7, time: "2022-07-22T00:39:19.308Z", attrs: a{"nodes": "", "via": "master_events"}},
		{kind: VBucketState, line: 10, bucket: "default", vb: vb(0), time: "2012-04-04T21:47:22.549572Z", attrs: a{"vb_node": "ns_1@10.17.2.163"}},
	})
	for i, st := range res.Stamps {
		if st.IsZero() || st.Zone != forensics.ZoneUTC {
			t.Errorf("line %d: stamp %+v", i+1, st)
		}
	}
}

func TestMasterEventsErrors(t *testing.T) {
	input := lines(
		`{"type":"failover","hosts":["172.23.100.15:11210"]}`,
		`{"ts":"soon","type":"failover"}`,
		`{"ts":1658450358.2,"type":"updateMap","vbucket":141,`,
		`{"bucket":"test3","ts":1658450358.8,"type":"updateMap","vbucket":100000,"chainBefore":[],"chainAfter":[]}`,
		``,
		`not json at all`,
	)
	res := parsertest.Parse(MasterEventsFormat, masterOrigin, []byte(input))
	if len(res.Errors) != 3 || res.Errors[0].Line != 1 || res.Errors[1].Line != 2 || res.Errors[2].Line != 3 {
		t.Errorf("errors %v, want lines 1 2 3", res.Errors)
	}
	if len(res.Events) != 0 {
		t.Errorf("events %v", res.Kinds())
	}
}

func TestDetectMaster(t *testing.T) {
	for _, tt := range []struct {
		name     string
		head     string
		min, max int
	}{
		{"master_events.log", masterInput, 90, 100},
		{"events.jsonl", masterInput, 60, 80},
		{"master_events.log", "", 1, 30},
		{"diag.log", "logs:\n", 0, 0},
		{"x.json", `{"timestamp":"2022-07-22T00:39:12.125Z","event_id":19}` + "\n", 0, 0},
	} {
		if got := MasterEventsFormat.Detect(tt.name, []byte(tt.head)); got < tt.min || got > tt.max {
			t.Errorf("Detect(%q) = %d, want %d..%d", tt.name, got, tt.min, tt.max)
		}
	}
}
