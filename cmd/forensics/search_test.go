package main

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"forensics/store"
	"forensics/store/backends"
	"forensics/store/postgres/pgtest"
)

// searchAgreesWithScan checks, on a timeline analyze wrote, that searches
// through the index of blocks give exactly the lines a scan of every line
// gives, in the same order: literal strings taken from the timeline's own
// lines (in their case and in another), regular expressions built from
// them, strings no line holds, each alone or with a node or a window.
// The queries are random, from a seed of the test's name: a failure
// repeats.
func searchAgreesWithScan(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	db, err := backends.OpenReader(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var all []store.Line
	for l, err := range db.Lines(ctx, store.LineFilter{NoKinds: true}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, *l)
	}
	if len(all) == 0 {
		return
	}
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	rng := rand.New(rand.NewPCG(h.Sum64(), 40))
	var nodes []string
	for _, l := range all {
		if !slices.Contains(nodes, l.Node) {
			nodes = append(nodes, l.Node)
		}
	}

	for i := range 32 {
		line := all[rng.IntN(len(all))].Text
		var f store.LineFilter
		switch i % 8 {
		case 0: // a literal in its own case
			f.Text = substring(rng, line, 3, 24)
		case 1: // in another case
			f.Text, f.Fold = flipCase(rng, substring(rng, line, 3, 24)), true
		case 2: // two literals of a line, anything between them
			a, b := substring(rng, line, 3, 12), substring(rng, line, 3, 12)
			f.Regexp = regexp.MustCompile(regexp.QuoteMeta(a) + ".*" + regexp.QuoteMeta(b))
		case 3: // numbers generalised, in either case
			s := regexp.QuoteMeta(substring(rng, line, 6, 32))
			f.Regexp = regexp.MustCompile("(?i)" + regexp.MustCompile(`[0-9]+`).ReplaceAllString(s, `[0-9]+`))
		case 4: // a string no line is likely to hold: the index rules out nearly every block
			f.Text = fmt.Sprintf("%016x", rng.Uint64())
		case 5: // one of two strings
			a, b := substring(rng, line, 4, 16), substring(rng, all[rng.IntN(len(all))].Text, 4, 16)
			f.Regexp = regexp.MustCompile(regexp.QuoteMeta(a) + "|" + regexp.QuoteMeta(b))
		case 6: // the start or the end of a line, anchored
			if n := len(line); n > 0 && rng.IntN(2) == 0 {
				f.Regexp = regexp.MustCompile("^" + shapeOf(line[:min(n, 2+rng.IntN(10))]))
			} else if n > 0 {
				f.Regexp = regexp.MustCompile(shapeOf(line[max(0, n-2-rng.IntN(10)):]) + "$")
			}
		case 7: // the shape of a piece of a line, no string in it: every block is read
			if s := substring(rng, line, 4, 16); s != "" {
				f.Regexp = regexp.MustCompile(shapeOf(s))
			}
		}
		if f.Text == "" && f.Regexp == nil {
			continue // a line too short to take a string from
		}
		switch rng.IntN(5) {
		case 0, 1:
			f.Nodes = []string{nodes[rng.IntN(len(nodes))]}
		case 2:
			at := all[rng.IntN(len(all))].Time
			f.Since, f.Until = at.Add(-time.Duration(rng.IntN(600))*time.Second), at.Add(time.Duration(rng.IntN(600))*time.Second)
		}
		got, res := searched(t, db, store.Search{LineFilter: f})
		want := scanned(t, db, f, all)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the search gives %d lines, a scan %d; first difference at %d\nsearch: %q\nscan:   %q",
				describe(f), len(got), len(want), firstDifference(got, want), at(got, firstDifference(got, want)), at(want, firstDifference(got, want)))
			continue
		}
		if res.Stats.Lines != len(got) || res.Stats.Chosen > res.Stats.Blocks || res.Stats.Read > res.Stats.Chosen {
			t.Errorf("%s: %d lines, stats %+v", describe(f), len(got), res.Stats)
		}
		if i%8 == 4 && len(got) == 0 && res.Stats.Unindexed == 0 && (!res.Stats.Indexed || res.Stats.Chosen > res.Stats.Blocks/4+1) {
			t.Errorf("%s: no line holds it, and the index kept %d of %d blocks (%+v)", describe(f), res.Stats.Chosen, res.Stats.Blocks, res.Stats)
		}
		// Page by page, the same lines.
		if i%12 == 0 && len(want) > 1 {
			limit := max(1+rng.IntN(len(want)), len(want)/5) // a few pages
			var paged []string
			after := ""
			for range len(want) + 1 {
				page, res := searched(t, db, store.Search{LineFilter: f, After: after, Limit: limit})
				paged = append(paged, page...)
				if after = res.Next; after == "" {
					break
				}
			}
			if !slices.Equal(paged, want) {
				t.Errorf("%s, %d a page: %d lines, want %d", describe(f), limit, len(paged), len(want))
			}
		}
	}
}

// searched returns the lines a search gives, as node, path:line and text.
func searched(t *testing.T, db store.Reader, s store.Search) ([]string, store.SearchResult) {
	t.Helper()
	var out []string
	res, err := db.Search(context.Background(), s, func(l *store.Line) bool {
		out = append(out, lineKey(l))
		return true
	})
	if err != nil {
		t.Fatalf("%s: %v", describe(s.LineFilter), err)
	}
	return out, res
}

// scanned returns the lines of the filter's nodes and window that match
// its text and regular expression, matched here: of all, the timeline's
// every line, or in a window (whose lines are in time order) of a scan of
// the window.
func scanned(t *testing.T, db store.Reader, f store.LineFilter, all []store.Line) []string {
	t.Helper()
	match := f.Regexp
	if f.Text != "" {
		q := regexp.QuoteMeta(f.Text)
		if f.Fold {
			q = "(?i)" + q
		}
		match = regexp.MustCompile(q)
	}
	var out []string
	if f.Since.IsZero() {
		for i := range all {
			if l := &all[i]; (len(f.Nodes) == 0 || slices.Contains(f.Nodes, l.Node)) && match.MatchString(l.Text) {
				out = append(out, lineKey(l))
			}
		}
		return out
	}
	f.Text, f.Fold, f.Regexp = "", false, nil
	for l, err := range db.Lines(context.Background(), f) {
		if err != nil {
			t.Fatal(err)
		}
		if match.MatchString(l.Text) {
			out = append(out, lineKey(l))
		}
	}
	return out
}

func lineKey(l *store.Line) string {
	return fmt.Sprintf("%s %s:%d %s", l.Node, l.Path, l.N, l.Text)
}

func describe(f store.LineFilter) string {
	s := fmt.Sprintf("--grep %q", f.Text)
	if f.Regexp != nil {
		s = fmt.Sprintf("--regex %q", f.Regexp)
	}
	if f.Fold {
		s += " -i"
	}
	if len(f.Nodes) > 0 {
		s += " --node " + f.Nodes[0]
	}
	if !f.Since.IsZero() {
		s += fmt.Sprintf(" --since %s --until %s", f.Since.Format(time.RFC3339Nano), f.Until.Format(time.RFC3339Nano))
	}
	return s
}

// shapeOf returns a regexp of the shape of s: a class for each letter and
// digit (either case, at times), other characters as they are.
func shapeOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteString(`\d`)
		case r >= 'a' && r <= 'f', r >= 'A' && r <= 'F':
			b.WriteString(`[0-9a-fA-F]`)
		case unicode.IsLetter(r):
			b.WriteString(`(?i:\pL)`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return b.String()
}

// substring returns a piece of s of min to max bytes, whole runes, or ""
// when s is shorter.
func substring(rng *rand.Rand, s string, lo, hi int) string {
	if len(s) < lo {
		return ""
	}
	n := lo + rng.IntN(min(hi, len(s))-lo+1)
	i := rng.IntN(len(s) - n + 1)
	for i > 0 && !utf8Start(s[i]) {
		i--
	}
	j := i + n
	for j < len(s) && !utf8Start(s[j]) {
		j++
	}
	return s[i:j]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// flipCase changes the case of about half the letters of s.
func flipCase(rng *rand.Rand, s string) string {
	return strings.Map(func(r rune) rune {
		if rng.IntN(2) == 0 {
			return r
		}
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// A timeline written before the index of blocks still searches, by reading
// every block, and --verbose says so; timeline reindex adds the index, and
// the same search then gives the same lines from the blocks it keeps.
func TestReindex(t *testing.T) {
	db := t.TempDir() + "/timeline.db"
	analyzeJSON(t, db, "../../testdata/couchbase/seed")
	old, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"block_grams", "gram_parts", "gram_segments"} {
		if _, err := old.Exec("DROP TABLE " + table); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	query := []string{"timeline", "query", "--db", db, "--grep", "Stream request requires rollback", "-v", "--format", "raw"}
	code, before, stderr := runCmd(t, query...)
	if code != exitOK || strings.Count(before, "\n") != 12 || !strings.Contains(stderr, "no index of its blocks") || !strings.Contains(stderr, "timeline reindex") {
		t.Fatalf("before reindex: exit %d, %d lines\n%s", code, strings.Count(before, "\n"), stderr)
	}
	code, _, stderr = runCmd(t, "timeline", "reindex", "--db", db)
	if code != exitOK || !regexp.MustCompile(`^Indexed (\d+) blocks of lines of (\d+) \(`).MatchString(stderr) {
		t.Fatalf("reindex: exit %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`^Indexed (\d+) blocks of lines of (\d+) `).FindStringSubmatch(stderr)
	if m[1] != m[2] {
		t.Errorf("reindex indexed %s of %s blocks", m[1], m[2])
	}
	code, after, stderr := runCmd(t, query...)
	if code != exitOK || after != before || !regexp.MustCompile(`the index of blocks kept \d+ of the \d+ blocks`).MatchString(stderr) {
		t.Fatalf("after reindex: exit %d, same lines %v\n%s", code, after == before, stderr)
	}
	searchAgreesWithScan(t, db)
	if code, _, stderr = runCmd(t, "timeline", "reindex", "--db", db); code != exitOK || !strings.Contains(stderr, "indexed already") {
		t.Errorf("reindex again: exit %d\n%s", code, stderr)
	}
}

// A regular expression with no string every match holds reads every block,
// and --verbose says why.
func TestSearchScanSaysWhy(t *testing.T) {
	db := t.TempDir() + "/timeline.db"
	analyzeJSON(t, db, "../../testdata/couchbase/seed")
	code, out, stderr := runCmd(t, "timeline", "query", "--db", db, "--regex", `[0-9a-f]{32}`, "-v", "--limit", "3")
	if code != exitOK || strings.Count(out, "\n") != 3 || !strings.Contains(stderr, "no block is ruled out") {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = runCmd(t, "timeline", "query", "--db", db, "--grep", "no line holds this", "-v")
	if code != exitOK || !strings.Contains(stderr, "the index of blocks kept 0 of the") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}

// fleet grep searches each incident of a shared store through its index of
// blocks, in either case with -i, and -v says how.
func TestFleetGrepIndexed(t *testing.T) {
	check := func(t *testing.T, store string) {
		runOK(t, "analyze", "--store", store, "-q", "../../testdata/couchbase/seed")
		code, out, stderr := runCmd(t, "fleet", "grep", "--store", store, "-i", "-v", "stream request REQUIRES rollback")
		if code != exitOK || strings.Count(out, "\n") != 12 || !regexp.MustCompile(`the index of blocks kept [1-9]\d* of the \d+ blocks`).MatchString(stderr) {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		searchAgreesWithScan(t, store)
	}
	t.Run("sqlite", func(t *testing.T) { check(t, filepath.Join(t.TempDir(), "t.db")) })
	onEngines(t, func(t *testing.T, eng pgtest.Engine) { check(t, eng.Database(t)) })
}
