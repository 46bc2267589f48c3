package rulefile

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A rule or format file can only be read: the packages that run a rule
// and read a format import nothing that opens files, runs programs or
// reaches the network, and the package that reads the files' folders
// imports nothing that writes or runs.
func TestNoWayOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}",
		"forensics/rules/rulefile", "forensics/parsers/formatfile", "forensics/yamldoc").Output()
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"os/exec", "net", "net/http", "syscall", "unsafe", "plugin", "io/ioutil", "os", "path/filepath"}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("go list: %q", out)
	}
	for _, l := range lines {
		pkg, imports, _ := strings.Cut(l, ":")
		for _, imp := range strings.Fields(imports) {
			// yamldoc reads the folders of rule and format files.
			if pkg == "forensics/yamldoc" && (imp == "os" || imp == "path/filepath") {
				continue
			}
			if slices.Contains(forbidden, imp) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
