package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strconv"

	"forensics"
	"forensics/store"
	"forensics/store/block"
	"forensics/store/search"
)

// Lines returns a cursor over the stored lines the filter selects, merged
// across sources in timeline order. In a window (Since and Until both set)
// every line is in time order; without one, lines stream and keep their
// file's order where its clock went backwards. The line yielded is reused
// once the loop body returns.
func (db *DB) Lines(ctx context.Context, f store.LineFilter) iter.Seq2[*store.Line, error] {
	return block.Lines(ctx, blocks{db, &lineKinds{}}, f, db.candidateBlocks)
}

// Search calls fn with a page of the lines a search selects, as Lines
// gives them.
func (db *DB) Search(ctx context.Context, s store.Search, fn func(*store.Line) bool) (store.SearchResult, error) {
	return block.Search(ctx, blocks{db, &lineKinds{}}, s, db.candidateBlocks, fn)
}

// candidateBlocks finds the blocks that may hold lines in the window,
// using the index on t_min: a block can only overlap the window if it starts
// at most the longest block span before it.
func (db *DB) candidateBlocks(ctx context.Context, f store.LineFilter, q *search.Query, stats *store.SearchStats) ([]block.Source, error) {
	var span int64
	if !f.Since.IsZero() {
		var err error
		if span, err = db.metaInt(ctx, "max_block_span"); err != nil {
			return nil, err
		}
	}
	query, args := candidateQuery(f, span, db.hasGrams)
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query lines: %w", err)
	}
	srcs, err := block.ScanBlockKeys(rows)
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("query lines: %w", err)
	}
	if srcs, err = block.Choose(ctx, srcs, q, stats, db.readGrams); err != nil {
		return nil, err
	}
	names, err := db.sourceNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("query lines: %w", err)
	}
	block.Name(srcs, names)
	return srcs, nil
}

// sourceNames returns the path and node of every source.
func (db *DB) sourceNames(ctx context.Context) (map[int64][2]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, path, node FROM main.sources`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[int64][2]string{}
	for rows.Next() {
		var id int64
		var path, node string
		if err := rows.Scan(&id, &path, &node); err != nil {
			return nil, err
		}
		names[id] = [2]string{path, node}
	}
	return names, rows.Err()
}

// candidateQuery is the query of candidateBlocks, given the longest span
// of a block, with each block's place in the index of blocks when the
// timeline has one. It reads only the indexes of blocks (schema.sql says
// why), in the order of blocks_source, and names no source (ScanBlockKeys).
func candidateQuery(f store.LineFilter, span int64, grams bool) (string, []any) {
	var w where
	w.sources(f.Run, f.Components, f.Paths)
	in(&w, "s.node", f.Nodes)
	if !f.Until.IsZero() {
		w.add("b.t_min < ?", f.Until.UnixNano())
	}
	if !f.Since.IsZero() {
		w.add("b.t_min >= ?", f.Since.UnixNano()-span)
		w.add("b.t_max >= ?", f.Since.UnixNano())
	}
	if !grams {
		return `SELECT b.id, b.first_line, b.t_min, b.t_max, 0, 0, b.source_id FROM main.blocks b JOIN main.sources s ON s.id = b.source_id
		WHERE ` + w.String() + ` ORDER BY b.source_id, b.first_line`, w.args
	}
	return `SELECT b.id, b.first_line, b.t_min, b.t_max, coalesce(g.segment, 0), coalesce(g.place, 0), b.source_id
		FROM main.blocks b JOIN main.sources s ON s.id = b.source_id LEFT JOIN main.block_grams g ON g.block_id = b.id
		WHERE ` + w.String() + ` ORDER BY b.source_id, b.first_line`, w.args
}

// metaInt reads a number kept in meta, 0 when it is not there.
func (db *DB) metaInt(ctx context.Context, key string) (int64, error) {
	var v sql.NullString
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM main.meta WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows || !v.Valid {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(v.String, 10, 64)
	if perr != nil || n < 0 {
		return 0, fmt.Errorf("timeline %s: %s in its meta table is %q, not what forensics writes (a number of nanoseconds): the timeline was changed by something else; analyze the evidence again into a new --db", db.path, key, v.String)
	}
	return n, nil
}

// blocks is the timeline as block.MergeLines reads it.
type blocks struct {
	db    *DB
	kinds *lineKinds
}

// Block reads a block into dst: a search reads hundreds of them, and a
// new buffer each (on top of the driver's copy) was a third of what it
// allocated.
func (b blocks) Block(ctx context.Context, src *block.Source, ref block.Ref, dst []byte) ([]byte, error) {
	fail := func(err error) ([]byte, error) {
		return nil, fmt.Errorf("read block %d of %s: %w", ref.Key, src.Path, err)
	}
	rows, err := b.db.sql.QueryContext(ctx, `SELECT data FROM main.blocks WHERE id = ?`, ref.Key)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return fail(err)
		}
		return fail(sql.ErrNoRows)
	}
	var raw sql.RawBytes
	if err := rows.Scan(&raw); err != nil {
		return fail(err)
	}
	return append(dst[:0], raw...), rows.Close()
}

func (b blocks) Kinds(ctx context.Context, src *block.Source, first, last int64) (map[int64][]forensics.Kind, error) {
	if b.db.schema >= 3 {
		kinds, err := b.db.blockLineKinds(ctx, b.kinds, src.ID, first, last)
		if err != nil {
			return nil, fmt.Errorf("read the events of %s: %w", src.Path, err)
		}
		return kinds, nil
	}
	rows, err := b.db.sql.QueryContext(ctx, `SELECT line, kind FROM main.events WHERE source_id = ? AND line BETWEEN ? AND ? ORDER BY line, id`, src.ID, first, last)
	if err != nil {
		return nil, fmt.Errorf("read the events of %s: %w", src.Path, err)
	}
	defer rows.Close()
	kinds, err := block.ScanKinds(rows)
	if err != nil {
		return nil, fmt.Errorf("read the events of %s: %w", src.Path, err)
	}
	return kinds, nil
}
