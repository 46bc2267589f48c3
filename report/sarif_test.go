package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"forensics"
)

func TestSARIFGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSARIF(&b, fixtureReport(), fixtureRules()); err != nil {
		t.Fatal(err)
	}
	golden(t, "fixture.sarif", b.Bytes())
}

type sarifOut struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID               string
					ShortDescription struct{ Text string }
					FullDescription  struct{ Text string }
					Help             struct{ Text, Markdown string }
				}
			}
		}
		Invocations []struct {
			ExecutionSuccessful        bool
			ToolExecutionNotifications []struct {
				Level     string
				Message   struct{ Text string }
				Locations []sarifLoc
			}
		}
		Artifacts []struct {
			Location struct{ URI, URIBaseID string }
			Length   int64
		}
		Results []struct {
			RuleID              string
			RuleIndex           *int
			Level               string
			Message             struct{ Text string }
			PartialFingerprints map[string]string
			Locations           []sarifLoc
			RelatedLocations    []sarifLoc
			Properties          struct {
				ID, Severity string
				Subject      forensics.FindingSubject
				Fixes        []forensics.Fix
			}
		}
	}
}

type sarifLoc struct {
	ID               int
	Message          struct{ Text string }
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string
			URIBaseID string `json:"uriBaseId"`
		}
		Region struct {
			StartLine int64
			Snippet   struct{ Text string }
		}
	}
	Properties map[string]string
}

func decodeSARIF(t *testing.T, r *Report) sarifOut {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSARIF(&b, r, fixtureRules()); err != nil {
		t.Fatal(err)
	}
	var out sarifOut
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(out.Runs))
	}
	return out
}

func TestSARIFResults(t *testing.T) {
	r := fixtureReport()
	run := decodeSARIF(t, r).Runs[0]
	if len(run.Results) != len(r.Findings) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(r.Findings))
	}
	rules := run.Tool.Driver.Rules
	if len(rules) != 2 || rules[0].ID != "kv-stream-before-traffic" || rules[0].ShortDescription.Text != "DCP stream requests answered by a KV node still warming up" ||
		!strings.HasPrefix(rules[0].FullDescription.Text, "A Couchbase data node") ||
		!strings.Contains(rules[0].Help.Text, "Why it matters: Consumers roll back") || !strings.Contains(rules[0].Help.Text, "What to do: Keep failover away") {
		t.Errorf("rule metadata: %+v", rules)
	}
	for i, res := range run.Results {
		f := r.Findings[i]
		if res.RuleID != f.Rule || res.PartialFingerprints[FingerprintKey] != f.ID || res.Properties.ID != f.ID || res.Properties.Severity != f.Severity.String() {
			t.Errorf("result %d: %+v", i, res)
		}
		if !strings.HasPrefix(res.Message.Text, f.Title+"\n\n"+f.Explanation[:20]) {
			t.Errorf("result %d message: %q", i, res.Message.Text)
		}
		if len(res.Locations) != 1 || len(res.RelatedLocations) != len(f.Evidence) {
			t.Errorf("result %d: %d locations and %d related, want 1 and %d", i, len(res.Locations), len(res.RelatedLocations), len(f.Evidence))
		}
		for j, loc := range res.RelatedLocations {
			e := f.Evidence[j]
			if loc.ID != j+1 || loc.PhysicalLocation.Region.StartLine != e.Line || loc.Message.Text != e.Note || loc.Properties["time"] == "" {
				t.Errorf("result %d evidence %d: %+v", i, j, loc)
			}
		}
	}
	if got := []string{run.Results[0].Level, run.Results[1].Level, run.Results[2].Level}; strings.Join(got, ",") != "error,error,note" {
		t.Errorf("levels %v, want error (critical), error (high), note (low)", got)
	}
	if i := run.Results[0].RuleIndex; i == nil || *i != 0 {
		t.Errorf("ruleIndex of the first result: %v", i)
	}
	if run.Results[2].RuleIndex != nil {
		t.Error("a result whose rule is not in the run has a ruleIndex")
	}
	// The location is the first evidence line the subject's node logged,
	// not the indexer's line that comes first.
	if loc := run.Results[0].Locations[0]; loc.PhysicalLocation.Region.StartLine != 69 {
		t.Errorf("primary location %+v, want ns_server.info.log:69", loc.PhysicalLocation)
	}
	if len(run.Results[0].Properties.Fixes) != 2 || run.Results[0].Properties.Subject.Bucket != "test3" {
		t.Errorf("properties: %+v", run.Results[0].Properties)
	}
	inv := run.Invocations[0]
	if !inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 2 || inv.ToolExecutionNotifications[0].Level != "error" ||
		inv.ToolExecutionNotifications[1].Level != "warning" || inv.ToolExecutionNotifications[1].Locations[0].PhysicalLocation.Region.StartLine != 77 {
		t.Errorf("invocation: %+v", inv)
	}
	if len(run.Artifacts) != len(r.Sources) || run.Artifacts[0].Length != 61213 {
		t.Errorf("artifacts: %+v", run.Artifacts)
	}
}

func TestSARIFLevels(t *testing.T) {
	for sev, want := range map[forensics.Severity]string{
		forensics.Info: "note", forensics.Low: "note", forensics.Medium: "warning",
		forensics.High: "error", forensics.Critical: "error",
	} {
		if got := sarifLevel(sev); got != want {
			t.Errorf("%s: %s, want %s", sev, got, want)
		}
	}
}

// The fingerprint is the finding's id, which depends on what identifies the
// incident, not on where the input was read from or in which run.
func TestSARIFFingerprintStable(t *testing.T) {
	a := fixtureReport()
	b := fixtureReport()
	b.Sources = b.Sources[:1]
	b.Problems = nil
	for i := range b.Findings {
		b.Findings[i].ID = b.Findings[i].Fingerprint()
		a.Findings[i].ID = a.Findings[i].Fingerprint()
	}
	ra, rb := decodeSARIF(t, a).Runs[0].Results, decodeSARIF(t, b).Runs[0].Results
	for i := range ra {
		if ra[i].PartialFingerprints[FingerprintKey] != rb[i].PartialFingerprints[FingerprintKey] {
			t.Errorf("result %d: fingerprints %v and %v", i, ra[i].PartialFingerprints, rb[i].PartialFingerprints)
		}
	}
	c := fixtureReport()
	c.Findings[0].Start = c.Findings[0].Start.Add(3600e9) // another incident: a restart an hour later
	if c.Findings[0].Fingerprint() == a.Findings[0].ID {
		t.Error("a different incident got the same fingerprint")
	}
}

func TestArtifactLocation(t *testing.T) {
	for path, want := range map[string][2]string{
		memcachedLog:                    {"collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip!cbcollect_info_ns_1@172.23.100.15_20220722-004733/memcached.log", InputsBase},
		"snapshot-20241202T164500Z/x":   {"snapshot-20241202T164500Z/x", InputsBase},
		absTrace:                        {"file:///var/tmp/incident%2042/trace.txt", ""},
		"a:b/cockroach.log":             {"./a:b/cockroach.log", InputsBase},
		"100% done.log":                 {"100%25%20done.log", InputsBase},
		"bundle.zip!inner.zip!x#1?.log": {"bundle.zip!inner.zip!x%231%3F.log", InputsBase},
		"ns_1@h/näme\\x.log":            {"ns_1@h/n%C3%A4me%5Cx.log", InputsBase},
	} {
		got := artifactLocation(path)
		if got.URI != want[0] || got.URIBaseID != want[1] {
			t.Errorf("%q: uri %q base %q, want %q %q", path, got.URI, got.URIBaseID, want[0], want[1])
		}
	}
}
