package nsserver

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// Real files, as users paste or collect them, that were misread.

// A diag.log excerpt pasted without its "logs:" opening (as in support
// tickets and MB issues): its lines are still the user-visible log's.
// Templates: ns_orchestrator.erl handle_start_failover and
// log_rebalance_completion (trinity), diag_handler diag_format_log_entry.
func TestDiagExcerptWithoutLogsHeader(t *testing.T) {
	input := lines(
		"2024-11-07T03:14:09.220Z, ns_orchestrator:0:info:message(ns_1@10.112.190.101) - Starting failover of nodes ['ns_1@10.112.190.103'] AllowUnsafe = false Operation Id = 9b0a0f8dd0e1a9c24a7e0b1bfa6e4b34",
		"2024-11-07T03:14:09.231Z, failover:0:info:message(ns_1@10.112.190.101) - Starting failing over ['ns_1@10.112.190.103']",
		"2024-11-07T03:14:11.902Z, ns_orchestrator:0:info:message(ns_1@10.112.190.101) - Failover completed successfully.",
		"Rebalance Operation Id = 9b0a0f8dd0e1a9c24a7e0b1bfa6e4b34",
		"2024-11-07T03:20:44.015Z, ns_orchestrator:0:info:message(ns_1@10.112.190.101) - Starting failover of nodes ['ns_1@10.112.190.102'] AllowUnsafe = false Operation Id = 1bfa6e4b349b0a0f8dd0e1a9c24a7e0b",
		"2024-11-07T03:20:47.310Z, ns_orchestrator:0:critical:message(ns_1@10.112.190.101) - Failover exited with reason {{badmatch,{error,{failed_nodes,['ns_1@10.112.190.102']}}},",
		"                                   [{failover,orchestrate,2,[{file,\"src/failover.erl\"},{line,181}]}]}.",
		"Rebalance Operation Id = 1bfa6e4b349b0a0f8dd0e1a9c24a7e0b",
	)
	for _, name := range []string{"diag.log", "diag-excerpt.txt"} {
		if got := DiagFormat.Detect(name, []byte(input)); got < 75 {
			t.Errorf("Detect(%q) = %d for an excerpt of the logs section, want at least 75", name, got)
		}
	}
	o := forensics.Origin{Name: "diag.log", Node: "ns_1@10.112.190.101"}
	check(t, DiagFormat, o, input, []want{
		{kind: FailoverStart, line: 1, node: "ns_1@10.112.190.101", attrs: a{"nodes": "ns_1@10.112.190.103", "allow_unsafe": "false", "via": "diag"}},
		{kind: FailoverStart, line: 2, node: "ns_1@10.112.190.101", attrs: a{"nodes": "ns_1@10.112.190.103"}},
		{kind: FailoverEnd, line: 3, node: "ns_1@10.112.190.101"},
		{kind: FailoverStart, line: 5, node: "ns_1@10.112.190.101", attrs: a{"nodes": "ns_1@10.112.190.102"}},
		{kind: FailoverFailed, line: 6, node: "ns_1@10.112.190.101"},
	})
	// Lines that only look like entries further down do not make a file one.
	if got := DiagFormat.Detect("notes.txt", []byte("some notes\n"+input)); got != 0 {
		t.Errorf("Detect(notes.txt) = %d for notes that quote entries, want 0", got)
	}
}

// An entry logged without ale's macros carries "unknown:-1" for its function
// and line (seen in a user's xdcr log, 2021); alone in a file it still makes
// an ns_server log.
func TestALEHeaderLineMinusOne(t *testing.T) {
	const l = `[user:info,2021-03-03T15:56:40.386Z,ns_1@10.144.210.101:<0.32519.916>:xdcr:unknown:-1]Replication from bucket "default" to bucket "default" on cluster "remote" created.`
	res := parsertest.Parse(Format, origin15, []byte(l+"\n"))
	if len(res.Errors) != 0 {
		t.Fatalf("errors %v for a header with line -1", res.Errors)
	}
	if len(res.Stamps) != 1 || res.Stamps[0].IsZero() {
		t.Errorf("stamps %v, want the header's time", res.Stamps)
	}
	if got := Format.Detect("ns_server.info.log", []byte(l+"\n")); got < 90 {
		t.Errorf("Detect = %d for a file of one such entry, want at least 90", got)
	}
}

// A log that holds only cbcollect_info's header block (error.log on a
// healthy node) is an empty ns_server log, not an unknown file.
func TestALEHeaderOnly(t *testing.T) {
	head := []byte(lines(
		"==============================================================================",
		"couchbase logs (error.log)",
		"cbbrowse_logs error.log",
		"==============================================================================",
	))
	if got := Format.Detect("ns_server.error.log", head); got < 40 {
		t.Errorf("Detect(ns_server.error.log, header only) = %d, want at least 40", got)
	}
	if got := Format.Detect("ns_server.error.log", nil); got < 40 {
		t.Errorf("Detect(ns_server.error.log, empty) = %d, want at least 40", got)
	}
	if got := Format.Detect("notes.txt", head); got != 0 {
		t.Errorf("Detect(notes.txt, header only) = %d, want 0", got)
	}
	if got := Format.Detect("ns_server.error.log", []byte("just some text\n")); got != 0 {
		t.Errorf("Detect(ns_server.error.log, text) = %d, want 0", got)
	}
}

// master_events.log's rebalance records (master_activity_events
// event_to_jsons/2, ns_server trinity and morpheus), as 8.0 bundles hold them.
func TestMasterRebalance(t *testing.T) {
	input := lines(
		`{"type":"rebalanceStart","ts":1761085923.412876,"pid":"<0.28411.12>","keepNodes":["10.1.2.3:11210","10.1.2.4:11210","10.1.2.5:11210"],"ejectNodes":["10.1.2.6:11210"],"failedNodes":[],"deltaNodes":[]}`,
		`{"type":"bucketRebalanceStarted","ts":1761085923.5,"bucket":"travel-sample","pid":"<0.28533.12>"}`,
		`{"type":"vbucketMoveStart","ts":1761085924.1,"pid":"<0.28601.12>","bucket":"travel-sample","node":"ns_1@10.1.2.6","vbucket":17,"chainBefore":["10.1.2.6:11210","10.1.2.3:11210"],"chainAfter":["10.1.2.4:11210","10.1.2.3:11210"]}`,
		`{"type":"rebalanceEnd","ts":1761086101.002311,"pid":"<0.28411.12>","reason":"normal"}`,
		`{"type":"rebalanceStart","ts":1761090000.1,"pid":"<0.30001.12>","keepNodes":["10.1.2.3:11210"],"ejectNodes":[],"failedNodes":["10.1.2.4:11210"],"deltaNodes":[]}`,
		`{"type":"rebalanceEnd","ts":1761090031.5,"pid":"<0.30001.12>","reason":"{buckets_shutdown_wait_failed,[{'ns_1@10.1.2.4',{'EXIT',{old_buckets_shutdown_wait_failed,[\"default\"]}}}]}"}`,
		// Stopped by the user: ns_orchestrator exits the rebalancer with
		// {shutdown, stop}, and event_to_jsons/2 writes the reason with ~p.
		`{"type":"rebalanceStart","ts":1761091000.2,"pid":"<0.31002.12>","keepNodes":["10.1.2.3:11210","10.1.2.4:11210"],"ejectNodes":[],"failedNodes":[],"deltaNodes":[]}`,
		`{"type":"rebalanceEnd","ts":1761091042.7,"pid":"<0.31002.12>","reason":"{shutdown,stop}"}`,
	)
	check(t, MasterEventsFormat, masterOrigin, input, []want{
		{kind: RebalanceStart, line: 1, time: "2025-10-21T22:32:03.412876Z", attrs: a{"keep_nodes": "ns_1@10.1.2.3,ns_1@10.1.2.4,ns_1@10.1.2.5", "eject_nodes": "ns_1@10.1.2.6", "failed_nodes": "", "pid": "<0.28411.12>", "via": "master_events"}},
		{kind: RebalanceEnd, line: 4, attrs: a{"result": "completed", "reason": ""}},
		{kind: RebalanceStart, line: 5, attrs: a{"failed_nodes": "ns_1@10.1.2.4"}},
		{kind: RebalanceEnd, line: 6, attrs: a{"result": "failed", "reason": "{buckets_shutdown_wait_failed,[{'ns_1@10.1.2.4',{'EXIT',{old_buckets_shutdown_wait_failed,[\"default\"]}}}]}"}},
		{kind: RebalanceStart, line: 7},
		{kind: RebalanceEnd, line: 8, attrs: a{"result": "stopped"}},
	})
}

// A log copied out of its cbcollect_info folder, or shipped by the
// Couchbase fluent-bit image, keeps its node: each ale header names it
// (ale_default_formatter.erl). The source takes the last name the node had:
// nonode@nohost before distribution starts, the provisional ns_1@cb.local,
// then the name it was renamed to. Lines from couchbase/couchbase-fluent-bit
// test/logs (debug.log, ns_couchdb.log, babysitter.log).
func TestALENodeFromHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, input, want string
	}{
		{"renamed", lines(
			`[ns_server:info,2021-03-09T17:31:57.548Z,nonode@nohost:<0.118.0>:ns_server:init_logging:151]Started & configured logging`,
			`[ns_server:debug,2021-03-09T17:31:57.637Z,ns_1@cb.local:cb_dist<0.176.0>:cb_dist:info_msg:754]cb_dist: Added connection {con,#Ref<0.821362254.593494019.181501>,`,
			`                               inet_tcp_dist,undefined,undefined}`,
			`[ns_server:debug,2021-03-09T17:32:14.396Z,ns_1@cb-example-0000.cb-example.default.svc:ns_config<0.193.0>:dist_manager:rename_node_in_config:392]renaming node conf nodes_wanted -> nodes_wanted:`,
		), "ns_1@cb-example-0000.cb-example.default.svc"},
		{"ns_couchdb's node", lines(
			`[ns_server:info,2021-03-09T17:32:00.671Z,couchdb_ns_1@cb.local:<0.74.0>:ns_couchdb:start:55]CouchDB node 'couchdb_ns_1@cb.local' was initialized for 'ns_1@cb.local'. Cookie: {sanitized,`,
		), "ns_1@cb.local"},
		{"babysitter's node", lines(
			`[ns_server:info,2021-03-09T17:31:55.351Z,babysitter_of_ns_1@cb.local:<0.92.0>:ns_babysitter:init_logging:136]Brought up babysitter logging`,
		), "ns_1@cb.local"},
		{"before distribution only", lines(
			`[ns_server:info,2021-03-09T17:31:57.548Z,nonode@nohost:<0.118.0>:ns_server:init_logging:151]Started & configured logging`,
		), ""},
	} {
		p := Format.New(forensics.Origin{Name: "debug.log"})
		for i, l := range strings.Split(strings.TrimSuffix(tc.input, "\n"), "\n") {
			p.Line(int64(i+1), []byte(l), func(*forensics.Event) {})
		}
		p.End(func(*forensics.Event) {})
		if got := p.(interface{ Node() string }).Node(); got != tc.want {
			t.Errorf("%s: Node() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The steps of a rebalance that name the bucket it waits for, as the
// orchestrator's debug.log has them (ns_rebalancer
// rebalance_membase_bucket through the rebalance logger, janitor_agent
// check_bucket_ready), with ale's grammar of 7.6.
func TestALERebalanceBucketSteps(t *testing.T) {
	input := lines(
		`[rebalance:info,2024-03-11T07:10:01.112-07:00,ns_1@10.20.0.11:<0.1901.5>:ns_rebalancer:rebalance_membase_bucket:676]Waiting for bucket "travel-sample" to be ready on ['ns_1@10.20.0.11',`,
		`                                                                           'ns_1@10.20.0.12']`,
		`[ns_server:debug,2024-03-11T07:10:41.901-07:00,ns_1@10.20.0.11:<0.1901.5>:janitor_agent:check_bucket_ready:204]Querying bucket "travel-sample" states failed. Failures: [{'ns_1@10.20.0.12',`,
		`                                                                 warming_up}]`,
		`[ns_server:debug,2024-03-11T07:10:41.905-07:00,ns_1@10.20.0.11:<0.1901.5>:janitor_agent:check_bucket_ready:204]Querying bucket "default" states failed. Failures: [{'ns_1@10.20.0.12',{error,timeout}}]`,
	)
	check(t, Format, forensics.Origin{Name: "ns_server.debug.log"}, input, []want{
		{kind: RebalanceBucketWait, line: 1, node: "ns_1@10.20.0.11", bucket: "travel-sample", attrs: a{"nodes": "ns_1@10.20.0.11,ns_1@10.20.0.12"}},
		{kind: BucketQueryFailed, line: 3, node: "ns_1@10.20.0.11", bucket: "travel-sample", attrs: a{"nodes": "ns_1@10.20.0.12", "reason": "warming_up"}},
		{kind: BucketQueryFailed, line: 5, node: "ns_1@10.20.0.11", bucket: "default", attrs: a{"nodes": "ns_1@10.20.0.12", "reason": "error"}},
	})
}
