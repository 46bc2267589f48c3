package block

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/search"
)

// Stored is a backend that keeps lines in blocks, as a Merge reads them.
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

// Ref names a stored block: its key in the backend, its first line, the
// earliest and latest times of its lines (unix ns), and its segment of the
// index of blocks and its place in it (Segment 0: the block is not indexed).
// Prior is the latest time of the lines of the source's blocks picked
// before it: a merge places a line by the latest time of its source up to
// it, and a search does not read every block (ScanBlocks sets it).
type Ref struct {
	Key, FirstLine, TMin, TMax int64
	Segment                    int64
	Place                      int
	Prior                      int64
}

// ScanBlocks reads rows of (block key, first line, earliest and latest
// time, segment, place, source id, path, node), with the source's incident
// before its id when incident is set, ordered by source: the blocks a
// backend picked for a filter.
func ScanBlocks(rows store.Rows, incident bool) ([]Source, error) {
	return scanBlocks(rows, func(b *Ref, s *Source) []any {
		if incident {
			return []any{&b.Key, &b.FirstLine, &b.TMin, &b.TMax, &b.Segment, &b.Place, &s.Incident, &s.ID, &s.Path, &s.Node}
		}
		return []any{&b.Key, &b.FirstLine, &b.TMin, &b.TMax, &b.Segment, &b.Place, &s.ID, &s.Path, &s.Node}
	})
}

// ScanBlockKeys is ScanBlocks for rows that end at the source's id, without
// its path and node: the caller names the sources after (Name). SQLite
// hands each column of a row through cgo, and a search of a 4 GiB
// timeline scanned four thousand rows of blocks that repeat a few dozen
// paths.
func ScanBlockKeys(rows store.Rows) ([]Source, error) {
	return scanBlocks(rows, func(b *Ref, s *Source) []any {
		return []any{&b.Key, &b.FirstLine, &b.TMin, &b.TMax, &b.Segment, &b.Place, &s.ID}
	})
}

func scanBlocks(rows store.Rows, dest func(*Ref, *Source) []any) ([]Source, error) {
	var srcs []Source
	var b Ref
	var s Source
	cols := dest(&b, &s)
	for rows.Next() {
		b, s = Ref{}, Source{}
		if err := rows.Scan(cols...); err != nil {
			return nil, err
		}
		if n := len(srcs); n == 0 || srcs[n-1].Incident != s.Incident || srcs[n-1].ID != s.ID {
			srcs = append(srcs, s)
		}
		last := &srcs[len(srcs)-1]
		if n := len(last.Blocks); n > 0 {
			b.Prior = max(last.Blocks[n-1].Prior, last.Blocks[n-1].TMax)
		}
		last.Blocks = append(last.Blocks, b)
	}
	return srcs, rows.Err()
}

// Name sets the path and node of each source from names (by source id),
// and sorts the sources by path as ScanBlocks' rows are.
func Name(srcs []Source, names map[int64][2]string) {
	for i := range srcs {
		n := names[srcs[i].ID]
		srcs[i].Path, srcs[i].Node = n[0], n[1]
	}
	slices.SortStableFunc(srcs, func(a, b Source) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.ID, b.ID))
	})
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

// A Merge reads the lines of blocks of several sources, merged in
// timeline order. In a window (Filter's Since and Until both set) every
// line is in time order; without one, lines stream and keep their file's
// order where its clock went backwards.
type Merge struct {
	Stored  Stored
	Sources []Source
	Filter  store.LineFilter
	Query   *search.Query // what every line the filter's Text and Regexp select contains (nil: Plan's)
	After   *store.Mark   // only the lines after this place
	Stats   *store.SearchStats
}

// MergeLines calls fn with the lines of srcs' blocks that f selects,
// merged in timeline order, until fn returns false. The line is reused
// once fn returns.
func MergeLines(ctx context.Context, st Stored, srcs []Source, f store.LineFilter, fn func(*store.Line) bool) error {
	m := Merge{Stored: st, Sources: srcs, Filter: f}
	return m.Lines(ctx, func(l *store.Line, _ store.Mark) bool { return fn(l) })
}

// Lines calls fn with each line the merge selects and its place, in
// order, until fn returns false. The line is reused once fn returns.
func (m *Merge) Lines(ctx context.Context, fn func(*store.Line, store.Mark) bool) error {
	f := &m.Filter
	q := m.Query
	if q == nil {
		q = search.Plan(f.Text, f.Fold, f.Regexp)
	}
	match := &matcher{text: []byte(f.Text), re: f.Regexp}
	if f.Fold && f.Text != "" {
		match.text, match.fold = nil, regexp.MustCompile(`(?i)`+regexp.QuoteMeta(f.Text))
	}
	if match.re != nil {
		match.reDFA = search.NewDFA(match.re)
	}
	if match.fold != nil {
		match.foldDFA = search.NewDFA(match.fold)
	}
	if !q.Scan() {
		match.q = q
	}
	if !f.Since.IsZero() {
		match.since = f.Since.UnixNano()
	}
	if !f.Until.IsZero() {
		match.until = f.Until.UnixNano()
	}
	stats := m.Stats
	if stats == nil {
		stats = &store.SearchStats{}
	}
	var read atomic.Int64 // blocks read line by line, on the read-ahead's goroutines too
	defer func() { stats.Read += int(read.Load()) }()
	window := !f.Since.IsZero() && !f.Until.IsZero()
	searching := f.Text != "" || f.Regexp != nil
	readAhead := searching && !window && (len(m.Sources) > 1 || len(m.Sources) == 1 && len(m.Sources[0].Blocks) > 1)
	shared := &Reader{} // the one reader of whole blocks: their lines are copied out, so sources take turns
	its := make([]*sourceLines, len(m.Sources))
	for i := range m.Sources {
		src := &m.Sources[i]
		it := &sourceLines{st: m.Stored, ctx: ctx, src: src, blocks: src.Blocks, match: match, noKinds: f.NoKinds, read: &read, whole: shared}
		if m.After != nil {
			it.after = m.After
			it.blocks = skipBefore(it.blocks, m.After.Time)
		}
		it.lazy = !window && !readAhead && !searching
		its[i] = it
	}
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
			it.mark = store.Mark{Time: max(b.Prior, b.TMin), Path: it.src.Path, Line: b.FirstLine, Incident: it.src.Incident, Source: it.src.ID}
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
	defer func() {
		for _, it := range its {
			if it.r != nil {
				it.r.Close()
			}
		}
	}()
	for h.Len() > 0 {
		it := (*h)[0]
		if it.unread {
			// Its place in the heap was its first block's earliest time,
			// no later than any of its lines.
			it.unread = false
		} else {
			stats.Lines++
			if !fn(&it.cur, it.mark) {
				return nil
			}
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

// skipBefore drops the blocks at the start of a source whose lines are all
// earlier than t: a page that resumes there has given them already.
func skipBefore(blocks []Ref, t int64) []Ref {
	for len(blocks) > 0 && blocks[0].TMax < t {
		blocks = blocks[1:]
	}
	return blocks
}

// matcher is what a line must be to be selected.
type matcher struct {
	since, until   int64 // unix ns; 0: unbounded
	text           []byte
	fold           *regexp.Regexp // the text in letters of either case
	re             *regexp.Regexp
	foldDFA, reDFA *search.DFA   // theirs, when they have one
	q              *search.Query // nil: no block is ruled out by its text
}

// runners are a goroutine's runners of a matcher's DFAs.
type runners struct{ fold, re *search.Runner }

func (m *matcher) runners() runners {
	var rs runners
	if m.foldDFA != nil {
		rs.fold = m.foldDFA.Runner()
	}
	if m.reDFA != nil {
		rs.re = m.reDFA.Runner()
	}
	return rs
}

func (rs runners) release() {
	if rs.fold != nil {
		rs.fold.Release()
	}
	if rs.re != nil {
		rs.re.Release()
	}
}

func (m *matcher) line(l *Line, rs runners) bool {
	return m.before(l) && matches(m.fold, rs.fold, l.Text) && matches(m.re, rs.re, l.Text)
}

// before reports whether a line passes what the matcher asks before its
// regexps: the window, the text, the query's strings.
func (m *matcher) before(l *Line) bool {
	if m.since != 0 && l.Time < m.since || m.until != 0 && l.Time >= m.until {
		return false
	}
	if len(m.text) > 0 && !bytes.Contains(l.Text, m.text) {
		return false
	}
	// The query's strings first: far cheaper than a regexp.
	return (m.re == nil && m.fold == nil) || m.q == nil || m.q.In(l.Text)
}

// regexp2 reports whether the regexp matches each of two texts, through
// its DFA's runner side by side.
func (m *matcher) regexp2(run *search.Runner, a, b []byte) (bool, bool) {
	ma, ka, mb, kb := run.Match2(a, b)
	if !ka {
		ma = m.re.Match(a)
	}
	if !kb {
		mb = m.re.Match(b)
	}
	return ma, mb
}

// matches reports whether re (nil: any text) matches text, asking its
// DFA's runner first.
func matches(re *regexp.Regexp, run *search.Runner, text []byte) bool {
	if re == nil {
		return true
	}
	if run != nil {
		if m, known := run.Match(text); known {
			return m
		}
	}
	return re.Match(text)
}

// sourceLines iterates over the selected lines of one source.
type sourceLines struct {
	st      Stored
	ctx     context.Context
	src     *Source
	blocks  []Ref
	match   *matcher
	noKinds bool
	read    *atomic.Int64 // blocks read line by line
	after   *store.Mark   // the lines up to this place are skipped

	cur     store.Line
	mark    store.Mark // cur's place: the latest place of the source's lines up to it
	curMark int64      // the latest time of the source's lines up to cur, selected or not
	latest  int64      // the same up to the last line read

	// Lazy: the lines of the block being read are decoded as they are
	// taken, from r (a dump of the whole timeline holds a block of each
	// source it has reached). Otherwise blocks are decoded whole, by the
	// merge's shared reader, and their selected lines copied to lines.
	lazy    bool
	r       *Reader
	reading bool // r has lines left
	ref     Ref
	last    int64                      // no line of the block is after this one: the next block's first line comes after
	kinds   map[int64][]forensics.Kind // of the lazy block's lines, read with its first selected line
	kinded  bool
	whole   *Reader
	lines   []store.Line
	marks   []int64 // of lines: each one's curMark
	pos     int

	data    []byte            // the stored block
	decoded chan chan decoded // with read-ahead: the futures of the blocks' lines, in order, instead of blocks
	unread  bool              // cur only places the source by its first block's time
}

// decoded is the lines of a block that pass the filter and their marks,
// or why it did not read.
type decoded struct {
	lines []store.Line
	marks []int64
	end   int64 // the latest time of the source's lines up to the block's end
	err   error
}

// readAhead decodes the blocks of a streaming search as many at once as
// there are cores, while the merge takes their lines in timeline order. A
// --grep over a big timeline decodes gigabytes of blocks that hold no
// match: one source at a time left the other cores idle, and so did one
// block at a time of a source, when one file (memcached.log, debug.log)
// holds most of what is searched. A block decodes on its own: its lines'
// places start from its Ref.Prior, which is what the blocks before it
// would have left. Each source holds at most depth blocks' lines ahead.
type readAhead struct {
	slots chan struct{}
	done  chan struct{}
	wg    sync.WaitGroup
	kits  chan *kit // one a slot, not one a block
	depth int
}

// kit is what decoding a block needs: a reader of whole blocks and a
// buffer for the stored bytes, reused from block to block.
type kit struct {
	r    Reader
	data []byte
}

func newReadAhead() *readAhead {
	n := runtime.GOMAXPROCS(0)
	return &readAhead{slots: make(chan struct{}, n), kits: make(chan *kit, n), done: make(chan struct{}), depth: max(2, n)}
}

// start hands its blocks to a goroutine, which has each decoded as soon
// as a slot is free and sends it.decoded the future of its lines, in order.
func (ra *readAhead) start(it *sourceLines) {
	ch := make(chan chan decoded, ra.depth-1)
	blocks := it.blocks
	it.blocks, it.decoded = nil, ch
	ra.wg.Add(1)
	go func() {
		defer ra.wg.Done()
		defer close(ch)
		for _, b := range blocks {
			fut := make(chan decoded, 1) // the decoding never waits for the merge
			select {
			case ch <- fut:
			case <-ra.done:
				return
			}
			select {
			case ra.slots <- struct{}{}:
			case <-ra.done:
				return
			}
			ra.wg.Add(1)
			go func() {
				defer ra.wg.Done()
				var k *kit
				select {
				case k = <-ra.kits:
				default:
					k = &kit{}
				}
				r := &sourceLines{st: it.st, ctx: it.ctx, src: it.src, match: it.match, noKinds: it.noKinds, read: it.read, whole: &k.r, data: k.data}
				err := r.load(b)
				k.data = r.data
				ra.kits <- k // never blocks: a slot holds at most one
				<-ra.slots
				fut <- decoded{r.lines, r.marks, r.latest, err}
			}()
		}
	}()
}

// stop ends the goroutines of a query that is done, and waits for them.
func (ra *readAhead) stop() {
	close(ra.done)
	ra.wg.Wait()
}

// next moves cur to the next line the source gives after the merge's
// After, and reports whether there is one.
func (it *sourceLines) next() (bool, error) {
	for {
		ok, err := it.step()
		if !ok || err != nil || it.unread {
			return ok, err
		}
		// The merge gives a source's lines in its file's order: a line's
		// place is its own time, or the latest time of the source's lines
		// before it, selected or not, when that is later (curMark). A
		// search's lines are thus in the order of the whole timeline's.
		it.mark = store.Mark{Time: max(it.mark.Time, it.curMark), Path: it.src.Path, Line: it.cur.N, Incident: it.src.Incident, Source: it.src.ID}
		if it.after == nil || it.mark.Compare(*it.after) > 0 {
			return true, nil
		}
	}
}

// step moves cur to the next selected line of the source.
func (it *sourceLines) step() (bool, error) {
	if it.lazy {
		return it.nextLazy()
	}
	if it.match.since != 0 && it.match.until != 0 && len(it.blocks) > 0 {
		if err := it.loadWindow(); err != nil {
			return false, err
		}
	}
	for it.pos >= len(it.lines) {
		if it.decoded != nil {
			fut, ok := <-it.decoded
			if !ok {
				return false, nil
			}
			d := <-fut
			if d.err != nil {
				return false, d.err
			}
			it.lines, it.marks, it.pos = d.lines, d.marks, 0
			if len(d.lines) == 0 {
				// Nothing selected in the block: the source's later lines
				// are placed at d.end or after. It waits in the merge there,
				// unread, so that the lines of other sources before that
				// are given before its next block is waited for: the first
				// page of a search whose matches are rare in some sources
				// no longer waits until those are read to the end.
				it.unread = true
				it.mark = store.Mark{Time: max(it.mark.Time, d.end), Path: it.src.Path, Line: it.mark.Line, Incident: it.src.Incident, Source: it.src.ID}
				return true, nil
			}
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
	it.cur, it.curMark = it.lines[it.pos], it.marks[it.pos]
	it.pos++
	return true, nil
}

// nextLazy moves cur to the next selected line of the block being read,
// opening the next block at the end of one.
func (it *sourceLines) nextLazy() (bool, error) {
	for {
		if !it.reading {
			if len(it.blocks) == 0 {
				return false, nil
			}
			if err := it.open(it.blocks[0]); err != nil {
				return false, err
			}
			it.blocks = it.blocks[1:]
		}
		l, err := it.r.Next()
		if err != nil {
			return false, fmt.Errorf("read block %d of %s: %w", it.ref.Key, it.src.Path, err)
		}
		if l == nil {
			it.reading = false
			continue
		}
		it.latest = max(it.latest, l.Time)
		if !it.match.line(l, runners{}) {
			continue
		}
		it.cur, it.curMark = it.line(l), it.latest
		if !it.noKinds {
			if !it.kinded {
				// The lines of a block are in line order: their kinds come
				// from the first selected line to the block's last.
				if it.kinds, err = it.st.Kinds(it.ctx, it.src, l.N, it.last); err != nil {
					return false, err
				}
				it.kinded = true
			}
			it.cur.Kinds = it.kinds[l.N]
		}
		return true, nil
	}
}

// open starts reading a block lazily.
func (it *sourceLines) open(b Ref) error {
	var err error
	if it.data, err = it.st.Block(it.ctx, it.src, b, it.data); err != nil {
		return err
	}
	if it.r == nil {
		it.r = &Reader{}
	}
	it.ref, it.kinds, it.kinded = b, nil, false
	it.latest = max(it.latest, b.Prior)
	it.last = math.MaxInt64
	if len(it.blocks) > 1 {
		it.last = it.blocks[1].FirstLine - 1
	}
	it.read.Add(1)
	if err := it.r.Open(b.FirstLine, it.data, false); err != nil {
		return fmt.Errorf("read block %d of %s: %w", b.Key, it.src.Path, err)
	}
	if !it.r.span {
		it.data = nil // decompressed whole: the stored bytes are not read again
	}
	it.reading = true
	return nil
}

// line returns the stored line l of the source.
func (it *sourceLines) line(l *Line) store.Line {
	return store.Line{
		SourceID: it.src.ID, Path: it.src.Path, Node: it.src.Node,
		N: l.N, Time: time.Unix(0, l.Time).UTC(), Offset: l.Offset, Flags: l.Flags, Text: string(l.Text),
	}
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
	// In time order, each line's place is its own time.
	it.marks = it.marks[:0]
	for i := range all {
		it.marks = append(it.marks, all[i].Time.UnixNano())
	}
	it.lines, it.pos = all, 0
	return nil
}

// load decodes a whole block into it.lines, those of its lines the filter
// selects.
func (it *sourceLines) load(b Ref) error {
	var err error
	if it.data, err = it.st.Block(it.ctx, it.src, b, it.data); err != nil {
		return err
	}
	it.lines, it.marks, it.pos = it.lines[:0], it.marks[:0], 0
	it.latest = max(it.latest, b.Prior)
	r := it.whole
	if err := r.Open(b.FirstLine, it.data, true); err != nil {
		return fmt.Errorf("read block %d of %s: %w", b.Key, it.src.Path, err)
	}
	defer r.Close()
	if q := it.match.q; q != nil && !q.In(r.Text()) {
		return nil
	}
	it.read.Add(1)
	rs := it.match.runners()
	defer rs.release()
	// A regexp's DFA runs two lines side by side (Runner.Match2): a line
	// that passes the rest of the filter waits for the next one. Its text
	// stays in the block's buffer, which is opened whole.
	pairs := rs.re != nil && it.match.fold == nil
	var held Line
	var heldMark int64
	holding := false
	keep := func(l *Line, mark int64) {
		it.lines = append(it.lines, it.line(l))
		it.marks = append(it.marks, mark)
	}
	for {
		l, err := r.Next()
		if err != nil {
			return fmt.Errorf("read block %d of %s: %w", b.Key, it.src.Path, err)
		}
		if l == nil {
			break
		}
		it.latest = max(it.latest, l.Time)
		switch {
		case !pairs:
			if it.match.line(l, rs) {
				keep(l, it.latest)
			}
		case !it.match.before(l):
		case !holding:
			held, heldMark, holding = *l, it.latest, true
		default:
			a, b := it.match.regexp2(rs.re, held.Text, l.Text)
			if a {
				keep(&held, heldMark)
			}
			if b {
				keep(l, it.latest)
			}
			holding = false
		}
	}
	if holding && matches(it.match.re, rs.re, held.Text) {
		keep(&held, heldMark)
	}
	if len(it.lines) == 0 || it.noKinds {
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
	// Two sources of the same path (runs of a file that changed between
	// them) are ordered by their keys, so that a page of a search resumes
	// where it ended.
	return h[i].mark.Compare(h[j].mark) < 0
}
func (h lineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)   { *h = append(*h, x.(*sourceLines)) }
func (h *lineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
