package rules_test

import (
	"regexp"
	"strings"
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
	for _, r := range rules.All() {
		for _, k := range r.Kinds {
			if !declared[k] {
				t.Errorf("rule %s reads %s, which no parser declares", r.Name, k)
			}
		}
	}
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// A rule's name is the same string in flags, output and testdata folders,
// so it is kebab-case and names one rule; `rules explain` prints its Doc,
// so every part is written; and it declares what it reads.
func TestRulesAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules.All() {
		if !kebab.MatchString(r.Name) {
			t.Errorf("rule name %q is not kebab-case", r.Name)
		}
		if seen[r.Name] {
			t.Errorf("two rules are named %s", r.Name)
		}
		seen[r.Name] = true
		if got, ok := rules.Lookup(r.Name); !ok || got != r {
			t.Errorf("Lookup(%q) does not find the rule", r.Name)
		}
		d := r.Doc
		for part, text := range map[string]string{"Title": d.Title, "Detects": d.Detects, "Why": d.Why, "Confirm": d.Confirm, "Inputs": d.Inputs, "Fixes": d.Fixes} {
			if strings.TrimSpace(text) == "" {
				t.Errorf("rule %s: Doc.%s is empty", r.Name, part)
			}
		}
		if len(r.Kinds) == 0 || r.Run == nil {
			t.Errorf("rule %s declares no kinds or has no Run", r.Name)
		}
	}
	if _, ok := rules.Lookup("no-such-rule"); ok {
		t.Error("Lookup found a rule that does not exist")
	}
}
