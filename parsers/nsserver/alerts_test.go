package nsserver

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// The templates of alerts.go as ns_server 7.1, 7.6 and 8.0 write them in
// ns_server.info.log (user logger lines) and in diag.log.
func TestAlertsALE(t *testing.T) {
	input := lines(
		"[user:info,2024-03-11T07:01:12.331-07:00,ns_1@10.20.0.11:<0.30322.4>:auto_failover:log_failover_success:667]Node ('ns_1@10.20.0.12') was automatically failed over. Reason: The data service did not respond. Either none of the buckets have warmed up or there is an issue with the data service.",
		"[user:info,2024-03-11T07:02:12.331-07:00,ns_1@10.20.0.11:<0.30322.4>:auto_failover:process_action:535]Could not auto-failover node ('ns_1@10.20.0.13'). There was at least another node down.",
		"[user:info,2024-03-11T07:03:12.331-07:00,ns_1@10.20.0.11:<0.30322.4>:auto_failover:maybe_report_max_node_reached:596]Could not auto-failover more nodes (['ns_1@10.20.0.13']). Maximum number of auto-failover nodes (1) has been reached.",
		"[user:info,2024-03-11T07:10:00.002-07:00,ns_1@10.20.0.11:<0.1880.5>:ns_orchestrator:idle:921]Starting rebalance, KeepNodes = ['ns_1@10.20.0.11','ns_1@10.20.0.12',",
		"                                 'ns_1@10.20.0.13'], EjectNodes = [], Failed over and being ejected nodes = []; no delta recovery nodes; Operation Id = 8a1c2d9e0f6b4e4c9a1b2c3d4e5f6a7b",
		"[user:error,2024-03-11T07:10:41.950-07:00,ns_1@10.20.0.11:<0.1790.5>:ns_orchestrator:log_rebalance_completion:1661]Rebalance exited with reason {pre_rebalance_janitor_run_failed,\"travel-sample\",",
		"                                 {error,wait_for_memcached_failed,",
		"                                  ['ns_1@10.20.0.12']}}.",
		"Rebalance Operation Id = 8a1c2d9e0f6b4e4c9a1b2c3d4e5f6a7b",
		"[user:info,2024-03-11T07:20:41.950-07:00,ns_1@10.20.0.11:<0.1790.5>:ns_orchestrator:log_rebalance_completion:1661]Rebalance stopped by user.",
		"Rebalance Operation Id = 1d2c3b4a",
		"[user:info,2024-03-11T07:30:00.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]Approaching full disk warning. Usage of disk \"/data\" on node \"10.20.0.12\" is around 91%.",
		"[user:info,2024-03-11T07:30:01.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]Write Commit Failure. Disk write failed for item in Bucket \"travel-sample\" on node 10.20.0.12.",
		"[user:info,2024-03-11T07:30:02.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]The time on node 'ns_1@10.20.0.13' is not synchronized. Please ensure that NTP is set up correctly on all nodes and that clocks are synchronized.",
		"[user:info,2024-03-11T07:30:03.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]Remote or replica mutation received for bucket \"travel-sample\" on node \"10.20.0.13\" with timestamp more than 5000 milliseconds ahead of local clock. Please ensure that NTP is set up correctly on all nodes across the replication topology and clocks are synchronized.",
		"[user:info,2024-03-11T07:30:04.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]Warning: Rebalance of 'index' (rebalance_id: 8a1c2d9e) appears stuck, no progress has been made for 1800 seconds.",
	)
	res := parsertest.Parse(Format, origin15, []byte(input))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	want := []struct {
		kind  forensics.Kind
		attrs map[string]string
	}{
		{AutoFailover, map[string]string{"nodes": "ns_1@10.20.0.12"}},
		{AutoFailoverRefused, map[string]string{"nodes": "ns_1@10.20.0.13", "reason": "There was at least another node down."}},
		{AutoFailoverRefused, map[string]string{"nodes": "ns_1@10.20.0.13", "reason": "Maximum number of auto-failover nodes (1) has been reached."}},
		{RebalanceStart, map[string]string{"keep_nodes": "ns_1@10.20.0.11,ns_1@10.20.0.12,ns_1@10.20.0.13", "operation_id": "8a1c2d9e0f6b4e4c9a1b2c3d4e5f6a7b"}},
		{RebalanceEnd, map[string]string{"result": "failed", "reason": `{pre_rebalance_janitor_run_failed,"travel-sample",{error,wait_for_memcached_failed,['ns_1@10.20.0.12']}}`, "reason_tag": "pre_rebalance_janitor_run_failed", "reason_nodes": "ns_1@10.20.0.12", "operation_id": "8a1c2d9e0f6b4e4c9a1b2c3d4e5f6a7b"}},
		{RebalanceEnd, map[string]string{"result": "stopped", "operation_id": "1d2c3b4a"}},
		{DiskAlert, map[string]string{"path": "/data", "alert_host": "10.20.0.12", "percent": "91"}},
		{WriteCommitFailed, map[string]string{"alert_host": "10.20.0.12"}},
		{TimeOutOfSync, map[string]string{"alert_node": "ns_1@10.20.0.13"}},
		{CASDrift, map[string]string{"alert_host": "10.20.0.13", "threshold_ms": "5000"}},
		{RebalanceStuck, map[string]string{"service": "index", "seconds": "1800", "operation_id": "8a1c2d9e"}},
	}
	if len(res.Events) != len(want) {
		t.Fatalf("got %d events, want %d: %v", len(res.Events), len(want), res.Events)
	}
	for i, w := range want {
		e := res.Events[i]
		if e.Kind != w.kind {
			t.Errorf("event %d: kind %s, want %s", i, e.Kind, w.kind)
			continue
		}
		for k, v := range w.attrs {
			if got := e.Attr(forensics.AttrKey(k)); got != v {
				t.Errorf("event %d (%s): %s = %q, want %q", i, e.Kind, k, got, v)
			}
		}
	}
	if b := res.Events[4].Bucket; b != "travel-sample" {
		t.Errorf("rebalance failure bucket %q", b)
	}
	if b := res.Events[9].Bucket; b != "travel-sample" {
		t.Errorf("cas drift bucket %q", b)
	}
}

// diag.log carries the same user log entries, with the operation id on the
// same entry, and lets them through its filter.
func TestAlertsDiag(t *testing.T) {
	input := lines(
		"logs:",
		"-------------------------------",
		"2021-05-28T02:30:52.547-07:00, ns_orchestrator:0:critical:message(ns_1@10.20.0.11) - Rebalance exited with reason {pre_rebalance_janitor_run_failed,\"MLE_Event_Meta\",{error,wait_for_memcached_failed,['ns_1@10.20.0.12']}}.Rebalance Operation Id = cfa8d93e5e8996804cf13329b29ae6ce",
		"2021-05-28T02:31:00.000-07:00, menelaus_web_alerts_srv:0:info:message(ns_1@10.20.0.11) - Approaching full disk warning. Usage of disk \"/opt/couchbase/var/lib/couchbase/data\" on node \"10.20.0.12\" is around 96%.",
		"2021-05-28T02:32:00.000-07:00, auto_failover:0:info:message(ns_1@10.20.0.11) - Could not automatically fail over node ('ns_1@10.20.0.13') due to operation being unsafe for service index. Index nodes are not reachable",
		"-------------------------------",
	)
	res := parsertest.Parse(DiagFormat, origin15, []byte(input))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	if len(res.Events) != 3 {
		t.Fatalf("events: %v", res.Events)
	}
	e := res.Events[0]
	if e.Kind != RebalanceEnd || e.Bucket != "MLE_Event_Meta" || e.Attr("reason_tag") != "pre_rebalance_janitor_run_failed" || e.Attr("operation_id") != "cfa8d93e5e8996804cf13329b29ae6ce" || e.Attr("via") != "diag" {
		t.Errorf("diag rebalance: %v %v", e.Bucket, e.Attrs)
	}
	if e := res.Events[2]; e.Kind != AutoFailoverRefused || e.Attr("nodes") != "ns_1@10.20.0.13" {
		t.Errorf("unsafe refusal: %v", e.Attrs)
	}
}

// Completed rebalances and failovers keep their own kinds.
func TestAlertsNotFailover(t *testing.T) {
	input := lines(
		"[user:info,2024-03-11T07:20:41.950-07:00,ns_1@10.20.0.11:<0.1790.5>:ns_orchestrator:log_rebalance_completion:1661]Failover completed successfully.",
		"Rebalance Operation Id = 1d2c3b4a",
		"[user:info,2024-03-11T07:20:41.950-07:00,ns_1@10.20.0.11:<0.1790.5>:ns_orchestrator:log_rebalance_completion:1661]Rebalance completed successfully.",
		"Rebalance Operation Id = 2d2c3b4a",
		"[user:info,2024-03-11T07:20:42.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]Approaching full disk warning. Usage of disk",
		// The disk-usage worker alert is about df, not about a full disk.
		"[user:info,2024-03-11T07:20:43.000-07:00,ns_1@10.20.0.11:<0.1.0>:menelaus_web_alerts_srv:global_alert:227]Disk usage worker is stuck on node \"10.20.0.11\". Please ensure all mounts are accessible via \"df\" and consider killing any existing \"df\" processes.",
	)
	res := parsertest.Parse(Format, origin15, []byte(input))
	if k := res.Kinds(); len(k) != 2 || k[0] != FailoverEnd || k[1] != RebalanceEnd {
		t.Fatalf("kinds %v", k)
	}
}

// The event log's rebalance results and auto-failover warnings, in
// diag.log's Event Logs and on their own.
func TestAlertsEventLog(t *testing.T) {
	input := lines(
		`{"timestamp":"2025-06-11T10:01:41.952Z","event_id":4,"component":"ns_server","description":"Rebalance failed","severity":"error","node":"cb1.dc1.example.com","otp_node":"ns_1@cb1.dc1.example.com","uuid":"9b1f","extra_attributes":{"operation_id":"8a1c2d9e","nodes_info":{"active_nodes":["ns_1@cb1.dc1.example.com"]},"time_taken":41948,"completion_message":"Rebalance exited with reason {pre_rebalance_janitor_run_failed,\"travel-sample\",{error,wait_for_memcached_failed,['ns_1@cb2.dc1.example.com']}}."}}`,
		`{"timestamp":"2025-06-11T09:09:54.906Z","event_id":3,"component":"ns_server","description":"Rebalance completed","severity":"info","node":"cb1.dc1.example.com","otp_node":"ns_1@cb1.dc1.example.com","uuid":"9b20","extra_attributes":{"operation_id":"11aa22bb","time_taken":294902,"completion_message":"Rebalance completed successfully."}}`,
		`{"timestamp":"2025-06-11T10:06:12.441Z","event_id":17,"component":"ns_server","description":"Auto failover warning","severity":"warning","node":"cb1.dc1.example.com","otp_node":"ns_1@cb1.dc1.example.com","uuid":"9b21","extra_attributes":{"reason":"Maximum number of auto-failover nodes (1) has been reached.","nodes":["ns_1@cb2.dc1.example.com"]}}`,
		`{"timestamp":"2025-06-11T10:06:13.000Z","event_id":4,"component":"ns_server","description":"Rebalance failed","severity":"error","node":"cb1","otp_node":"ns_1@cb1","uuid":"9b22","extra_attributes":{"completion_message":42}}`,
	)
	res := parsertest.Parse(EventLogFormat, origin15, []byte(input))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	if k := res.Kinds(); len(k) != 4 || k[0] != RebalanceEnd || k[1] != RebalanceEnd || k[2] != AutoFailoverRefused || k[3] != LoggedEvent {
		t.Fatalf("kinds %v", k)
	}
	f := res.Events[0]
	if f.Attr("result") != "failed" || f.Attr("reason_tag") != "pre_rebalance_janitor_run_failed" || f.Bucket != "travel-sample" || f.Attr("operation_id") != "8a1c2d9e" || f.Attr("via") != "event_log" {
		t.Errorf("failed: %q %v", f.Bucket, f.Attrs)
	}
	if c := res.Events[1]; c.Attr("result") != "completed" || c.Attr("operation_id") != "11aa22bb" {
		t.Errorf("completed: %v", c.Attrs)
	}
	if w := res.Events[2]; w.Attr("nodes") != "ns_1@cb2.dc1.example.com" || w.Attr("reason") != "Maximum number of auto-failover nodes (1) has been reached." {
		t.Errorf("warning: %v", w.Attrs)
	}
}
