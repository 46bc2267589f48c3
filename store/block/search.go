package block

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"

	"forensics/store"
	"forensics/store/search"
)

// Find picks the blocks of the sources and window a filter selects, and
// of those, with an index, the blocks that may hold a line q selects. It
// counts in stats the blocks it picked by the filter and those it kept.
type Find func(ctx context.Context, f store.LineFilter, q *search.Query, stats *store.SearchStats) ([]Source, error)

// Lines is a backend's Lines: a cursor over the lines of a search that
// takes every line the filter selects, which yields an error once and ends.
func Lines(ctx context.Context, st Stored, f store.LineFilter, find Find) iter.Seq2[*store.Line, error] {
	return func(yield func(*store.Line, error) bool) {
		_, err := Search(ctx, st, store.Search{LineFilter: f}, find, func(l *store.Line) bool { return yield(l, nil) })
		if err != nil {
			yield(nil, err)
		}
	}
}

// Search is a backend's Search: it reads the blocks find picks and calls
// fn with the lines of the search from after s.After, at most s.Limit of
// them, until fn returns false.
func Search(ctx context.Context, st Stored, s store.Search, find Find, fn func(*store.Line) bool) (store.SearchResult, error) {
	q := search.Plan(s.Text, s.Fold, s.Regexp)
	var res store.SearchResult
	if !q.Scan() {
		res.Stats.Query = q.String()
	}
	m := Merge{Stored: st, Filter: s.LineFilter, Query: q, Stats: &res.Stats}
	if s.After != "" {
		after, err := store.ParseMark(s.After)
		if err != nil {
			return res, err
		}
		m.After = &after
	}
	var err error
	if m.Sources, err = find(ctx, s.LineFilter, q, &res.Stats); err != nil {
		return res, err
	}
	n := 0
	stopped := false
	var last store.Mark
	err = m.Lines(ctx, func(l *store.Line, at store.Mark) bool {
		n++
		last = at
		stopped = !fn(l) || s.Limit > 0 && n >= s.Limit
		return !stopped
	})
	if stopped {
		res.Next = last.String()
	}
	return res, err
}

// Count returns how many blocks srcs have.
func Count(srcs []Source) int {
	n := 0
	for _, s := range srcs {
		n += len(s.Blocks)
	}
	return n
}

// SegmentParts is what a backend read of a segment of the index: how many
// blocks it holds, the version of its sketches, and its parts by number.
type SegmentParts struct {
	Blocks, Version int
	Parts           map[int][]byte
}

// ScanSegments reads rows of (segment id, version, blocks): the segments
// a ReadGrams reads, before their parts.
func ScanSegments(rows store.Rows) (map[int64]*SegmentParts, error) {
	out := map[int64]*SegmentParts{}
	for rows.Next() {
		var id, version, blocks int64
		if err := rows.Scan(&id, &version, &blocks); err != nil {
			return nil, err
		}
		out[id] = &SegmentParts{Blocks: int(blocks), Version: int(version), Parts: map[int][]byte{}}
	}
	return out, rows.Err()
}

// ScanParts reads rows of (segment id, part, data) into the segments
// ScanSegments read.
func ScanParts(rows store.Rows, segs map[int64]*SegmentParts) error {
	for rows.Next() {
		var seg, part int64
		var data []byte
		if err := rows.Scan(&seg, &part, &data); err != nil {
			return err
		}
		if sp := segs[seg]; sp != nil {
			sp.Parts[int(part)] = data
		}
	}
	return rows.Err()
}

// ReadGrams reads, of the given segments of the incidents (0: a store of
// one), the parts named.
type ReadGrams func(ctx context.Context, incidents, segments []int64, parts []int) (map[int64]*SegmentParts, error)

// firstParts is how many parts of the index Choose reads of every segment
// before it reads more of those it did not rule out.
const firstParts = 4

// Choose drops from srcs the blocks the index rules out for q and counts
// in stats what it kept: a block of a segment whose words say it holds no
// 4-gram of a string the search needs. Blocks not indexed are kept.
func Choose(ctx context.Context, srcs []Source, q *search.Query, stats *store.SearchStats, read ReadGrams) ([]Source, error) {
	stats.Blocks = Count(srcs)
	stats.Chosen = stats.Blocks
	var segs, incidents []int64
	seen := map[int64]bool{}
	for _, src := range srcs {
		for _, b := range src.Blocks {
			if b.Segment == 0 {
				stats.Unindexed++
			} else if !seen[b.Segment] {
				seen[b.Segment] = true
				segs = append(segs, b.Segment)
			}
		}
		if !slices.Contains(incidents, src.Incident) {
			incidents = append(incidents, src.Incident)
		}
	}
	g := NewGrams(q, GramsVersion)
	if g == nil || len(segs) == 0 {
		return srcs, nil
	}
	// The first few parts of every segment, then more of the parts of the
	// segments those did not rule out, twice as many each round: a rare
	// string is ruled out of nearly every segment by a few of its 4-grams,
	// and each part read costs a row (of a page of its own). A part not
	// read leaves every block of its segment possible. The segments of the
	// version before (a timeline not indexed again) are read the same way
	// after, with their own 4-grams.
	masks := make(map[int64]uint64, len(segs))
	stored := make(map[int64]*SegmentParts, len(segs))
	var older []int64
	narrow := func(g *Grams, version int, open []int64) error {
		parts := g.Parts()
		for done, round := 0, firstParts; done < len(parts) && len(open) > 0; done, round = done+round, 2*round {
			more, err := read(ctx, incidents, open, parts[done:min(len(parts), done+round)])
			if err != nil {
				return err
			}
			for id, sp := range more {
				if have := stored[id]; have == nil {
					stored[id] = sp
				} else if have.Version == sp.Version && have.Blocks == sp.Blocks {
					maps.Copy(have.Parts, sp.Parts)
				}
			}
			next := open[:0:0]
			for _, id := range open {
				sp := stored[id]
				if sp == nil || sp.Blocks < 1 || sp.Blocks > SegmentBlocks {
					continue // its blocks are read
				}
				if sp.Version != version {
					if done == 0 && version == GramsVersion && sp.Version == 1 {
						older = append(older, id)
					}
					continue // another build's sketches: its blocks are read
				}
				m, err := g.Match(sp.Blocks, sp.Parts)
				if err != nil {
					return fmt.Errorf("the index of lines, segment %d: %w", id, err)
				}
				masks[id] = m
				if m != 0 {
					next = append(next, id)
				}
			}
			open = next
		}
		return nil
	}
	if err := narrow(g, GramsVersion, segs); err != nil {
		return nil, err
	}
	if g1 := NewGrams(q, 1); g1 != nil && len(older) > 0 {
		if err := narrow(g1, 1, older); err != nil {
			return nil, err
		}
	}
	stats.Indexed = true
	stats.Chosen = 0
	out := srcs[:0]
	for _, src := range srcs {
		kept := src.Blocks[:0]
		for _, b := range src.Blocks {
			if m, ok := masks[b.Segment]; !ok || b.Place < 0 || b.Place >= SegmentBlocks || m&(1<<b.Place) != 0 {
				kept = append(kept, b)
			}
		}
		stats.Chosen += len(kept)
		if len(kept) > 0 {
			src.Blocks = kept
			out = append(out, src)
		}
	}
	return out, nil
}
