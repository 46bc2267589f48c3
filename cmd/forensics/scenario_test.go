package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"forensics"
	"forensics/expect"
	"forensics/report"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// The bundled incident cases under testdata/ are analyzed end to end: the
// JSON output must equal the case's want.json, the findings must satisfy
// its expect.json, and the accounting of every source must add up.
func TestScenarios(t *testing.T) {
	forEachCase(t, func(t *testing.T, dir string) {
		abs, _ := filepath.Abs(dir)
		c, err := expect.Load(abs)
		if err != nil {
			t.Fatal(err)
		}
		t.Chdir(abs)
		inputs, err := c.InputPaths()
		if err != nil {
			t.Fatal(err)
		}
		for i := range inputs {
			inputs[i], _ = filepath.Rel(abs, inputs[i])
		}
		db := filepath.Join(t.TempDir(), "timeline.db")
		out := analyzeJSON(t, db, inputs...)
		golden(t, "want.json", out)
		searchAgreesWithScan(t, db)

		var rep report.Report
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Check(rep.Findings) {
			t.Error(p)
		}
		for _, s := range rep.Sources {
			if s.Lines != s.Events+s.Plain+s.Skipped {
				t.Errorf("%s: lines %d != events %d + plain %d + skipped %d", s.Path, s.Lines, s.Events, s.Plain, s.Skipped)
			}
		}

		// Analyzing the same input again reads nothing new and finds the same.
		again := analyzeJSON(t, db, inputs...)
		var rep2 report.Report
		json.Unmarshal(again, &rep2)
		if rep2.Summary.Read != 0 || rep2.Summary.Reused != rep.Summary.Read+rep.Summary.Reused {
			t.Errorf("re-run read %d and reused %d sources; want 0 and %d", rep2.Summary.Read, rep2.Summary.Reused, rep.Summary.Read)
		}
		if a, b := findingsJSON(rep.Findings), findingsJSON(rep2.Findings); a != b {
			t.Errorf("re-run findings differ:\n%s\nwant\n%s", b, a)
		}

		// The same evidence zipped, as cbcollect_info delivers it, gives the same findings.
		if zips := zipCollections(t, abs, inputs); len(zips) > 0 {
			zipped := analyzeJSON(t, filepath.Join(t.TempDir(), "zip.db"), zips...)
			var rep3 report.Report
			json.Unmarshal(zipped, &rep3)
			if a, b := normalisePaths(findingsJSON(rep.Findings)), normalisePaths(findingsJSON(rep3.Findings)); a != b {
				t.Errorf("findings from zips differ from findings from folders:\n%s\nwant\n%s", b, a)
			}
		}
	})
}

// forEachCase runs fn as a subtest, named by its folder, for every bundled
// incident case under testdata/.
func forEachCase(t *testing.T, fn func(t *testing.T, dir string)) {
	t.Helper()
	dirs, err := expect.Find("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		if expect.RuleFile(dir) != "" {
			continue // a user rule's case: TestRulesTest runs it
		}
		name, _ := filepath.Rel("../../testdata", dir)
		t.Run(name, func(t *testing.T) { fn(t, dir) })
	}
}

func analyzeJSON(t *testing.T, db string, inputs ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"analyze", "--db", db, "--format", "json"}, inputs...)
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("forensics %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes()
}

func findingsJSON(fs []forensics.Finding) string {
	b, _ := json.MarshalIndent(fs, "", "  ")
	return string(b)
}

// golden compares got with the file, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (review, then run with -update):\n%s", name, diff(string(want), string(got)))
	}
}

// diff shows the first lines that differ, enough to see what changed.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  - " + wl + "\n  + " + gl + "\n")
			shown++
		}
	}
	return b.String()
}

var collectFolder = regexp.MustCompile(`^cbcollect_info_(.+@.+)_(\d{8}-\d{6})$`)

// zipCollections zips each cbcollect_info_* folder found in the inputs the
// way the Couchbase UI names them, and returns the zips with the other inputs.
func zipCollections(t *testing.T, base string, inputs []string) []string {
	t.Helper()
	var out []string
	found := false
	tmp := t.TempDir()
	for _, in := range inputs {
		var folders []string
		filepath.WalkDir(filepath.Join(base, in), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && collectFolder.MatchString(d.Name()) {
				folders = append(folders, p)
				return filepath.SkipDir
			}
			return nil
		})
		if len(folders) == 0 {
			out = append(out, in)
			continue
		}
		found = true
		for _, f := range folders {
			m := collectFolder.FindStringSubmatch(filepath.Base(f))
			zipPath := filepath.Join(tmp, "collectinfo-"+m[2]+"-"+m[1]+".zip")
			writeZip(t, zipPath, f)
			out = append(out, zipPath)
		}
	}
	if !found {
		return nil
	}
	return out
}

func writeZip(t *testing.T, zipPath, folder string) {
	t.Helper()
	f, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	parent := filepath.Dir(folder)
	err = filepath.WalkDir(folder, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(parent, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

var pathPrefix = regexp.MustCompile(`"source": "[^"]*?(cbcollect_info_)`)

// normalisePaths drops what precedes the cbcollect_info folder in evidence
// paths, which differs between a folder and a zip of it.
func normalisePaths(s string) string { return pathPrefix.ReplaceAllString(s, `"source": "$1`) }
