package rules_test

import (
	"testing"

	"forensics"
	"forensics/parsers"
	"forensics/rules"
)

// Every kind a rule reads must be one a parser declares, or the rule
// would silently read nothing (a constant a parser exports but leaves out
// of its Format.Kinds, say).
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
