package postgres

import (
	"context"
	"iter"

	"forensics"
	"forensics/store"
	"forensics/store/block"
	"forensics/store/search"
)

// Lines returns a cursor over the stored lines the filter selects, merged
// across sources in timeline order, as the SQLite backend does. Blocks are
// chosen by incident, source and time bounds in SQL; only those are read
// and decoded.
func (db *DB) Lines(ctx context.Context, f store.LineFilter) iter.Seq2[*store.Line, error] {
	return block.Lines(ctx, blocks{db}, f, db.candidateBlocks)
}

// Search calls fn with a page of the lines a search selects, as Lines
// gives them.
func (db *DB) Search(ctx context.Context, s store.Search, fn func(*store.Line) bool) (store.SearchResult, error) {
	return block.Search(ctx, blocks{db}, s, db.candidateBlocks, fn)
}

// candidateBlocks finds the blocks that may hold lines in the window: a
// block can only overlap it if it starts at most the longest block span
// of the incident before it, which keeps the condition on t_min, the
// indexed column after the incident.
func (db *DB) candidateBlocks(ctx context.Context, f store.LineFilter, q *search.Query, stats *store.SearchStats) ([]block.Source, error) {
	var w where
	inc, err := db.sources(ctx, &w, f.Run, f.Components, f.Paths)
	if err != nil {
		return nil, err
	}
	if inc != 0 {
		w.add("b.incident_id = ?", inc)
	}
	in(&w, "s.node", f.Nodes)
	if !f.Until.IsZero() {
		w.add("b.t_min < ?", f.Until.UnixNano())
	}
	if !f.Since.IsZero() {
		span, err := db.maxBlockSpan(ctx, inc)
		if err != nil {
			return nil, err
		}
		w.add("b.t_min >= ?", f.Since.UnixNano()-span)
		w.add("b.t_max >= ?", f.Since.UnixNano())
	}
	rows, err := db.pool.Query(ctx, `SELECT b.seq, b.first_line, b.t_min, b.t_max, coalesce(b.gram_segment, 0), coalesce(b.gram_place, 0)::int, s.incident_id, s.id, s.path, s.node
		FROM forensics.blocks b JOIN forensics.sources s ON s.incident_id = b.incident_id AND s.id = b.source_id
		WHERE `+w.String()+` ORDER BY s.path, s.incident_id, s.id, b.seq`, w.args...)
	if err != nil {
		return nil, db.fail("query lines", err)
	}
	defer rows.Close()
	srcs, err := block.ScanBlocks(rows, true)
	if err != nil {
		return nil, db.fail("query lines", err)
	}
	for i := range srcs {
		srcs[i].Path, srcs[i].Node = fromPG(srcs[i].Path), fromPG(srcs[i].Node)
	}
	return block.Choose(ctx, srcs, q, stats, db.readGrams)
}

func (db *DB) maxBlockSpan(ctx context.Context, incident int64) (int64, error) {
	var span *int64
	var err error
	if incident != 0 {
		err = db.pool.QueryRow(ctx, `SELECT max(max_block_span) FROM forensics.incidents WHERE incident_id = $1`, incident).Scan(&span)
	} else {
		err = db.pool.QueryRow(ctx, `SELECT max(max_block_span) FROM forensics.incidents`).Scan(&span)
	}
	if err != nil {
		return 0, db.fail("query lines", err)
	}
	if span == nil {
		return 0, nil
	}
	return *span, nil
}

// blocks is the store as block.MergeLines reads it.
type blocks struct{ db *DB }

func (b blocks) Block(ctx context.Context, src *block.Source, ref block.Ref, dst []byte) ([]byte, error) {
	if err := b.db.pool.QueryRow(ctx, `SELECT data FROM forensics.blocks WHERE incident_id = $1 AND source_id = $2 AND seq = $3`,
		src.Incident, src.ID, ref.Key).Scan(&dst); err != nil {
		return nil, b.db.fail("read lines of "+src.Path+" from", err)
	}
	return dst, nil
}

func (b blocks) Kinds(ctx context.Context, src *block.Source, first, last int64) (map[int64][]forensics.Kind, error) {
	rows, err := b.db.pool.Query(ctx, `SELECT line, kind FROM forensics.events WHERE incident_id = $1 AND source_id = $2 AND line BETWEEN $3 AND $4 ORDER BY line, seq`,
		src.Incident, src.ID, first, last)
	if err != nil {
		return nil, b.db.fail("read lines", err)
	}
	defer rows.Close()
	kinds, err := block.ScanKinds(rows)
	if err != nil {
		return nil, b.db.fail("read lines", err)
	}
	return kinds, nil
}
