package rebalance

import (
	"testing"
	"time"

	"forensics"
	"forensics/rules/ruletest"
)

var t0 = time.Date(2025, 6, 11, 10, 1, 0, 0, time.UTC)

func at(s float64) forensics.Stamp {
	return forensics.Stamp{Time: t0.Add(time.Duration(s * float64(time.Second))), Zone: forensics.ZoneLogged}
}

const orch = "ns_1@cb1.dc1.example.com"

func end(s float64, attrs ...string) forensics.Event {
	return ruletest.Event(nsRebalanceEnd, orch, at(s), attrs...)
}

func TestJanitorFailure(t *testing.T) {
	nr := ruletest.Event(nsNotReady, orch, at(10), "nodes", "ns_1@cb2.dc1.example.com")
	nr.Bucket = "travel-sample"
	e := end(42, "result", "failed", "reason", `{pre_rebalance_janitor_run_failed,"travel-sample",{error,wait_for_memcached_failed,['ns_1@cb2.dc1.example.com']}}`,
		"reason_tag", "pre_rebalance_janitor_run_failed", "reason_nodes", "ns_1@cb2.dc1.example.com", "operation_id", "8a1c")
	e.Bucket = "travel-sample"
	diag := e
	diag.Path = "other/diag.log"
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsRebalanceStart, orch, at(0), "operation_id", "8a1c"), nr, e, diag,
	})
	if len(fs) != 1 {
		t.Fatalf("want one finding for the entry and its diag.log copy, got %d", len(fs))
	}
	f := fs[0]
	if f.Severity != forensics.High || f.Subject.Reason != "pre_rebalance_janitor_run_failed" || f.Subject.Bucket != "travel-sample" ||
		len(f.Subject.Nodes) != 1 || f.Subject.Nodes[0] != "ns_1@cb2.dc1.example.com" {
		t.Errorf("got %+v", f.Subject)
	}
	if f.Title != "rebalance failed: buckets not ready on a node (ns_1@cb2.dc1.example.com)" {
		t.Errorf("title %q", f.Title)
	}
	if len(f.Evidence) != 3 || !f.Start.Equal(t0) {
		t.Errorf("evidence %d, start %v", len(f.Evidence), f.Start)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct{ tag, reason, want string }{
		{"mover_crashed", "{mover_crashed,{{badmatch,false},[]}}", "a vbucket mover crashed"},
		{"service_rebalance_failed", "{service_rebalance_failed,index,{worker_died,{'EXIT',<0.1.0>,{rebalance_failed,{service_error,<<\"x\">>}}}}}", "a service's rebalance failed"},
		{"not_all_nodes_are_ready_yet", "{not_all_nodes_are_ready_yet,['ns_1@a']}", "a node not ready"},
		{"badrpc", "{badrpc,nodedown}", "a node went down"},
		{"wait_for_something", "{wait_for_something,timeout}", "a timeout"},
		{"buckets_shutdown_wait_failed", "{buckets_shutdown_wait_failed,[]}", "buckets did not shut down"},
		{"odd", "{odd}", "another cause"},
	} {
		if got := classify(c.tag, c.reason).name; got != c.want {
			t.Errorf("%s: %q, want %q", c.reason, got, c.want)
		}
	}
}

// Near-misses: completed, stopped by the user, interrupted by an
// auto-failover.
func TestNotFailures(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		end(10, "result", "completed"), end(20, "result", "stopped"), end(30, "result", "interrupted", "nodes", "ns_1@x"),
	})
	if len(fs) != 0 {
		t.Fatalf("got %v", fs[0].Title)
	}
}

func TestStuckWithoutEnd(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsRebalanceStuck, orch, at(1800), "service", "index", "operation_id", "8a1c", "seconds", "1800"),
		ruletest.Event(nsRebalanceStuck, orch, at(1830), "service", "index", "operation_id", "8a1c", "seconds", "1830"),
	})
	if len(fs) != 1 || fs[0].Subject.Reason != "stuck_rebalance" {
		t.Fatalf("got %+v", fs)
	}
	fs = ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsRebalanceStuck, orch, at(1800), "service", "index", "operation_id", "8a1c", "seconds", "1800"),
		end(2400, "result", "completed", "operation_id", "8a1c"),
	})
	if len(fs) != 0 {
		t.Fatalf("a stuck rebalance that then completed: %v", fs[0].Title)
	}
}
