package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"

	"forensics"
	"forensics/rules/rulefile"
	"forensics/yamldoc"
)

// Set is the rules in use: the built-in ones and the user's rule files,
// with where each came from. A file that does not load is left out with
// its errors kept, and the other rules run.
type Set struct {
	Rules  []*forensics.Rule
	Errors []error
	origin map[*forensics.Rule]string
	digest string
}

// Origins of the built-in rules, as `rules list` shows them.
const (
	OriginGo = "built-in"
)

// Default is the built-in rules alone.
func Default() *Set {
	s := &Set{Rules: slices.Clone(All()), origin: map[*forensics.Rule]string{}}
	for _, f := range Builtin.Files() {
		s.origin[f.Rule] = "built-in " + f.Path
	}
	return s
}

// Origin says where a rule came from: "built-in" for a Go rule, "built-in
// rules/…/NAME.yaml" for a built-in rule file, else the path of the user's
// rule file.
func (s *Set) Origin(r *forensics.Rule) string {
	if o, ok := s.origin[r]; ok {
		return o
	}
	return OriginGo
}

// Lookup returns the rule with the given name.
func (s *Set) Lookup(name string) (*forensics.Rule, bool) {
	for _, r := range s.Rules {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// ID names the content of the user's rule files, so that findings are
// worked out again when one changes; "" when there are none.
func (s *Set) ID() string { return s.digest }

// Load returns the built-in rules and the rules of the files directly in
// each of dirs (NAME.yaml; folders below are the rules' test cases; format
// files there are the formats loader's), read
// in order and checked against vocab. A user's rule may not take the name
// of a built-in one unless its file says replaces: true, and then takes
// its place; two of the user's files may not name the same rule.
func Load(dirs []string, vocab rulefile.Vocabulary) *Set {
	s := Default()
	h := sha256.New()
	files, errs := yamldoc.ReadDirs(dirs)
	files = yamldoc.Only(files, "format")
	s.Errors = append(s.Errors, errs...)
	user := map[string]string{}
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00", f.Path, len(f.Data))
		h.Write(f.Data)
		rf, err := rulefile.Parse(f.Path, f.Data, vocab)
		if err != nil {
			s.Errors = append(s.Errors, err)
			continue
		}
		name := rf.Rule.Name
		if prev, ok := user[name]; ok {
			s.Errors = append(s.Errors, fmt.Errorf("%s: the rule %s is defined already by %s", f.Path, name, prev))
			continue
		}
		user[name] = f.Path
		if i := slices.IndexFunc(s.Rules, func(r *forensics.Rule) bool { return r.Name == name }); i >= 0 {
			if !rf.Replaces {
				s.Errors = append(s.Errors, fmt.Errorf("%s: %s is the name of a built-in rule; name yours otherwise, or say replaces: true to run it instead of the built-in one", f.Path, name))
				continue
			}
			s.Rules[i] = rf.Rule
		} else {
			s.Rules = append(s.Rules, rf.Rule)
		}
		s.origin[rf.Rule] = f.Path
	}
	if len(files) > 0 {
		s.digest = hex.EncodeToString(h.Sum(nil))[:16]
	}
	return s
}

// SplitPath splits a list of folders as PATH is written
// (FORENSICS_RULES_PATH), leaving out empty entries.
func SplitPath(list string) []string {
	var out []string
	for _, d := range filepath.SplitList(list) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
