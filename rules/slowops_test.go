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
	const (
		whole = "finished compacting 20 vbucket files of orders during the storm"
		few   = "finished compacting 3 vbucket file(s) of orders during the storm"
		began = "compaction daemon began compacting orders on ns_1@10.40.1.22 at 16:23:00.000Z"
	)
	tests := []struct {
		name     string
		evs      []forensics.Event
		findings int
		want     []string // in the explanation; none: no compaction named
	}{
		{"during the storm", append(storm(), compaction("ns_1@10.40.1.22", "orders", 0, 20)...), 1, []string{began, whole}},
		{"a few files", append(storm(), compaction("ns_1@10.40.1.22", "orders", 0, 3)...), 1, []string{began, few}},
		{"another bucket", append(storm(), compaction("ns_1@10.40.1.22", "carts", 0, 20)...), 1, nil},
		{"another node", append(storm(), compaction("ns_1@10.40.1.21", "orders", 0, 20)...), 1, nil},
		{"hours before", append(storm(), compaction("ns_1@10.40.1.22", "orders", -5*time.Hour, 20)...), 1, nil},
		{"no storm", compaction("ns_1@10.40.1.22", "orders", 0, 20), 0, nil},
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
			for _, w := range tc.want {
				if !strings.Contains(f.Explanation, w) {
					t.Errorf("the explanation does not say %q:\n%s", w, f.Explanation)
				}
			}
			if tc.want == nil && strings.Contains(f.Explanation, "compacting") {
				t.Errorf("compaction named:\n%s", f.Explanation)
			}
			if !f.Start.Equal(base) {
				t.Errorf("the finding starts at %v, want the storm's start: the compaction widens no window", f.Start)
			}
		})
	}
}
