package oomkill

import (
	"testing"
	"time"

	"forensics"
	"forensics/rules/ruletest"
)

var t0 = time.Date(2024, 3, 11, 13, 58, 10, 0, time.UTC)

func at(s float64) forensics.Stamp {
	return forensics.Stamp{Time: t0.Add(time.Duration(s * float64(time.Second))), Zone: forensics.ZoneUTC}
}

const n12 = "ns_1@10.20.0.12"

func kill(s float64, pid, process string, extra ...string) forensics.Event {
	return ruletest.Event(oomKill, n12, at(s), append([]string{"pid", pid, "process", process, "anon_rss_kb", "15302524", "uncertainty_s", "1"}, extra...)...)
}

func exited(s float64, service, status string) forensics.Event {
	return ruletest.Event(nsExited, n12, at(s), "service", service, "status", status)
}

func TestKillExitFailover(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		kill(0, "2817", "memcached", "clock", "dmesg -T"),
		kill(0.2, "2817", "memcached", "clock", "since-boot"), // journalctl's copy of the same kill
		exited(0.45, "memcached", "137"),
		ruletest.Event(nsAutoFailover, "ns_1@10.20.0.11", at(122), "nodes", n12),
	})
	if len(fs) != 1 {
		t.Fatalf("want one finding for the kill and its copy, got %d", len(fs))
	}
	f := fs[0]
	if f.Severity != forensics.Critical || f.Subject.Service != "memcached" || f.Subject.Details.Int("pid") != 2817 || f.Subject.Node != n12 {
		t.Errorf("got %s %+v", f.Severity, f.Subject)
	}
	if len(f.Evidence) != 3 {
		t.Errorf("evidence: kill, exit, failover; got %d", len(f.Evidence))
	}
}

func TestKillWithoutFailoverIsHigh(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{kill(0, "4242", "indexer"), exited(1, "indexer", "137")})
	if len(fs) != 1 || fs[0].Severity != forensics.High || fs[0].Subject.Service != "indexer" {
		t.Fatalf("got %+v", fs)
	}
}

// Near-misses: a status 137 with no kill record, and a kill of a process
// that is not Couchbase's.
func TestNotOurs(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		exited(0, "memcached", "137"),
		kill(60, "9121", "java"),
		ruletest.Event(oomConstraint, n12, at(60), "pid", "9121", "process", "java", "task_memcg", "/system.slice/elasticsearch.service"),
	})
	if len(fs) != 0 {
		t.Fatalf("want no finding, got %v", fs[0].Title)
	}
}

// A process of Couchbase's unit that the table does not name is still
// Couchbase's.
func TestCouchbaseCgroup(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		kill(0, "5150", "cbbackupmgr"),
		ruletest.Event(oomConstraint, n12, at(0), "pid", "5150", "process", "cbbackupmgr", "task_memcg", "/system.slice/couchbase-server.service"),
	})
	if len(fs) != 1 || fs[0].Subject.Service != "cbbackupmgr" {
		t.Fatalf("got %+v", fs)
	}
}

// A syslog time without zone matches the exit a whole UTC offset away.
func TestAssumedZoneMatchesExit(t *testing.T) {
	k := kill(0, "2817", "memcached")
	k.Zone = forensics.ZoneAssumed
	k.Time = t0.Add(-7 * time.Hour)
	if !matchesExit(&k, t0.Add(400*time.Millisecond)) {
		t.Error("a kill logged in local time 7 h off did not match the exit")
	}
	if matchesExit(&k, t0.Add(20*time.Minute)) {
		t.Error("matched an exit 20 minutes past the offset")
	}
}
