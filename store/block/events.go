package block

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/klauspost/compress/s2"

	"forensics"
)

// Events are stored in blocks too, not a row each: a busy cluster logs
// hundreds of thousands of DCP stream events per gigabyte, and a row with
// its indexes costs SQLite microseconds to insert and hundreds of bytes to
// keep, more than reading and parsing the line did. A block holds up to
// MaxEvents events of one source, in the order they were stored (the
// order the parser emitted them, but for events emitted long after their
// time, which the writer stores in blocks apart); the rows that index it
// say which kinds it holds and when.

// MaxEvents is the most events a block holds.
const MaxEvents = 512

// EventBlock is a compressed run of events of one source.
type EventBlock struct {
	MinLine, MaxLine int64
	TMin, TMax       int64 // unix ns
	Events           int
	Kinds            []KindSpan // the kinds the block holds, in order of first appearance
	Data             []byte     // S2 of the encoded records
}

// KindSpan is how many events of a kind a block holds, and when.
type KindSpan struct {
	Kind       forensics.Kind
	Events     int
	TMin, TMax int64
}

// Event record flags.
const (
	evZone   = 0x03 // forensics.Zone
	evOnLine = 1 << 2
)

// EventEncoder encodes blocks of events, reusing its buffers.
type EventEncoder struct {
	recs, raw []byte
	kinds     []KindSpan
}

// Encode encodes evs, at most MaxEvents of them. The text of an event
// whose onLine is set is left out: it is its line's, and readers take it
// from the line's block. The block's Kinds are valid until the next
// Encode; its Data until it is released.
func (enc *EventEncoder) Encode(evs []forensics.Event, onLine []bool) EventBlock {
	enc.kinds = enc.kinds[:0]
	kindIndex := func(k forensics.Kind, t int64) int {
		for i := range enc.kinds {
			if enc.kinds[i].Kind == k {
				ks := &enc.kinds[i]
				ks.Events++
				ks.TMin, ks.TMax = min(ks.TMin, t), max(ks.TMax, t)
				return i
			}
		}
		enc.kinds = append(enc.kinds, KindSpan{Kind: k, Events: 1, TMin: t, TMax: t})
		return len(enc.kinds) - 1
	}
	// The kind table comes first in the block, but is known only once the
	// records are encoded: they go to a buffer of their own.
	recs := enc.recs[:0]
	blk := EventBlock{Events: len(evs)}
	var prevLine, prevT int64
	for i := range evs {
		e := &evs[i]
		t := e.Time.UnixNano()
		if i == 0 {
			blk.MinLine, blk.MaxLine, blk.TMin, blk.TMax = e.Line, e.Line, t, t
		}
		blk.MinLine, blk.MaxLine = min(blk.MinLine, e.Line), max(blk.MaxLine, e.Line)
		blk.TMin, blk.TMax = min(blk.TMin, t), max(blk.TMax, t)
		recs = binary.AppendUvarint(recs, uint64(kindIndex(e.Kind, t)))
		recs = binary.AppendVarint(recs, e.Line-prevLine)
		recs = binary.AppendVarint(recs, t-prevT)
		prevLine, prevT = e.Line, t
		flags := byte(e.Zone) & evZone
		line := i < len(onLine) && onLine[i]
		if line {
			flags |= evOnLine
		}
		recs = append(recs, flags)
		recs = binary.AppendVarint(recs, int64(e.Offset))
		recs = appendString(recs, e.Node)
		recs = appendString(recs, e.Bucket)
		recs = binary.AppendVarint(recs, int64(e.VB))
		recs = binary.AppendVarint(recs, e.Range)
		recs = appendString(recs, e.Keyspace)
		recs = appendString(recs, e.Shard)
		recs = appendString(recs, e.Table)
		recs = binary.AppendUvarint(recs, uint64(len(e.Attrs)))
		for _, a := range e.Attrs {
			recs = appendString(recs, a.Key)
			recs = appendString(recs, a.Value)
		}
		if !line {
			recs = appendString(recs, e.Text)
		}
	}
	raw := binary.AppendUvarint(enc.raw[:0], uint64(len(enc.kinds)))
	for _, k := range enc.kinds {
		raw = appendString(raw, string(k.Kind))
	}
	raw = append(raw, recs...)
	enc.recs, enc.raw = recs, raw
	blk.Kinds = enc.kinds
	blk.Data = s2.Encode(getBuf(s2.MaxEncodedLen(len(raw))), raw)
	return blk
}

// Release returns the block's buffer for reuse; the block must not be used after.
func (b *EventBlock) Release() {
	blk := Block{Data: b.Data}
	blk.Release()
	b.Data = nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// StoredEvent is an event read back from a block.
type StoredEvent struct {
	forensics.Event
	Index  int  // its place in the block
	OnLine bool // its text is its line's, and was not stored: Text is ""
}

// DecodeEvents decompresses an event block into buf and calls fn for each
// event, in the order they were stored, stopping at the first error fn
// returns. keep, when not nil, is asked first with each event's kind, line
// and time, and the events it refuses are skipped without making their
// strings. The event passed to fn is valid until fn returns, but its
// strings are its own, whatever fn keeps. It returns the buffer for reuse.
func DecodeEvents(data, buf []byte, keep func(k forensics.Kind, line, t int64) bool, fn func(*StoredEvent) error) ([]byte, error) {
	raw, err := decompress(data, buf)
	if err != nil {
		return raw, err
	}
	_, err = scanEvents(raw, keep, func(kinds []forensics.Kind, ref eventRef) error {
		e, err := decodeEvent(raw, kinds, ref)
		if err != nil {
			return err
		}
		return fn(&e)
	})
	return raw, err
}

// eventRef is where an event's record is in a block, with what orders it.
type eventRef struct {
	t, line int64
	at, end int32 // the record's fields after its flags
	index   int32
	kind    int32
	flags   byte
}

// scanEvents reads a block's kinds and calls fn with them and the place of
// each event keep selects (all when keep is nil), checking the records'
// framing.
func scanEvents(raw []byte, keep func(k forensics.Kind, line, t int64) bool, fn func([]forensics.Kind, eventRef) error) ([]forensics.Kind, error) {
	if len(raw) > math.MaxInt32 {
		return nil, ErrCorrupt
	}
	d := decoder{raw: raw}
	nk := d.uvarint()
	if d.err != nil || nk > MaxEvents {
		return nil, ErrCorrupt
	}
	kinds := make([]forensics.Kind, nk)
	for i := range kinds {
		kinds[i] = forensics.Kind(d.str())
	}
	var line, t int64
	for idx := 0; d.i < len(raw) && d.err == nil; idx++ {
		if idx >= MaxEvents {
			return nil, fmt.Errorf("%w: more than %d events", ErrCorrupt, MaxEvents)
		}
		k := d.uvarint()
		line += d.varint()
		t += d.varint()
		flags := d.byte()
		if d.err != nil || k >= uint64(len(kinds)) {
			return nil, ErrCorrupt
		}
		start := d.i
		d.skipEvent(flags&evOnLine != 0)
		if d.err != nil {
			return nil, ErrCorrupt
		}
		if keep != nil && !keep(kinds[k], line, t) {
			continue
		}
		ref := eventRef{t: t, line: line, at: int32(start), end: int32(d.i), index: int32(idx), kind: int32(k), flags: flags}
		if err := fn(kinds, ref); err != nil {
			return nil, err
		}
	}
	if d.err != nil {
		return nil, ErrCorrupt
	}
	return kinds, nil
}

// decodeEvent decodes the event ref places, its strings sharing one
// string, a copy of its record's bytes.
func decodeEvent(raw []byte, kinds []forensics.Kind, ref eventRef) (StoredEvent, error) {
	rec := raw[ref.at:ref.end]
	r := decoder{raw: rec, s: string(rec)}
	e := StoredEvent{Index: int(ref.index), OnLine: ref.flags&evOnLine != 0}
	e.Kind, e.Line = kinds[ref.kind], ref.line
	e.Time = time.Unix(0, ref.t).UTC()
	e.Zone = forensics.Zone(ref.flags & evZone)
	e.Offset = int32(r.varint())
	e.Node = r.sub()
	e.Bucket = r.sub()
	e.VB = int(r.varint())
	e.Range = r.varint()
	e.Keyspace, e.Shard, e.Table = r.sub(), r.sub(), r.sub()
	na := r.uvarint()
	if r.err != nil || na > uint64(len(r.raw)) {
		return e, ErrCorrupt
	}
	if na > 0 {
		e.Attrs = make([]forensics.Attr, na)
		for i := range e.Attrs {
			e.Attrs[i].Key, e.Attrs[i].Value = r.sub(), r.sub()
		}
	}
	if !e.OnLine {
		e.Text = r.sub()
	}
	if r.err != nil {
		return e, ErrCorrupt
	}
	return e, nil
}

// EventRun is the events of one block a filter selects, in timeline order,
// decoded one at a time. A reader that merges the blocks of many sources
// holds each open block as its bytes and a small key per event: held
// decoded, the events of the blocks open at once grew with the timeline.
type EventRun struct {
	raw   []byte
	kinds []forensics.Kind
	refs  []eventRef
}

// ReadEventRun decompresses a block into buf and keys the events keep
// selects (all when keep is nil), sorted into timeline order
// (forensics.Position: a block holds one source) and then the order they
// were stored in. The run keeps buf until Buffer hands it back.
func ReadEventRun(data, buf []byte, keep func(k forensics.Kind, line, t int64) bool) (*EventRun, error) {
	raw, err := decompress(data, buf)
	if err != nil {
		return nil, err
	}
	r := &EventRun{raw: raw}
	r.kinds, err = scanEvents(raw, keep, func(_ []forensics.Kind, ref eventRef) error {
		r.refs = append(r.refs, ref)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(r.refs, func(a, b eventRef) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.line, b.line), cmp.Compare(a.index, b.index))
	})
	return r, nil
}

// Len is how many events the run holds.
func (r *EventRun) Len() int { return len(r.refs) }

// Time returns the time of event i, in unix ns.
func (r *EventRun) Time(i int) int64 { return r.refs[i].t }

// Line returns the line of event i.
func (r *EventRun) Line(i int) int64 { return r.refs[i].line }

// Index returns the place event i was stored at in its block.
func (r *EventRun) Index(i int) int { return int(r.refs[i].index) }

// Event decodes event i. Its strings are its own, whatever the caller keeps.
func (r *EventRun) Event(i int) (StoredEvent, error) {
	return decodeEvent(r.raw, r.kinds, r.refs[i])
}

// Buffer returns the run's buffer for reuse; the run must not be used after.
func (r *EventRun) Buffer() []byte {
	b := r.raw
	r.raw, r.refs = nil, nil
	return b
}

// decoder reads the fields of records; the first malformed one sets err.
type decoder struct {
	raw []byte
	s   string // raw as a string, for substrings; "" to copy each
	i   int
	err error
}

func (d *decoder) uvarint() uint64 {
	v, k := binary.Uvarint(d.raw[min(d.i, len(d.raw)):])
	if k <= 0 {
		d.err = ErrCorrupt
		return 0
	}
	d.i += k
	return v
}

func (d *decoder) varint() int64 {
	v, k := binary.Varint(d.raw[min(d.i, len(d.raw)):])
	if k <= 0 {
		d.err = ErrCorrupt
		return 0
	}
	d.i += k
	return v
}

func (d *decoder) byte() byte {
	if d.i >= len(d.raw) {
		d.err = ErrCorrupt
		return 0
	}
	d.i++
	return d.raw[d.i-1]
}

// span returns the bounds of the next length-prefixed string.
func (d *decoder) span() (int, int) {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.raw)-d.i) {
		d.err = ErrCorrupt
		return 0, 0
	}
	start := d.i
	d.i += int(n)
	return start, d.i
}

// str returns the next string, copied.
func (d *decoder) str() string {
	a, b := d.span()
	return string(d.raw[a:b])
}

// sub returns the next string as a part of d.s.
func (d *decoder) sub() string {
	a, b := d.span()
	if a == b {
		return ""
	}
	return d.s[a:b]
}

// skipEvent moves past the rest of a record, after its flags.
func (d *decoder) skipEvent(onLine bool) {
	d.varint()
	d.span()
	d.span()
	d.varint()
	d.varint()
	d.span()
	d.span()
	d.span()
	na := d.uvarint()
	if na > uint64(len(d.raw)) {
		d.err = ErrCorrupt
		return
	}
	for range na {
		d.span()
		d.span()
	}
	if !onLine {
		d.span()
	}
}
