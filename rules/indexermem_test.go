package rules_test

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/indexer"
	"forensics/rules"
	"forensics/rules/ruletest"
)

// cb-indexer-memory-pressure says the memory used, and the quota when the
// pause carries it, in its title and explanation, never in its subject.
func TestIndexerMemoryNamesUseAndQuota(t *testing.T) {
	r, ok := rules.Lookup("cb-indexer-memory-pressure")
	if !ok {
		t.Fatal("cb-indexer-memory-pressure is not a rule")
	}
	at := forensics.Stamp{Time: time.Date(2025, 11, 3, 17, 10, 12, 0, time.UTC)}
	for _, tc := range []struct {
		name  string
		attrs []string
		title string
		says  []string
		not   []string
	}{
		{"used and quota", []string{"state", "Paused", "mem_used", "4093640704", "mem_quota", "4294967296"},
			"the indexer on ns_1@10.40.1.23 paused: its memory is full (3.8 GiB used)",
			[]string{"with 3.8 GiB in use at its last check (4093640704 bytes), of a quota of 4.0 GiB:"}, nil},
		{"used only", []string{"state", "Paused", "mem_used", "4093640704"},
			"the indexer on ns_1@10.40.1.23 paused: its memory is full (3.8 GiB used)",
			[]string{"with 3.8 GiB in use at its last check (4093640704 bytes):"}, []string{"quota of"}},
		{"neither", []string{"state", "Paused"},
			"the indexer on ns_1@10.40.1.23 paused: its memory is full",
			[]string{"the indexer paused: it takes no more mutations"}, []string{"in use", "quota of"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := ruletest.Run(t, r, []forensics.Event{ruletest.Event(indexer.Paused, "ns_1@10.40.1.23", at, tc.attrs...)})
			if len(fs) != 1 {
				t.Fatalf("%d findings, want 1", len(fs))
			}
			f := fs[0]
			if f.Title != tc.title {
				t.Errorf("title %q, want %q", f.Title, tc.title)
			}
			for _, s := range tc.says {
				if !strings.Contains(f.Explanation, s) {
					t.Errorf("the explanation does not say %q:\n%s", s, f.Explanation)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(f.Explanation, s) {
					t.Errorf("the explanation says %q:\n%s", s, f.Explanation)
				}
			}
			if subj := ruletest.Subject(f); strings.Contains(subj, "409") || strings.Contains(subj, "quota") {
				t.Errorf("the subject holds the memory: %s", subj)
			}
		})
	}
}
