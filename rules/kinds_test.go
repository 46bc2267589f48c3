package rules_test

import (
	"testing"

	"forensics"
	"forensics/parsers"
	"forensics/rules"
)

// Rules name the kinds they read as strings; each must be one a parser
// declares, or the rule would silently read nothing.
func TestRuleKindsAreDeclared(t *testing.T) {
	declared := map[forensics.Kind]bool{}
	for _, k := range parsers.Kinds() {
		declared[k.Kind] = true
	}
	for _, r := range rules.All {
		for _, k := range r.Kinds {
			if !declared[k] {
				t.Errorf("rule %s reads %s, which no parser declares", r.Name, k)
			}
		}
	}
}
