// Package ingest reads inputs into the timeline: it walks them, picks a
// format for each file, parses files in parallel on every core, and feeds
// one database writer.
package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math/bits"
	"path"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"forensics"
	"forensics/input"
	"forensics/lines"
	"forensics/prose"
	"forensics/report"
	"forensics/store"
	"forensics/zran"
)

// Options configure a run.
type Options struct {
	Formats  []forensics.Format
	Workers  int // parallel parsers; 0 means one per core
	Limits   input.Limits
	Progress *Progress // updated as the run goes, for a progress display; may be nil
}

// Step is the step a run is in, for a progress display.
type Step int32

const (
	Reading Step = iota // reading the inputs into the timeline
	Rules               // running the rules
	Report              // writing the output
)

func (p Step) String() string {
	switch p {
	case Rules:
		return "rules"
	case Report:
		return "report"
	}
	return "reading"
}

// Progress counts a run's work so far. Its fields are updated atomically
// while the run goes on.
type Progress struct {
	Files     atomic.Int64 // files to read: surveyed up front, raised if the walk finds more
	FilesDone atomic.Int64 // files read or skipped
	Bytes     atomic.Int64 // uncompressed bytes to read: surveyed up front, raised if the walk finds more
	BytesRead atomic.Int64 // uncompressed bytes read, and the rest of files skipped or already stored
	Step      atomic.Int32 // a Step
}

// Skipped is a file that was not read, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Result says what a run read.
type Result struct {
	Run      int64
	Read     int // sources read in this run
	Reused   int // sources already in the timeline from an earlier run
	Skipped  []Skipped
	Problems []forensics.Problem
}

// headSize is how much of a file format detection sees.
const headSize = 16 << 10

// eventBatch is how many events a worker collects before handing them to the writer.
const eventBatch = 512

// Run reads paths into the timeline through w.
func Run(ctx context.Context, db store.Backend, w store.Writer, paths []string, opt Options) (Result, error) {
	res := Result{Run: w.Run()}
	prog := opt.Progress
	if prog == nil {
		prog = &Progress{}
	}
	loaded, err := db.Keys(ctx)
	if err != nil {
		return res, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	msgs := make(chan msg, 4*workers)
	members := make(chan input.Member, workers)
	var walkMu sync.Mutex
	var walkProblems []forensics.Problem
	problem := func(p forensics.Problem) {
		walkMu.Lock()
		walkProblems = append(walkProblems, p)
		walkMu.Unlock()
	}

	var walkSkipped []Skipped
	skip := func(path, reason string) {
		walkMu.Lock()
		walkSkipped = append(walkSkipped, Skipped{Path: path, Reason: reason})
		walkMu.Unlock()
	}
	walker := &input.Walker{Limits: opt.Limits, Problem: problem, Skip: skip}
	defer walker.Close()
	prog.Step.Store(int32(Reading))
	files, bytes := input.Survey(paths)
	prog.Files.Store(files)
	prog.Bytes.Store(bytes)
	go func() {
		defer close(members)
		var found, size int64
		err := walker.Walk(ctx, paths, func(m input.Member) error {
			// The survey cannot see inside tarballs: raise the totals when
			// the walk finds more than it counted.
			found++
			if m.Size > 0 {
				size += m.Size
			}
			raise(&prog.Files, found)
			raise(&prog.Bytes, size)
			select {
			case members <- m:
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
		if err != nil {
			cancel(err)
		}
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := worker{formats: opt.Formats, out: msgs, ctx: ctx, loaded: loaded, progress: prog, newLines: w.LineBuffer}
			for m := range members {
				wk.read(m)
				// A file skipped after its first bytes, or recognised as
				// already stored, is done: its bytes count as read.
				if rest := m.Size - wk.readBytes; m.Size > 0 && rest > 0 {
					prog.BytesRead.Add(rest)
				}
				prog.FilesDone.Add(1)
			}
			if wk.lines != nil {
				wk.lines.Release()
			}
		}()
	}
	go func() { wg.Wait(); close(msgs) }()

	// The writer: this goroutine is the only one that touches the database.
	var werr error
	for m := range msgs {
		if werr != nil {
			continue // drain: the workers stop once they see the cancellation
		}
		if err := write(w, m, &res); err != nil {
			if cause := context.Cause(ctx); cause != nil {
				err = cause // interrupted: the write failed because the run was cancelled
			}
			werr = err
			cancel(err)
		}
	}
	if werr != nil {
		w.Rollback()
		return res, werr
	}
	if err := context.Cause(ctx); err != nil {
		// Interrupted: sources not yet complete stay invisible, and the next
		// run removes them and reads them again.
		w.Rollback()
		return res, err
	}
	walkMu.Lock()
	res.Problems = append(res.Problems, walkProblems...)
	res.Skipped = append(res.Skipped, walkSkipped...)
	walkMu.Unlock()
	sort.Slice(res.Skipped, func(i, j int) bool { return res.Skipped[i].Path < res.Skipped[j].Path })
	sort.SliceStable(res.Problems, func(i, j int) bool { return res.Problems[i].Path < res.Problems[j].Path })
	return res, w.Commit()
}

type msgKind int

const (
	msgBegin msgKind = iota
	msgBlock
	msgEvents
	msgEnd
	msgReused
	msgSkipped
	msgProblem
)

type msg struct {
	kind    msgKind
	src     *source
	lines   store.LineBatch
	events  *eventBatchBuf
	reason  string
	path    string
	key     string
	problem forensics.Problem
	begin   forensics.Source // the source as it starts: the worker goes on filling in src
}

// source is one member being read, shared by its worker and the writer.
type source struct {
	forensics.Source
	stop atomic.Bool // set by the writer when the source need not be read further
}

func write(w store.Writer, m msg, res *Result) error {
	switch m.kind {
	case msgSkipped:
		res.Skipped = append(res.Skipped, Skipped{Path: m.path, Reason: m.reason})
	case msgProblem:
		res.Problems = append(res.Problems, m.problem)
	case msgReused:
		_, ok, err := w.Loaded(m.key)
		if err != nil {
			return err
		}
		if ok {
			res.Reused++
		}
	case msgBegin:
		err := w.BeginSource(&m.begin)
		m.src.ID = m.begin.ID
		if errors.Is(err, store.ErrLoaded) {
			m.src.stop.Store(true)
			if _, _, err := w.Loaded(m.begin.Key); err != nil {
				return err
			}
			res.Reused++
			return nil
		}
		return err
	case msgBlock:
		if m.src.ID == 0 || m.src.stop.Load() {
			m.lines.Release()
			return nil
		}
		return w.AddLines(m.src.ID, m.lines)
	case msgEvents:
		defer m.events.release()
		if m.src.ID == 0 || m.src.stop.Load() {
			return nil
		}
		if lw, ok := w.(store.LineTextWriter); ok {
			return lw.AddEventsOnLines(m.src.ID, m.events.events, m.events.onLine)
		}
		return w.AddEvents(m.src.ID, m.events.events)
	case msgEnd:
		if m.src.ID == 0 {
			return nil
		}
		if m.src.stop.Load() {
			return w.AbortSource(m.src.ID)
		}
		err := w.EndSource(&m.src.Source)
		if errors.Is(err, store.ErrLoaded) {
			if _, _, err := w.Loaded(m.src.Key); err != nil {
				return err
			}
			res.Reused++
			return nil
		}
		if err != nil {
			return err
		}
		res.Read++
		res.Problems = append(res.Problems, m.src.Problems...)
	}
	return nil
}

type worker struct {
	ctx      context.Context
	formats  []forensics.Format
	out      chan<- msg
	loaded   map[string]bool
	lines    store.LineBuffer
	newLines func() store.LineBuffer
	progress *Progress
	// readBytes is how much of the last member read counted.
	readBytes int64
}

// raise sets v to n when n is larger.
func raise(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}

func (wk *worker) send(m msg) {
	select {
	case wk.out <- m:
	case <-wk.ctx.Done():
	}
}

func (wk *worker) skip(path, reason string) {
	wk.send(msg{kind: msgSkipped, path: path, reason: reason})
}

// maxProblems bounds the line problems kept per source; the rest are counted.
const maxProblems = 20

func (wk *worker) read(m input.Member) {
	wk.readBytes = 0
	if wk.ctx.Err() != nil {
		return
	}
	if m.Key != "" && wk.loaded[m.Key] {
		wk.send(msg{kind: msgReused, key: m.Key})
		return
	}
	rc, err := m.Open()
	if err != nil {
		wk.skip(m.Path, fmt.Sprintf("cannot open: %v", err))
		return
	}
	defer rc.Close()
	counted := &countingReader{r: rc, progress: &wk.progress.BytesRead}
	// Content is stored under the size and checksum of what is read, not
	// of what an archive states (input.Member.Key, by which it is looked up
	// before reading): a member whose header lies about other content is
	// then not taken for the genuine one. A zip member's reader computes
	// the checksum anyway; the others are summed here.
	var crc hash.Hash32
	if _, ok := input.ReadSum(rc); !ok {
		crc = crc32.NewIEEE()
		counted.hash = crc
	}
	defer func() { wk.readBytes = counted.n }()
	br := bufio.NewReaderSize(counted, headSize)
	head, err := br.Peek(headSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		if len(head) == 0 {
			wk.skip(m.Path, fmt.Sprintf("cannot read: %v", err))
			return
		}
	}
	if reason := notEvidence(wk.formats, m.Name, head); reason != "" {
		wk.skip(m.Path, reason)
		return
	}
	d := detect(wk.formats, m.Name, head)
	format, ok := d.format, d.score > 0
	if !ok {
		reason := "not a format forensics reads"
		if len(head) == 0 {
			reason = "empty file"
		} else if isBinary(head) {
			reason = "binary file, not a log"
		}
		wk.skip(m.Path, reason)
		if m.Named {
			wk.send(msg{kind: msgProblem, problem: forensics.Problem{Path: m.Path, Reason: reason + "; see the README for the inputs forensics reads", Lost: true}})
		}
		return
	}
	src := &source{Source: forensics.Source{
		Path: m.Path, Node: m.Node, Format: format.Name, Component: format.Component, Key: m.Key,
	}}
	wk.send(msg{kind: msgBegin, src: src, begin: src.Source})
	if wk.lines == nil {
		wk.lines = wk.newLines()
	}
	origin := m.Origin()
	origin.Name = d.name
	p := parse{wk: wk, src: src, parser: format.New(origin), strip: d.strip, fallback: m.ModTime}
	if t, ok := rc.(zran.Traced); ok && t.Trail() != nil {
		p.traced = wk.lines.Follow(t.Trail())
		defer wk.lines.Follow(nil)
	}
	readErr := p.run(br)
	// A parser that learns the node from the lines (a header, the logging
	// tags, the file name) names it when the path and the events did not.
	if n, ok := p.parser.(interface{ Node() string }); ok && src.Node == "" {
		src.Node = n.Node()
	}
	src.Bytes = counted.n
	sum, ok := input.ReadSum(rc)
	if !ok {
		sum = crc.Sum32()
	}
	if src.Key == "" {
		src.Key = input.Key(m.Node, m.Rel, counted.n, sum)
	} else {
		src.Key = input.Rekey(src.Key, counted.n, sum)
	}
	var limit *input.LimitError
	var size *input.SizeError
	switch {
	case readErr == nil:
	case errors.As(readErr, &size):
		src.Problems = append(src.Problems, forensics.Problem{
			Path:   m.Path,
			Reason: fmt.Sprintf("%v: all %d lines the data holds were read; the header is wrong, the archive may have been edited", size, src.Lines),
		})
	case errors.Is(readErr, input.ErrChecksum):
		src.Problems = append(src.Problems, forensics.Problem{
			Path:   m.Path,
			Reason: fmt.Sprintf("checksum mismatch: all %d lines were read, but some may be damaged", src.Lines),
		})
	case errors.As(readErr, &limit):
		src.Problems = append(src.Problems, forensics.Problem{
			Path: m.Path, Line: src.Lines + 1,
			Reason: fmt.Sprintf("%s; the %d lines before are kept", limit.Reason, src.Lines),
			Lost:   true,
		})
	default:
		src.Problems = append(src.Problems, forensics.Problem{
			Path: m.Path, Line: src.Lines + 1,
			Reason: fmt.Sprintf("reading stopped: %v; the %d lines before are kept", readErr, src.Lines),
			Lost:   true,
		})
	}
	wk.send(msg{kind: msgEnd, src: src})
}

// notEvidence returns why a file is not evidence, or "": a report
// forensics wrote, or a page written for people that quotes log lines (a
// ticket, notes, an issue saved as Markdown or HTML), unless a format reads
// such pages as what they are.
func notEvidence(formats []forensics.Format, name string, head []byte) string {
	if what, ok := report.Recognise(head); ok {
		return what + ", not evidence"
	}
	if page := prose.Detect(head); page != "" {
		if f, ok := Detect(formats, name, head); ok && f.Pages {
			return ""
		}
		return page + " that quotes evidence, not evidence itself"
	}
	return ""
}

// Detect picks the format that is surest about a file.
func Detect(formats []forensics.Format, name string, head []byte) (forensics.Format, bool) {
	f, score := surest(formats, name, head)
	return f, score > 0
}

func surest(formats []forensics.Format, name string, head []byte) (forensics.Format, int) {
	best, score := forensics.Format{}, 0
	for _, f := range formats {
		if s := f.Detect(name, head); s > score {
			best, score = f, s
		}
	}
	return best, score
}

// detection is the format a file is read in, and how.
type detection struct {
	format forensics.Format
	score  int
	strip  *lines.Stripper // the prefixes a tool put before each line; nil: none
	name   string          // the name the format knows the file by
}

// detect picks the format that is surest about a file, read as it is or
// without the prefixes a tool put before each of its lines: grep (which
// may also name the file: the log's own name then counts), kubectl, a log
// shipper's time. A log whose own lines start with what looks like a
// prefix (a time) reads best as it is, so every depth of stripping is
// tried and the surest wins; as it is wins a tie.
func detect(formats []forensics.Format, name string, head []byte) detection {
	d := detection{name: name}
	d.format, d.score = surest(formats, name, head)
	st := lines.NewStripper(head)
	if st == nil {
		return d
	}
	names := []string{name}
	if f := st.File(); f != "" {
		names = append(names, path.Base(f))
	}
	for n := 1; n <= len(st.Layers()); n++ {
		s := st.Depth(n)
		h := s.StripHead(head)
		for _, nm := range names {
			if f, score := surest(formats, nm, h); score > d.score {
				d = detection{format: f, score: score, strip: s, name: nm}
			}
		}
	}
	return d
}

func isBinary(head []byte) bool {
	n := min(len(head), 4096)
	bad := 0
	for _, c := range head[:n] {
		if c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b) {
			bad++
		}
	}
	return bad*20 > n // over 5% control bytes
}

type countingReader struct {
	r        io.Reader
	n        int64
	hash     io.Writer // nil: no checksum
	progress *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.hash != nil {
		c.hash.Write(p[:n])
	}
	c.progress.Add(int64(n))
	return n, err
}

// parse is the reading of one source.
type parse struct {
	wk       *worker
	src      *source
	parser   forensics.Parser
	fallback time.Time // for lines before any time: the file's modification time

	cur        forensics.Stamp // time of the last line that had one
	events     *eventBatchBuf  // events not yet handed to the writer
	lineN      int64           // the line the parser is reading, while it does
	lineText   []byte
	whole      bool // that line is a whole line, not a piece of a cut one
	density    kindDensity
	line       store.NewLine // the line being handed to the store
	eventLines bitset        // lines that produced an event, wherever the parser emitted it
	pending    []pendingLine
	pendSz     int
	first      time.Time       // earliest event time, for lines of documents without times
	stored     int64           // lines handed to the store
	traced     bool            // the lines are stored as the deflate stream they come from
	strip      *lines.Stripper // prefixes to strip before the parser reads a line; the store keeps them
}

// pendingLine is a line read before the first line with a time: it gets
// that line's time, so a header block at the top of a file sorts with it.
type pendingLine struct {
	n     int64
	pos   int64
	flags store.LineFlags
	text  []byte
}

const maxPending = 1 << 20

func (p *parse) emit(e *forensics.Event) {
	if p.events == nil {
		p.events = newEventBatch()
	}
	b := p.events
	b.events = append(b.events, *e)
	c := &b.events[len(b.events)-1]
	// The attributes of a batch share one array; the writer does not keep them.
	start := len(b.attrs)
	b.attrs = append(b.attrs, e.Attrs...)
	c.Attrs = b.attrs[start:len(b.attrs):len(b.attrs)]
	if c.Node == "" {
		c.Node = p.src.Node
	}
	if p.src.Node == "" && c.Node != "" {
		p.src.Node = c.Node
	}
	if c.Time.IsZero() {
		c.Stamp = p.cur
		if c.Time.IsZero() {
			c.Stamp = forensics.Stamp{Time: p.fallback.UTC(), Zone: forensics.ZoneInherited}
		}
	}
	if p.first.IsZero() || c.Time.Before(p.first) {
		p.first = c.Time
	}
	c.Path = p.src.Path
	// An event whose text is the line it was recognised on, whole, need
	// not be stored twice: the line is. But a reader then decodes the line's
	// block to give the text back, which pays only for a kind with many
	// events in the block (DCP stream churn), not for one event now and then,
	// and not when the block is a deflate span, which decodes ten times as
	// slowly as S2.
	p.density.count(c.Kind)
	b.onLine = append(b.onLine, !p.traced && p.whole && c.Line == p.lineN && p.density.dense(c.Kind) && c.Text == string(p.lineText))
	p.eventLines.set(c.Line)
	if len(b.events) >= eventBatch {
		p.flushEvents()
	}
}

func (p *parse) flushEvents() {
	if p.events == nil || len(p.events.events) == 0 {
		return
	}
	p.wk.send(msg{kind: msgEvents, src: p.src, events: p.events})
	p.events = nil
}

// eventBatchBuf is events on their way from a parsing worker to the
// writer, which hands the buffer back for the next batch.
type eventBatchBuf struct {
	events []forensics.Event
	onLine []bool // events[i].Text is the whole text of its line
	attrs  []forensics.Attr
}

var eventBatches = sync.Pool{New: func() any {
	return &eventBatchBuf{events: make([]forensics.Event, 0, eventBatch), onLine: make([]bool, 0, eventBatch)}
}}

func newEventBatch() *eventBatchBuf { return eventBatches.Get().(*eventBatchBuf) }

func (b *eventBatchBuf) release() {
	if b == nil {
		return
	}
	clear(b.events) // the strings of the events go
	clear(b.attrs)
	b.events, b.onLine, b.attrs = b.events[:0], b.onLine[:0], b.attrs[:0]
	eventBatches.Put(b)
}

func (p *parse) run(r io.Reader) error {
	lr := lines.NewReader(r)
	var readErr error
	crSaid := false
	pieces := false // the line before was cut: this one is a piece of it
	emit := p.emit  // the method value once, not a closure allocated per line
	for {
		if p.src.stop.Load() || p.wk.ctx.Err() != nil {
			break
		}
		pos := lr.Offset()
		l, err := lr.Next()
		if !crSaid && lr.CROnly() {
			crSaid = true
			p.src.Problems = append(p.src.Problems, forensics.Problem{Path: p.src.Path,
				Reason: "the lines end in CR only (classic Mac OS line endings): each CR is read as the end of a line"})
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		p.lineN, p.lineText, p.whole = l.N, l.Text, !l.Cut && !pieces
		text := l.Text
		if p.strip != nil && !pieces {
			// The line is stored as read; an event's text is the log's line.
			text = p.strip.Strip(text)
		}
		pieces = l.Cut
		st, perr := p.parser.Line(l.N, text, emit)
		p.lineN, p.lineText = 0, nil
		flags := store.LineFlags{CR: l.CR, Cut: l.Cut, Error: perr != nil}
		if perr != nil {
			p.src.Errors++
			if len(p.src.Problems) < maxProblems {
				p.src.Problems = append(p.src.Problems, forensics.Problem{Path: p.src.Path, Line: l.N, Reason: perr.Error()})
			}
		}
		p.count(l)
		if st.IsZero() {
			if p.cur.IsZero() {
				p.hold(l.N, pos, flags, l.Text)
				continue
			}
			flags.Zone = forensics.ZoneInherited
			st = p.cur
		} else {
			flags.Zone = st.Zone
			if !p.cur.IsZero() && st.Time.Before(p.cur.Time) {
				flags.Backwards = true
			}
			p.cur = st
			p.release(st)
			if p.src.First.IsZero() || st.Time.Before(p.src.First) {
				p.src.First = st.Time
			}
			if st.Time.After(p.src.Last) {
				p.src.Last = st.Time
			}
		}
		p.store(l.N, pos, st, flags, l.Text)
	}
	if err := p.parser.End(p.emit); err != nil {
		p.src.Errors++
		p.src.Problems = append(p.src.Problems, forensics.Problem{Path: p.src.Path, Reason: err.Error()})
	}
	if r, ok := p.parser.(forensics.Releaser); ok {
		p.src.Release = r.Release()
	}
	if len(p.pending) > 0 {
		t := p.first
		if t.IsZero() {
			t = p.fallback.UTC()
		}
		p.release(forensics.Stamp{Time: t, Zone: forensics.ZoneInherited})
	}
	if b := p.wk.lines; !b.Empty() {
		p.wk.send(msg{kind: msgBlock, src: p.src, lines: b.Batch()})
	}
	p.flushEvents()
	// Which lines are event lines is known only at the end, since parsers
	// emit the events of multi-line entries and documents late. Lines,
	// stored and Skipped are each counted where they happen, so
	// Lines == Events + Plain + Skipped checks that every line read was
	// stored or dropped on purpose.
	p.src.Events = p.eventLines.count(p.src.Lines)
	p.src.Plain = p.stored - p.src.Events
	return readErr
}

// count counts a line read.
func (p *parse) count(l lines.Line) {
	if !l.Cut { // a cut line is counted once, with its last piece
		p.src.Lines++
	}
}

// store hands a line to the store, and counts it stored with its last piece.
func (p *parse) store(n, pos int64, st forensics.Stamp, flags store.LineFlags, text []byte) {
	b := p.wk.lines
	// One NewLine for every line: a new one each would escape to the heap
	// through the interface, a few hundred megabytes a gigabyte of logs.
	p.line = store.NewLine{N: n, Stamp: st, Flags: flags, Text: text, Pos: pos}
	b.Add(&p.line)
	if !flags.Cut {
		p.stored++
	}
	if b.Full() {
		p.wk.send(msg{kind: msgBlock, src: p.src, lines: b.Batch()})
		p.density.next()
	}
}

// denseEvents is how many events of a kind a block of lines holds before
// their text is left to the block: reading them back decodes the block
// once for all of them.
const denseEvents = 16

// kindDensity counts the events of each kind in the current block of lines
// and in the one before.
type kindDensity struct {
	cur, prev map[forensics.Kind]int
}

func (d *kindDensity) count(k forensics.Kind) {
	if d.cur == nil {
		d.cur, d.prev = map[forensics.Kind]int{}, map[forensics.Kind]int{}
	}
	d.cur[k]++
}

func (d *kindDensity) dense(k forensics.Kind) bool {
	return d.cur[k] >= denseEvents || d.prev[k] >= denseEvents
}

// next starts a new block.
func (d *kindDensity) next() {
	d.cur, d.prev = d.prev, d.cur
	clear(d.cur)
}

// bitset is a set of line numbers: one bit a line, so a file of millions of
// lines costs a few hundred KiB.
type bitset []uint64

func (b *bitset) set(n int64) {
	if n < 1 {
		return
	}
	i := int(n / 64)
	for i >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[i] |= 1 << (n % 64)
}

// count returns how many lines from 1 to max are in the set.
func (b bitset) count(max int64) int64 {
	n := 0
	for i, w := range b {
		if int64(i)*64 > max {
			break
		}
		if end := int64(i+1) * 64; end > max+1 {
			w &= 1<<(max+1-int64(i)*64) - 1
		}
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

func (p *parse) hold(n, pos int64, flags store.LineFlags, text []byte) {
	p.pending = append(p.pending, pendingLine{n, pos, flags, append([]byte(nil), text...)})
	p.pendSz += len(text)
	if p.pendSz > maxPending {
		// No time in the first MiB: give up waiting and use the file's time.
		p.release(forensics.Stamp{Time: p.fallback.UTC(), Zone: forensics.ZoneInherited})
		p.cur = forensics.Stamp{Time: p.fallback.UTC(), Zone: forensics.ZoneInherited}
	}
}

// release stores the lines held before the first time, at time st.
func (p *parse) release(st forensics.Stamp) {
	if len(p.pending) == 0 {
		return
	}
	for _, pl := range p.pending {
		pl.flags.Zone = forensics.ZoneInherited
		p.store(pl.n, pl.pos, st, pl.flags, pl.text)
	}
	p.pending, p.pendSz = nil, 0
}
