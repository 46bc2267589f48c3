package expect

import (
	"encoding/json"
	"strings"
	"testing"

	"forensics"
)

func TestCheck(t *testing.T) {
	c := &Case{
		Findings: []Finding{{Rule: "kv-stream-before-traffic", Severity: "critical", Subject: json.RawMessage(`{"node":"ns_1@a","vbuckets":[141]}`)}},
		Absent:   []string{"crdb-nlhe-pingpong"},
	}
	good := forensics.Finding{Rule: "kv-stream-before-traffic", Severity: forensics.Critical,
		Subject: forensics.FindingSubject{Node: "ns_1@a", Bucket: "test3", VBuckets: []int{141}}}
	if p := c.Check([]forensics.Finding{good}); len(p) != 0 {
		t.Errorf("matching finding: %v", p)
	}
	wrongVB := good
	wrongVB.Subject.VBuckets = []int{141, 142}
	p := c.Check([]forensics.Finding{wrongVB})
	if len(p) != 2 || !strings.Contains(p[0], "vbuckets [141,142], want [141]") || !strings.Contains(p[1], "unexpected finding") {
		t.Errorf("wrong vbuckets: %v", p)
	}
	high := good
	high.Severity = forensics.High
	if p := c.Check([]forensics.Finding{high}); len(p) != 2 || !strings.Contains(p[0], "severity high, want critical") {
		t.Errorf("wrong severity: %v", p)
	}
	if p := c.Check(nil); len(p) != 1 || !strings.HasPrefix(p[0], "missing finding") {
		t.Errorf("no findings: %v", p)
	}
	silent := forensics.Finding{Rule: "crdb-nlhe-pingpong"}
	if p := c.Check([]forensics.Finding{good, silent}); len(p) != 1 || !strings.Contains(p[0], "must not fire") {
		t.Errorf("absent rule fired: %v", p)
	}
}
