package yamldoc

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Exts are the extensions of rule and format files.
var Exts = []string{".yaml", ".yml"}

// File is a file read from a folder of rule or format files.
type File struct {
	Path string
	Data []byte
}

// ReadDirs reads the files with a YAML extension directly in each folder
// (folders below them are left alone: a rule's test cases live there), in
// name order. A file is read no further than one byte past MaxSize, so a
// larger one is refused by Parse unread.
func ReadDirs(dirs []string) ([]File, []error) {
	var out []File
	var errs []error
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !slices.Contains(Exts, strings.ToLower(filepath.Ext(e.Name()))) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			data, err := readHead(p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, File{Path: p, Data: data})
		}
	}
	return out, errs
}

func readHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxSize+1))
}

// Declares reports whether a file's document is a mapping with the given
// top-level field: rule files have rule:, format files format:, so one
// folder can hold both.
func Declares(data []byte, field string) bool {
	doc, err := Parse("", data)
	return err == nil && doc.Root.IsMap() && doc.Root.Map().Has(field)
}

// Only keeps the files that are not of the other kind (other is the field
// that makes a file the other kind): a folder of rule and format files is
// read by both loaders, each taking its own.
func Only(files []File, other string) []File {
	var out []File
	for _, f := range files {
		if !Declares(f.Data, other) {
			out = append(out, f)
		}
	}
	return out
}
