package rangeunavailable

import (
	"slices"
	"strings"
	"testing"

	"forensics/parsers/crdb"
	"forensics/rules/ruletest"
)

func src(path, text string) ruletest.Source {
	return ruletest.Source{Path: path, Text: text, Format: crdb.LogFormat}
}

const (
	tags    = "[T1,Vsystem,n1,s1,r84/1:‹/Table/111/1/{600-700}›]"
	waiting = "W251010 15:32:55.120044 883412 kv/kvserver/replica_write.go:229 ⋮ " + tags + " 25  have been waiting 15.00s for proposing command ‹ResolveIntent [/Table/111/1/666/0,/Min)›.\n" +
		"W251010 15:32:55.120044 883412 kv/kvserver/replica_write.go:229 ⋮ " + tags + " 25 +This range is likely unavailable.\n"
	// The error is from a cockroachdb/cockroach issue (v25.x).
	tripped  = "I251010 15:33:40.620118 883501 kv/kvserver/replica_circuit_breaker.go:167 ⋮ " + tags + " 27  breaker: tripped with error: replica unavailable: (n1,s1):1 unable to serve request to r84:‹/Table/111/1/{600-700}› [(n1,s1):1, (n3,s3):5, (n2,s2):3, next=6, gen=32, sticky=9223372036.854775807,2147483647]: lost quorum (down: (n3,s3):5,(n2,s2):3); closed timestamp: 1760110417.669200006,0 (2025-10-10 15:33:37); raft status: {\"id\":\"1\",\"term\":9}: have been waiting 60.50s for slow proposal ResolveIntent [‹/Table/111/1/666/0›]\n"
	reset    = "I251010 15:37:12.004561 883990 kv/kvserver/replica_circuit_breaker.go:167 ⋮ " + tags + " 28  breaker: breaker reset\n"
	finished = "I251010 15:33:12.310800 883412 kv/kvserver/replica_write.go:183 ⋮ " + tags + " 29  slow command ‹ResolveIntent [/Table/111/1/666/0,/Min)› finished after 32.19s with error ‹<nil>›\n"
)

func TestBreakerTripAndReset(t *testing.T) {
	evs := ruletest.Parse(t, src("roach-1/cockroach.log", waiting+tripped+reset))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 {
		t.Fatalf("findings:%s\nwant one", ruletest.Describe(fs))
	}
	f := fs[0]
	if f.Subject.Range != 84 || !slices.Equal(f.Subject.Details.List("replicas"), []string{"(n1,s1):1", "(n2,s2):3", "(n3,s3):5"}) ||
		!slices.Equal(f.Subject.Details.List("down"), []string{"(n2,s2):3", "(n3,s3):5"}) {
		t.Errorf("subject %+v", f.Subject)
	}
	// From when the first proposal began waiting to the reset.
	if f.Start.Format("15:04:05.000") != "15:32:40.120" || f.End.Format("15:04:05.000") != "15:37:12.004" {
		t.Errorf("window %s – %s", f.Start, f.End)
	}
	for _, s := range []string{"leaving no quorum (1 of 3)", "the breaker reset: r84 served again after 4m32s"} {
		if !strings.Contains(f.Explanation, s) {
			t.Errorf("explanation lacks %q:\n%s", s, f.Explanation)
		}
	}
	if !slices.Equal(f.Fixes[1].Commands, []string{"cockroach node status 2 --host=CRDB_HOST:26257 --certs-dir=CERTS_DIR", "cockroach node status 3 --host=CRDB_HOST:26257 --certs-dir=CERTS_DIR"}) {
		t.Errorf("fix commands %q", f.Fixes[1].Commands)
	}
	if len(f.Evidence) != 3 {
		t.Errorf("evidence %d lines", len(f.Evidence))
	}
}

// Near miss: the slow proposal finished and no breaker tripped.
func TestSlowProposalFinished(t *testing.T) {
	evs := ruletest.Parse(t, src("roach-1/cockroach.log", waiting+finished))
	if len(evs) != 2 {
		t.Fatalf("parsed %d events", len(evs))
	}
	if fs := ruletest.Run(t, Rule, evs); len(fs) != 0 {
		t.Fatalf("findings:%s\nwant none", ruletest.Describe(fs))
	}
}

// A slow proposal that never finishes in the logs (v20.2, crdb-v1).
func TestNeverFinished(t *testing.T) {
	evs := ruletest.Parse(t, src("cockroach.log",
		"E220518 06:11:04.002911 71001 kv/kvserver/replica_write.go:219 ⋮ [n2,s2,r1201/2:‹/Table/77/1/{1200-1300}›] range unavailable: have been waiting 60.00s for proposing command RequestLease [‹/Table/77/1/1200›,‹/Min›).\n"+
			"This range is likely unavailable.\n"+
			"Non-live:    (n1,s1):1,(n4,s4):3\n"+
			// a finished command of another range does not end it
			"I220518 06:11:09.000000 71777 kv/kvserver/replica_write.go:183 ⋮ [n2,s2,r17/2:‹/Table/1{5-6}›] slow command RequestLease [‹/Table/77/1/1200›,‹/Min›) finished after 16.00s with error ‹<nil>›\n"))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 || fs[0].Subject.Range != 1201 || !strings.Contains(fs[0].Title, "not recovered in these logs") {
		t.Fatalf("findings:%s", ruletest.Describe(fs))
	}
	if !slices.Equal(fs[0].Subject.Details.List("down"), []string{"(n1,s1):1", "(n4,s4):3"}) || !strings.Contains(fs[0].Title, "with (n1,s1):1, (n4,s4):3 not live") ||
		len(fs[0].Evidence) != 2 || !slices.Equal(fs[0].Fixes[1].Commands, []string{"cockroach node status 1 --host=CRDB_HOST:26257 --certs-dir=CERTS_DIR", "cockroach node status 4 --host=CRDB_HOST:26257 --certs-dir=CERTS_DIR"}) {
		t.Errorf("subject %+v title %s evidence %d fixes %q", fs[0].Subject, fs[0].Title, len(fs[0].Evidence), fs[0].Fixes[1].Commands)
	}
}

// Signs of two ranges, or of one range far apart, are separate episodes.
func TestEpisodes(t *testing.T) {
	other := strings.NewReplacer("r84/1", "r90/1", "to r84:", "to r90:").Replace(tripped)
	later := strings.NewReplacer("15:33:40", "16:40:00").Replace(tripped)
	fs := ruletest.Run(t, Rule, ruletest.Parse(t, src("roach-1/cockroach.log", tripped+other+later)))
	if len(fs) != 3 {
		t.Fatalf("findings:%s\nwant three", ruletest.Describe(fs))
	}
}
