package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// The built-in rule files and the example of a user's rule and format
// pass their cases beside them, through the same runner forensics test uses.
func TestRulesTest(t *testing.T) {
	code, out, errs := runCmd(t, "rules", "test", "../../rules/diskfull", "../../testdata/datarules")
	if code != exitOK || !strings.Contains(out, "4 passed, 0 failed") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// forensics test runs a rule file's cases with the rule beside them.
	code, out, errs = runCmd(t, "test", "../../testdata/datarules")
	if code != exitOK || !strings.Contains(out, "2 passed, 0 failed") {
		t.Fatalf("forensics test: exit %d\n%s%s", code, out, errs)
	}
}

// A rule file with no near-miss, or a case that fails, fails rules test.
func TestRulesTestFails(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/datarules/team-rest-auth-storm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	copyTree(t, "../../testdata/datarules", dir)
	os.RemoveAll(filepath.Join(dir, "team-rest-auth-storm", "one-typo"))
	// A threshold the storm does not reach: its case fails.
	os.WriteFile(filepath.Join(dir, "team-rest-auth-storm.yaml"), bytes.Replace(data, []byte("gte: 20}"), []byte("gte: 2000}"), 1), 0o644)
	code, out, _ := runCmd(t, "rules", "test", dir)
	if code != exitFailed || !strings.Contains(out, "FAIL "+filepath.Join(dir, "team-rest-auth-storm", "storm")) || !strings.Contains(out, "no near-miss") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The user's rules come from --rules-dir and FORENSICS_RULES_PATH, and
// rules list says where each came from; a file that does not load is
// reported with its file, line and field, and the other rules are there.
func TestUserRules(t *testing.T) {
	code, out, errs := runCmd(t, "rules", "list", "--rules-dir", "../../testdata/datarules", "--formats-dir", "../../testdata/datarules")
	if code != exitOK || !strings.Contains(out, "team-rest-auth-storm — a client refused") || !strings.Contains(out, "from ../../testdata/datarules/team-rest-auth-storm.yaml") ||
		!strings.Contains(out, "from built-in rules/diskfull/cb-disk-full.yaml") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	// Without the format, the rule reads a kind no format emits.
	code, _, errs = runCmd(t, "rules", "list", "--rules-dir", "../../testdata/datarules")
	if code != exitFailed || !strings.Contains(errs, `team-rest-auth-storm.yaml:20:13: select.refused.kinds[0]: no parser or format emits the kind "http.request"`) {
		t.Errorf("exit %d\n%s", code, errs)
	}

	dir := t.TempDir()
	good, _ := os.ReadFile("../../testdata/datarules/team-rest-auth-storm.yaml")
	os.WriteFile(filepath.Join(dir, "good.yaml"), bytes.ReplaceAll(good, []byte("team-rest-auth-storm"), []byte("team-other")), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.yaml"), bytes.Replace(good, []byte("within: 5m"), []byte("within: 5 minutes"), 1), 0o644)
	os.WriteFile(filepath.Join(dir, "shadow.yaml"), bytes.ReplaceAll(good, []byte("team-rest-auth-storm"), []byte("cb-disk-full")), 0o644)
	t.Setenv("FORENSICS_RULES_PATH", dir)
	t.Setenv("FORENSICS_FORMATS_PATH", "../../testdata/datarules")
	code, out, errs = runCmd(t, "rules", "list", "--format", "json")
	if code != exitFailed {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{
		filepath.Join(dir, "bad.yaml") + `:26:11: detect.within: "5 minutes" is not a duration`,
		filepath.Join(dir, "shadow.yaml") + ": cb-disk-full is the name of a built-in rule",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, `"origin": "`+filepath.Join(dir, "good.yaml")+`"`) || !strings.Contains(out, `"origin": "built-in rules/diskfull/cb-disk-full.yaml"`) {
		t.Errorf("the good rule and the built-in one are listed with their origins:\n%s", out)
	}
	// A rule that says it replaces the built-in one does.
	os.WriteFile(filepath.Join(dir, "shadow.yaml"), append([]byte("replaces: true\n"), bytes.ReplaceAll(good, []byte("team-rest-auth-storm"), []byte("cb-disk-full"))...), 0o644)
	os.Remove(filepath.Join(dir, "bad.yaml"))
	code, out, errs = runCmd(t, "rules", "explain", "cb-disk-full")
	if code != exitOK || !strings.Contains(out, "cb-disk-full — a client refused") || !strings.Contains(out, "as the rule file "+filepath.Join(dir, "shadow.yaml")) {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
