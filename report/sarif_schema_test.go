package report

import (
	"bytes"
	"strings"
	"testing"

	"forensics/report/sarifschema"
)

// The log declares the schema the tests validate it against.
func TestSARIFSchemaID(t *testing.T) {
	id, err := sarifschema.ID()
	if err != nil {
		t.Fatal(err)
	}
	if SARIFSchema != id {
		t.Errorf("the log declares %s; the vendored schema is %s", SARIFSchema, id)
	}
}

func TestSARIFValidates(t *testing.T) {
	for name, r := range map[string]*Report{
		"fixture":     fixtureReport(),
		"no findings": {Sources: fixtureReport().Sources},
		"empty":       {},
	} {
		var b bytes.Buffer
		if err := WriteSARIF(&b, r, fixtureRules()); err != nil {
			t.Fatal(err)
		}
		if err := sarifschema.Validate(b.Bytes()); err != nil {
			t.Errorf("%s: output does not validate against SARIF 2.1.0: %v", name, err)
		}
	}
}

// The validator must reject what the schema forbids, or the test above
// proves nothing.
func TestSARIFSchemaRejects(t *testing.T) {
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
		if err := sarifschema.Validate([]byte(out)); err == nil {
			t.Errorf("%s: an invalid log validated", name)
		}
	}
}
