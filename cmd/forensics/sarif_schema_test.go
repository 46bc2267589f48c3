package main

import (
	"os"
	"path/filepath"
	"testing"

	"forensics/report/sarifschema"
)

// Every bundled case's SARIF output (its want.sarif, which
// TestScenariosFormats keeps equal to the output) validates against the
// SARIF 2.1.0 schema.
func TestScenariosSARIFSchema(t *testing.T) {
	forEachCase(t, func(t *testing.T, dir string) {
		out, err := os.ReadFile(filepath.Join(dir, "want.sarif"))
		if err != nil {
			t.Fatalf("%v (TestScenariosFormats -update writes it)", err)
		}
		if err := sarifschema.Validate(out); err != nil {
			t.Errorf("does not validate against SARIF 2.1.0: %v", err)
		}
	})
}
