package postgres

import (
	"context"

	"forensics/store/block"
)

// segmentWriter gathers the sketches of the blocks a writer stores into
// segments of the index of blocks (store/block/grams.go). A segment's
// parts join the batch when it is full, and before every commit, so that
// the index is written in the same transaction as its blocks.
type segmentWriter struct {
	seg *block.Segment
	id  int64 // 0 before the segment's first block
}

// add records a block's sketch and returns its segment and place.
func (s *segmentWriter) add(w *Writer, sk block.Sketch) (int64, int16, error) {
	if s.seg == nil {
		s.seg = block.NewSegment()
	}
	if s.id == 0 {
		// From the pool, not the writer's connection, which a COPY may be
		// using: a sequence is not transactional anyway.
		if err := w.db.pool.QueryRow(w.ctx, `SELECT nextval('forensics.ids')`).Scan(&s.id); err != nil {
			return 0, 0, w.db.fail("index lines", err)
		}
	}
	seg, place := s.id, int16(s.seg.Add(sk))
	if s.seg.Full() {
		s.flush(&w.cur)
	}
	return seg, place, nil
}

// flush adds the segment's parts to the batch, and starts the next segment.
func (s *segmentWriter) flush(b *batch) {
	if s.id == 0 {
		return
	}
	s.seg.Parts(func(part int, data []byte) error {
		off := len(b.data)
		b.data = append(b.data, data...)
		b.grams = append(b.grams, gramRow{segment: s.id, part: int32(part), off: off, end: len(b.data)})
		return nil
	})
	b.segments = append(b.segments, segmentRow{id: s.id, blocks: int16(s.seg.Len())})
	s.seg.Reset()
	s.id = 0
}

// abandon forgets the segment of a transaction rolled back.
func (s *segmentWriter) abandon() {
	if s.seg != nil {
		s.seg.Reset()
	}
	s.id = 0
}

// readGrams reads the parts named of the given segments of the incidents.
func (db *DB) readGrams(ctx context.Context, incidents, segs []int64, parts []int) (map[int64]*block.SegmentParts, error) {
	out := make(map[int64]*block.SegmentParts, len(segs))
	rows, err := db.pool.Query(ctx, `SELECT id, version, blocks FROM forensics.gram_segments WHERE incident_id = ANY($1) AND id = ANY($2)`, incidents, segs)
	if err != nil {
		return nil, db.fail("read the index of lines", err)
	}
	for rows.Next() {
		sp := &block.SegmentParts{Parts: map[int][]byte{}}
		var id int64
		var version, blocks int16
		if err := rows.Scan(&id, &version, &blocks); err != nil {
			rows.Close()
			return nil, db.fail("read the index of lines", err)
		}
		sp.Version, sp.Blocks = int(version), int(blocks)
		out[id] = sp
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.fail("read the index of lines", err)
	}
	ps := make([]int32, len(parts))
	for i, p := range parts {
		ps[i] = int32(p)
	}
	rows, err = db.pool.Query(ctx, `SELECT segment, part, data FROM forensics.gram_parts WHERE incident_id = ANY($1) AND segment = ANY($2) AND part = ANY($3)`, incidents, segs, ps)
	if err != nil {
		return nil, db.fail("read the index of lines", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seg int64
		var part int32
		var data []byte
		if err := rows.Scan(&seg, &part, &data); err != nil {
			return nil, db.fail("read the index of lines", err)
		}
		if sp := out[seg]; sp != nil {
			sp.Parts[int(part)] = data
		}
	}
	if err := rows.Err(); err != nil {
		return nil, db.fail("read the index of lines", err)
	}
	return out, nil
}
