package rulefile

import (
	"os/exec"
	"strings"
	"testing"
)

// A rule file can only read the timeline through its Pass and report: the
// packages that read and run it import nothing that opens files, runs
// programs or reaches the network.
func TestNoWayOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "forensics/rules/rulefile", "forensics/yamldoc").Output()
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"os", "os/exec", "net", "net/http", "syscall", "unsafe", "plugin", "io/ioutil", "path/filepath"}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("go list: %q", out)
	}
	for _, l := range lines {
		pkg, imports, _ := strings.Cut(l, ":")
		for _, imp := range strings.Fields(imports) {
			for _, f := range forbidden {
				if imp == f {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	}
}
