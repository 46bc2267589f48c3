// Package sarifschema holds the SARIF 2.1.0 JSON schema (OASIS, with the
// approved errata) and validates logs against it, for the tests of the
// SARIF writer and of the bundled cases' want.sarif.
package sarifschema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

type schema struct {
	id       string
	compiled *jsonschema.Schema
}

var load = sync.OnceValues(func() (schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return schema{}, fmt.Errorf("sarif-schema-2.1.0.json: %w", err)
	}
	m, _ := doc.(map[string]any)
	id, _ := m["id"].(string) // draft-04 names it "id"
	if id == "" {
		return schema{}, fmt.Errorf("sarif-schema-2.1.0.json: no id")
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // uri-reference, date-time and the like are checked, not only shapes
	if err := c.AddResource(id, doc); err != nil {
		return schema{}, err
	}
	s, err := c.Compile(id)
	return schema{id, s}, err
})

// ID is the schema's id, which a SARIF log names as its "$schema".
func ID() (string, error) {
	s, err := load()
	return s.id, err
}

// Validate reports whether log is JSON that the SARIF 2.1.0 schema accepts.
func Validate(log []byte) error {
	sc, err := load()
	if err != nil {
		return err
	}
	s := sc.compiled
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(inst)
}
