package postgres

import (
	"bytes"
	"container/heap"
	"context"
	"iter"
	"sort"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

type blockRef struct {
	seq, firstLine int64
}

type sourceInfo struct {
	incident, id int64
	path, node   string
}

// Lines returns a cursor over the stored lines the filter selects, merged
// across sources in timeline order, as the SQLite backend does. Blocks are
// chosen by incident, source and time bounds in SQL; only those are read
// and decoded.
func (db *DB) Lines(ctx context.Context, f store.LineFilter) iter.Seq2[*store.Line, error] {
	return func(yield func(*store.Line, error) bool) {
		if err := db.lines(ctx, f, func(l *store.Line) bool { return yield(l, nil) }); err != nil {
			yield(nil, err)
		}
	}
}

func (db *DB) lines(ctx context.Context, f store.LineFilter, fn func(*store.Line) bool) error {
	srcs, blocks, err := db.candidateBlocks(ctx, f)
	if err != nil {
		return err
	}
	search := block.NewSearch(f.Text, f.Regexp)
	h := &lineHeap{}
	for _, s := range srcs {
		it := &sourceLines{db: db, ctx: ctx, src: s, blocks: blocks[s.id], filter: &f, text: []byte(f.Text), search: search}
		ok, err := it.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Push(h, it)
		}
	}
	for h.Len() > 0 {
		it := (*h)[0]
		if !fn(&it.cur) {
			return nil
		}
		ok, err := it.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// candidateBlocks finds the blocks that may hold lines in the window: a
// block can only overlap it if it starts at most the longest block span
// of the incident before it, which keeps the condition on t_min, the
// indexed column after the incident.
func (db *DB) candidateBlocks(ctx context.Context, f store.LineFilter) ([]sourceInfo, map[int64][]blockRef, error) {
	var w where
	inc, err := db.sources(ctx, &w, f.Run, f.Components, f.Paths)
	if err != nil {
		return nil, nil, err
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
			return nil, nil, err
		}
		w.add("b.t_min >= ?", f.Since.UnixNano()-span)
		w.add("b.t_max >= ?", f.Since.UnixNano())
	}
	rows, err := db.pool.Query(ctx, `SELECT b.seq, b.first_line, s.incident_id, s.id, s.path, s.node
		FROM forensics.blocks b JOIN forensics.sources s ON s.incident_id = b.incident_id AND s.id = b.source_id
		WHERE `+w.String()+` ORDER BY s.path, s.id, b.seq`, w.args...)
	if err != nil {
		return nil, nil, db.fail("query lines", err)
	}
	defer rows.Close()
	var srcs []sourceInfo
	blocks := map[int64][]blockRef{}
	for rows.Next() {
		var b blockRef
		var s sourceInfo
		if err := rows.Scan(&b.seq, &b.firstLine, &s.incident, &s.id, &s.path, &s.node); err != nil {
			return nil, nil, db.fail("query lines", err)
		}
		if _, ok := blocks[s.id]; !ok {
			srcs = append(srcs, s)
		}
		blocks[s.id] = append(blocks[s.id], b)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, db.fail("query lines", err)
	}
	return srcs, blocks, nil
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

// sourceLines iterates over the selected lines of one source.
type sourceLines struct {
	db     *DB
	ctx    context.Context
	src    sourceInfo
	blocks []blockRef
	filter *store.LineFilter
	text   []byte
	lines  []store.Line
	pos    int
	cur    store.Line
	buf    []byte
	data   []byte
	search block.Search // the blocks that can hold no line of the filter
}

func (it *sourceLines) next() (bool, error) {
	if !it.filter.Since.IsZero() && !it.filter.Until.IsZero() && len(it.blocks) > 0 {
		if err := it.loadWindow(); err != nil {
			return false, err
		}
	}
	for it.pos >= len(it.lines) {
		if len(it.blocks) == 0 {
			return false, nil
		}
		if err := it.load(it.blocks[0]); err != nil {
			return false, err
		}
		it.blocks = it.blocks[1:]
	}
	it.cur = it.lines[it.pos]
	it.pos++
	return true, nil
}

// loadWindow reads every selected line of the source in a bounded window
// and puts them in time order (file order breaks ties), as in SQLite.
func (it *sourceLines) loadWindow() error {
	var all []store.Line
	for _, b := range it.blocks {
		if err := it.load(b); err != nil {
			return err
		}
		all = append(all, it.lines...)
		it.lines = nil
	}
	it.blocks = nil
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	it.lines, it.pos = all, 0
	return nil
}

func (it *sourceLines) load(b blockRef) error {
	fail := func(err error) error {
		return it.db.fail("read lines of "+it.src.path+" from", err)
	}
	if err := it.db.pool.QueryRow(it.ctx, `SELECT data FROM forensics.blocks WHERE incident_id = $1 AND source_id = $2 AND seq = $3`,
		it.src.incident, it.src.id, b.seq).Scan(&it.data); err != nil {
		return fail(err)
	}
	f := it.filter
	it.lines, it.pos = it.lines[:0], 0
	var since, until int64
	if !f.Since.IsZero() {
		since = f.Since.UnixNano()
	}
	if !f.Until.IsZero() {
		until = f.Until.UnixNano()
	}
	var err error
	it.buf, err = block.DecodeSearch(b.firstLine, it.data, it.buf, it.search, func(l *block.Line) error {
		if since != 0 && l.Time < since || until != 0 && l.Time >= until {
			return nil
		}
		if len(it.text) > 0 && !bytes.Contains(l.Text, it.text) {
			return nil
		}
		if f.Regexp != nil && (!it.search.May(l.Text) || !f.Regexp.Match(l.Text)) { // the needles first: far cheaper than the regexp
			return nil
		}
		it.lines = append(it.lines, store.Line{
			SourceID: it.src.id, Source: it.src.path, Node: it.src.node,
			N: l.N, Time: time.Unix(0, l.Time).UTC(), Offset: l.Offset, Flags: l.Flags, Text: string(l.Text),
		})
		return nil
	})
	if err != nil {
		return fail(err)
	}
	if len(it.lines) == 0 {
		return nil
	}
	return it.attachKinds()
}

// attachKinds marks the lines on which events were recognised.
func (it *sourceLines) attachKinds() error {
	first, last := it.lines[0].N, it.lines[len(it.lines)-1].N
	if first > last {
		first, last = last, first // a window sorted by time
	}
	rows, err := it.db.pool.Query(it.ctx, `SELECT line, kind FROM forensics.events WHERE incident_id = $1 AND source_id = $2 AND line BETWEEN $3 AND $4 ORDER BY line, seq`,
		it.src.incident, it.src.id, first, last)
	if err != nil {
		return it.db.fail("read lines", err)
	}
	defer rows.Close()
	kinds := map[int64][]forensics.Kind{}
	for rows.Next() {
		var n int64
		var kind string
		if err := rows.Scan(&n, &kind); err != nil {
			return it.db.fail("read lines", err)
		}
		kinds[n] = append(kinds[n], forensics.Kind(kind))
	}
	if err := rows.Err(); err != nil {
		return it.db.fail("read lines", err)
	}
	for i := range it.lines {
		it.lines[i].Kinds = kinds[it.lines[i].N]
	}
	return nil
}

type lineHeap []*sourceLines

func (h lineHeap) Len() int { return len(h) }
func (h lineHeap) Less(i, j int) bool {
	return h[i].cur.Position().Compare(h[j].cur.Position()) < 0
}
func (h lineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)   { *h = append(*h, x.(*sourceLines)) }
func (h *lineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
