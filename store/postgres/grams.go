package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"forensics/store"
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
	rows, err := db.pool.Query(ctx, `SELECT id, version, blocks FROM forensics.gram_segments WHERE incident_id = ANY($1) AND id = ANY($2)`, incidents, segs)
	if err != nil {
		return nil, db.fail("read the index of lines", err)
	}
	out, err := block.ScanSegments(rows)
	rows.Close()
	if err != nil {
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
	if err := block.ScanParts(rows, out); err != nil {
		return nil, db.fail("read the index of lines", err)
	}
	return out, nil
}

// reindexBatch is how many blocks Reindex indexes in a transaction.
const reindexBatch = 1024

// blockKey names a block of an incident.
type blockKey struct {
	source, seq, firstLine int64
}

// Reindex indexes the blocks of lines the index does not cover: written
// before the store kept it, or with sketches of another GramsVersion. It
// works an incident at a time, each statement within one incident, as a
// store distributed by incident (Citus) runs them on one node.
func (db *DB) Reindex(ctx context.Context) (store.Reindexed, error) {
	var done store.Reindexed
	if db.readOnly {
		return done, fmt.Errorf("%s: reindex needs the store open for writing", db.name)
	}
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT incident_id FROM forensics.blocks ORDER BY 1`)
	if err != nil {
		return done, db.fail("reindex", err)
	}
	incs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return done, db.fail("reindex", err)
	}
	for _, inc := range incs {
		if err := db.reindexIncident(ctx, inc, &done); err != nil {
			return done, err
		}
	}
	return done, nil
}

func (db *DB) reindexIncident(ctx context.Context, inc int64, done *store.Reindexed) error {
	for _, q := range []string{
		`UPDATE forensics.blocks SET gram_segment = NULL, gram_place = NULL WHERE incident_id = $1 AND gram_segment IS NOT NULL
			AND gram_segment NOT IN (SELECT id FROM forensics.gram_segments WHERE incident_id = $1 AND version = $2)`,
		`DELETE FROM forensics.gram_segments WHERE incident_id = $1 AND (version <> $2
			OR id NOT IN (SELECT gram_segment FROM forensics.blocks WHERE incident_id = $1 AND gram_segment IS NOT NULL))`,
		`DELETE FROM forensics.gram_parts WHERE incident_id = $1 AND $2 > 0
			AND segment NOT IN (SELECT id FROM forensics.gram_segments WHERE incident_id = $1)`,
	} {
		if _, err := db.pool.Exec(ctx, q, inc, block.GramsVersion); err != nil {
			return db.fail("reindex", err)
		}
	}
	var total int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM forensics.blocks WHERE incident_id = $1`, inc).Scan(&total); err != nil {
		return db.fail("reindex", err)
	}
	done.Total += total
	rows, err := db.pool.Query(ctx, `SELECT source_id, seq, first_line FROM forensics.blocks WHERE incident_id = $1 AND gram_segment IS NULL ORDER BY source_id, seq`, inc)
	if err != nil {
		return db.fail("reindex", err)
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (blockKey, error) {
		var k blockKey
		err := r.Scan(&k.source, &k.seq, &k.firstLine)
		return k, err
	})
	if err != nil {
		return db.fail("reindex", err)
	}
	var rs block.Resketcher
	for len(keys) > 0 {
		n := min(len(keys), reindexBatch)
		if err := db.reindexBlocks(ctx, inc, &rs, keys[:n], done); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// reindexBlocks indexes the given blocks of an incident in one
// transaction, and counts them in done.
func (db *DB) reindexBlocks(ctx context.Context, inc int64, rs *block.Resketcher, keys []blockKey, done *store.Reindexed) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.fail("reindex", err)
	}
	defer tx.Rollback(ctx)
	seg := block.NewSegment()
	var segID int64
	var placed []blockKey // the blocks of the segment, by place
	var bytes int64
	indexed, skipped := 0, 0
	var problem error
	flush := func() error {
		if len(placed) == 0 {
			return nil
		}
		var b pgx.Batch
		seg.Parts(func(part int, data []byte) error {
			bytes += int64(len(data))
			b.Queue(`INSERT INTO forensics.gram_parts (incident_id, segment, part, data) VALUES ($1, $2, $3, $4)`, inc, segID, part, append([]byte(nil), data...))
			return nil
		})
		b.Queue(`INSERT INTO forensics.gram_segments (incident_id, id, version, blocks) VALUES ($1, $2, $3, $4)`, inc, segID, block.GramsVersion, seg.Len())
		for place, k := range placed {
			b.Queue(`UPDATE forensics.blocks SET gram_segment = $4, gram_place = $5 WHERE incident_id = $1 AND source_id = $2 AND seq = $3`, inc, k.source, k.seq, segID, place)
		}
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return db.fail("reindex", err)
		}
		seg.Reset()
		placed = placed[:0]
		return nil
	}
	for _, k := range keys {
		var data []byte
		if err := tx.QueryRow(ctx, `SELECT data FROM forensics.blocks WHERE incident_id = $1 AND source_id = $2 AND seq = $3`, inc, k.source, k.seq).Scan(&data); err != nil {
			return db.fail("reindex: read a block of lines", err)
		}
		sk, err := rs.Sketch(k.firstLine, data)
		if err != nil {
			// Left out of the index, the block is read by every search,
			// which says what is wrong with it.
			skipped++
			if problem == nil {
				problem = fmt.Errorf("incident %d, source %d, block %d (from line %d): %w", inc, k.source, k.seq, k.firstLine, err)
			}
			continue
		}
		if len(placed) == 0 {
			if err := tx.QueryRow(ctx, `SELECT nextval('forensics.ids')`).Scan(&segID); err != nil {
				return db.fail("reindex", err)
			}
		}
		seg.Add(sk)
		placed = append(placed, k)
		indexed++
		if seg.Full() {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return db.fail("reindex", err)
	}
	done.Blocks += indexed
	done.Bytes += bytes
	done.Skipped += skipped
	if done.Problem == nil {
		done.Problem = problem
	}
	return nil
}
