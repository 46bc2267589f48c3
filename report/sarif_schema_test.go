package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles the vendored SARIF 2.1.0 schema (OASIS, with the
// approved errata), asserting formats such as uri-reference and date-time.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
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
	if err := c.AddResource(SARIFSchema, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateSARIF(t *testing.T, s *jsonschema.Schema, out []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return s.Validate(inst)
}

func TestSARIFValidates(t *testing.T) {
	schema := sarifSchema(t)
	for name, r := range map[string]*Report{
		"fixture":     fixtureReport(),
		"no findings": {Sources: fixtureReport().Sources},
		"empty":       {},
	} {
		var b bytes.Buffer
		if err := WriteSARIF(&b, r, fixtureRules()); err != nil {
			t.Fatal(err)
		}
		if err := validateSARIF(t, schema, b.Bytes()); err != nil {
			t.Errorf("%s: output does not validate against SARIF 2.1.0: %v", name, err)
		}
	}
}

// The validator must reject what the schema forbids, or the test above
// proves nothing.
func TestSARIFSchemaRejects(t *testing.T) {
	schema := sarifSchema(t)
	var b bytes.Buffer
	if err := WriteSARIF(&b, fixtureReport(), fixtureRules()); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]func(string) string{
		"level":   func(s string) string { return strings.Replace(s, `"level": "error"`, `"level": "critical"`, 1) },
		"uri":     func(s string) string { return strings.Replace(s, `"uri": "collectinfo`, `"uri": "%zz-collectinfo`, 1) },
		"version": func(s string) string { return strings.Replace(s, `"version": "2.1.0"`, `"version": "2.2"`, 1) },
		"line":    func(s string) string { return strings.Replace(s, `"startLine": 167`, `"startLine": 0`, 1) },
	} {
		out := bad(b.String())
		if out == b.String() {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		if err := validateSARIF(t, schema, []byte(out)); err == nil {
			t.Errorf("%s: an invalid log validated", name)
		}
	}
}
