package block

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/s2"

	"forensics/store"
	"forensics/zran"
)

// Line is one line read back from a block.
type Line struct {
	N      int64
	Time   int64 // unix ns
	Offset int32
	Flags  store.LineFlags
	Text   []byte // valid until the next line is read
}

// ErrCorrupt means a block does not decode.
var ErrCorrupt = errors.New("corrupt block")

// Reader reads the lines of a block back, one at a time. A block of S2
// records is decompressed whole (it holds 128 KiB); a deflate span is
// decoded as its lines are asked for, unless it is opened whole: a merge
// of a whole timeline holds a block of every source it has reached, and
// a MiB of output each made that hundreds of MB.
type Reader struct {
	line Line
	read bool   // a line of the block was read: the next one takes the number after it
	n    int    // the lines read of the block
	recs []byte // the records not read yet
	buf  []byte // the decompressed S2 block, or the span's records (and, whole, its output)

	whole bool // the last block was opened whole

	// A deflate span: the output held starts at output offset base.
	span bool
	dec  io.ReadCloser // nil once the output is all in out
	out  []byte
	base int64
	skip int64 // where the first line starts
	at   int64 // where the line before ended
	end  int64 // the output the block covers
}

// Open starts reading a block whose first line is firstLine. With whole,
// a deflate span is decoded at once, so that Text can give it back.
func (r *Reader) Open(firstLine int64, data []byte, whole bool) error {
	r.Close()
	r.line, r.read, r.n, r.whole = Line{N: firstLine}, false, 0, whole
	if len(data) >= 2 && [2]byte(data[:2]) == zranMagic {
		return r.openSpan(data, whole)
	}
	r.span = false
	raw, err := decompress(data, r.buf)
	r.buf = raw[:cap(raw)]
	if err == nil {
		r.recs = raw
	}
	return err
}

// Text returns the bytes that hold the block's lines, for a search to
// rule the block out before its lines are read: the records with their
// text, or a span's output. Nil for a span that is not opened whole.
func (r *Reader) Text() []byte {
	if r.span {
		if r.dec != nil {
			return nil
		}
		return r.out[r.skip-r.base:]
	}
	return r.recs
}

// Close lets go of the block's decoder; the buffers stay for the next
// Open, but for one that a long line made large.
func (r *Reader) Close() {
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	r.recs, r.out = nil, r.out[:0]
	if cap(r.out) > keepOut && !(r.whole && cap(r.out) <= keepWhole) {
		r.out = nil
	}
}

// keepOut is the most of a lazy span's output buffer a Reader keeps for
// its next block: lines are short, and a merge keeps a Reader a source.
// A Reader that opens blocks whole keeps up to keepWhole: a search has a
// few of them, each decoding block after block, and a new megabyte each
// was a tenth of a search's time (allocating it, faulting its pages in,
// collecting it).
const (
	keepOut   = 64 << 10
	keepWhole = 4 << 20
)

// Next returns the next line of the block, or nil after the last. The line
// is valid until the next call.
func (r *Reader) Next() (*Line, error) {
	if len(r.recs) == 0 {
		r.Close()
		return nil, nil
	}
	l := &r.line
	if r.read && !l.Flags.Cut {
		l.N++
	}
	r.read = true
	if r.n++; r.n > maxRecords {
		return nil, fmt.Errorf("%w: more than %d lines", ErrCorrupt, maxRecords)
	}
	n, size, err := l.record(r.recs)
	if err != nil {
		return nil, err
	}
	r.recs = r.recs[n:]
	if !r.span {
		if size > len(r.recs) {
			return nil, ErrCorrupt
		}
		l.Text, r.recs = r.recs[:size:size], r.recs[size:]
		return l, nil
	}
	gap, k := binary.Varint(r.recs)
	if k <= 0 {
		return nil, ErrCorrupt
	}
	r.recs = r.recs[k:]
	start := r.at + gap
	if start < r.base || start > r.end || int64(size) > r.end-start {
		return nil, ErrCorrupt
	}
	r.at = start + int64(size)
	if err := r.fill(start, r.at); err != nil {
		return nil, err
	}
	l.Text = r.out[start-r.base : r.at-r.base : r.at-r.base]
	return l, nil
}

// record reads the head of a record into l (time, flags, offset) and
// returns the bytes it took and the length of the line's text.
func (l *Line) record(raw []byte) (int, int, error) {
	dt, k := binary.Varint(raw)
	if k <= 0 || k >= len(raw) {
		return 0, 0, ErrCorrupt
	}
	i := k
	l.Time += dt
	fb := raw[i]
	i++
	l.Offset = 0
	if fb&flagHasOffset != 0 {
		off, k := binary.Varint(raw[i:])
		if k <= 0 {
			return 0, 0, ErrCorrupt
		}
		l.Offset = int32(off)
		i += k
	}
	size, k := binary.Uvarint(raw[i:])
	if k <= 0 || size > maxSpan {
		return 0, 0, ErrCorrupt
	}
	l.Flags = flagsOf(fb)
	return i + k, int(size), nil
}

// maxSpan bounds the output a block decodes to, whichever its layout: a cut
// line's piece (64 MiB), a block's size and a deflate block before it. A
// block that claims more is refused before anything is allocated for it:
// a few bytes of S2 can claim gigabytes.
const maxSpan = 80 << 20

// maxRecords bounds the lines a block holds: the builder closes a block
// once its records reach Size bytes, and a record takes at least one. A
// block of millions of empty records, which a reader would hold as a line
// each, is refused.
const maxRecords = Size

// metaBufs holds the buffers a span's window and records are decoded into.
var metaBufs sync.Pool

// spanRead is how much of a span's output a lazy Reader decodes at a time.
const spanRead = 8 << 10

// openSpan reads the head of a block of a deflate span (see zranMagic) and
// starts decoding its output.
func (r *Reader) openSpan(data []byte, whole bool) error {
	r.span = true
	i := len(zranMagic)
	metaLen, k := binary.Uvarint(data[i:])
	if k <= 0 || metaLen > uint64(len(data)-i-k) {
		return ErrCorrupt
	}
	i += k
	metaData := data[i : i+int(metaLen)]
	i += int(metaLen)
	if i >= len(data) {
		return ErrCorrupt
	}
	bit := data[i]
	i++
	skip, k := binary.Uvarint(data[i:])
	if k <= 0 || skip > maxSpan {
		return ErrCorrupt
	}
	i += k
	span, k := binary.Uvarint(data[i:])
	if k <= 0 || span > maxSpan {
		return ErrCorrupt
	}
	i += k
	in := data[i:]
	metaSize, err := s2.DecodedLen(metaData)
	if err != nil || metaSize > maxSpan {
		return ErrCorrupt
	}
	// Deflate's longest matches (258 bytes in under 2 bits) bound the
	// output the compressed bytes can hold.
	r.end = int64(skip + span)
	if r.end > 1100*int64(len(in))+64 {
		return ErrCorrupt
	}
	// The window goes into the decoder; only the records are kept.
	scratch, _ := metaBufs.Get().(*[]byte)
	if scratch == nil {
		scratch = new([]byte)
	}
	defer metaBufs.Put(scratch)
	if cap(*scratch) < metaSize {
		*scratch = make([]byte, metaSize)
	}
	meta, err := s2.Decode((*scratch)[:metaSize], metaData)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	wlen, k := binary.Uvarint(meta)
	if k <= 0 || wlen > uint64(len(meta)-k) {
		return ErrCorrupt
	}
	window := meta[k : k+int(wlen)]
	if r.dec, err = zran.Stream(in, bit, window); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	r.buf = append(r.buf[:0], meta[k+int(wlen):]...)
	r.recs = r.buf
	r.base, r.skip, r.at = 0, int64(skip), int64(skip)
	if whole {
		if err := r.fill(0, r.end); err != nil {
			return err
		}
		r.dec.Close()
		r.dec = nil
	}
	return nil
}

// Decode reads a whole block and calls fn for each of its lines in order,
// stopping at the first error fn returns. The lines' text stays valid
// until the reader opens another block.
func (r *Reader) Decode(firstLine int64, data []byte, fn func(*Line) error) error {
	if err := r.Open(firstLine, data, true); err != nil {
		return err
	}
	for {
		l, err := r.Next()
		if l == nil || err != nil {
			return err
		}
		if err := fn(l); err != nil {
			return err
		}
	}
}

// Decode reads a block and calls fn for each of its lines in order,
// stopping at the first error fn returns.
func Decode(firstLine int64, data []byte, fn func(*Line) error) error {
	var r Reader
	return r.Decode(firstLine, data, fn)
}

// fill decodes the span's output until it holds offsets from to to, and
// lets go of what comes before from.
func (r *Reader) fill(from, to int64) error {
	if have := r.base + int64(len(r.out)); to <= have {
		return nil
	}
	if r.dec == nil {
		return ErrCorrupt
	}
	// What is before from is no longer needed: the lines come in order.
	if drop := from - r.base; drop > 0 {
		drop = min(drop, int64(len(r.out)))
		r.out = r.out[:copy(r.out, r.out[drop:])]
		r.base += drop
	}
	need := int(to - r.base)
	if cap(r.out) < need {
		// A reader of whole blocks keeps its buffer: room for blocks a
		// little larger than this one, not a new one for each.
		size := need
		if r.whole {
			size += need / 8
		}
		grown := make([]byte, len(r.out), max(size, spanRead))
		copy(grown, r.out)
		r.out = grown
	}
	for len(r.out) < need {
		// Read ahead of the line, a piece at a time, up to the block's end.
		n := min(max(need, len(r.out)+spanRead), int(r.end-r.base))
		if cap(r.out) < n {
			grown := make([]byte, len(r.out), n)
			copy(grown, r.out)
			r.out = grown
		}
		m, err := io.ReadFull(r.dec, r.out[len(r.out):n])
		r.out = r.out[:len(r.out)+m]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("%w: %v", ErrCorrupt, zran.ErrShort)
			}
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	return nil
}

// decompress decompresses S2 data into buf, grown if it is too small, and
// returns the decoded bytes (or buf, on an error).
func decompress(data, buf []byte) ([]byte, error) {
	n, err := s2.DecodedLen(data)
	if err != nil {
		return buf, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if n > maxSpan {
		return buf, fmt.Errorf("%w: it claims %d bytes decoded, more than a block holds (%d)", ErrCorrupt, n, maxSpan)
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	raw, err := s2.Decode(buf[:n], data)
	if err != nil {
		return buf, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return raw, nil
}
