package forensics_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestLayering checks the arrows between the parts (docs/architecture.md)
// on what the packages import, test files aside: the domain at the root,
// parsers and rules unaware of the store, the store unaware of parsers and
// rules, and the parts put together only by the command.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "forensics/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		for _, imp := range f[1:] {
			if imp == "forensics" || strings.HasPrefix(imp, "forensics/") {
				imports[f[0]] = append(imports[f[0]], imp)
			}
		}
		if _, ok := imports[f[0]]; !ok {
			imports[f[0]] = nil
		}
	}
	if len(imports) < 20 {
		t.Fatalf("go list found %d packages; the test is not looking at the module", len(imports))
	}
	under := func(pkg string, roots ...string) bool {
		for _, r := range roots {
			if pkg == r || strings.HasPrefix(pkg, r+"/") {
				return true
			}
		}
		return false
	}
	// backends are the storage implementations: everything under store but
	// the interfaces, the codec, a search's planner, the suite, the list of
	// backends and the fleet's reads across incidents, which go through the
	// interfaces too.
	backend := func(pkg string) bool {
		return strings.HasPrefix(pkg, "forensics/store/") &&
			!under(pkg, "forensics/store/block", "forensics/store/search", "forensics/store/storetest", "forensics/store/backends", "forensics/fleet")
	}
	// The lists of parts, which only the command puts together; the
	// analysis runs the rules it is given through the rules' driver.
	lists := map[string]bool{"forensics/parsers": true, "forensics/rules": true, "forensics/store/backends": true}
	// Below rules/ are the rules, one package each, and packages that are
	// none: the driver, what every rule uses, the engine of rules written
	// as data, and the tests' harness. A new rule touches only its package
	// and the list.
	isRule := func(pkg string) bool {
		return strings.HasPrefix(pkg, "forensics/rules/") &&
			!under(pkg, "forensics/rules/driver", "forensics/rules/evidence", "forensics/rules/rulefile", "forensics/rules/ruletest")
	}
	upper := []string{"forensics/ingest", "forensics/analysis", "forensics/report", "forensics/extract", "forensics/export", "forensics/expect", "forensics/fleet", "forensics/profile", "forensics/serve", "forensics/cmd"}

	check := func(pkg, imp, why string) { t.Errorf("%s imports %s: %s", pkg, imp, why) }
	for pkg, imps := range imports {
		for _, imp := range imps {
			switch {
			case pkg == "forensics":
				check(pkg, imp, "the domain at the root imports nothing of the program")
			case under(pkg, "forensics/parsers") && pkg != "forensics/parsers" && (under(imp, "forensics/store", "forensics/rules", "forensics/input") || under(imp, upper...)):
				check(pkg, imp, "a parser reads lines into events and knows no store, rule or driver")
			case under(pkg, "forensics/rules") && pkg != "forensics/rules" && (under(imp, "forensics/store", "forensics/input") || under(imp, upper...) || imp == "forensics/parsers"):
				check(pkg, imp, "a rule reads the timeline through its Pass and knows no store or driver")
			case under(pkg, "forensics/store") && !under(imp, "forensics/store", "forensics/zran", "forensics/shell") && imp != "forensics":
				check(pkg, imp, "the store keeps what it is given: it imports the domain, zran, shell (to check the fix commands it gives back) and itself, no parser, rule or driver")
			case pkg == "forensics/shell":
				check(pkg, imp, "shell writes and reads command lines and imports nothing of the program")
			case pkg == "forensics/zran":
				check(pkg, imp, "zran indexes deflate members and imports nothing of the program")
			case pkg == "forensics/store/backends" && backend(imp):
				// the list of backends is where they are put together
			case backend(imp) && !under(pkg, imp):
				check(pkg, imp, "a backend is reached through the store interfaces; only store/backends names it")
			case lists[imp] && !under(pkg, "forensics/cmd", "forensics/bench"):
				check(pkg, imp, "only the command puts the parts together")
			case isRule(imp) && pkg != "forensics/rules":
				check(pkg, imp, "a rule is named only by the list of rules: nothing else knows one rule from another")
			case isRule(pkg) && under(imp, "forensics/rules") && imp != "forensics/rules/evidence":
				check(pkg, imp, "a rule uses rules/evidence and no other rule, the driver or the list")
			case (pkg == "forensics/rules/driver" || pkg == "forensics/rules/evidence") && under(imp, "forensics/rules", "forensics/parsers"):
				check(pkg, imp, "the driver and rules/evidence serve every rule: they know no rule and no parser")
			case imp == "forensics/rules/driver" && pkg != "forensics/analysis" && pkg != "forensics/rules/ruletest" && !under(pkg, "forensics/bench"):
				check(pkg, imp, "the driver runs rules for the analysis, and for the rules' tests through ruletest")
			}
		}
	}
}
