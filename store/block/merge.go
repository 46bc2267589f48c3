package block

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"iter"
	"runtime"
	"sort"
	"sync"
	"time"

	"forensics"
	"forensics/store"
)

// Stored is a backend that keeps lines in blocks, as MergeLines reads them.
// Both may be called from several goroutines at once.
type Stored interface {
	// Block returns the stored bytes of a block of src, in dst when it
	// can. The error says which block and source did not read.
	Block(ctx context.Context, src *Source, ref Ref, dst []byte) ([]byte, error)
	// Kinds returns the kinds of the events recognised on lines first to
	// last of src, by line, in the order they were stored.
	Kinds(ctx context.Context, src *Source, first, last int64) (map[int64][]forensics.Kind, error)
}

// Source is a source whose blocks a filter selects.
type Source struct {
	ID         int64
	Incident   int64 // with ID, the key of the source in a store of several incidents
	Path, Node string
	Blocks     []Ref // in line order
}

// Ref names a stored block: its key in the backend, its first line, and
// the earliest time of its lines (unix ns).
type Ref struct {
	Key, FirstLine, TMin int64
}

// Lines is a backend's Lines: a cursor over the merge of the blocks find
// picks for f (MergeLines), which yields an error once and ends.
func Lines(ctx context.Context, st Stored, f store.LineFilter, find func(context.Context, store.LineFilter) ([]Source, error)) iter.Seq2[*store.Line, error] {
	return func(yield func(*store.Line, error) bool) {
		srcs, err := find(ctx, f)
		if err == nil {
			err = MergeLines(ctx, st, srcs, f, func(l *store.Line) bool { return yield(l, nil) })
		}
		if err != nil {
			yield(nil, err)
		}
	}
}

// ScanBlocks reads rows of (block key, first line, earliest time, source
// id, path, node), with the source's incident before its id when incident
// is set, ordered by source: the blocks a backend picked for a filter.
func ScanBlocks(rows store.Rows, incident bool) ([]Source, error) {
	var srcs []Source
	for rows.Next() {
		var b Ref
		var s Source
		dest := []any{&b.Key, &b.FirstLine, &b.TMin, &s.ID, &s.Path, &s.Node}
		if incident {
			dest = []any{&b.Key, &b.FirstLine, &b.TMin, &s.Incident, &s.ID, &s.Path, &s.Node}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if n := len(srcs); n == 0 || srcs[n-1].Incident != s.Incident || srcs[n-1].ID != s.ID {
			srcs = append(srcs, s)
		}
		last := &srcs[len(srcs)-1]
		last.Blocks = append(last.Blocks, b)
	}
	return srcs, rows.Err()
}

// ScanKinds reads rows of (line, kind), ordered by line and then as the
// events were stored: what Stored.Kinds returns.
func ScanKinds(rows store.Rows) (map[int64][]forensics.Kind, error) {
	kinds := map[int64][]forensics.Kind{}
	for rows.Next() {
		var n int64
		var kind string
		if err := rows.Scan(&n, &kind); err != nil {
			return nil, err
		}
		kinds[n] = append(kinds[n], forensics.Kind(kind))
	}
	return kinds, rows.Err()
}

// MergeLines calls fn with the lines of srcs' blocks that f selects, merged
// in timeline order, until fn returns false. In a window (Since and Until
// both set) every line is in time order; without one, lines stream and keep
// their file's order where its clock went backwards. The line is reused
// once fn returns.
func MergeLines(ctx context.Context, st Stored, srcs []Source, f store.LineFilter, fn func(*store.Line) bool) error {
	search := NewSearch(f.Text, f.Regexp)
	var spare []byte // the decoded block: lines are copied out of it, so sources take turns
	its := make([]*sourceLines, len(srcs))
	for i := range srcs {
		its[i] = &sourceLines{st: st, ctx: ctx, src: &srcs[i], blocks: srcs[i].Blocks, filter: &f, text: []byte(f.Text), search: search, spare: &spare}
	}
	window := !f.Since.IsZero() && !f.Until.IsZero()
	readAhead := (f.Text != "" || f.Regexp != nil) && !window && len(its) > 1
	if readAhead {
		ra := newReadAhead()
		defer ra.stop()
		for _, it := range its {
			ra.start(it)
		}
	}
	h := &lineHeap{}
	for _, it := range its {
		if !window && !readAhead && len(it.blocks) > 0 {
			// A source's first block is read when the merge reaches its
			// earliest time, not before: a dump of a whole timeline holds
			// the blocks of the sources that overlap, not of every source.
			b := it.blocks[0]
			it.cur = store.Line{Path: it.src.Path, N: b.FirstLine, Time: time.Unix(0, b.TMin).UTC()}
			it.unread = true
			heap.Push(h, it)
			continue
		}
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
		if it.unread {
			// Its place in the heap was its first block's earliest time,
			// no later than any of its lines.
			it.unread = false
		} else if !fn(&it.cur) {
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

// sourceLines iterates over the selected lines of one source.
type sourceLines struct {
	st      Stored
	ctx     context.Context
	src     *Source
	blocks  []Ref
	filter  *store.LineFilter
	text    []byte
	lines   []store.Line // decoded lines of the current block that pass the filter
	pos     int
	cur     store.Line
	data    []byte       // the stored block
	buf     []byte       // the block decompressed
	decoded chan decoded // with read-ahead: the blocks' lines, in order, instead of blocks
	search  Search       // the blocks that can hold no line of the filter
	spare   *[]byte      // the merge's one buffer for decoded blocks (read-ahead has its own)
	unread  bool         // cur only places the source by its first block's time
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
	r := &sourceLines{st: it.st, ctx: it.ctx, src: it.src, filter: it.filter, text: it.text, search: it.search}
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

// load decodes a block into it.lines, those of its lines the filter selects.
func (it *sourceLines) load(b Ref) error {
	var err error
	if it.data, err = it.st.Block(it.ctx, it.src, b, it.data); err != nil {
		return err
	}
	f := it.filter
	it.lines, it.pos = it.lines[:0], 0
	if it.spare != nil {
		it.buf, *it.spare = *it.spare, nil
		defer func() { *it.spare, it.buf = it.buf, nil }()
	}
	var since, until int64
	if !f.Since.IsZero() {
		since = f.Since.UnixNano()
	}
	if !f.Until.IsZero() {
		until = f.Until.UnixNano()
	}
	it.buf, err = DecodeSearch(b.FirstLine, it.data, it.buf, it.search, func(l *Line) error {
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
			SourceID: it.src.ID, Path: it.src.Path, Node: it.src.Node,
			N: l.N, Time: time.Unix(0, l.Time).UTC(), Offset: l.Offset, Flags: l.Flags, Text: string(l.Text),
		})
		return nil
	})
	if err != nil {
		return fmt.Errorf("read block %d of %s: %w", b.Key, it.src.Path, err)
	}
	if len(it.lines) == 0 || f.NoKinds {
		return nil
	}
	// The lines of a block are in line order.
	kinds, err := it.st.Kinds(it.ctx, it.src, it.lines[0].N, it.lines[len(it.lines)-1].N)
	if err != nil {
		return err
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
