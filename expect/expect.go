// Package expect checks findings against a case's expect.json: the
// findings an incident must produce and the rules that must stay silent.
// `forensics test` runs a library of such cases as a regression suite.
package expect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"forensics"
)

// File is the name of the expectations file in a case folder.
const File = "expect.json"

// Case is one incident: a folder with its evidence and expect.json.
type Case struct {
	Dir  string `json:"-"`
	Name string `json:"-"`
	// Description says what the case is, for the people who maintain it.
	Description string `json:"description,omitempty"`
	// Inputs are the paths to analyze, relative to the case folder; by
	// default every entry of the folder except expect.json and golden files.
	Inputs []string `json:"inputs,omitempty"`
	// Findings must each match one finding.
	Findings []Finding `json:"findings"`
	// Absent rules must produce no finding.
	Absent []string `json:"absent,omitempty"`
	// Others allows findings that no expectation names; by default every
	// finding must be expected.
	Others bool `json:"others,omitempty"`
}

// Finding is an expected finding. Severity and each subject field are
// compared only when set.
type Finding struct {
	Rule     string          `json:"rule"`
	Severity string          `json:"severity,omitempty"`
	Subject  json.RawMessage `json:"subject,omitempty"`
}

// Load reads the case in dir.
func Load(dir string) (*Case, error) {
	data, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return nil, err
	}
	c := &Case{Dir: dir, Name: filepath.Base(dir)}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, File), err)
	}
	for i, f := range c.Findings {
		if f.Rule == "" {
			return nil, fmt.Errorf("%s: findings[%d] has no rule", filepath.Join(dir, File), i)
		}
	}
	return c, nil
}

// Find returns the case folders under the given roots: every folder that
// holds an expect.json, sorted.
func Find(roots ...string) ([]string, error) {
	var dirs []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == File {
				dirs = append(dirs, filepath.Dir(p))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// InputPaths returns the paths to analyze, joined to the case folder.
func (c *Case) InputPaths() ([]string, error) {
	names := c.Inputs
	if len(names) == 0 {
		entries, err := os.ReadDir(c.Dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			n := e.Name()
			if n == File || strings.HasPrefix(n, "want.") || strings.HasPrefix(n, ".") {
				continue
			}
			names = append(names, n)
		}
	}
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(c.Dir, n))
	}
	return out, nil
}

// Check compares findings with the case's expectations and returns one
// line per mismatch; none means the case passed.
func (c *Case) Check(got []forensics.Finding) []string {
	var problems []string
	used := make([]bool, len(got))
	for _, want := range c.Findings {
		match := -1
		var near []string
		for i, f := range got {
			if used[i] || f.Rule != want.Rule {
				continue
			}
			if why := mismatch(want, f); why != "" {
				near = append(near, why)
				continue
			}
			match = i
			break
		}
		if match < 0 {
			msg := fmt.Sprintf("missing finding: %s", describe(want))
			if len(near) > 0 {
				msg += " (closest: " + strings.Join(near, "; ") + ")"
			}
			problems = append(problems, msg)
			continue
		}
		used[match] = true
	}
	for _, r := range c.Absent {
		for _, f := range got {
			if f.Rule == r {
				problems = append(problems, fmt.Sprintf("rule %s must not fire, but found: %s", r, f.Title))
			}
		}
	}
	if !c.Others {
		for i, f := range got {
			if !used[i] && !contains(c.Absent, f.Rule) {
				problems = append(problems, fmt.Sprintf("unexpected finding: %s %s %s", f.Rule, f.Severity, subjectJSON(f.Subject)))
			}
		}
	}
	return problems
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func describe(w Finding) string {
	s := w.Rule
	if w.Severity != "" {
		s += " " + w.Severity
	}
	if len(w.Subject) > 0 {
		s += " " + string(w.Subject)
	}
	return s
}

func subjectJSON(s forensics.FindingSubject) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// mismatch says how f differs from w, or "" when it matches.
func mismatch(w Finding, f forensics.Finding) string {
	if w.Severity != "" && w.Severity != f.Severity.String() {
		return fmt.Sprintf("severity %s, want %s", f.Severity, w.Severity)
	}
	if len(w.Subject) == 0 {
		return ""
	}
	var want map[string]any
	if err := json.Unmarshal(w.Subject, &want); err != nil {
		return "expect.json subject is not an object: " + err.Error()
	}
	var have map[string]any
	b, _ := json.Marshal(f.Subject)
	json.Unmarshal(b, &have)
	var diffs []string
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !reflect.DeepEqual(want[k], have[k]) {
			hb, _ := json.Marshal(have[k])
			wb, _ := json.Marshal(want[k])
			diffs = append(diffs, fmt.Sprintf("%s %s, want %s", k, hb, wb))
		}
	}
	return strings.Join(diffs, ", ")
}

// RuleFile returns the rule file a case is beside, when it is one of a
// rule file's cases (RULE.yaml next to the folder RULE/ that holds the
// case, or a folder of cases in it), or "". Such a case needs that rule,
// and the format files beside it, to be analysed.
func RuleFile(dir string) string {
	d := filepath.Clean(dir)
	for range 3 {
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		for _, ext := range []string{".yaml", ".yml"} {
			if fi, err := os.Stat(d + ext); err == nil && fi.Mode().IsRegular() {
				return d + ext
			}
		}
		d = parent
	}
	return ""
}
