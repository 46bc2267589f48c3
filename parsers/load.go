package parsers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"forensics"
	"forensics/parsers/formatfile"
	"forensics/yamldoc"
)

// KindsOf returns every event kind the formats emit, with its meaning. A
// kind's Component, when its doc leaves it out, is that of the format that
// declares it.
func KindsOf(formats []forensics.Format) []forensics.KindDoc {
	var out []forensics.KindDoc
	seen := map[forensics.Kind]bool{}
	for _, f := range formats {
		for _, k := range f.Kinds {
			if !seen[k.Kind] {
				seen[k.Kind] = true
				if k.Component == "" {
					k.Component = f.Component
				}
				out = append(out, k)
			}
		}
	}
	return out
}

// Load returns the built-in formats and those of the format files directly
// in each of dirs (NAME.yaml; rule files there are the rules loader's),
// with an id of the files' content (so that
// findings are worked out again when one changes) and the problems of the
// files that did not load; the others are used. A format file may not take
// the name of another format.
func Load(dirs []string) ([]forensics.Format, string, []error) {
	files, errs := yamldoc.ReadDirs(dirs)
	formats, id, more := LoadFiles(yamldoc.Only(files, "rule"))
	return formats, id, append(errs, more...)
}

// LoadFiles is Load of format files already read.
func LoadFiles(files []yamldoc.File) ([]forensics.Format, string, []error) {
	formats := slices.Clone(All)
	known := Kinds()
	h := sha256.New()
	var errs []error
	for _, file := range files {
		fmt.Fprintf(h, "%s\x00%d\x00", file.Path, len(file.Data))
		h.Write(file.Data)
		f, err := formatfile.Parse(file.Path, file.Data, known)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if slices.ContainsFunc(formats, func(o forensics.Format) bool { return o.Name == f.Format.Name }) {
			errs = append(errs, fmt.Errorf("%s: a format is named %s already", file.Path, f.Format.Name))
			continue
		}
		formats = append(formats, f.Format)
		known = append(known, f.Format.Kinds...)
	}
	id := ""
	if len(files) > 0 {
		id = hex.EncodeToString(h.Sum(nil))[:16]
	}
	return formats, id, errs
}
