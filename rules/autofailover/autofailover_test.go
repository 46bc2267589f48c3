package autofailover

import (
	"testing"
	"time"

	"forensics"
	"forensics/rules/ruletest"
)

var t0 = time.Date(2024, 3, 11, 14, 0, 12, 0, time.UTC)

func at(s float64) forensics.Stamp {
	return forensics.Stamp{Time: t0.Add(time.Duration(s * float64(time.Second))), Zone: forensics.ZoneLogged}
}

const (
	orch = "ns_1@10.20.0.11"
	n12  = "ns_1@10.20.0.12"
	why  = "The data service did not respond. Either none of the buckets have warmed up or there is an issue with the data service."
)

func af(s float64, src string) forensics.Event {
	e := ruletest.Event(nsAutoFailover, orch, at(s), "nodes", n12, "reason", why)
	e.Path = src
	return e
}

func TestWarmingNodeFailedOver(t *testing.T) {
	warm := ruletest.Event(mcWarmupDone, n12, at(-60))
	warm.Bucket = "travel-sample"
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsExited, n12, at(-122), "service", "memcached", "status", "137"),
		ruletest.Event(mcStart, n12, at(-120), "unclean", "true"),
		warm,
		// The entry in info.log and in three diag.logs: one failover.
		af(0, "a/ns_server.info.log"), af(0, "a/diag.log"), af(0, "b/diag.log"), af(0, "c/diag.log"),
	})
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %d", len(fs))
	}
	f := fs[0]
	if f.Severity != forensics.High || f.Subject.Node != n12 || f.Subject.Reason != why {
		t.Errorf("got %s %+v", f.Severity, f.Subject)
	}
	if len(f.Fixes) != 2 {
		t.Errorf("a node failed over while warming gets the timeout fix too: %d fixes", len(f.Fixes))
	}
}

func TestTrafficEnabledIsNotWarming(t *testing.T) {
	tr := ruletest.Event(mcTraffic, n12, at(-30))
	tr.Bucket = "travel-sample"
	fs := ruletest.Run(t, Rule, []forensics.Event{ruletest.Event(mcStart, n12, at(-120)), tr, af(0, "a/diag.log")})
	if len(fs) != 1 || len(fs[0].Fixes) != 1 {
		t.Fatalf("got %+v", fs)
	}
}

func TestRefusedIsMedium(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsRefused, orch, at(0), "nodes", "ns_1@10.20.0.13", "reason", "Maximum number of auto-failover nodes (1) has been reached."),
	})
	if len(fs) != 1 || fs[0].Severity != forensics.Medium || fs[0].Subject.Node != "ns_1@10.20.0.13" {
		t.Fatalf("got %+v", fs)
	}
	if c := fs[0].Fixes[0].Commands; len(c) != 2 || c[0] != "couchbase-cli reset-auto-failover-count -c 10.20.0.11:8091 -u Administrator -p PASSWORD" {
		t.Errorf("commands %q", c)
	}
}

// Near-misses: manual and graceful failovers are not the rule's: it reads
// only the auto-failover messages, so their failover lines alone say nothing.
func TestManualFailoverIsSilent(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsExited, n12, at(-122), "service", "memcached", "status", "137"),
		ruletest.Event("nsserver.failover_start", orch, at(0), "nodes", n12),
	})
	if len(fs) != 0 {
		t.Fatalf("got %v", fs[0].Title)
	}
}

// A host name from the logs that is not one goes into no command.
func TestBadHostNotInCommand(t *testing.T) {
	e := ruletest.Event(nsAutoFailover, "ns_1@a;rm -rf /", at(0), "nodes", "ns_1@b$(x)", "reason", "x")
	fs := ruletest.Run(t, Rule, []forensics.Event{e})
	for _, c := range fs[0].Fixes[0].Commands {
		if c != "couchbase-cli recovery -c HOST:8091 -u Administrator -p PASSWORD --server-recovery HOST:8091 --recovery-type delta" && c != "couchbase-cli rebalance -c HOST:8091 -u Administrator -p PASSWORD" {
			t.Errorf("command %q", c)
		}
	}
}

// The event log alone tells of the failover when the user log is missing;
// when both are there, one finding.
func TestEventLogOnly(t *testing.T) {
	end := ruletest.Event(nsFailoverEnd, orch, at(0.2), "nodes", n12, "auto", "true", "via", "event_log")
	fs := ruletest.Run(t, Rule, []forensics.Event{end})
	if len(fs) != 1 || fs[0].Subject.Node != n12 || len(fs[0].Evidence) != 1 {
		t.Fatalf("event log only: %+v", fs)
	}
	fs = ruletest.Run(t, Rule, []forensics.Event{af(0, "a/diag.log"), end})
	if len(fs) != 1 || fs[0].Subject.Reason != why {
		t.Fatalf("both: %+v", fs)
	}
	hard := ruletest.Event(nsFailoverEnd, orch, at(0.2), "nodes", n12, "via", "event_log")
	if fs := ruletest.Run(t, Rule, []forensics.Event{hard}); len(fs) != 0 {
		t.Fatalf("a hard failover's end: %v", fs[0].Title)
	}
}
