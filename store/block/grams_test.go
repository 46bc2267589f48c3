package block

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"

	"forensics/store"
	"forensics/store/search"
)

// sketchOf builds a block of lines and returns its sketch.
func sketchOf(lines []string) Sketch {
	b := NewBuilder()
	b.Index()
	defer b.Release()
	for i, l := range lines {
		b.Add(int64(i+1), int64(i), 0, store.LineFlags{}, []byte(l), 0)
	}
	return b.Finish().Sketch
}

// indexOf stores a segment of one block with the given sketch and returns
// its parts as a search reads them.
func indexOf(t testing.TB, sk Sketch) map[int][]byte {
	seg := NewSegment()
	seg.Add(sk)
	stored := map[int][]byte{}
	seg.Parts(func(p int, data []byte) error {
		stored[p] = append([]byte(nil), data...)
		return nil
	})
	return stored
}

// kept reports whether the index keeps the block of parts for a search.
func kept(t testing.TB, parts map[int][]byte, text string, re *regexp.Regexp) bool {
	g := NewGrams(search.Plan(text, false, re), GramsVersion)
	if g == nil {
		return true
	}
	m, err := g.Match(1, parts)
	if err != nil {
		t.Fatal(err)
	}
	return m != 0
}

// TestGramsRuleOut checks that the index keeps a block holding a match and
// rules out one that holds none of the strings a search needs.
func TestGramsRuleOut(t *testing.T) {
	lines := []string{
		"2022-07-21T08:04:56.231376-07:00 WARNING 284: Invalid password specified for [<ud>app_user</ud>]. UUID:[a9e4b52d-58c3-f287-ed19-3ad35c5152aa]",
		"2022-07-21T08:04:56.231399-07:00 INFO 223: (default) DCP (Producer) eq_dcpq:replication - (vb:415) Stream request requires rollback to seqno:4475 because x",
		"[ns_server:info,2022-07-21T14:16:06.436-07:00,ns_1@172.23.100.15:<0.11027.2>:ns_port_server:log:226]Service 'memcached' exited with status 137",
	}
	parts := indexOf(t, sketchOf(lines))
	for _, tc := range []struct {
		text, pattern string
		want          bool
	}{
		{"Stream request requires rollback", "", true},
		{"a9e4b52d", "", true},
		{"", `requires rollback to seqno:[0-9]+ because`, true},
		{"", `(?i)INVALID PASSWORD`, true},
		{"", `Service '(memcached|indexer)' exited`, true},
		{"", `(?i)STREAM request`, true},
		{"b7e3c1f9", "", false},
		{"Stream request was accepted", "", false},
		{"", `Service '(projector|indexer)' exited`, false},
		{"", `(?i)INVALID PATTERN TO MATCH`, false},
		{"", `\d+`, true}, // no string: every block
	} {
		var re *regexp.Regexp
		if tc.pattern != "" {
			re = regexp.MustCompile(tc.pattern)
		}
		if got := kept(t, parts, tc.text, re); got != tc.want {
			t.Errorf("%q %q: kept %v, want %v", tc.text, tc.pattern, got, tc.want)
		}
	}
}

// TestSketchEveryPlace checks that every string of 4 bytes or more of a
// line is found, whichever its place in the line: the sketch holds the
// 4-grams of every place.
func TestSketchEveryPlace(t *testing.T) {
	line := "2022-07-21T08:04:56.231376-07:00 INFO second message"
	parts := indexOf(t, sketchOf([]string{"first line", line, "last"}))
	for i := range len(line) {
		for n := 4; i+n <= len(line); n++ {
			if !kept(t, parts, line[i:i+n], nil) {
				t.Errorf("%q at %d of the line: ruled out", line[i:i+n], i)
			}
		}
	}
	if g := NewGrams(search.Plan("INF", false, nil), GramsVersion); g != nil {
		t.Errorf("a string of 3 bytes asks the index (%d parts)", len(g.Parts()))
	}
}

// TestChooseOlderSegments checks that segments written by the version
// before (the 4-grams at every other place) are still read, with their own
// 4-grams, beside segments of this version, and that a segment of a
// version this build does not know keeps all its blocks.
func TestChooseOlderSegments(t *testing.T) {
	const id = "c37a24e6"
	with := []string{"2022-07-21T08:04:56.231376-07:00 INFO txn " + id + " committed"}
	without := []string{"2022-07-21T08:04:56.231376-07:00 INFO txn 5b0e9d31 committed"}
	everyOther := func(lines []string) Sketch {
		sk := newSketch()
		for _, l := range lines {
			for i := 0; i+gramLen <= len(l); i += 2 {
				s := slot(binary.LittleEndian.Uint32([]byte(l[i:])))
				sk[s/64] |= 1 << (s % 64)
			}
		}
		return sk
	}
	segment := func(version int, sketches ...Sketch) *SegmentParts {
		seg := NewSegment()
		for _, sk := range sketches {
			seg.Add(sk)
		}
		sp := &SegmentParts{Blocks: seg.Len(), Version: version, Parts: map[int][]byte{}}
		seg.Parts(func(p int, data []byte) error {
			sp.Parts[p] = append([]byte(nil), data...)
			return nil
		})
		return sp
	}
	stored := map[int64]*SegmentParts{
		1: segment(1, everyOther(with), everyOther(without)),
		2: segment(GramsVersion, sketchOf(with), sketchOf(without)),
		3: segment(GramsVersion+1, sketchOf(without), sketchOf(without)),
	}
	read := func(_ context.Context, _, segs []int64, parts []int) (map[int64]*SegmentParts, error) {
		out := map[int64]*SegmentParts{}
		for _, id := range segs {
			sp := stored[id]
			got := &SegmentParts{Blocks: sp.Blocks, Version: sp.Version, Parts: map[int][]byte{}}
			for _, p := range parts {
				got.Parts[p] = sp.Parts[p]
			}
			out[id] = got
		}
		return out, nil
	}
	var refs []Ref
	for seg := range int64(3) {
		for place := range 2 {
			refs = append(refs, Ref{Key: 10*(seg+1) + int64(place), Segment: seg + 1, Place: place})
		}
	}
	var stats store.SearchStats
	out, err := Choose(context.Background(), []Source{{ID: 1, Blocks: refs}}, search.Plan(id, false, nil), &stats, read)
	if err != nil {
		t.Fatal(err)
	}
	var keys []int64
	for _, src := range out {
		for _, b := range src.Blocks {
			keys = append(keys, b.Key)
		}
	}
	if want := []int64{10, 20, 30, 31}; !slices.Equal(keys, want) {
		t.Errorf("kept blocks %v, want %v: the id's block of each known version, and every block of an unknown one", keys, want)
	}
}

// FuzzGrams checks that the index keeps every block holding a line a
// search selects: for any lines, any substring of one of them, and any
// regexp that matches one.
func FuzzGrams(f *testing.F) {
	f.Add("2022-07-21 Stream request requires rollback\nsecond line", "requires roll", `rollback|nothing`)
	f.Add("UUID:[a9e4b52d-58c3]\nxx", "9e4b52", `(?i)UUID:\[A9E4`)
	f.Add("abcdefgh\nabcdXYZW", "cdXY", `b?cdx`)
	f.Fuzz(func(t *testing.T, text, sub, pattern string) {
		lines := strings.Split(text, "\n")
		sk := sketchOf(lines)
		// The sketch's bits as a segment of one block.
		keeps := func(text string, re *regexp.Regexp) bool {
			g := NewGrams(search.Plan(text, false, re), GramsVersion)
			return g == nil || g.eval(1, func(s uint32) uint64 { return sk[s/64] >> (s % 64) & 1 }) != 0
		}
		for _, l := range lines {
			if sub != "" && strings.Contains(l, sub) && !keeps(sub, nil) {
				t.Fatalf("the block holds %q in %q, but the index rules it out", sub, l)
			}
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		for _, l := range lines {
			if re.MatchString(l) && !keeps("", re) {
				t.Fatalf("the block's line %q matches %q, but the index rules it out", l, pattern)
			}
		}
	})
}

// TestGramsBlocks checks a segment of many blocks: each search keeps
// exactly the blocks holding its string, and a few others at most.
func TestGramsBlocks(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	seg := NewSegment()
	ids := make([]string, SegmentBlocks)
	for i := range SegmentBlocks {
		var lines []string
		for range 2000 {
			lines = append(lines, fmt.Sprintf("2022-07-21T08:04:%02d.%06d INFO txn %08x committed at seqno %d", r.Intn(60), r.Intn(1e6), r.Uint32(), r.Intn(1e6)))
		}
		ids[i] = lines[r.Intn(len(lines))][36:44]
		seg.Add(sketchOf(lines))
	}
	stored := map[int][]byte{}
	seg.Parts(func(p int, data []byte) error {
		stored[p] = append([]byte(nil), data...)
		return nil
	})
	others := 0
	for i, id := range ids {
		m, err := NewGrams(search.Plan(id, false, nil), GramsVersion).Match(seg.Len(), stored)
		if err != nil {
			t.Fatal(err)
		}
		if m&(1<<i) == 0 {
			t.Errorf("block %d holds %s, but the index rules it out", i, id)
		}
		for j := range SegmentBlocks {
			if j != i && m&(1<<j) != 0 && !strings.Contains(ids[j], id) {
				others++
			}
		}
	}
	// 2000 random 8-digit ids a block, and times and seqnos of digits:
	// many of an id's 4-grams are in any block, seldom all five (1.2 of the
	// 63 other blocks kept by each search, on average, when this was
	// written; 5 with the 4-grams at every other place, version 1).
	if others > SegmentBlocks*(SegmentBlocks-1)/20 {
		t.Errorf("the searches of %d ids kept %d blocks that do not hold them", SegmentBlocks, others)
	}
	t.Logf("%d other blocks kept by %d searches of %d blocks", others, SegmentBlocks, SegmentBlocks)
}
