package sqlite

import (
	"bytes"
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"iter"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

type blockRef struct {
	id        int64
	firstLine int64
}

type sourceInfo struct {
	id   int64
	path string
	node string
}

// Lines returns a cursor over the stored lines the filter selects, merged
// across sources in timeline order. In a window (Since and Until both set)
// every line is in time order; without one, lines stream and keep their
// file's order where its clock went backwards. The line yielded is reused
// once the loop body returns.
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
	its := make([]*sourceLines, len(srcs))
	for i, s := range srcs {
		its[i] = &sourceLines{db: db, ctx: ctx, src: s, blocks: blocks[s.id], filter: &f, text: []byte(f.Text), search: search}
	}
	if grep := f.Text != "" || f.Regexp != nil; grep && (f.Since.IsZero() || f.Until.IsZero()) && len(its) > 1 {
		ra := newReadAhead()
		defer ra.stop()
		for _, it := range its {
			ra.start(it)
		}
	}
	h := &lineHeap{}
	for _, it := range its {
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

// candidateBlocks finds the blocks that may hold lines in the window,
// using the index on t_min: a block can only overlap the window if it starts
// at most the longest block span before it.
func (db *DB) candidateBlocks(ctx context.Context, f store.LineFilter) ([]sourceInfo, map[int64][]blockRef, error) {
	var span int64
	if !f.Since.IsZero() {
		var err error
		if span, err = db.metaInt(ctx, "max_block_span"); err != nil {
			return nil, nil, err
		}
	}
	q, args := candidateQuery(f, span)
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("query lines: %w", err)
	}
	defer rows.Close()
	var srcs []sourceInfo
	blocks := map[int64][]blockRef{}
	for rows.Next() {
		var b blockRef
		var s sourceInfo
		if err := rows.Scan(&b.id, &b.firstLine, &s.id, &s.path, &s.node); err != nil {
			return nil, nil, err
		}
		if _, ok := blocks[s.id]; !ok {
			srcs = append(srcs, s)
		}
		blocks[s.id] = append(blocks[s.id], b)
	}
	return srcs, blocks, rows.Err()
}

// candidateQuery is the query of candidateBlocks, given the longest span
// of a block. It reads only the index of blocks (schema.sql says why).
func candidateQuery(f store.LineFilter, span int64) (string, []any) {
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
	return `SELECT b.id, b.first_line, s.id, s.path, s.node FROM main.blocks b JOIN main.sources s ON s.id = b.source_id
		WHERE ` + w.String() + ` ORDER BY s.path, s.id, b.first_line`, w.args
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
	return strconv.ParseInt(v.String, 10, 64)
}

// sourceLines iterates over the selected lines of one source.
type sourceLines struct {
	db      *DB
	ctx     context.Context
	src     sourceInfo
	blocks  []blockRef
	filter  *store.LineFilter
	text    []byte
	lines   []store.Line // decoded lines of the current block that pass the filter
	pos     int
	cur     store.Line
	buf     []byte
	decoded chan decoded // with read-ahead: the blocks' lines, in order, instead of blocks
	search  block.Search // the blocks that can hold no line of the filter
}

// decoded is the lines of a block that pass the filter, or why it did not read.
type decoded struct {
	lines []store.Line
	err   error
}

// readAhead reads the blocks of each source of a streaming search on a
// goroutine of its own, as many at once as there are cores, while the merge
// takes their lines in timeline order. A --grep over a big timeline decodes
// gigabytes of blocks that hold no match, and one source at a time left the
// other cores idle. Each source holds at most one block's lines ahead.
type readAhead struct {
	slots chan struct{}
	done  chan struct{}
	wg    sync.WaitGroup
	bufs  chan []byte // decompressed blocks: one a slot, not one a source
}

func newReadAhead() *readAhead {
	n := runtime.GOMAXPROCS(0)
	return &readAhead{slots: make(chan struct{}, n), bufs: make(chan []byte, n), done: make(chan struct{})}
}

// start hands its blocks to a goroutine, which sends their lines to it.decoded.
func (ra *readAhead) start(it *sourceLines) {
	ch := make(chan decoded)
	r := &sourceLines{db: it.db, ctx: it.ctx, src: it.src, filter: it.filter, text: it.text, search: it.search}
	blocks := it.blocks
	it.blocks, it.decoded = nil, ch
	ra.wg.Add(1)
	go func() {
		defer ra.wg.Done()
		defer close(ch)
		for _, b := range blocks {
			select {
			case ra.slots <- struct{}{}:
			case <-ra.done:
				return
			}
			select {
			case r.buf = <-ra.bufs:
			default:
			}
			err := r.load(b)
			ra.bufs <- r.buf // never blocks: a slot holds at most one
			r.buf = nil
			<-ra.slots
			if err == nil && len(r.lines) == 0 {
				continue
			}
			select {
			case ch <- decoded{r.lines, err}:
			case <-ra.done:
				return
			}
			if err != nil {
				return
			}
			r.lines = nil // the merge has them
		}
	}()
}

// stop ends the goroutines of a query that is done, and waits for them.
func (ra *readAhead) stop() {
	close(ra.done)
	ra.wg.Wait()
}

func (it *sourceLines) next() (bool, error) {
	if !it.filter.Since.IsZero() && !it.filter.Until.IsZero() && len(it.blocks) > 0 {
		if err := it.loadWindow(); err != nil {
			return false, err
		}
	}
	for it.pos >= len(it.lines) {
		if it.decoded != nil {
			d, ok := <-it.decoded
			if !ok {
				return false, nil
			}
			if d.err != nil {
				return false, d.err
			}
			it.lines, it.pos = d.lines, 0
			continue
		}
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
// and puts them in time order: a file whose clock goes back (diag.log's event
// log after its ns_log section, a rotated log appended to another) would
// otherwise list a later time before an earlier one. File order breaks ties.
func (it *sourceLines) loadWindow() error {
	var all []store.Line
	for _, b := range it.blocks {
		if err := it.load(b); err != nil {
			return err
		}
		all = append(all, it.lines...)
		it.lines = nil // load reuses the slice; the lines are kept in all
	}
	it.blocks = nil
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	it.lines, it.pos = all, 0
	return nil
}

func (it *sourceLines) load(b blockRef) error {
	var data []byte
	if err := it.db.sql.QueryRowContext(it.ctx, `SELECT data FROM main.blocks WHERE id = ?`, b.id).Scan(&data); err != nil {
		return fmt.Errorf("read block %d of %s: %w", b.id, it.src.path, err)
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
	it.buf, err = block.DecodeSearch(b.firstLine, data, it.buf, it.search, func(l *block.Line) error {
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
		return fmt.Errorf("read block %d of %s: %w", b.id, it.src.path, err)
	}
	if len(it.lines) == 0 {
		return nil
	}
	return it.attachKinds()
}

// attachKinds marks the lines on which events were recognised.
func (it *sourceLines) attachKinds() error {
	first, last := it.lines[0].N, it.lines[len(it.lines)-1].N
	if it.db.schema >= 3 {
		kinds, err := it.db.blockLineKinds(it.ctx, it.src.id, first, last)
		for i := range it.lines {
			it.lines[i].Kinds = append(it.lines[i].Kinds, kinds[it.lines[i].N]...)
		}
		return err
	}
	rows, err := it.db.sql.QueryContext(it.ctx, `SELECT line, kind FROM main.events WHERE source_id = ? AND line BETWEEN ? AND ? ORDER BY line, id`, it.src.id, first, last)
	if err != nil {
		return err
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var n int64
		var kind string
		if err := rows.Scan(&n, &kind); err != nil {
			return err
		}
		for i < len(it.lines) && it.lines[i].N < n {
			i++
		}
		for j := i; j < len(it.lines) && it.lines[j].N == n; j++ {
			it.lines[j].Kinds = append(it.lines[j].Kinds, forensics.Kind(kind))
		}
	}
	return rows.Err()
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
