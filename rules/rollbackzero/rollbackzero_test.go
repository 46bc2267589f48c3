package rollbackzero

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

const n13 = "ns_1@10.20.0.13"

const noHistory = "vBucket UUID not found in failover table, consumer and producer have no common history"

func rb(s float64, vb int, to, kind, reason string) forensics.Event {
	e := ruletest.Event(mcRollback, n13, at(s), "rollback_seqno", to, "consumer_kind", kind, "consumer", kind+":x", "reason", reason)
	e.Bucket, e.VB = "travel-sample", vb
	return e
}

func TestGroupsPerConsumer(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsFailoverStart, "ns_1@10.20.0.11", at(-2), "nodes", "ns_1@10.20.0.12"),
		rb(1, 512, "0", "projector", noHistory), rb(1.1, 513, "0", "projector", noHistory), rb(1.2, 512, "0", "projector", noHistory),
		rb(2, 512, "0", "xdcr", noHistory),
		rb(3, 514, "80514", "xdcr", "consumer ahead of producer - producer upper at 80514"),                           // partial: not flagged
		rb(4000, 600, "0", "projector", "purge seqno (10) is greater than start seqno - could miss purged deletions"), // a later incident
	})
	if len(fs) != 3 {
		t.Fatalf("want GSI, XDCR and a later GSI incident, got %d", len(fs))
	}
	gsi, xdcr, later := fs[0], fs[1], fs[2] // in time order, as a run reports them
	if gsi.Severity != forensics.High || gsi.Subject.Details.Text("consumer") != "indexer" || len(gsi.Subject.VBuckets) != 2 {
		t.Errorf("gsi: %s %+v", gsi.Severity, gsi.Subject)
	}
	if xdcr.Severity != forensics.Medium || xdcr.Subject.Details.Text("consumer") != "xdcr" || len(xdcr.Subject.VBuckets) != 1 {
		t.Errorf("xdcr: %s %+v", xdcr.Severity, xdcr.Subject)
	}
	if later.Subject.VBuckets[0] != 600 || len(later.Fixes) != 2 || len(later.Fixes[1].Steps) != 2 {
		t.Errorf("later: %+v, fixes %+v", later.Subject, later.Fixes)
	}
	if len(gsi.Evidence) != 4 { // the failover and three rollbacks
		t.Errorf("gsi evidence %d", len(gsi.Evidence))
	}
}

// Near-miss: after a failover, rollbacks to non-zero seqnos only.
func TestPartialRollbacksAreSilent(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsFailoverStart, "ns_1@10.20.0.11", at(-2), "nodes", "ns_1@10.20.0.12"),
		rb(1, 512, "81000", "projector", "consumer ahead of producer - producer upper at 81000"),
		rb(1, 513, "10", "projector", noHistory),
	})
	if len(fs) != 0 {
		t.Fatalf("got %v", fs[0].Title)
	}
}

func TestUncleanRestartBefore(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(mcStart, n13, at(-30), "unclean", "true"),
		ruletest.Event(mcStart, "ns_1@10.20.0.99", at(-20), "unclean", "true"), // another node's
		rb(1, 512, "0", "projector", noHistory),
	})
	if len(fs) != 1 || len(fs[0].Evidence) != 2 || fs[0].Evidence[0].Node != n13 {
		t.Fatalf("got %+v", fs)
	}
}
