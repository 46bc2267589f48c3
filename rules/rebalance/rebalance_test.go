package rebalance

import (
	"strings"
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

// A rebalance whose reason names no bucket ({not_all_nodes_are_ready_yet,
// […]}) failed while waiting for a bucket: ns_rebalancer logs which, and
// janitor_agent on which nodes the bucket was still warming up.
func TestBucketAndStepFromTheSteps(t *testing.T) {
	wait := ruletest.Event(nsBucketWait, orch, at(5), "nodes", "ns_1@cb1.dc1.example.com,ns_1@cb2.dc1.example.com")
	wait.Bucket = "travel-sample"
	other := ruletest.Event(nsBucketWait, orch, at(2), "nodes", "ns_1@cb1.dc1.example.com")
	other.Bucket = "beer-sample"
	q := ruletest.Event(nsQueryFailed, orch, at(40), "nodes", "ns_1@cb2.dc1.example.com", "reason", "warming_up")
	q.Bucket = "travel-sample"
	e := end(41, "result", "failed", "reason", "{not_all_nodes_are_ready_yet,['ns_1@cb2.dc1.example.com']}",
		"reason_tag", "not_all_nodes_are_ready_yet", "reason_nodes", "ns_1@cb2.dc1.example.com")
	fs := ruletest.Run(t, Rule, []forensics.Event{ruletest.Event(nsRebalanceStart, orch, at(0)), other, wait, q, e})
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	f := fs[0]
	if f.Subject.Bucket != "travel-sample" || f.Subject.Reason != "not_all_nodes_are_ready_yet" {
		t.Errorf("subject %+v", f.Subject)
	}
	for _, want := range []string{"while waiting for bucket travel-sample to be ready on ns_1@cb1.dc1.example.com, ns_1@cb2.dc1.example.com",
		"the janitor found travel-sample not ready on ns_1@cb2.dc1.example.com (warming_up)"} {
		if !strings.Contains(f.Explanation, want) {
			t.Errorf("explanation lacks %q:\n%s", want, f.Explanation)
		}
	}
	if len(f.Evidence) != 4 {
		t.Errorf("%d evidence lines, want the start, the wait, the janitor's failure and the exit", len(f.Evidence))
	}
	// A stopped rebalance after the same steps is still no failure.
	stopped := end(41, "result", "stopped")
	if fs := ruletest.Run(t, Rule, []forensics.Event{ruletest.Event(nsRebalanceStart, orch, at(0)), wait, q, stopped}); len(fs) != 0 {
		t.Errorf("a stopped rebalance gave %d findings", len(fs))
	}
}

// A rebalance report (rebalance_report_*.json) ends a rebalance as
// ns_orchestrator's log does: alone it is enough for the finding, next to
// the log it is the same rebalance, and stopped it is no failure.
func TestRebalanceReport(t *testing.T) {
	const reason = `{pre_rebalance_janitor_run_failed,"travel-sample",{error,wait_for_memcached_failed,['ns_1@cb2.dc1.example.com']}}`
	report := func(result string) forensics.Event {
		e := end(42.3, "result", result, "reason", reason, "reason_tag", "pre_rebalance_janitor_run_failed",
			"reason_nodes", "ns_1@cb2.dc1.example.com", "operation_id", "8a1c", "via", "rebalance_report")
		e.Bucket = "travel-sample"
		e.Path = "cbcollect_info_ns_1@cb2.dc1.example.com_20250611-101500/rebalance_report_20250611T100142Z.json"
		return e
	}
	if fs := ruletest.Run(t, Rule, []forensics.Event{report("failed")}); len(fs) != 1 || fs[0].Subject.Bucket != "travel-sample" {
		t.Errorf("a failed report alone: %d findings (%+v), want one for travel-sample", len(fs), fs)
	}
	logged := ruletest.Event(nsRebalanceEnd, orch, at(42), "result", "failed", "reason", reason, "reason_tag", "pre_rebalance_janitor_run_failed",
		"reason_nodes", "ns_1@cb2.dc1.example.com", "operation_id", "8a1c")
	logged.Bucket = "travel-sample"
	if fs := ruletest.Run(t, Rule, []forensics.Event{logged, report("failed")}); len(fs) != 1 {
		t.Errorf("the log and the report of one rebalance: %d findings, want one", len(fs))
	}
	if fs := ruletest.Run(t, Rule, []forensics.Event{report("stopped")}); len(fs) != 0 {
		t.Errorf("a stopped report: %d findings, want none", len(fs))
	}
}
