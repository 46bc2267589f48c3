package nsserver

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

var diagOrigin = forensics.Origin{
	Path: "collectinfo-2022-07-22T004733-ns_1@172.23.100.16.zip!cbcollect_info_ns_1@172.23.100.16_20220722-004733/diag.log",
	Name: "diag.log",
	Node: "ns_1@172.23.100.16",
}

// A diag.log as cbcollect_info writes it (header block, then GET /diag:
// diag_handler:handle_just_diag). The logs: lines are the seed's, verbatim,
// with the entries around them that the same incident logs.
var diagInput = lines(
	"==============================================================================",
	"couchbase diags",
	"curl -sS -k --proxy  -K- http://127.0.0.1:8091/diag",
	"==============================================================================",
	"logs:",
	"-------------------------------",
	"2022-07-21T17:20:01.005-07:00, ns_memcached:0:info:message(ns_1@172.23.100.15) - Bucket \"test3\" loaded on node 'ns_1@172.23.100.15' in 0 seconds.",
	"2022-07-21T17:39:12.120-07:00, ns_log:0:info:message(ns_1@172.23.100.15) - Service 'memcached' exited with status 137. Restarting. Messages:",
	"2022-07-21T17:39:11.998812-07:00 WARNING (test3) Slow runtime for 'Checkpoint Remover' on thread nonIO_worker_0: 1062 ms",
	"2022-07-21T17:39:18.230-07:00, ns_orchestrator:0:info:message(ns_1@172.23.100.15) - Starting failover of nodes ['ns_1@172.23.100.15']. Operation Id = 4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2",
	"2022-07-21T17:39:18.234-07:00, failover:0:info:message(ns_1@172.23.100.15) - Starting failing over ['ns_1@172.23.100.15']",
	"2022-07-21T17:39:19.301-07:00, failover:0:info:message(ns_1@172.23.100.15) - Failed over ['ns_1@172.23.100.15']: ok",
	"2022-07-21T17:39:19.308-07:00, ns_orchestrator:0:info:message(ns_1@172.23.100.15) - Failover completed successfully.",
	"Rebalance Operation Id = 4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2",
	"2022-07-21T17:40:12.120-07:00, ns_log:0:info:message(ns_1@172.23.100.17) - Service 'memcached' exited with status 137. Restarting. Messages:",
	"2022-07-21T17:40:11.000001-07:00 WARNING (test3) something (repeated 3 times, last seen 40.223 secs ago)",
	"2022-07-21T17:45:00.000-07:00, ns_vbucket_mover:0:info:message(ns_1@172.23.100.19) - Bucket \"test3\" rebalance does not seem to be swap rebalance",
	"2022-07-21T17:46:00.000-07:00, auto_failover:0:info:message(ns_1@172.23.100.19) - Node ('ns_1@172.23.100.17') was automatically failed over. Reason: The data service did not respond for the duration of the auto-failover threshold. Either none of the buckets have warmed up or there is an issue with the data service.",
	"-------------------------------",
	"",
	"",
	"Event Logs:",
	"-------------------------------",
	`{"timestamp":"2022-07-22T00:39:12.125Z","event_id":19,"component":"ns_server","description":"Service crashed","severity":"error","node":"172.23.100.15","otp_node":"ns_1@172.23.100.15","uuid":"5c1b0e3e-4b48-4c34-9a1e-5b0a0c5b9f1d","extra_attributes":{"name":"memcached","exit_status":137,"os_pid":2271}}`,
	`{"timestamp":"2022-07-22T00:39:18.231Z","event_id":10,"component":"ns_server","description":"Hard failover initiated","severity":"info","node":"172.23.100.15","otp_node":"ns_1@172.23.100.15","uuid":"0b8f3a34-1d8f-4f5e-8c56-2a5d8a4c6d11","extra_attributes":{"operation_id":"4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2","nodes_info":{"active_nodes":["ns_1@172.23.100.15","ns_1@172.23.100.16","ns_1@172.23.100.17"],"failover_nodes":["ns_1@172.23.100.15"],"master_node":"ns_1@172.23.100.15"},"allow_unsafe":false}}`,
	`{"timestamp":"2022-07-22T00:39:19.309Z","event_id":11,"component":"ns_server","description":"Hard failover completed","severity":"info","node":"172.23.100.15","otp_node":"ns_1@172.23.100.15","uuid":"9e5c1c2e-6b0a-4b9b-a8a6-0c1d8e7f5a22","extra_attributes":{"operation_id":"4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2","nodes_info":{"active_nodes":["ns_1@172.23.100.15","ns_1@172.23.100.16","ns_1@172.23.100.17"],"failover_nodes":["ns_1@172.23.100.15"],"master_node":"ns_1@172.23.100.15"},"time_taken":1077,"completion_message":"Failover completed successfully."}}`,
	`{"timestamp":"2022-07-22T00:39:21.004Z","event_id":8199,"component":"data","description":"Bucket online","severity":"info","node":"172.23.100.15","otp_node":"ns_1@172.23.100.15","uuid":"3f2d7c1b-2a44-4a3e-b0a4-7f6c5d4e3b33","extra_attributes":{"bucket":"test3","bucket_uuid":"a4e7a5c0f1a64c19b4a1f0f2b8e3c944","warmup_time":8}}`,
	`{"timestamp":"2022-07-22T00:39:12.900Z","event_id":20,"component":"ns_server","description":"Node Down","severity":"warning","node":"172.23.100.16","otp_node":"ns_1@172.23.100.16","uuid":"7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c44","extra_attributes":{"down_node":"ns_1@172.23.100.15","reason":"connection_closed"}}`,
	"-------------------------------",
	"",
	"",
	"per_node_diag(ns_1@172.23.100.16) =",
	"     [{version,[{kernel,\"8.1.3\"},",
	// Only the first logs: section is read: what follows is Erlang terms.
	"logs:",
	"2022-07-21T17:39:12.120-07:00, not:0:info:message(ns_1@x) - Service 'memcached' exited with status 9. Restarting. Messages:",
)

func TestDiag(t *testing.T) {
	res := check(t, DiagFormat, diagOrigin, diagInput, []want{
		{kind: BucketLoaded, line: 7, node: "ns_1@172.23.100.15", bucket: "test3", attrs: a{"loaded_node": "ns_1@172.23.100.15", "seconds": "0", "via": "diag"}},
		{kind: ServiceExited, line: 8, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:12.12Z",
			attrs: a{"service": "memcached", "status": "137", "via": "diag", "repeated": ""},
			text: "2022-07-21T17:39:12.120-07:00, ns_log:0:info:message(ns_1@172.23.100.15) - Service 'memcached' exited with status 137. Restarting. Messages:\n" +
				"2022-07-21T17:39:11.998812-07:00 WARNING (test3) Slow runtime for 'Checkpoint Remover' on thread nonIO_worker_0: 1062 ms"},
		{kind: FailoverStart, line: 10, node: "ns_1@172.23.100.15", attrs: a{"nodes": "ns_1@172.23.100.15", "operation_id": "4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2", "via": "diag"}},
		{kind: FailoverStart, line: 11, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:18.234Z",
			attrs: a{"nodes": "ns_1@172.23.100.15", "via": "diag"},
			text:  "2022-07-21T17:39:18.234-07:00, failover:0:info:message(ns_1@172.23.100.15) - Starting failing over ['ns_1@172.23.100.15']"},
		{kind: FailoverNode, line: 12, node: "ns_1@172.23.100.15", attrs: a{"nodes": "ns_1@172.23.100.15", "result": "ok"}},
		{kind: FailoverEnd, line: 13, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:19.308Z", attrs: a{"operation_id": "4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2", "via": "diag"}},
		{kind: ServiceExited, line: 15, node: "ns_1@172.23.100.17", attrs: a{"service": "memcached", "status": "137", "repeated": "3"}},
		{kind: AutoFailover, line: 18, node: "ns_1@172.23.100.19", attrs: a{"nodes": "ns_1@172.23.100.17", "via": "diag"}},
		{kind: ServiceExited, line: 24, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:12.125Z",
			attrs: a{"service": "memcached", "status": "137", "name": "memcached", "exit_status": "137", "os_pid": "2271", "event_id": "19", "via": "event_log"}},
		{kind: FailoverStart, line: 25, node: "ns_1@172.23.100.15", attrs: a{"nodes": "ns_1@172.23.100.15", "operation_id": "4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2", "event_id": "10", "allow_unsafe": "false", "master_node": "ns_1@172.23.100.15"}},
		{kind: FailoverEnd, line: 26, node: "ns_1@172.23.100.15", attrs: a{"nodes": "ns_1@172.23.100.15", "event_id": "11", "time_taken": "1077", "completion_message": "Failover completed successfully."}},
		{kind: BucketOnline, line: 27, node: "ns_1@172.23.100.15", bucket: "test3", time: "2022-07-22T00:39:21.004Z", attrs: a{"event_id": "8199", "warmup_time": "8", "via": "event_log"}},
		{kind: LoggedEvent, line: 28, node: "ns_1@172.23.100.16", attrs: a{"event_id": "20", "description": "Node Down", "down_node": "ns_1@172.23.100.15", "reason": "connection_closed"}},
	})
	// Lines of the logs section have the entry's time, continuations none;
	// the Erlang terms after the sections have none either.
	for _, n := range []int{7, 8, 10, 17, 24} {
		if res.Stamps[n-1].IsZero() {
			t.Errorf("line %d has no stamp", n)
		}
	}
	for _, n := range []int{5, 6, 9, 14, 16, 19, 22, 29, 32, 33, 34, 35} {
		if !res.Stamps[n-1].IsZero() {
			t.Errorf("line %d has a stamp", n)
		}
	}
	if st := res.Stamps[7]; st.Offset != -7*3600 || st.Zone != forensics.ZoneLogged {
		t.Errorf("logs: stamp %+v", st)
	}
}

func TestDiagErrors(t *testing.T) {
	input := lines(
		"logs:",
		"-------------------------------",
		"2022-07-21T17:39:12.120-07:00, ns_log:x:info:message(ns_1@172.23.100.15) - Service 'memcached' exited with status 137. Restarting. Messages:",
		"2022-07-21T17:39:12.121-07:00, ns_log:0:info:message ns_1@172.23.100.15 - text",
		"2022-07-21T17:39:12.122-07:00, ns_log:0:info:message(ns_1@172.23.100.15) - Service 'memcached' exited with status 134. Restarting. Messages:",
		"-------------------------------",
		"Event Logs:",
		"-------------------------------",
		`{"timestamp":"2022-07-22T00:39:12.125Z","event_id":19,`,
		`{"timestamp":"yesterday","event_id":19}`,
		`{"timestamp":"2022-07-22T00:39:12.125Z","event_id":"nineteen"}`,
		"-------------------------------",
	)
	res := parsertest.Parse(DiagFormat, diagOrigin, []byte(input))
	var lines []int64
	for _, e := range res.Errors {
		lines = append(lines, e.Line)
		if msg := e.Err.Error(); msg[0] < 'a' || msg[0] > 'z' || strings.Contains(msg, "\n") {
			t.Errorf("error %q", msg)
		}
	}
	if len(lines) != 5 || lines[0] != 3 || lines[1] != 4 || lines[2] != 9 || lines[3] != 10 || lines[4] != 11 {
		t.Errorf("errors on lines %v, want 3 4 9 10 11: %v", lines, res.Errors)
	}
	if k := res.Kinds(); len(k) != 1 || k[0] != ServiceExited || res.Events[0].Attr("status") != "134" {
		t.Errorf("events %v", res.Events)
	}
}

func TestDetectDiag(t *testing.T) {
	head := []byte(diagInput[:600])
	for _, tt := range []struct {
		name     string
		head     []byte
		min, max int
	}{
		{"diag.log", head, 90, 100},
		{"ns-diag-20220721173912.txt", []byte("logs:\n-------------------------------\n"), 90, 100},
		{"something.txt", head, 80, 89},
		{"diag.log", []byte("garbage"), 1, 40},
		{"ns_server.debug.log", []byte("[ns_server:debug,2022-07-21T17:39:12.101-07:00,ns_1@a:<0.1.0>:m:f:1]x\n"), 0, 0},
	} {
		if got := DiagFormat.Detect(tt.name, tt.head); got < tt.min || got > tt.max {
			t.Errorf("Detect(%q) = %d, want %d..%d", tt.name, got, tt.min, tt.max)
		}
	}
}

func TestEventLogFile(t *testing.T) {
	// The event log lines on their own, with one line that is not an object.
	var evs []string
	for _, l := range strings.Split(diagInput, "\n") {
		if strings.HasPrefix(l, `{"timestamp"`) {
			evs = append(evs, l)
		}
	}
	input := lines(append(evs, "not json")...)
	check(t, EventLogFormat, diagOrigin, input, []want{
		{kind: ServiceExited, line: 1, node: "ns_1@172.23.100.15", attrs: a{"service": "memcached", "via": "event_log"}},
		{kind: FailoverStart, line: 2, node: "ns_1@172.23.100.15", attrs: a{"nodes": "ns_1@172.23.100.15"}},
		{kind: FailoverEnd, line: 3, node: "ns_1@172.23.100.15"},
		{kind: BucketOnline, line: 4, node: "ns_1@172.23.100.15", bucket: "test3"},
		{kind: LoggedEvent, line: 5, node: "ns_1@172.23.100.16"},
	})
	if got := EventLogFormat.Detect("events.json", []byte(input)); got < 50 {
		t.Errorf("Detect = %d", got)
	}
	if got := EventLogFormat.Detect("master_events.log", []byte(`{"bucket":"test3","ts":1658450358.24,"type":"updateMap","vbucket":141}`+"\n")); got != 0 {
		t.Errorf("Detect(master events) = %d", got)
	}
}

// TestSeed reads the seed's diag.log lines exactly as the incident report
// quotes them, each with nothing around it.
func TestSeed(t *testing.T) {
	seed := []string{
		"2022-07-21T17:39:12.120-07:00, ns_log:0:info:message(ns_1@172.23.100.15) - Service 'memcached' exited with status 137. Restarting. Messages:",
		"2022-07-21T17:39:18.234-07:00, failover:0:info:message(ns_1@172.23.100.15) - Starting failing over ['ns_1@172.23.100.15']",
		"2022-07-21T17:39:19.308-07:00, ns_orchestrator:0:info:message(ns_1@172.23.100.15) - Failover completed successfully.",
	}
	input := lines(append([]string{"logs:", "-------------------------------"}, seed...)...)
	check(t, DiagFormat, diagOrigin, input, []want{
		{kind: ServiceExited, line: 3, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:12.12Z", text: seed[0],
			attrs: a{"service": "memcached", "status": "137", "via": "diag"}},
		{kind: FailoverStart, line: 4, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:18.234Z", text: seed[1],
			attrs: a{"nodes": "ns_1@172.23.100.15", "via": "diag"}},
		{kind: FailoverEnd, line: 5, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:19.308Z", text: seed[2],
			attrs: a{"via": "diag", "operation_id": ""}},
	})
}
