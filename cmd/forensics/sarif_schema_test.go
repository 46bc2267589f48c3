package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"forensics/expect"
	"forensics/report"
)

// Every bundled case's SARIF output (its want.sarif, which
// TestScenariosFormats keeps equal to the output) validates against the
// SARIF 2.1.0 schema.
func TestScenariosSARIFSchema(t *testing.T) {
	schema := compileSARIFSchema(t)
	dirs, err := expect.Find("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		name, _ := filepath.Rel("../../testdata", dir)
		t.Run(name, func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join(dir, "want.sarif"))
			if err != nil {
				t.Fatalf("%v (TestScenariosFormats -update writes it)", err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("does not validate against SARIF 2.1.0: %v", err)
			}
		})
	}
}

func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("../../report/testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(report.SARIFSchema, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(report.SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
