package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"forensics"
	"forensics/expect"
	"forensics/report"
)

// For every bundled incident, the extract of each of its findings is
// smaller than the evidence it came from and reproduces the finding on its
// own: extract itself checks that, and forensics test runs the extract as a
// case. The evidence lines keep their text, in files of the same names.
func TestExtractEveryIncident(t *testing.T) {
	dirs, err := expect.Find("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	extracted, redactChecked := 0, 0
	for _, dir := range dirs {
		if strings.Contains(dir, "hostile") {
			continue
		}
		abs, inputs := caseInputs(t, dir)
		db := filepath.Join(t.TempDir(), "t.db")
		var paths []string
		for _, in := range inputs {
			paths = append(paths, filepath.Join(abs, in))
		}
		var rep report.Report
		if err := json.Unmarshal(analyzeFormat(t, db, "json", paths), &rep); err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			name, _ := filepath.Rel("../../testdata", dir)
			t.Run(name+"/"+f.ID, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "extract")
				var stdout, stderr bytes.Buffer
				if code := run([]string{"extract", "--db", db, f.ID, "--out", out}, &stdout, &stderr); code != exitOK {
					t.Fatalf("extract: exit %d\n%s%s", code, stdout.String(), stderr.String())
				}
				if !strings.Contains(stdout.String(), "reproduces "+f.ID) {
					t.Errorf("extract did not say it reproduces the finding:\n%s", stdout.String())
				}
				// Each file: "path  N lines of M". A file kept whole (a
				// document: topology JSON, a trace, a saved page) must be the
				// source as it was; the others must be smaller, and hold the
				// evidence lines.
				files := regexp.MustCompile(`(?m)^  (\S+)  (\d+) lines? of (\d+)$`).FindAllStringSubmatch(stdout.String(), -1)
				if len(files) == 0 {
					t.Fatalf("extract listed no files:\n%s", stdout.String())
				}
				whole := map[string]bool{}
				smaller := false
				for _, m := range files {
					if m[2] == m[3] {
						whole[filepath.Base(m[1])] = true
					} else {
						smaller = true
					}
				}
				for _, e := range f.Evidence {
					base := filepath.Base(strings.ReplaceAll(e.Path, "!", "/"))
					if whole[base] {
						if !strings.Contains(e.Path, "!") && !extractEquals(t, out, base, e.Path) {
							t.Errorf("%s was copied whole, but differs from its source", base)
						}
						continue
					}
					text := e.Text
					if i := strings.IndexByte(text, '\n'); i >= 0 {
						text = text[:i]
					}
					if !extractHas(t, out, base, text) {
						t.Errorf("evidence line %s:%d is not in a file of the same name in the extract", e.Path, e.Line)
					}
				}
				if !smaller && len(whole) < len(files) {
					t.Errorf("the extract is not smaller than its sources:\n%s", stdout.String())
				}
				stdout.Reset()
				if code := run([]string{"test", out}, &stdout, &stderr); code != exitOK {
					t.Errorf("forensics test on the extract: exit %d\n%s", code, stdout.String())
				}

				// --redact: the same finding, and none of the names the
				// evidence carries left in any file or path.
				red := filepath.Join(t.TempDir(), "redacted")
				stdout.Reset()
				if code := run([]string{"extract", "--redact", "--db", db, f.ID, "--out", red}, &stdout, &stderr); code != exitOK {
					t.Fatalf("extract --redact: exit %d\n%s%s", code, stdout.String(), stderr.String())
				}
				// A CockroachDB finding may name only node and range numbers:
				// nothing to pseudonymise, so nothing to check here.
				names := secretNames(rep, f)
				if len(names) > 0 {
					redactChecked++
				}
				filepath.WalkDir(red, func(p string, d os.DirEntry, err error) error {
					if err != nil {
						return err
					}
					rel, _ := filepath.Rel(red, p)
					data := []byte(rel)
					if !d.IsDir() {
						data, _ = os.ReadFile(p)
						data = append(data, rel...)
					}
					for _, n := range names {
						if bytes.Contains(data, []byte(n)) {
							t.Errorf("%s: %q is still there after --redact", rel, n)
						}
					}
					return nil
				})
				stdout.Reset()
				if code := run([]string{"test", red}, &stdout, &stderr); code != exitOK {
					t.Errorf("forensics test on the redacted extract: exit %d\n%s", code, stdout.String())
				}
				extracted++
			})
		}
	}
	if extracted < 5 || redactChecked < 5 {
		t.Errorf("only %d findings extracted from the bundled incidents, %d with names to redact", extracted, redactChecked)
	}
}

// extractEquals reports whether the file named base under dir is the file
// at src, byte for byte.
func extractEquals(t *testing.T, dir, base, src string) bool {
	want, err := os.ReadFile(src)
	if err != nil {
		return false
	}
	same := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == base {
			got, _ := os.ReadFile(p)
			same = same || bytes.Equal(bytes.TrimRight(got, "\n"), bytes.TrimRight(want, "\n"))
		}
		return nil
	})
	return same
}

// extractHas reports whether a file named base under dir holds text.
func extractHas(t *testing.T, dir, base, text string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) != base {
			return nil
		}
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte(text)) {
			found = true
		}
		return nil
	})
	return found
}

var ipInText = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b`)

// secretNames are the names a redacted extract must not carry, read from the
// analysis itself: the hosts in node names, and the finding's bucket,
// keyspace, tables and workflow, and the IPs its evidence shows.
func secretNames(rep report.Report, f forensics.Finding) []string {
	set := map[string]bool{}
	for _, s := range rep.Sources {
		if i := strings.IndexByte(s.Node, '@'); i >= 0 {
			set[s.Node[i+1:]] = true
		}
	}
	sub := f.Subject
	for _, n := range append([]string{sub.Bucket, sub.Keyspace, sub.Workflow}, sub.Tables...) {
		set[n] = true
	}
	for _, e := range f.Evidence {
		for _, ip := range ipInText.FindAllString(e.Text, -1) {
			set[ip] = true
		}
	}
	delete(set, "")
	var out []string
	for n := range set {
		out = append(out, n)
	}
	return out
}
