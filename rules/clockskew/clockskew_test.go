package clockskew

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/rules/ruletest"
)

var t0 = time.Date(2024, 3, 11, 14, 0, 15, 0, time.UTC)

func at(s float64) forensics.Stamp {
	return forensics.Stamp{Time: t0.Add(time.Duration(s * float64(time.Second))), Zone: forensics.ZoneLogged}
}

const (
	kv = "ns_1@10.20.0.13"
	ix = "ns_1@10.20.0.11"
)

func answer(s float64, vb int, seqno string) forensics.Event {
	e := ruletest.Event(mcRollback, kv, at(s), "rollback_seqno", seqno)
	e.Bucket, e.VB, e.Path = "travel-sample", vb, "kv/memcached.log"
	return e
}

func begin(s float64, vb int, seqno, host string) forensics.Event {
	e := ruletest.Event(ixStreamBegin, ix, at(s), "seqno", seqno, "kv_host", host)
	e.Bucket, e.VB, e.Path = "travel-sample", vb, "ix/ns_server.indexer.log"
	return e
}

func TestEffectBeforeCause(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		answer(0, 512, "0"), begin(-2.4, 512, "0", "10.20.0.13"),
		answer(0.1, 513, "0"), begin(-2.2, 513, "0", "10.20.0.13"),
	})
	if len(fs) != 1 {
		t.Fatalf("want one finding for the pair of nodes, got %d", len(fs))
	}
	f := fs[0]
	if f.Subject.Details.Text("skew") != "2.4s" || len(f.Subject.Nodes) != 2 || f.Subject.Nodes[0] != kv || f.Subject.Nodes[1] != ix {
		t.Errorf("subject %+v", f.Subject)
	}
	if len(f.Evidence) != 4 {
		t.Errorf("both lines of both pairs: %d", len(f.Evidence))
	}
	if len(f.Skew) != 1 || f.Skew[0].By != 2400*time.Millisecond || !strings.Contains(f.Skew[0].Basis, "ns_server.indexer.log") {
		t.Errorf("skew %+v", f.Skew)
	}
}

// Near-misses: the effect after its cause (whatever offsets the nodes log
// in, times are compared in UTC), within what logging explains, or a pair
// whose cause is in doubt.
func TestNoClaim(t *testing.T) {
	for name, evs := range map[string][]forensics.Event{
		"in order":      {answer(0, 512, "0"), begin(0.003, 512, "0", "10.20.0.13")},
		"within slack":  {answer(0, 512, "0"), begin(-0.3, 512, "0", "10.20.0.13")},
		"another host":  {answer(0, 512, "0"), begin(-3, 512, "0", "10.20.0.12")},
		"another seqno": {answer(0, 512, "0"), begin(-3, 512, "17", "10.20.0.13")},
		"two answers":   {answer(0, 512, "0"), answer(60, 512, "0"), begin(-3, 512, "0", "10.20.0.13")},
		"two effects":   {answer(0, 512, "0"), begin(-3, 512, "0", "10.20.0.13"), begin(-2, 512, "0", "10.20.0.13")},
		"too far":       {answer(0, 512, "0"), begin(-900, 512, "0", "10.20.0.13")},
	} {
		if fs := ruletest.Run(t, Rule, evs); len(fs) != 0 {
			t.Errorf("%s: %s", name, fs[0].Title)
		}
	}
}

func TestAlerts(t *testing.T) {
	drift := ruletest.Event(nsCASDrift, "ns_1@10.20.0.11", at(0), "alert_host", "10.20.0.13", "threshold_ms", "5000")
	drift.Bucket = "travel-sample"
	fs := ruletest.Run(t, Rule, []forensics.Event{
		ruletest.Event(nsTimeSync, kv, at(-60), "alert_node", kv),
		drift,
		ruletest.Event(nsTimeSync, kv, at(-59), "alert_node", kv), // the same alert in another diag.log
	})
	if len(fs) != 1 {
		t.Fatalf("want one finding for the alerted node, got %d", len(fs))
	}
	if f := fs[0]; f.Subject.Node != kv || f.Subject.Details.Text("skew") != "5s" || f.Subject.Bucket != "travel-sample" || len(f.Evidence) != 2 {
		t.Errorf("got %+v, %d evidence", f.Subject, len(f.Evidence))
	}
}
