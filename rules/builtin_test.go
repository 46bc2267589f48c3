package rules_test

import (
	"io/fs"
	"testing"

	"forensics/parsers"
	"forensics/rules"
	"forensics/rules/rulefile"
)

// Every built-in rule file reads kinds the parsers declare and names only
// attributes those kinds carry, and is in rules.All().
func TestBuiltinRuleFiles(t *testing.T) {
	vocab := rulefile.Vocab(parsers.Kinds())
	n := 0
	err := fs.WalkDir(rules.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := rules.Files.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := rulefile.Parse(p, data, vocab)
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		if r, ok := rules.Lookup(f.Rule.Name); !ok || r.Doc != f.Rule.Doc {
			t.Errorf("%s: rule %s is not in rules.All()", p, f.Rule.Name)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("%d rule files: %v", n, err)
	}
}
