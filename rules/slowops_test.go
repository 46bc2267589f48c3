package rules_test

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules"
	"forensics/rules/ruletest"
)

// cb-slow-ops-storm names the bucket's compaction when memcached ended
// vbucket compactions of the bucket on the node during the storm, and does
// not when the compaction ran on another bucket or node, or long before;
// compaction without a storm is no finding.
func TestSlowOpsStormNamesCompaction(t *testing.T) {
	r, ok := rules.Lookup("cb-slow-ops-storm")
	if !ok {
		t.Fatal("cb-slow-ops-storm is not a rule")
	}
	base := time.Date(2025, 11, 3, 16, 24, 0, 0, time.UTC)
	at := func(d time.Duration) forensics.Stamp { return forensics.Stamp{Time: base.Add(d)} }
	ev := func(kind forensics.Kind, node, bucket string, d time.Duration, attrs ...string) forensics.Event {
		e := ruletest.Event(kind, node, at(d), attrs...)
		e.Bucket = bucket
		return e
	}
	storm := func() []forensics.Event {
		var evs []forensics.Event
		for i := range 40 {
			evs = append(evs, ev(memcached.SlowOp, "ns_1@10.40.1.22", "orders", time.Duration(i)*5*time.Second,
				"opcode", "GET", "duration_ms", "1200", "status", "Success"))
		}
		return evs
	}
	compaction := func(node, bucket string, from time.Duration, n int) []forensics.Event {
		evs := []forensics.Event{ev(nsserver.CompactionStart, node, bucket, from-time.Minute)}
		for i := range n {
			e := ev(memcached.CompactionDone, node, bucket, from+time.Duration(i)*10*time.Second, "result", "Success")
			e.VB = 100 + i
			evs = append(evs, e)
		}
		return append(evs, ev(nsserver.CompactionEnd, node, bucket, from+time.Duration(n)*10*time.Second+20*time.Minute))
	}
	tests := []struct {
		name     string
		evs      []forensics.Event
		findings int
		named    bool
	}{
		{"during the storm", append(storm(), compaction("ns_1@10.40.1.22", "orders", -2*time.Minute, 20)...), 1, true},
		{"another bucket", append(storm(), compaction("ns_1@10.40.1.22", "carts", -2*time.Minute, 20)...), 1, false},
		{"another node", append(storm(), compaction("ns_1@10.40.1.21", "orders", -2*time.Minute, 20)...), 1, false},
		{"hours before", append(storm(), compaction("ns_1@10.40.1.22", "orders", -5*time.Hour, 20)...), 1, false},
		{"no storm", compaction("ns_1@10.40.1.22", "orders", -2*time.Minute, 20), 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := ruletest.Run(t, r, tc.evs)
			if len(fs) != tc.findings {
				t.Fatalf("%d findings, want %d:\n%s", len(fs), tc.findings, ruletest.Describe(fs))
			}
			if len(fs) == 0 {
				return
			}
			f := fs[0]
			named := strings.Contains(f.Explanation, "vbucket files of orders") && strings.Contains(f.Explanation, "compaction daemon began compacting orders")
			if named != tc.named {
				t.Errorf("compaction named: %v, want %v:\n%s", named, tc.named, f.Explanation)
			}
			if !tc.named && strings.Contains(f.Explanation, "compacting") {
				t.Errorf("compaction mentioned:\n%s", f.Explanation)
			}
		})
	}
}
