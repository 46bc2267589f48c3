// Package block is the codec of stored lines: consecutive lines of one
// source, encoded as records (time delta, flags, offset, text) and
// compressed with S2. A backend that keeps lines as blobs stores blocks,
// and reads them back merged across sources with MergeLines.
package block

import (
	"encoding/binary"
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
	Sketch    Sketch // the slots of its lines' 4-grams (grams.go), when the builder indexes
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

	sketch *sketcher // of the lines added, when the blocks are indexed
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{raw: make([]byte, 0, Size+4096)}
}

// Release lets go of the builder's buffers. The builder must not be used after.
func (b *Builder) Release() {
	b.raw = nil
	if b.sketch != nil {
		putSketcher(b.sketch)
		b.sketch = nil
	}
}

// Index makes the builder sketch each block's lines for the index of
// blocks (grams.go). The builder must be empty.
func (b *Builder) Index() { b.sketch = getSketcher() }

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
	if b.sketch != nil {
		b.sketch.add(text)
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
	if b.sketch != nil {
		blk.Sketch = getSketch()
		b.sketch.sketch(blk.Sketch)
	}
	b.raw = b.raw[:0]
	if cap(b.raw) > bigBuffer {
		// A block of a line of tens of megabytes: its buffer is not kept for
		// the ordinary blocks that follow.
		b.raw = make([]byte, 0, Size+4096)
	}
	b.n = 0
	return blk
}

// bigBuffer is the size above which a buffer is let go once used, not
// kept for reuse: the buffers of ordinary blocks are a few hundred KiB,
// and a line of 64 MiB would otherwise be held as many times as there are
// buffers that once held it.
const bigBuffer = 4 * Size

// Compressed blocks are made by the thousand per gigabyte and live only
// until the writer has stored them, so their buffers are reused.
var bufPool sync.Pool

func getBuf(n int) []byte {
	if p, ok := bufPool.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n, max(n, s2.MaxEncodedLen(Size+64<<10)))
}

// Release returns the block's buffers for reuse; the block must not be used after.
func (b *Block) Release() {
	if b.Data != nil && cap(b.Data) <= bigBuffer {
		d := b.Data[:0]
		bufPool.Put(&d)
	}
	b.Data = nil
	if b.Sketch != nil {
		putSketch(b.Sketch)
		b.Sketch = nil
	}
}

// A sketch is 16 KiB, made for each block of an indexed timeline, and a
// sketcher 128 KiB, for each source.
var sketchPool, sketcherPool sync.Pool

func getSketcher() *sketcher {
	if s, ok := sketcherPool.Get().(*sketcher); ok {
		return s
	}
	return new(sketcher)
}

func putSketcher(s *sketcher) {
	clear(s.seen[:])
	sketcherPool.Put(s)
}

func getSketch() Sketch {
	if p, ok := sketchPool.Get().(*Sketch); ok {
		return *p
	}
	return newSketch()
}

func putSketch(sk Sketch) {
	clear(sk)
	sketchPool.Put(&sk)
}
