package parsers

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"forensics"
)

// Format names are stored with each source, so each names one format.
func TestFormatsAreWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, f := range All {
		if f.Name == "" || f.Component == "" || f.Detect == nil || f.New == nil {
			t.Errorf("format %q: name, component, Detect and New are required (component %q)", f.Name, f.Component)
			continue
		}
		if names[f.Name] {
			t.Errorf("two formats are named %s", f.Name)
		}
		names[f.Name] = true
	}
}

// Detection picks the surest format, so every answer is on one scale, 0 to
// 100, whatever the name and head: here the bundled incidents' files.
func TestDetectIsAPercentage(t *testing.T) {
	type sample struct {
		name string
		head []byte
	}
	samples := []sample{{"", nil}, {"memcached.log", nil}, {"x.gz", []byte("\x1f\x8b\x00\xff\n")}}
	err := filepath.WalkDir("../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		head, err := io.ReadAll(io.LimitReader(f, 16<<10))
		samples = append(samples, sample{d.Name(), head})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	claimed := 0
	for _, s := range samples {
		best := 0
		for _, f := range All {
			n := f.Detect(s.name, s.head)
			if n < 0 || n > 100 {
				t.Errorf("%s: Detect(%q) = %d", f.Name, s.name, n)
			}
			best = max(best, n)
		}
		if best > 0 {
			claimed++
		}
	}
	if claimed < 100 {
		t.Errorf("only %d of %d files in testdata were claimed by a format", claimed, len(samples))
	}
}

var kindName = regexp.MustCompile(`^[a-z]+\.[a-z0-9_]+$`)

// Every kind a parser declares says what it means, how a timeline draws
// it, and in which lane; a format that shares a kind with another (the
// Vitess logs, ns_server's four) shares its meaning too.
func TestKindsAreDocumented(t *testing.T) {
	byKind := map[forensics.Kind]forensics.KindDoc{}
	from := map[forensics.Kind]string{}
	for _, f := range All {
		for _, k := range f.Kinds {
			if !kindName.MatchString(string(k.Kind)) {
				t.Errorf("%s: kind %q is not <component>.<what>", f.Name, k.Kind)
			}
			if k.Doc == "" || k.Label == "" {
				t.Errorf("%s: kind %s has no doc or no label", f.Name, k.Kind)
			}
			if !slices.Contains(forensics.Categories, k.Category) {
				t.Errorf("%s: kind %s has category %q, not one of %v", f.Name, k.Kind, k.Category, forensics.Categories)
			}
			if k.Component == "" {
				k.Component = f.Component
			}
			if prev, ok := byKind[k.Kind]; ok && !reflect.DeepEqual(prev, k) {
				t.Errorf("kind %s means one thing in %s and another in %s:\n%+v\n%+v", k.Kind, from[k.Kind], f.Name, prev, k)
			}
			byKind[k.Kind], from[k.Kind] = k, f.Name
		}
	}
	kinds := Kinds()
	if len(kinds) != len(byKind) {
		t.Errorf("Kinds() lists %d kinds, the formats declare %d", len(kinds), len(byKind))
	}
	for _, k := range kinds {
		if !reflect.DeepEqual(k, byKind[k.Kind]) {
			t.Errorf("Kinds() gives %+v for %s, its formats %+v", k, k.Kind, byKind[k.Kind])
		}
	}
}
