// Package block is the codec of stored lines: consecutive lines of one
// source, encoded as records (time delta, flags, offset, text) and
// compressed with S2. A backend that keeps lines as blobs stores blocks,
// and reads them back merged across sources with MergeLines.
package block

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"

	"forensics"
	"forensics/store"
	"forensics/zran"
)

// Lines are stored in compressed blocks, not one row each: a cluster bundle
// has tens of millions of ordinary lines, and a row per line would make the
// timeline larger than the input and the load slower than reading it. Events
// are rows; blocks keep every line, events included, so any line can be shown
// by time, node, file and text.

// Size is the uncompressed size at which a block is closed.
const Size = 128 << 10

// Line flags, stored per line.
const (
	flagZone      = 0x03 // forensics.Zone
	flagCR        = 1 << 2
	flagCut       = 1 << 3 // the line goes on in the next record, same line number
	flagBackwards = 1 << 4 // the line's time is earlier than the line before it
	flagError     = 1 << 6 // the line looked like the format but did not parse
	flagHasOffset = 1 << 7
)

func flagByte(f store.LineFlags, offset int32) byte {
	b := byte(f.Zone) & flagZone
	if f.CR {
		b |= flagCR
	}
	if f.Cut {
		b |= flagCut
	}
	if f.Backwards {
		b |= flagBackwards
	}
	if f.Error {
		b |= flagError
	}
	if offset != 0 {
		b |= flagHasOffset
	}
	return b
}

func flagsOf(b byte) store.LineFlags {
	return store.LineFlags{
		Zone:      forensics.Zone(b & flagZone),
		CR:        b&flagCR != 0,
		Cut:       b&flagCut != 0,
		Backwards: b&flagBackwards != 0,
		Error:     b&flagError != 0,
	}
}

// Block is a compressed run of consecutive lines of one source.
type Block struct {
	FirstLine int64
	Lines     int64 // records, counting each piece of a cut line
	TMin      int64 // unix ns
	TMax      int64
	Data      []byte // S2 of the encoded records, or a deflate span (below)
}

// A block of lines read from a deflate stream that has a zran.Trail keeps
// the stream's own compressed bytes instead of compressing the lines again:
//
//	magic     0x00 'Z' (an S2 block that starts with 0x00 is empty and ends there)
//	uvarint   length of meta
//	meta      S2 of: uvarint window length, the window, the records
//	byte      bits of the first compressed byte before the point
//	uvarint   skip: bytes of output from the point to the first line
//	uvarint   span: bytes of output from the first line to the end of the last
//	the rest  the compressed bytes from the point on
//
// A record is then the line's time delta, flags and offset as in an S2
// block, the length of its text, and (varint) the bytes between the end of
// the line before and the start of this one: its line ending, usually.
var zranMagic = [2]byte{0x00, 'Z'}

// ZSize is the output a block of a deflate span covers before it is
// closed. Larger than Size: each block keeps a 32 KiB window, and decoding
// it starts up to a deflate block before its first line.
const ZSize = 1 << 20

// maxHeld is how many compressed bytes a trail may hold for an open block
// before the block is closed: a block has that much only behind very long
// lines or a stream that barely compresses.
const maxHeld = 8 << 20

// Builder encodes lines into blocks. Each ingest worker owns one, so
// compression runs in parallel outside the single database writer.
type Builder struct {
	raw   []byte
	first int64
	n     int64
	prev  int64
	tmin  int64
	tmax  int64

	trail *zran.Trail // the stream the lines come from, when it has one
	zr    bool        // this block keeps the trail's compressed bytes
	point zran.Point  // where the block's output starts (its window is copied to raw)
	start int64       // output offset of the first line
	end   int64       // end of the line before, in the output
	hi    int64       // the furthest end of a line
	meta  []byte      // the S2 of raw
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{raw: make([]byte, 0, Size+4096)}
}

// Release lets go of the builder's buffer. The builder must not be used after.
func (b *Builder) Release() { b.raw = nil }

// Follow says that the lines added from now on are read from the output
// of t (nil: from a stream without one). The builder must be empty.
func (b *Builder) Follow(t *zran.Trail) { b.trail = t }

// Add appends line n, logged at t (unix ns) with the given offset
// (seconds), whose text starts at byte pos of the source's output.
func (b *Builder) Add(n int64, t int64, offset int32, flags store.LineFlags, text []byte, pos int64) {
	if b.n == 0 {
		// The first record's delta is from zero: its absolute time.
		b.first = n
		b.prev = 0
		b.tmin, b.tmax = t, t
		b.zr = false
		if b.trail != nil {
			if p, ok := b.trail.Begin(pos); ok {
				b.zr = true
				b.point = p
				b.start, b.end, b.hi = pos, pos, pos
				b.raw = binary.AppendUvarint(b.raw, uint64(len(p.Window)))
				b.raw = append(b.raw, p.Window...)
			}
		}
	}
	b.raw = binary.AppendVarint(b.raw, t-b.prev)
	b.raw = append(b.raw, flagByte(flags, offset))
	if offset != 0 {
		b.raw = binary.AppendVarint(b.raw, int64(offset))
	}
	b.raw = binary.AppendUvarint(b.raw, uint64(len(text)))
	if b.zr {
		b.raw = binary.AppendVarint(b.raw, pos-b.end)
		b.end = pos + int64(len(text))
		b.hi = max(b.hi, b.end)
	} else {
		b.raw = append(b.raw, text...)
	}
	b.prev = t
	b.tmin = min(b.tmin, t)
	b.tmax = max(b.tmax, t)
	b.n++
}

// Full reports whether the block has reached its size.
func (b *Builder) Full() bool {
	if b.zr {
		return b.hi-b.start >= ZSize || len(b.raw) >= Size || b.trail.Held() > maxHeld
	}
	return len(b.raw) >= Size
}

// Empty reports whether no line was added since the last Finish.
func (b *Builder) Empty() bool { return b.n == 0 }

// Finish compresses the lines added so far into a block and resets the builder.
// S2 rather than zstd: logs compress about 5 times with it instead of 8 to
// 10, but at 1.3 GB/s a core instead of 270 MB/s, and compressing every
// line is most of the work of loading a bundle after decompressing it.
func (b *Builder) Finish() Block {
	blk := Block{FirstLine: b.first, Lines: b.n, TMin: b.tmin, TMax: b.tmax}
	if b.zr {
		b.meta = s2.Encode(b.meta[:cap(b.meta)], b.raw)
		in := b.trail.End(b.hi)
		d := getBuf(len(zranMagic) + 3*binary.MaxVarintLen64 + 1 + len(b.meta) + len(in))[:0]
		d = append(d, zranMagic[:]...)
		d = binary.AppendUvarint(d, uint64(len(b.meta)))
		d = append(d, b.meta...)
		d = append(d, b.point.Bit)
		d = binary.AppendUvarint(d, uint64(b.start-b.point.Out))
		d = binary.AppendUvarint(d, uint64(b.hi-b.start))
		blk.Data = append(d, in...)
		b.zr = false
	} else {
		blk.Data = s2.Encode(getBuf(s2.MaxEncodedLen(len(b.raw))), b.raw)
	}
	b.raw = b.raw[:0]
	b.n = 0
	return blk
}

// Compressed blocks are made by the thousand per gigabyte and live only
// until the writer has stored them, so their buffers are reused.
var bufPool sync.Pool

func getBuf(n int) []byte {
	if p, ok := bufPool.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n, max(n, s2.MaxEncodedLen(Size+64<<10)))
}

// Release returns the block's buffer for reuse; the block must not be used after.
func (b *Block) Release() {
	if b.Data != nil {
		d := b.Data[:0]
		bufPool.Put(&d)
		b.Data = nil
	}
}

// Line is one line read back from a block.
type Line struct {
	N      int64
	Time   int64 // unix ns
	Offset int32
	Flags  store.LineFlags
	Text   []byte // valid until the next block is decoded
}

// ErrCorrupt means a block does not decode.
var ErrCorrupt = errors.New("corrupt block")

// Decode decompresses a block into buf and calls fn for each line in
// order, stopping at the first error fn returns. It returns the buffer for reuse.
func Decode(firstLine int64, data []byte, buf []byte, fn func(*Line) error) ([]byte, error) {
	return DecodeSearch(firstLine, data, buf, Search{}, fn)
}

// DecodeSearch is Decode for a search: fn is called for no line of a block
// that s rules out.
func DecodeSearch(firstLine int64, data []byte, buf []byte, s Search, fn func(*Line) error) ([]byte, error) {
	if len(data) >= 2 && [2]byte(data[:2]) == zranMagic {
		return decodeSpan(firstLine, data, buf, s, fn)
	}
	raw, err := decompress(data, buf)
	if err != nil || !s.May(raw) {
		return raw, err
	}
	l := Line{N: firstLine}
	for i := 0; i < len(raw); {
		n, size, err := l.record(raw[i:])
		if err != nil {
			return raw, err
		}
		i += n
		if size > len(raw)-i {
			return raw, ErrCorrupt
		}
		l.Text = raw[i : i+size]
		i += size
		if err := l.yield(fn); err != nil {
			return raw, err
		}
	}
	return raw, nil
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

// yield calls fn for l, then moves on to the next line number.
func (l *Line) yield(fn func(*Line) error) error {
	if err := fn(l); err != nil {
		return err
	}
	if !l.Flags.Cut {
		l.N++
	}
	return nil
}

// maxSpan bounds the output a block of a deflate span decodes to: a cut
// line's piece (64 MiB), a block's size and a deflate block before it.
const maxSpan = 80 << 20

// decodeSpan decodes a block of a deflate span (see zranMagic).
func decodeSpan(firstLine int64, data []byte, buf []byte, s Search, fn func(*Line) error) ([]byte, error) {
	i := len(zranMagic)
	metaLen, k := binary.Uvarint(data[i:])
	if k <= 0 || metaLen > uint64(len(data)-i-k) {
		return buf, ErrCorrupt
	}
	i += k
	metaData := data[i : i+int(metaLen)]
	i += int(metaLen)
	if i >= len(data) {
		return buf, ErrCorrupt
	}
	bit := data[i]
	i++
	skip, k := binary.Uvarint(data[i:])
	if k <= 0 || skip > maxSpan {
		return buf, ErrCorrupt
	}
	i += k
	span, k := binary.Uvarint(data[i:])
	if k <= 0 || span > maxSpan {
		return buf, ErrCorrupt
	}
	i += k
	in := data[i:]
	metaSize, err := s2.DecodedLen(metaData)
	if err != nil || metaSize > maxSpan {
		return buf, ErrCorrupt
	}
	// One buffer: the records, then the output from the point, which
	// deflate's longest matches (258 bytes in under 2 bits) bound.
	out := int(skip + span)
	if out > 1100*len(in)+64 {
		return buf, ErrCorrupt
	}
	if cap(buf) < metaSize+out {
		buf = make([]byte, metaSize+out)
	}
	buf = buf[:metaSize+out]
	meta, err := s2.Decode(buf[:metaSize], metaData)
	if err != nil {
		return buf, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	wlen, k := binary.Uvarint(meta)
	if k <= 0 || wlen > uint64(len(meta)-k) {
		return buf, ErrCorrupt
	}
	window := meta[k : k+int(wlen)]
	recs := meta[k+int(wlen):]
	text := buf[metaSize:]
	if err := zran.Decode(text, in, bit, window); err != nil {
		return buf, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if !s.May(text[skip:]) {
		return buf, nil
	}
	l := Line{N: firstLine}
	at := int64(skip) // where the line before ended
	for j := 0; j < len(recs); {
		n, size, err := l.record(recs[j:])
		if err != nil {
			return buf, err
		}
		j += n
		gap, k := binary.Varint(recs[j:])
		if k <= 0 {
			return buf, ErrCorrupt
		}
		j += k
		start := at + gap
		if start < 0 || start > int64(out) || int64(size) > int64(out)-start {
			return buf, ErrCorrupt
		}
		at = start + int64(size)
		l.Text = text[start:at]
		if err := l.yield(fn); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// decompress decompresses a block's data into buf, grown if it is too
// small, and returns the decoded bytes (or buf, on an error).
func decompress(data, buf []byte) ([]byte, error) {
	n, err := s2.DecodedLen(data)
	if err != nil {
		return buf, fmt.Errorf("%w: %v", ErrCorrupt, err)
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
