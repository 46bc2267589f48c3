package sqlite

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

// Events of schema 3 are in blocks (store/block/events.go). A block holds
// the events of one source in the order they were emitted, which is line
// order but for late multi-line entries and clocks that go back; so a
// cursor sorts each block it reads and merges the blocks, reading them in
// the order they start, and yields an event only once no block still
// unread can start before it.

// blockEvents calls fn for each event the filter selects, in timeline
// order, until fn returns false.
func (db *DB) blockEvents(ctx context.Context, f store.EventFilter, fn func(*forensics.Event) bool) error {
	var w where
	w.sources(f.Run, f.Components, f.Paths)
	since, until := int64(0), int64(0)
	if !f.Since.IsZero() {
		since = f.Since.UnixNano()
	}
	if !f.Until.IsZero() {
		until = f.Until.UnixNano()
	}
	var span int64
	if since != 0 {
		var err error
		if span, err = db.metaInt(ctx, "max_event_block_span"); err != nil {
			return err
		}
	}
	// A block can only hold events of the window if it starts at most the
	// longest block span before it: the index on t_min finds those.
	window := func(w *where, alias string) {
		if until != 0 {
			w.add(alias+".t_min < ?", until)
		}
		if since != 0 {
			w.add(alias+".t_min >= ?", since-span)
			w.add(alias+".t_max >= ?", since)
		}
	}
	if len(f.Kinds) > 0 {
		var k where
		in(&k, "k.kind", f.Kinds)
		window(&k, "k")
		w.add("b.id IN (SELECT k.block_id FROM main.event_kinds k WHERE "+k.String()+")", k.args...)
	}
	window(&w, "b")
	// The blocks are read through their index on t_min, which holds them in
	// the order asked: left to choose, SQLite looks them up by id and sorts
	// them, blobs and all, and the sort's memory grows with the timeline.
	q := `SELECT b.id, b.source_id, s.path, b.t_min, b.data FROM main.event_blocks b INDEXED BY event_blocks_t
		JOIN main.sources s ON s.id = b.source_id
		WHERE ` + w.String() + ` ORDER BY b.t_min, b.id`
	rows, err := db.sql.QueryContext(ctx, q, w.args...)
	if err != nil {
		return fmt.Errorf("query events: %w", err)
	}
	defer rows.Close()

	keep := eventKeep(f, since, until)
	lines := lineTexts{db: db, ctx: ctx}
	offset, limit := f.Offset, f.Limit
	var h runHeap
	var free [][]byte // the buffers of runs read to their end
	// emit yields the events of the blocks read so far that come before
	// next (unix ns), all of them when next is nil.
	emit := func(next *int64) (bool, error) {
		for h.Len() > 0 {
			r := h[0]
			if next != nil && r.run.Time(r.i) >= *next {
				return true, nil
			}
			se, err := r.run.Event(r.i)
			if err != nil {
				return false, fmt.Errorf("read the events of %s (block %d): %w", r.path, r.block, err)
			}
			if r.i++; r.i == r.run.Len() {
				heap.Pop(&h)
				free = append(free, r.run.Buffer())
			} else {
				heap.Fix(&h, 0)
			}
			if !keepSubject(f, &se.Event) {
				continue
			}
			e := &se.Event
			e.Path = r.path
			if se.OnLine {
				if e.Text, err = lines.text(r.src, e.Line); err != nil {
					return false, fmt.Errorf("event %s:%d: %w", e.Path, e.Line, err)
				}
			}
			if f.Text != "" && !strings.Contains(e.Text, f.Text) {
				continue
			}
			if offset > 0 {
				offset--
				continue
			}
			if !fn(e) {
				return false, nil
			}
			if limit > 0 {
				if limit--; limit == 0 {
					return false, nil
				}
			}
		}
		return true, nil
	}
	for rows.Next() {
		r := &eventRun{}
		var tmin int64
		var data sql.RawBytes
		if err := rows.Scan(&r.block, &r.src, &r.path, &tmin, &data); err != nil {
			return err
		}
		if ok, err := emit(&tmin); !ok || err != nil {
			return err
		}
		var buf []byte
		if n := len(free); n > 0 {
			buf, free = free[n-1], free[:n-1]
		}
		run, err := block.ReadEventRun(data, buf, keep)
		if err != nil {
			return fmt.Errorf("read the events of %s (block %d): %w", r.path, r.block, err)
		}
		if run.Len() == 0 {
			free = append(free, run.Buffer())
			continue
		}
		r.run = run
		heap.Push(&h, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	_, err = emit(nil)
	return err
}

// eventKeep is the part of the filter a block decoder checks before it
// makes an event's strings: its kind and time.
func eventKeep(f store.EventFilter, since, until int64) func(forensics.Kind, int64, int64) bool {
	if len(f.Kinds) == 0 && since == 0 && until == 0 {
		return nil
	}
	return func(k forensics.Kind, _, t int64) bool {
		if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, k) {
			return false
		}
		return (since == 0 || t >= since) && (until == 0 || t < until)
	}
}

// keepSubject checks the rest of the filter but the text.
func keepSubject(f store.EventFilter, e *forensics.Event) bool {
	switch {
	case len(f.Nodes) > 0 && !slices.Contains(f.Nodes, e.Node),
		f.Bucket != "" && e.Bucket != f.Bucket,
		f.VB != nil && e.VB != *f.VB,
		f.Range != 0 && e.Range != f.Range,
		f.Keyspace != "" && e.Keyspace != f.Keyspace,
		f.Table != "" && e.Table != f.Table:
		return false
	}
	return true
}

// eventRun is the events of one block, sorted, and the next to yield.
type eventRun struct {
	block, src int64
	path       string
	run        *block.EventRun
	i          int
}

// position is where the run's next event is on the timeline.
func (r *eventRun) position() forensics.Position {
	return forensics.Position{Time: time.Unix(0, r.run.Time(r.i)), Path: r.path, Line: r.run.Line(r.i)}
}

// runHeap orders runs by their next event, in timeline order
// (forensics.Position), then the order events were stored in.
type runHeap []*eventRun

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	return cmp.Or(a.position().Compare(b.position()), cmp.Compare(a.block, b.block),
		cmp.Compare(a.run.Index(a.i), b.run.Index(b.i))) < 0
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*eventRun)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// lineKinds keeps, for each source a query of lines reads, the kinds of
// the event blocks it read last. An event block holds up to
// block.MaxEvents events, and in a file with few of them spans hundreds of
// blocks of lines: decoding it again for each of them was a sixth of the
// work of dumping a timeline.
type lineKinds struct {
	mu       sync.Mutex
	bySource map[int64][]kindBlock
}

// kindBlock is the kinds of an event block, by line, in stored order.
type kindBlock struct {
	id    int64
	lines []int64
	kinds []forensics.Kind
}

// blockLineKinds returns the kinds of the events recognised on lines first
// to last of a source, by line, in the order they were stored. A source's
// lines are asked for in line order.
func (db *DB) blockLineKinds(ctx context.Context, lk *lineKinds, src, first, last int64) (map[int64][]forensics.Kind, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id FROM main.event_blocks WHERE source_id = ? AND min_line <= ? AND max_line >= ? ORDER BY id`, src, last, first)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	lk.mu.Lock()
	had := lk.bySource[src]
	lk.mu.Unlock()
	var cur []kindBlock
	var buf []byte
	for _, id := range ids {
		if i := slices.IndexFunc(had, func(kb kindBlock) bool { return kb.id == id }); i >= 0 {
			cur = append(cur, had[i])
			continue
		}
		var data []byte
		if err := db.sql.QueryRowContext(ctx, `SELECT data FROM main.event_blocks WHERE id = ?`, id).Scan(&data); err != nil {
			return nil, fmt.Errorf("read the events of source %d (block %d): %w", src, id, err)
		}
		kb := kindBlock{id: id}
		buf, err = block.DecodeEvents(data, buf, func(k forensics.Kind, n, _ int64) bool {
			kb.lines, kb.kinds = append(kb.lines, n), append(kb.kinds, k)
			return false // the kind and line are all there is to keep
		}, nil)
		if err != nil {
			return nil, fmt.Errorf("read the events of source %d (block %d): %w", src, id, err)
		}
		cur = append(cur, kb)
	}
	lk.mu.Lock()
	if lk.bySource == nil {
		lk.bySource = map[int64][]kindBlock{}
	}
	lk.bySource[src] = cur // the blocks before first are done with
	lk.mu.Unlock()
	kinds := map[int64][]forensics.Kind{}
	for _, kb := range cur {
		for i, n := range kb.lines {
			if n >= first && n <= last {
				kinds[n] = append(kinds[n], kb.kinds[i])
			}
		}
	}
	return kinds, nil
}
