// Package extract writes the minimal evidence of a finding: the lines that
// still reproduce it, in the original file names, layout and grammar, as a
// case folder that `forensics test` runs (with its expect.json), to attach
// to an upstream ticket instead of a whole bundle.
package extract

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"forensics"
	"forensics/expect"
	"forensics/store"
)

// Margin is how far around a finding's window the events its rule reads are
// kept: rules look a little before the first signal (a restart joins the
// lines around it) and after the last (a failover, a second rollback).
const Margin = 10 * time.Minute

// wholeFormats are copied whole: documents whose grammar spans lines (a
// Vitess topology JSON, a statement trace, a saved /debug/requests page),
// which a selection of lines would break; and couchbase.log, whose kernel
// lines are placed on the timeline by its date and uptime sections.
var wholeFormats = map[string]bool{"vitess-topo": true, "crdb-trace": true, "crdb-requests": true, "couchbase-log": true}

// headLines are kept at the top of every file: headers that name the format
// and the release (a cockroach log's "file created at", memcached's banner).
const headLines = 5

// File is one file of an extract.
type File struct {
	Path  string `json:"path"`  // relative to the extract's folder
	From  string `json:"from"`  // the source it was taken from
	Lines int    `json:"lines"` // lines written
	Of    int64  `json:"of"`    // lines in the source
}

// Result says what an extract holds.
type Result struct {
	Dir   string `json:"dir"`
	Files []File `json:"files"`
}

// Write writes the extract of finding f (of rule r) into dir, which must be
// empty or absent: the evidence lines, the lines of the events r reads in
// the window widened by Margin, the first lines of each file, documents
// whole, and expect.json naming the finding.
//
// With red, every line, path and the expect.json are redacted.
func Write(ctx context.Context, db store.Reader, f store.StoredFinding, r *forensics.Rule, dir string, red *Redactor) (*Result, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("extract into %s: the folder is not empty", dir)
	}
	srcs, err := db.Sources(ctx, f.Run)
	if err != nil {
		return nil, err
	}
	keep := map[string]map[int64]bool{}
	mark := func(src string, line int64) {
		if keep[src] == nil {
			keep[src] = map[int64]bool{}
		}
		keep[src][line] = true
	}
	for _, e := range f.Evidence {
		mark(e.Path, e.Line)
	}
	q := store.EventFilter{Run: f.Run}
	q.Kinds = r.Kinds
	q.Since, q.Until = f.Start.Add(-Margin), f.End.Add(Margin)
	for e, err := range db.Events(ctx, q) {
		if err != nil {
			return nil, err
		}
		mark(e.Path, e.Line)
	}
	byPath := map[string]forensics.Source{}
	for _, s := range srcs {
		byPath[s.Path] = s
	}
	var paths []string
	for p := range keep {
		if _, ok := byPath[p]; ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("finding %s: none of its evidence is in the timeline's sources", f.ID)
	}
	rels := relPaths(paths)
	kept := make([][]line, len(paths))
	for i, p := range paths {
		if kept[i], err = readSource(ctx, db, f.Run, byPath[p], keep[p]); err != nil {
			return nil, err
		}
	}
	if red != nil {
		// Every name the extract will hold is learned before anything is
		// written, in the order of the files, so pseudonyms are numbered
		// the same way each time.
		for i, p := range paths {
			red.Learn(rels[p])
			red.Learn(p)
			text := make([]string, len(kept[i]))
			for j, l := range kept[i] {
				text[j] = l.text
			}
			red.Learn(strings.Join(text, "\n")) // whole: a name's context may span lines
		}
		for _, p := range paths {
			rels[p] = red.Text(rels[p])
		}
	}
	res := &Result{Dir: dir}
	for i, p := range paths {
		src := byPath[p]
		file, err := writeSource(src, kept[i], filepath.Join(dir, filepath.FromSlash(rels[p])), red)
		if err != nil {
			return nil, err
		}
		file.Path = rels[p]
		res.Files = append(res.Files, file)
	}
	if err := writeExpect(dir, f, red); err != nil {
		return nil, err
	}
	return res, nil
}

// line is a line of a source the extract keeps.
type line struct {
	n    int64
	text string
}

// readSource reads the lines of a source the extract keeps, in file order.
func readSource(ctx context.Context, db store.Reader, run int64, src forensics.Source, keep map[int64]bool) ([]line, error) {
	whole := wholeFormats[src.Format]
	// Lines come merged in time order; a file is written in its own order.
	var lines []line
	for l, err := range db.Lines(ctx, store.LineFilter{Run: run, Paths: []string{src.Path}}) {
		if err != nil {
			return nil, err
		}
		if l.Path != src.Path {
			continue // another file whose path contains this one
		}
		if whole || l.N <= headLines || keep[l.N] {
			lines = append(lines, line{l.N, l.Text})
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].n < lines[j].n })
	return lines, nil
}

// writeSource writes the kept lines of one source.
func writeSource(src forensics.Source, lines []line, out string, red *Redactor) (File, error) {
	file := File{From: src.Path, Of: src.Lines}
	if red != nil {
		file.From = red.Text(src.Path)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return file, err
	}
	fh, err := os.Create(out)
	if err != nil {
		return file, err
	}
	w := bufio.NewWriter(fh)
	for _, l := range lines {
		if red != nil {
			l.text = red.Text(l.text)
		}
		w.WriteString(l.text)
		w.WriteByte('\n')
	}
	file.Lines = len(lines)
	if err := w.Flush(); err != nil {
		fh.Close()
		return file, err
	}
	return file, fh.Close()
}

// relPaths lays the files out as the evidence was: an archive's members
// under a folder named after the archive (collectinfo-….zip!cbcollect_info_…/
// memcached.log becomes collectinfo-…/cbcollect_info_…/memcached.log), so
// the node folders that name the nodes stay; files on disk relative to the
// folder they share.
func relPaths(paths []string) map[string]string {
	out := map[string]string{}
	var plain []string
	for _, p := range paths {
		parts := strings.Split(filepath.ToSlash(p), "!")
		if len(parts) == 1 {
			plain = append(plain, p)
			continue
		}
		segs := []string{stripArchive(path.Base(parts[0]))}
		for _, m := range parts[1 : len(parts)-1] {
			segs = append(segs, stripArchive(m))
		}
		segs = append(segs, parts[len(parts)-1])
		out[p] = safe(path.Join(segs...))
	}
	if len(plain) > 0 {
		common := filepath.Dir(plain[0])
		for _, p := range plain[1:] {
			for !strings.HasPrefix(p, common+string(filepath.Separator)) && common != filepath.Dir(common) {
				common = filepath.Dir(common)
			}
		}
		for _, p := range plain {
			rel, err := filepath.Rel(common, p)
			if err != nil {
				rel = filepath.Base(p)
			}
			if len(plain) == 1 {
				rel = filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
			}
			out[p] = safe(filepath.ToSlash(rel))
		}
	}
	// Two sources may come to the same name (their names differed only in
	// what safe replaced), and none may be the case's expect.json.
	taken := map[string]bool{"expect.json": true}
	sorted := make([]string, 0, len(out))
	for p := range out {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, p := range sorted {
		rel := out[p]
		for n := 2; taken[rel]; n++ {
			rel = fmt.Sprintf("copy%d/%s", n, out[p])
		}
		taken[rel] = true
		out[p] = rel
	}
	return out
}

func stripArchive(name string) string {
	for _, ext := range []string{".zip", ".tar.gz", ".tgz", ".tar", ".gz"} {
		if strings.HasSuffix(name, ext) {
			return strings.TrimSuffix(name, ext)
		}
	}
	return name
}

// safe keeps a member path inside the extract, and makes it a name that
// writes nothing to a terminal that lists it: no absolute paths, no "..",
// and no control character (ESC, a line break, a carriage return),
// invalid UTF-8, bidirectional or invisible character, which a zip's
// member names may hold; each becomes "_". A path with nothing left is
// "unnamed", never the folder itself.
func safe(p string) string {
	var out []string
	for _, seg := range strings.Split(path.Clean("/"+p), "/") {
		seg = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
				return '_'
			}
			return r
		}, strings.ToValidUTF8(seg, "\uFFFD"))
		if seg != "" && seg != "." && seg != ".." {
			out = append(out, seg)
		}
	}
	if len(out) == 0 {
		return "unnamed"
	}
	return strings.Join(out, "/")
}

// writeExpect writes the case's expect.json: the finding's rule, severity
// and subject, which the extract must reproduce.
func writeExpect(dir string, f store.StoredFinding, red *Redactor) error {
	subject, err := json.Marshal(f.Subject)
	if err != nil {
		return err
	}
	desc := fmt.Sprintf("Extract of finding %s (%s): %s", f.ID, f.Rule, f.Title)
	if red != nil {
		// The rule lists tables in name order: in the pseudonyms' order
		// once they are renamed.
		var s forensics.FindingSubject
		if err := json.Unmarshal([]byte(red.Text(string(subject))), &s); err != nil {
			return err
		}
		sort.Strings(s.Tables)
		if subject, err = json.Marshal(s); err != nil {
			return err
		}
		desc = red.Text(fmt.Sprintf("Redacted extract of a %s finding: %s", f.Rule, f.Title))
	}
	c := expect.Case{
		Description: desc,
		Findings:    []expect.Finding{{Rule: f.Rule, Severity: f.Severity.String(), Subject: subject}},
		Others:      true,
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, expect.File), append(data, '\n'), 0o644)
}

// Analyze runs an analysis of inputs into a new timeline at dbPath and
// returns its findings; the command gives it the formats and rules to use.
type Analyze func(ctx context.Context, dbPath string, inputs []string) ([]forensics.Finding, error)

// Reproduce checks that the extract in dir is a case: analyzed on its own,
// in a scratch timeline, it finds finding id again as its expect.json says.
func Reproduce(ctx context.Context, dir, id string, analyze Analyze) error {
	c, err := expect.Load(dir)
	if err != nil {
		return err
	}
	inputs, err := c.InputPaths()
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "forensics-extract-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	got, err := analyze(ctx, filepath.Join(scratch, "check.db"), inputs)
	if err != nil {
		return fmt.Errorf("check the extract: %w", err)
	}
	if problems := c.Check(got); len(problems) > 0 {
		return fmt.Errorf("the extract does not reproduce finding %s:\n  %s", id, strings.Join(problems, "\n  "))
	}
	return nil
}
