package nsserver

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// The lines below follow ale_default_formatter.erl and the templates of
// ns_server 7.0–8.0 (file and function named per case); times and nodes are
// those of the seed incident (node 172.23.100.15, -07:00).

var origin15 = forensics.Origin{
	Path: "collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip!cbcollect_info_ns_1@172.23.100.15_20220722-004733/ns_server.info.log",
	Name: "ns_server.info.log",
	Node: "ns_1@172.23.100.15",
}

func TestALEMemcachedRestart(t *testing.T) {
	// babysitter.log (goport, supervisor_cushion) and info.log (ns_log,
	// ns_doctor, ns_memcached) around a memcached SIGKILL.
	input := lines(
		"==============================================================================",
		"couchbase logs (babysitter.log)",
		"cbbrowse_logs babysitter.log",
		"==============================================================================",
		"[ns_server:info,2022-07-21T17:39:12.101-07:00,babysitter_of_ns_1@cb.local:<0.133.0>:goport:handle_process_exit:566]Port exited with status 137.",
		"[ns_server:info,2022-07-21T17:39:12.102-07:00,babysitter_of_ns_1@cb.local:<0.130.0>:supervisor_cushion:handle_info:54]Cushion managed supervisor for memcached failed:  {abnormal,137}",
		"[user:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.2271.0>:ns_log:consume_log:76]Service 'memcached' exited with status 137. Restarting. Messages:",
		"2022-07-21T17:39:05.120144-07:00 INFO 97: (test3) DCP (Producer) eq_dcpq:replication:ns_1@172.23.100.15->ns_1@172.23.100.16:test3 - Removing connection",
		"2022-07-21T17:39:11.998812-07:00 WARNING (test3) Slow runtime for 'Checkpoint Remover' on thread nonIO_worker_0: 1062 ms",
		"",
		"[ns_server:info,2022-07-21T17:39:12.844-07:00,ns_1@172.23.100.16:ns_doctor<0.3120.0>:ns_doctor:update_status:309]The following buckets became not ready on node 'ns_1@172.23.100.15': [\"test3\"], those of them are active []",
		"[ns_server:debug,2022-07-21T17:39:12.901-07:00,ns_1@172.23.100.15:<0.28711.2>:ns_memcached:run_connect_phase:174]Started 'connecting' phase of ns_memcached-test3. Parent is <0.28710.2>",
	)
	check(t, Format, origin15, input, []want{
		{kind: PortExited, line: 5, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:12.101Z",
			attrs: a{"status": "137", "service": ""},
			text:  "[ns_server:info,2022-07-21T17:39:12.101-07:00,babysitter_of_ns_1@cb.local:<0.133.0>:goport:handle_process_exit:566]Port exited with status 137."},
		{kind: PortExited, line: 6, node: "ns_1@172.23.100.15", attrs: a{"service": "memcached", "status": "137", "reason": "{abnormal,137}"}},
		{kind: ServiceExited, line: 7, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:12.12Z",
			attrs: a{"service": "memcached", "status": "137", "via": "", "repeated": ""}},
		{kind: BucketUnready, line: 11, node: "ns_1@172.23.100.16", bucket: "test3",
			attrs: a{"unready_node": "ns_1@172.23.100.15", "buckets": "test3", "active_buckets": ""}},
	})
	res := parsertest.Parse(Format, origin15, []byte(input))
	exited := res.OfKind(ServiceExited)[0]
	if !strings.HasSuffix(exited.Text, "nonIO_worker_0: 1062 ms\n") {
		t.Errorf("service_exited text does not hold the entry's messages:\n%s", exited.Text)
	}
	for i, st := range res.Stamps {
		header := i == 4 || i == 5 || i == 6 || i == 10 || i == 11
		if st.IsZero() == header {
			t.Errorf("line %d: stamp %v; a header line must have one, other lines none", i+1, st)
		}
	}
}

func TestALETraffic(t *testing.T) {
	input := lines(
		"[ns_server:debug,2022-07-21T17:39:17.501-07:00,ns_1@172.23.100.15:<0.31001.2>:janitor_agent:query_vbuckets_loop:111]Waiting for \"test3\" on 'ns_1@172.23.100.15'",
		"[ns_server:info,2022-07-21T17:39:17.502-07:00,ns_1@172.23.100.19:<0.15555.7>:ns_janitor:cleanup_with_membase_bucket_vbucket_map:127]Bucket \"test3\" not yet ready on ['ns_1@172.23.100.15']",
		"[user:info,2022-07-21T17:39:17.650-07:00,ns_1@172.23.100.15:ns_memcached-test3<0.28710.2>:ns_memcached:handle_cast:676]Bucket \"test3\" loaded on node 'ns_1@172.23.100.15' in 5 seconds.",
		"[ns_server:info,2022-07-21T17:39:21.003-07:00,ns_1@172.23.100.15:ns_memcached-test3<0.28710.2>:ns_memcached:handle_call:294]Enabling traffic to bucket \"test3\"",
		"[ns_server:info,2022-07-21T17:39:21.004-07:00,ns_1@172.23.100.15:ns_memcached-test3<0.28710.2>:ns_memcached:handle_call:298]Bucket \"test3\" marked as warmed in 8 seconds",
		"[ns_server:info,2022-07-21T17:39:22.110-07:00,ns_1@172.23.100.16:ns_doctor<0.3120.0>:ns_doctor:update_status:309]The following buckets became ready on node 'ns_1@172.23.100.15': [\"test3\"]",
		"[ns_server:info,2022-07-21T17:39:22.111-07:00,ns_1@172.23.100.16:ns_doctor<0.3120.0>:ns_doctor:update_status:309]The following buckets became ready on node 'ns_1@172.23.100.17': [\"beer-sample\",",
		"                                                                                 \"default\",",
		"                                                                                 \"test3\"]",
		"[ns_server:error,2022-07-21T17:39:23.004-07:00,ns_1@172.23.100.15:ns_memcached-default<0.28990.2>:ns_memcached:handle_call:310]Failed to enable traffic to bucket \"default\": {memcached_error,etmpfail,undefined}",
	)
	check(t, Format, origin15, input, []want{
		{kind: BucketNotReady, line: 2, node: "ns_1@172.23.100.19", bucket: "test3", attrs: a{"nodes": "ns_1@172.23.100.15"}},
		{kind: BucketLoaded, line: 3, node: "ns_1@172.23.100.15", bucket: "test3", attrs: a{"loaded_node": "ns_1@172.23.100.15", "seconds": "5"}},
		{kind: TrafficEnabling, line: 4, node: "ns_1@172.23.100.15", bucket: "test3", time: "2022-07-22T00:39:21.003Z"},
		{kind: BucketWarmed, line: 5, node: "ns_1@172.23.100.15", bucket: "test3", attrs: a{"seconds": "8"}},
		{kind: BucketReady, line: 6, node: "ns_1@172.23.100.16", bucket: "test3", attrs: a{"ready_node": "ns_1@172.23.100.15", "buckets": "test3"}},
		{kind: BucketReady, line: 7, node: "ns_1@172.23.100.16", bucket: "", attrs: a{"ready_node": "ns_1@172.23.100.17", "buckets": "beer-sample,default,test3"}},
		{kind: TrafficEnableFailed, line: 10, node: "ns_1@172.23.100.15", bucket: "default", attrs: a{"error": "{memcached_error,etmpfail,undefined}"}},
	})
}

func TestALEFailover(t *testing.T) {
	input := lines(
		// 7.1: ns_orchestrator handle_start_failover, failover:orchestrate, log_rebalance_completion.
		"[user:info,2022-07-21T17:39:18.230-07:00,ns_1@172.23.100.15:<0.11001.3>:ns_orchestrator:handle_start_failover:1600]Starting failover of nodes ['ns_1@172.23.100.15']. Operation Id = 4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2",
		"[user:info,2022-07-21T17:39:18.234-07:00,ns_1@172.23.100.15:<0.11020.3>:failover:orchestrate:151]Starting failing over ['ns_1@172.23.100.15']",
		"[ns_server:debug,2022-07-21T17:39:18.240-07:00,ns_1@172.23.100.15:<0.11020.3>:failover:failover_membase_bucket_with_map:422]Original vbucket map: [['ns_1@172.23.100.15','ns_1@172.23.100.16'],",
		"                      ['ns_1@172.23.100.16','ns_1@172.23.100.15']]",
		"VBucket map with failover applied: [['ns_1@172.23.100.16',undefined],",
		"                                    ['ns_1@172.23.100.16',undefined]]",
		"[user:info,2022-07-21T17:39:19.301-07:00,ns_1@172.23.100.15:<0.11020.3>:failover:orchestrate:161]Failed over ['ns_1@172.23.100.15']: ok",
		"[user:info,2022-07-21T17:39:19.308-07:00,ns_1@172.23.100.15:<0.11001.3>:ns_orchestrator:log_rebalance_completion:1429]Failover completed successfully.",
		"Rebalance Operation Id = 4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2",
		// 7.6: AllowUnsafe in the start message.
		"[user:info,2024-03-02T10:00:00.000Z,ns_1@10.0.0.1:<0.901.0>:ns_orchestrator:handle_start_failover:1869]Starting failover of nodes ['ns_1@10.0.0.2',",
		"                                                                                          'ns_1@10.0.0.3'] AllowUnsafe = false Operation Id = 0f1e",
		"[user:error,2024-03-02T10:00:01.000Z,ns_1@10.0.0.1:<0.902.0>:failover:orchestrate:174]Failover failed with {failover_failed,\"default\",\"Failed to get failover info for bucket \\\"default\\\": ['ns_1@10.0.0.3']\"}",
		"[user:error,2024-03-02T10:00:01.100Z,ns_1@10.0.0.1:<0.902.0>:failover:orchestrate:166]Failed over ['ns_1@10.0.0.2','ns_1@10.0.0.3']. Failover couldn't complete on some nodes:",
		"['ns_1@10.0.0.3']",
		"[user:info,2024-03-02T10:05:00.000Z,ns_1@10.0.0.1:<0.950.0>:ns_orchestrator:idle:722]Starting graceful failover of nodes ['ns_1@10.0.0.2']. Operation Id = 77aa",
		"[user:info,2024-03-02T10:06:00.000Z,ns_1@10.0.0.1:<0.950.0>:ns_orchestrator:log_rebalance_completion:1429]Graceful failover completed successfully.",
		"Rebalance Operation Id = 77aa",
		"[user:error,2024-03-02T10:07:00.000Z,ns_1@10.0.0.1:<0.960.0>:ns_orchestrator:log_rebalance_completion:1429]Graceful failover exited with reason {mover_crashed,{unexpected_exit,{'EXIT',<0.961.0>,killed}}}.",
		"Rebalance Operation Id = 88bb",
		"[user:info,2024-03-02T11:00:00.000Z,ns_1@10.0.0.1:<0.990.0>:auto_failover:log_failover_success:634]Node ('ns_1@10.0.0.4') was automatically failed over. Reason: The data service did not respond for the duration of the auto-failover threshold. Either none of the buckets have warmed up or there is an issue with the data service.",
	)
	check(t, Format, origin15, input, []want{
		{kind: FailoverStart, line: 1, node: "ns_1@172.23.100.15", attrs: a{"nodes": "ns_1@172.23.100.15", "operation_id": "4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2", "graceful": ""}},
		{kind: FailoverStart, line: 2, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:18.234Z", attrs: a{"nodes": "ns_1@172.23.100.15", "operation_id": ""}},
		{kind: FailoverNode, line: 7, node: "ns_1@172.23.100.15", attrs: a{"nodes": "ns_1@172.23.100.15", "result": "ok"}},
		{kind: FailoverEnd, line: 8, node: "ns_1@172.23.100.15", time: "2022-07-22T00:39:19.308Z", attrs: a{"operation_id": "4a7e0b1bfa6e4b34ab0a0f8dd0e1a9c2", "graceful": ""}},
		{kind: FailoverStart, line: 10, node: "ns_1@10.0.0.1", time: "2024-03-02T10:00:00Z", attrs: a{"nodes": "ns_1@10.0.0.2,ns_1@10.0.0.3", "allow_unsafe": "false", "operation_id": "0f1e"}},
		{kind: FailoverFailed, line: 12, node: "ns_1@10.0.0.1", attrs: a{"error": `{failover_failed,"default","Failed to get failover info for bucket \"default\": ['ns_1@10.0.0.3']"}`}},
		{kind: FailoverNode, line: 13, node: "ns_1@10.0.0.1", attrs: a{"nodes": "ns_1@10.0.0.2,ns_1@10.0.0.3", "result": "incomplete", "error_nodes": "['ns_1@10.0.0.3']"}},
		{kind: FailoverStart, line: 15, node: "ns_1@10.0.0.1", attrs: a{"nodes": "ns_1@10.0.0.2", "graceful": "true", "operation_id": "77aa"}},
		{kind: FailoverEnd, line: 16, node: "ns_1@10.0.0.1", attrs: a{"graceful": "true", "operation_id": "77aa"}},
		{kind: FailoverFailed, line: 18, node: "ns_1@10.0.0.1", attrs: a{"graceful": "true", "operation_id": "88bb", "error": "exited with reason {mover_crashed,{unexpected_exit,{'EXIT',<0.961.0>,killed}}}."}},
		{kind: AutoFailover, line: 20, node: "ns_1@10.0.0.1", attrs: a{"nodes": "ns_1@10.0.0.4",
			"reason": "The data service did not respond for the duration of the auto-failover threshold. Either none of the buckets have warmed up or there is an issue with the data service."}},
	})
}

func TestALEVBuckets(t *testing.T) {
	input := lines(
		// ns_memcached do_handle_call({set_vbuckets, …}) on the new active.
		"[ns_server:info,2022-07-21T17:39:18.910-07:00,ns_1@172.23.100.16:<0.4410.0>:ns_memcached:do_handle_call:591]Changed vbucket state ",
		"[{140,active,{[{topology,[[<<\"ns_1@172.23.100.16\">>,null]]}]}},",
		" {141,active,",
		"      {[{topology,[[<<\"ns_1@172.23.100.16\">>,null]]}]}},",
		" {512,replica,undefined}]",
		// ns_memcached do_handle_call({set_vbucket, …}).
		"[ns_server:info,2022-07-21T17:40:02.001-07:00,ns_1@172.23.100.17:<0.5510.0>:ns_memcached:do_handle_call:611]Changed bucket \"test3\" vbucket 141 state to replica",
		// ns_janitor sanify_chain/5 on the orchestrator.
		"[ns_server:info,2022-07-21T17:39:18.700-07:00,ns_1@172.23.100.15:<0.11030.3>:ns_janitor:sanify_chain:482]Setting vbucket 141 in \"test3\" on 'ns_1@172.23.100.16' from replica to active.",
		"[ns_server:error,2022-07-21T17:39:18.701-07:00,ns_1@172.23.100.15:<0.11030.3>:ns_janitor:derive_chain:522]Master for vbucket 142 in \"test3\" is not active, but 'ns_1@172.23.100.16' is (one of replicas). So making that master.",
		// ns_janitor 7.6 for ephemeral buckets: first line differs, no event.
		"[ns_server:info,2024-03-02T10:00:00.000Z,ns_1@10.0.0.1:<0.1.0>:ns_janitor:sanify_chain:648]Ephemeral bucket provisioning new active.",
		"Setting vbucket 7 in \"eph\" on 'ns_1@10.0.0.2' to active.",
	)
	check(t, Format, origin15, input, []want{
		{kind: VBucketState, line: 2, node: "ns_1@172.23.100.16", vb: vb(140), attrs: a{"state": "active"},
			text: `{140,active,{[{topology,[[<<"ns_1@172.23.100.16">>,null]]}]}}`},
		{kind: VBucketState, line: 3, node: "ns_1@172.23.100.16", vb: vb(141), attrs: a{"state": "active"},
			text: "{141,active,\n      {[{topology,[[<<\"ns_1@172.23.100.16\">>,null]]}]}}"},
		{kind: VBucketState, line: 5, node: "ns_1@172.23.100.16", vb: vb(512), attrs: a{"state": "replica"}, text: "{512,replica,undefined}"},
		{kind: VBucketState, line: 6, node: "ns_1@172.23.100.17", bucket: "test3", vb: vb(141), attrs: a{"state": "replica"}},
		{kind: VBucketState, line: 7, node: "ns_1@172.23.100.15", bucket: "test3", vb: vb(141), attrs: a{"state": "active", "from_state": "replica", "vb_node": "ns_1@172.23.100.16"}},
		{kind: VBucketMap, line: 8, node: "ns_1@172.23.100.15", bucket: "test3", vb: vb(142), attrs: a{"active_after": "ns_1@172.23.100.16"}},
	})
}

func TestALEVersionsAndNodes(t *testing.T) {
	// Z when the node runs in UTC, a registered name glued to the pid, a
	// service name that needs quotes, and an unclustered node (cb.local)
	// with and without a source node.
	input := lines(
		"[user:info,2015-06-10T20:11:01.492Z,ns_1@node1.local:ns_memcached-fnord<0.13992.0>:ns_memcached:terminate:784]Shutting down bucket \"fnord\" on 'ns_1@node1.local' for deletion",
		"[user:info,2023-01-05T08:00:00.000+05:30,ns_1@cb.local:<0.900.0>:ns_log:consume_log:76]Service ''cbq-engine'' exited with status 1. Restarting. Messages:",
		"panic: runtime error: invalid memory address or nil pointer dereference",
		"[user:info,2024-07-10T10:10:17.001+08:00,ns_1@10.1.1.1:<0.700.0>:ns_log:consume_log:77]Service 'memcached' exited with status 1. Restarting. Messages:",
		"2024-07-10T10:10:16.610950+08:00 CRITICAL Failed to initialise - CPU with SSE4.2 extensions is required - terminating.",
	)
	res := check(t, Format, origin15, input, []want{
		{kind: ServiceExited, line: 2, node: "ns_1@172.23.100.15", time: "2023-01-05T02:30:00Z", attrs: a{"service": "cbq-engine", "status": "1", "repeated": ""}},
		{kind: ServiceExited, line: 4, node: "ns_1@10.1.1.1", time: "2024-07-10T02:10:17.001Z", attrs: a{"service": "memcached", "status": "1"}},
	})
	if st := res.Stamps[0]; st.Offset != 0 || st.Zone != forensics.ZoneLogged {
		t.Errorf("Z stamp: %+v", st)
	}
	if st := res.Stamps[1]; st.Offset != 5*3600+30*60 {
		t.Errorf("+05:30 stamp offset %d", st.Offset)
	}
	// Without a source node the logged name is all there is.
	res = parsertest.Parse(Format, forensics.Origin{Name: "info.log"}, []byte(input))
	if got := res.OfKind(ServiceExited)[0].Node; got != "ns_1@cb.local" {
		t.Errorf("node without origin: %q", got)
	}
}

func TestALENoEvents(t *testing.T) {
	// Lines that look close to an event and must not be one.
	input := lines(
		// Templates from ns_server 2.x, not 7.x.
		"[user:info,2022-07-21T17:39:12.120-07:00,ns_1@127.0.0.1:<0.1.0>:ns_port_server:handle_info:107]Port server memcached on node 'ns_1@127.0.0.1' exited with status 71. Restarting. Messages: failed to set rlimit for open files.",
		// supervisor_cushion die_slowly/2: 7.1 and 7.6+ wordings.
		"[ns_server:info,2022-07-21T17:39:12.103-07:00,babysitter_of_ns_1@cb.local:<0.130.0>:supervisor_cushion:die_slowly:76]Service 'cbq-engine' exited on node 'babysitter_of_ns_1@cb.local' in 0.52s",
		"[ns_server:info,2024-03-02T10:00:00.000Z,babysitter_of_ns_1@cb.local:<0.130.0>:supervisor_cushion:die_slowly:90]Cushion managed supervisor for memcached exited on node 'babysitter_of_ns_1@cb.local' in 3.10s",
		// USER_LOGGER lines that start like a template.
		"[user:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:ns_vbucket_mover:init:122]Bucket \"test3\" rebalance does not seem to be swap rebalance",
		"[user:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:failover:deactivate_nodes:223]Deactivating failed over nodes ['ns_1@172.23.100.15']",
		"[ns_server:debug,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:failover:failover_service:408]Failed over service index on nodes ['ns_1@172.23.100.15'] successfully",
		"[ns_server:debug,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:ns_rebalancer:wait_for_bucket:1052]Bucket \"test3\" became ready on nodes ['ns_1@172.23.100.15']",
		"[ns_server:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:ns_memcached:handle_call:269]Disabling traffic and unmarking bucket as warmed",
		"[ns_server:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:cluster_compat_mode:x:1]Service 'memcached' exited with status unknown",
		// A template inside a continuation line, and continuations that start with '['.
		"[ns_server:debug,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:ns_config_log:log_common:232]config change:",
		"Enabling traffic to bucket \"test3\"",
		"[{ns_server:info,{node,'ns_1@172.23.100.15'}}]",
		"[ns_server:verbose,2022-07-21T17:40:00.000-07:00,x]Enabling traffic to bucket \"x\"",
	)
	check(t, Format, origin15, input, nil)
}

func TestALEBadHeaders(t *testing.T) {
	input := lines(
		"[ns_server:info,2022-07-21T17:39:99.120-07:00,ns_1@172.23.100.15:<0.1.0>:m:f:1]Enabling traffic to bucket \"a\"",
		"[ns_server:info,2022-07-21T17:39:12.120-07:00 ns_1@172.23.100.15:<0.1.0>:m:f:1]x",
		"[ns_server:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.1.0>:m:f:1 no bracket",
		"[ns_server:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.1.0>:m:f:x]Enabling traffic to bucket \"b\"",
		"[ns_server:info,2022-07-21T17:39:12.121-07:00,ns_1@172.23.100.15:<0.1.0>:ns_memcached:handle_call:294]Enabling traffic to bucket \"c\"",
	)
	res := parsertest.Parse(Format, origin15, []byte(input))
	if len(res.Errors) != 4 {
		t.Fatalf("got errors %v, want 4", res.Errors)
	}
	for i, e := range res.Errors {
		if msg := e.Err.Error(); e.Line != int64(i+1) || msg == "" || msg[0] < 'a' || msg[0] > 'z' {
			t.Errorf("error %d: %v", i, e)
		}
	}
	if !res.Stamps[0].IsZero() || res.Stamps[1].IsZero() {
		t.Errorf("a header with an unreadable time has no stamp; one with a readable time keeps it")
	}
	if len(res.Events) != 1 || res.Events[0].Bucket != "c" {
		t.Errorf("events %v, want only bucket c", res.Kinds())
	}
}

func TestDetectALE(t *testing.T) {
	head := []byte(lines(
		"==============================================================================",
		"couchbase logs (debug.log)",
		"cbbrowse_logs debug.log",
		"==============================================================================",
		"[ns_server:debug,2022-07-21T17:39:12.101-07:00,ns_1@172.23.100.15:<0.1.0>:ns_doctor:x:1]x",
		"[ns_server:debug,2022-07-21T17:39:12.102-07:00,ns_1@172.23.100.15:<0.1.0>:ns_doctor:x:1]y",
	))
	indexer := []byte("2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168\n")
	tests := []struct {
		name string
		head []byte
		min  int
		max  int
	}{
		{"ns_server.debug.log", head, 90, 100},
		{"debug.log.3", head, 90, 100},
		{"renamed.txt", head, 70, 89},
		{"ns_server.indexer.log", head, 0, 0},
		{"ns_server.indexer.log", indexer, 0, 0},
		{"ns_server.debug.log", indexer, 0, 0},
		{"memcached.log", []byte("2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP\n"), 0, 0},
	}
	for _, tt := range tests {
		if got := Format.Detect(tt.name, tt.head); got < tt.min || got > tt.max {
			t.Errorf("Detect(%q) = %d, want %d..%d", tt.name, got, tt.min, tt.max)
		}
	}
}

func TestALEHugeLines(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	input := lines(
		// A message past the bound: the quote never closes in what is kept.
		"[ns_server:info,2022-07-21T17:39:21.003-07:00,ns_1@172.23.100.15:<0.1.0>:ns_memcached:handle_call:294]Enabling traffic to bucket \""+big+"\"",
		// A header past the bound.
		"[ns_server:info,2022-07-21T17:39:21.004-07:00,ns_1@"+big+":<0.1.0>:ns_memcached:handle_call:294]Enabling traffic to bucket \"a\"",
		// An event whose messages run past the bound: the event keeps the start.
		"[user:info,2022-07-21T17:39:22.000-07:00,ns_1@172.23.100.15:<0.2271.0>:ns_log:consume_log:76]Service 'memcached' exited with status 134. Restarting. Messages:",
		big,
		"after",
	)
	res := check(t, Format, origin15, input, []want{
		{kind: ServiceExited, line: 3, node: "ns_1@172.23.100.15", attrs: a{"status": "134"}},
	})
	if txt := res.Events[0].Text; len(txt) > maxEntry || strings.Contains(txt, "after") {
		t.Errorf("text of %d bytes, ends %q", len(txt), txt[len(txt)-10:])
	}
}
