package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"forensics/store"
	"forensics/store/block"
)

// The index of blocks of lines (store/block/grams.go) is written with the
// blocks, in the same transaction: the sketches of the blocks of a
// segment gather in the writer, and the segment's parts are stored when it
// is full and before every commit.

// hasGramsTables reports whether the timeline has the tables of the index
// of blocks: a timeline written before them and not opened for writing
// since lacks them, and is searched by reading every block.
func hasGramsTables(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name IN ('gram_segments', 'gram_parts', 'block_grams')`).Scan(&n)
	return n == 3, err
}

// readGrams reads the parts named of the given segments.
func (db *DB) readGrams(ctx context.Context, _, segs []int64, parts []int) (map[int64]*block.SegmentParts, error) {
	segList := intList(segs)
	rows, err := db.sql.QueryContext(ctx, `SELECT id, version, blocks FROM main.gram_segments WHERE id IN (`+segList+`)`)
	if err != nil {
		return nil, fmt.Errorf("read the index of lines: %w", err)
	}
	out, err := block.ScanSegments(rows)
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("read the index of lines: %w", err)
	}
	rows, err = db.sql.QueryContext(ctx, `SELECT segment, part, data FROM main.gram_parts WHERE segment IN (`+segList+`) AND part IN (`+intList(parts)+`)`)
	if err != nil {
		return nil, fmt.Errorf("read the index of lines: %w", err)
	}
	defer rows.Close()
	if err := block.ScanParts(rows, out); err != nil {
		return nil, fmt.Errorf("read the index of lines: %w", err)
	}
	return out, nil
}

// intList writes numbers as a list for SQL's IN: they are integers the
// program made, never text from a user.
func intList[T int | int64](ns []T) string {
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, n)
	}
	return b.String()
}

// gramWriter gathers the sketches of the blocks a writer stores into
// segments of the index.
type gramWriter struct {
	seg   *block.Segment
	id    int64 // the segment's row, 0 before its first block
	insB  *sql.Stmt
	insP  *sql.Stmt
	parts int // bytes of parts written in the transaction
}

// add records a stored block's sketch.
func (g *gramWriter) add(ctx context.Context, tx *sql.Tx, blockID int64, sk block.Sketch) error {
	if g.seg == nil {
		g.seg = block.NewSegment()
	}
	if g.id == 0 {
		res, err := tx.ExecContext(ctx, `INSERT INTO main.gram_segments (version, blocks) VALUES (?, 0)`, block.GramsVersion)
		if err != nil {
			return err
		}
		g.id, _ = res.LastInsertId()
	}
	if g.insB == nil {
		var err error
		if g.insB, err = tx.PrepareContext(ctx, `INSERT INTO main.block_grams (block_id, segment, place) VALUES (?, ?, ?)`); err != nil {
			return err
		}
	}
	place := g.seg.Add(sk)
	if _, err := g.insB.ExecContext(noCancel, blockID, g.id, place); err != nil {
		return err
	}
	if g.seg.Full() {
		return g.flush(ctx, tx)
	}
	return nil
}

// flush stores the segment's parts, and starts the next segment.
func (g *gramWriter) flush(ctx context.Context, tx *sql.Tx) error {
	if g.id == 0 {
		return nil
	}
	if g.insP == nil {
		var err error
		if g.insP, err = tx.PrepareContext(ctx, `INSERT INTO main.gram_parts (segment, part, data) VALUES (?, ?, ?)`); err != nil {
			return err
		}
	}
	err := g.seg.Parts(func(part int, data []byte) error {
		g.parts += len(data)
		_, err := g.insP.ExecContext(noCancel, g.id, part, data)
		return err
	})
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE main.gram_segments SET blocks = ? WHERE id = ?`, g.seg.Len(), g.id)
	}
	g.seg.Reset()
	g.id = 0
	return err
}

// end lets go of the transaction's statements; an abandoned segment
// (rollback) goes with them.
func (g *gramWriter) end() {
	for _, st := range []**sql.Stmt{&g.insB, &g.insP} {
		if *st != nil {
			(*st).Close()
			*st = nil
		}
	}
	if g.seg != nil {
		g.seg.Reset()
	}
	g.id, g.parts = 0, 0
}

// reindexBatch is how many blocks Reindex indexes in a transaction.
const reindexBatch = 1024

// Reindex indexes the blocks of lines the index does not cover: written
// before the timeline kept it, or with sketches of another GramsVersion.
func (db *DB) Reindex(ctx context.Context) (store.Reindexed, error) {
	var done store.Reindexed
	if db.readOnly || !db.hasGrams {
		return done, fmt.Errorf("%s: reindex needs the timeline open for writing", db.path)
	}
	// Sketches of another version are dropped, their blocks indexed again.
	for _, q := range []string{
		`DELETE FROM main.block_grams WHERE segment NOT IN (SELECT id FROM main.gram_segments WHERE version = ?)`,
		`DELETE FROM main.gram_segments WHERE version <> ? OR id NOT IN (SELECT segment FROM main.block_grams)`,
		`DELETE FROM main.gram_parts WHERE segment NOT IN (SELECT id FROM main.gram_segments) AND ? > 0`,
	} {
		if _, err := db.sql.ExecContext(ctx, q, block.GramsVersion); err != nil {
			return done, fmt.Errorf("reindex: %w", describe(err))
		}
	}
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM main.blocks`).Scan(&done.Total); err != nil {
		return done, fmt.Errorf("reindex: %w", err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT b.id FROM main.blocks b WHERE NOT EXISTS (SELECT 1 FROM main.block_grams g WHERE g.block_id = b.id) ORDER BY b.source_id, b.first_line`)
	if err != nil {
		return done, fmt.Errorf("reindex: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return done, fmt.Errorf("reindex: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return done, fmt.Errorf("reindex: %w", err)
	}
	var rs block.Resketcher
	for len(ids) > 0 {
		n := min(len(ids), reindexBatch)
		if err := db.reindexBlocks(ctx, &rs, ids[:n], &done); err != nil {
			return done, err
		}
		ids = ids[n:]
	}
	return done, nil
}

// reindexBlocks indexes the given blocks in one transaction, and counts
// them in done.
func (db *DB) reindexBlocks(ctx context.Context, rs *block.Resketcher, ids []int64, done *store.Reindexed) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	defer tx.Rollback()
	var g gramWriter
	defer g.end()
	sel, err := tx.PrepareContext(ctx, `SELECT source_id, first_line, data FROM main.blocks WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	defer sel.Close()
	indexed, skipped := 0, 0
	var problem error
	for _, id := range ids {
		var src, first int64
		var data []byte
		if err := sel.QueryRowContext(ctx, id).Scan(&src, &first, &data); err != nil {
			return fmt.Errorf("reindex: read block %d: %w", id, err)
		}
		sk, err := rs.Sketch(first, data)
		if err != nil {
			// Left out of the index, the block is read by every search,
			// which says what is wrong with it.
			skipped++
			if problem == nil {
				problem = fmt.Errorf("block %d (source %d, from line %d): %w", id, src, first, err)
			}
			continue
		}
		if err := g.add(ctx, tx, id, sk); err != nil {
			return fmt.Errorf("reindex: %w", describe(err))
		}
		indexed++
	}
	if err := g.flush(ctx, tx); err != nil {
		return fmt.Errorf("reindex: %w", describe(err))
	}
	bytes := int64(g.parts)
	g.end()
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("reindex: %w", describe(err))
	}
	done.Blocks += indexed
	done.Bytes += bytes
	done.Skipped += skipped
	if done.Problem == nil {
		done.Problem = problem
	}
	return nil
}
