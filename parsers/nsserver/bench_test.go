package nsserver

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// debugLog builds an ns_server.debug.log of about size bytes in the mix a
// busy 7.1 node writes: mostly ns_doctor and ns_config_log term dumps over
// many lines, janitor, stats and json_rpc lines, and now and then an event.
func debugLog(size int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.WriteString("==============================================================================\ncouchbase logs (debug.log)\ncbbrowse_logs debug.log\n==============================================================================\n")
	ms := 0
	node := "ns_1@172.23.100.15"
	for b.Len() < size {
		ms += r.IntN(40)
		ts := fmt.Sprintf("2022-07-21T%02d:%02d:%02d.%03d-07:00", 10+ms/3600000%10, ms/60000%60, ms/1000%60, ms%1000)
		pid := fmt.Sprintf("<0.%d.%d>", r.IntN(30000), r.IntN(4))
		vb := r.IntN(1024)
		switch n := r.IntN(1000); {
		case n < 120:
			fmt.Fprintf(&b, "[ns_doctor:debug,%s,%s:ns_doctor<0.3120.0>:ns_doctor:handle_info:167]Current node statuses:\n", ts, node)
			for _, peer := range []string{"172.23.100.15", "172.23.100.16", "172.23.100.17"} {
				fmt.Fprintf(&b, "[{'ns_1@%s',\n     [{last_heard,-576460%06d},\n      {now,-576460%06d},\n      {active_buckets,[\"test3\",\"default\"]},\n      {ready_buckets,[\"test3\",\"default\"]},\n", peer, r.IntN(999999), r.IntN(999999))
				fmt.Fprintf(&b, "      {status_latency,%d},\n      {outgoing_replications_safeness_level,[{\"test3\",green},{\"default\",green}]},\n      {incoming_replications_conf_hashes,[{\"test3\",[{'ns_1@172.23.100.16',%d}]}]},\n", r.IntN(9000), r.IntN(1<<30))
				fmt.Fprintf(&b, "      {local_tasks,[[{type,xdcr},{id,<<\"%x\">>},{errors,[]}]]},\n      {memory,[{total,%d},{processes,%d},{binary,%d},{ets,%d}]},\n      {system_stats,[{cpu_utilization_rate,%d.%d},{swap_total,0},{mem_free,%d}]}]},\n", r.Uint64(), r.IntN(1<<30), r.IntN(1<<28), r.IntN(1<<26), r.IntN(1<<24), r.IntN(100), r.IntN(100), r.IntN(1<<34))
			}
		case n < 250:
			fmt.Fprintf(&b, "[ns_server:debug,%s,%s:ns_config_log<0.230.0>:ns_config_log:log_common:232]config change:\n", ts, node)
			fmt.Fprintf(&b, "{node,'%s',memcached} ->\n[{'_vclock',[{<<\"%x\">>,{%d,63826000000}}]},\n {port,11210},\n {dedicated_port,11209},\n {ssl_port,11207},\n {admin_user,\"@ns_server\"},\n {other_users,[\"@cbq-engine\",\"@projector\",\"@goxdcr\",\"@index\",\"@fts\",\"@eventing\",\"@cbas\",\"@backup\"]},\n {admin_pass,\"*****\"}]\n", node, r.Uint64(), r.IntN(100))
		case n < 400:
			fmt.Fprintf(&b, "[json_rpc:debug,%s,%s:json_rpc_connection-index-cbauth<0.1510.0>:json_rpc_connection:handle_call:156]sending jsonrpc call:{[{jsonrpc,<<\"2.0\">>},{id,%d},{method,<<\"AuthCacheSvc.UpdateDB\">>},{params,[{[{specialUser,<<\"@index-cbauth\">>},{nodes,[{[{host,<<\"172.23.100.16\">>},{user,<<\"_admin\">>},{password,\"*****\"},{ports,[8091,18091,9100,9101,9102]},{local,false}]}]},{buckets,[<<\"test3\">>,<<\"default\">>]}]}]}]}\n", ts, node, r.IntN(100000))
		case n < 550:
			fmt.Fprintf(&b, "[json_rpc:debug,%s,%s:json_rpc_connection-index-cbauth<0.1510.0>:json_rpc_connection:handle_info:89]got response: [{id,%d},{result,true},{error,null}]\n", ts, node, r.IntN(100000))
		case n < 650:
			fmt.Fprintf(&b, "[ns_server:debug,%s,%s:%s:janitor_agent:handle_call:692]Going to wait for persistence of seqno %d in vbucket %d\n", ts, node, pid, r.IntN(100000), vb)
		case n < 740:
			fmt.Fprintf(&b, "[ns_server:debug,%s,%s:compaction_daemon<0.455.0>:compaction_daemon:process_scheduler_message:1359]No buckets to compact for compact_kv. Rescheduling compaction.\n", ts, node)
		case n < 820:
			fmt.Fprintf(&b, "[ns_server:debug,%s,%s:ns_memcached-test3<0.28710.2>:ns_memcached:verify_report_long_call:357]call {stats,<<>>} took too long: %d us\n", ts, node, 500000+r.IntN(900000))
		case n < 880:
			fmt.Fprintf(&b, "[ns_server:debug,%s,%s:chronicle_kv_log<0.467.0>:chronicle_kv_log:log:59]update (key: {node,'%s',failover_vbuckets}, rev: {<<\"%x\">>,%d})\n[]\n", ts, node, node, r.Uint64(), r.IntN(100000))
		case n < 930:
			fmt.Fprintf(&b, "[user:info,%s,%s:<0.19810.3>:ns_vbucket_mover:init:124]Bucket \"test3\" rebalance does not seem to be swap rebalance\n", ts, node)
		case n < 980:
			fmt.Fprintf(&b, "[ns_server:debug,%s,%s:%s:janitor_agent:handle_info:790]Got done message from subprocess: %s (ok)\n", ts, node, pid, pid)
		case n < 990:
			fmt.Fprintf(&b, "[ns_server:info,%s,%s:<0.4410.0>:ns_memcached:do_handle_call:591]Changed vbucket state \n[{%d,active,{[{topology,[[<<\"ns_1@172.23.100.16\">>,null]]}]}},\n {%d,replica,undefined}]\n", ts, node, vb, (vb+1)%1024)
		case n < 995:
			fmt.Fprintf(&b, "[ns_server:info,%s,%s:ns_doctor<0.3120.0>:ns_doctor:update_status:309]The following buckets became ready on node 'ns_1@172.23.100.16': [\"test3\"]\n", ts, node)
		default:
			fmt.Fprintf(&b, "[user:info,%s,%s:<0.2271.0>:ns_log:consume_log:76]Service 'memcached' exited with status 137. Restarting. Messages:\n%s.120144-07:00 INFO 97: (test3) DCP (Producer) eq_dcpq:replication:ns_1@172.23.100.15->ns_1@172.23.100.16:test3 - Removing connection\n", ts, node, ts[:19])
		}
	}
	return b.Bytes()
}

func BenchmarkParse(b *testing.B) {
	input := debugLog(16 << 20)
	parsertest.Bench(b, Format, origin15, input)
}

func BenchmarkDiag(b *testing.B) {
	// A 7.1 diag.log: up to 3000 logs: entries (ns_log RECENT_MAX_SIZE),
	// some thousands of event log lines, then megabytes of Erlang terms
	// (per_node_diag holds every process of the node).
	var s strings.Builder
	logs, events, rest := diagParts()
	s.WriteString(diagInput[:strings.Index(diagInput, "logs:\n")])
	s.WriteString("logs:\n-------------------------------\n")
	for range 250 {
		s.WriteString(logs)
	}
	s.WriteString("-------------------------------\n\n\nEvent Logs:\n-------------------------------\n")
	for range 400 {
		s.WriteString(events)
	}
	s.WriteString("-------------------------------\n\n\n")
	for s.Len() < 24<<20 {
		s.WriteString(rest)
	}
	parsertest.Bench(b, DiagFormat, diagOrigin, []byte(s.String()))
}

// diagParts returns the logs: entries, the event log lines and a block of
// Erlang terms of diagInput.
func diagParts() (logs, events, rest string) {
	ls := strings.Split(diagInput, "\n")
	var l, e strings.Builder
	for _, x := range ls[6:18] {
		l.WriteString(x + "\n")
	}
	for _, x := range ls[23:28] {
		e.WriteString(x + "\n")
	}
	rest = "      {<0.4410.0>,\n       [{registered_name,[]},\n        {status,waiting},\n        {initial_call,{proc_lib,init_p,5}},\n        {backtrace,[<<\"Program counter: 0x00007f1b2c3d4e50 (gen_server:loop/7 + 288)\">>,\n                    <<\"arity = 0\">>,<<>>,\n                    <<\"0x00007f1a9c0b7d28 Return addr 0x00007f1b2c5e7f20 (proc_lib:init_p_do_apply/3 + 72)\">>]},\n        {message_queue_len,0},\n        {heap_size,987},\n        {total_heap_size,1974},\n        {reductions,1520332},\n        {trap_exit,true}]},\n"
	return l.String(), e.String(), rest
}

func BenchmarkMasterEvents(b *testing.B) {
	var s strings.Builder
	ls := strings.Split(strings.TrimSpace(masterInput), "\n")
	for i := range 50000 {
		// Mostly DCP and move events, as during a rebalance.
		if i%10 < 7 {
			s.WriteString(ls[7] + "\n")
		} else {
			s.WriteString(ls[i%len(ls)] + "\n")
		}
	}
	parsertest.Bench(b, MasterEventsFormat, masterOrigin, []byte(s.String()))
}

// TestBenchInput keeps the benchmark input honest: the generated log must
// read without errors and yield the events it was built with.
func TestBenchInput(t *testing.T) {
	in := debugLog(1 << 20)
	res := parsertest.Parse(Format, origin15, in)
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors[:min(3, len(res.Errors))])
	}
	n := map[forensics.Kind]int{}
	for _, e := range res.Events {
		n[e.Kind]++
	}
	if n[ServiceExited] == 0 || n[BucketReady] == 0 || n[VBucketState] == 0 || len(n) != 3 {
		t.Errorf("events by kind: %v", n)
	}
}
