package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forensics/report"
)

// A support engineer keeps what forensics wrote next to the bundle: the
// Markdown pasted into the ticket, the SARIF, the JSON, the HTML report.
// Analysing the folder again must find exactly what it found before, with
// every report listed as skipped, whatever the reports are named.
func TestOwnOutputsAreNotEvidence(t *testing.T) {
	forEachCase(t, func(t *testing.T, dir string) {
		abs, inputs := caseInputs(t, dir)
		t.Chdir(abs)
		want, err := os.ReadFile("want.json")
		if err != nil {
			t.Fatal(err)
		}
		var before report.Report
		if err := json.Unmarshal(want, &before); err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		// The HTML report of the same findings, written from want.json: the
		// page's structure is what matters, not its swimlanes.
		var page bytes.Buffer
		if err := report.WriteHTML(context.Background(), &page, &before, report.HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		html := page.Bytes()
		md, _ := os.ReadFile("want.md")
		sarif, _ := os.ReadFile("want.sarif")
		ticket := filepath.Join(tmp, "ticket-4711")
		// Named as logs inside a cbcollect_info folder, a report would take
		// the folder's node if it were read.
		collect := filepath.Join(tmp, "cbcollect_info_ns_1@10.0.0.9_20220722-004733")
		outputs := map[string][]byte{
			filepath.Join(ticket, "report.md"):            md,
			filepath.Join(ticket, "forensics.sarif"):      sarif,
			filepath.Join(ticket, "findings.json"):        want,
			filepath.Join(ticket, "report.html"):          html,
			filepath.Join(collect, "memcached.log"):       md,
			filepath.Join(collect, "ns_server.debug.log"): html,
			filepath.Join(collect, "diag.log"):            want,
		}
		for p, b := range outputs {
			if len(b) == 0 {
				t.Fatalf("no output for %s", p)
			}
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := analyzeJSON(t, filepath.Join(tmp, "again.db"), append(inputs, ticket, collect)...)
		var after report.Report
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatal(err)
		}
		if a, b := findingsJSON(before.Findings), findingsJSON(after.Findings); a != b {
			t.Errorf("with the reports next to the evidence, the findings differ:\n%s\nwant\n%s", b, a)
		}
		if len(after.Sources) != len(before.Sources) {
			t.Errorf("%d sources read, want %d", len(after.Sources), len(before.Sources))
		}
		skipped := map[string]string{}
		for _, s := range after.Skipped {
			skipped[s.Path] = s.Reason
		}
		for p := range outputs {
			reason, ok := skipped[p]
			if !ok {
				t.Errorf("%s not listed as skipped", p)
			} else if !strings.Contains(reason, "forensics wrote") {
				t.Errorf("%s skipped as %q, want a reason naming it a report of forensics", p, reason)
			}
		}
	})
}
