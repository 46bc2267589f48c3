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
	Data      []byte // S2 of the encoded records
}

// Builder encodes lines into blocks. Each ingest worker owns one, so
// compression runs in parallel outside the single database writer.
type Builder struct {
	raw   []byte
	first int64
	n     int64
	prev  int64
	tmin  int64
	tmax  int64
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{raw: make([]byte, 0, Size+4096)}
}

// Release lets go of the builder's buffer. The builder must not be used after.
func (b *Builder) Release() { b.raw = nil }

// Add appends line n, logged at t (unix ns) with the given offset (seconds).
func (b *Builder) Add(n int64, t int64, offset int32, flags store.LineFlags, text []byte) {
	if b.n == 0 {
		// The first record's delta is from zero: its absolute time.
		b.first = n
		b.prev = 0
		b.tmin, b.tmax = t, t
	}
	b.raw = binary.AppendVarint(b.raw, t-b.prev)
	b.raw = append(b.raw, flagByte(flags, offset))
	if offset != 0 {
		b.raw = binary.AppendVarint(b.raw, int64(offset))
	}
	b.raw = binary.AppendUvarint(b.raw, uint64(len(text)))
	b.raw = append(b.raw, text...)
	b.prev = t
	b.tmin = min(b.tmin, t)
	b.tmax = max(b.tmax, t)
	b.n++
}

// Full reports whether the block has reached Size.
func (b *Builder) Full() bool { return len(b.raw) >= Size }

// Empty reports whether no line was added since the last Finish.
func (b *Builder) Empty() bool { return b.n == 0 }

// Finish compresses the lines added so far into a block and resets the builder.
// S2 rather than zstd: logs compress about 5 times with it instead of 8 to
// 10, but at 1.3 GB/s a core instead of 270 MB/s, and compressing every
// line is most of the work of loading a bundle after decompressing it.
func (b *Builder) Finish() Block {
	blk := Block{FirstLine: b.first, Lines: b.n, TMin: b.tmin, TMax: b.tmax}
	blk.Data = s2.Encode(getBuf(s2.MaxEncodedLen(len(b.raw))), b.raw)
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
	raw, err := decompress(data, buf)
	if err != nil || !s.May(raw) {
		return raw, err
	}
	l := Line{N: firstLine}
	for i := 0; i < len(raw); {
		dt, k := binary.Varint(raw[i:])
		if k <= 0 || i+k >= len(raw) {
			return raw, ErrCorrupt
		}
		i += k
		l.Time += dt
		fb := raw[i]
		i++
		l.Offset = 0
		if fb&flagHasOffset != 0 {
			off, k := binary.Varint(raw[i:])
			if k <= 0 {
				return raw, ErrCorrupt
			}
			l.Offset = int32(off)
			i += k
		}
		size, k := binary.Uvarint(raw[i:])
		if k <= 0 || uint64(len(raw)-i-k) < size {
			return raw, ErrCorrupt
		}
		i += k
		l.Text = raw[i : i+int(size)]
		i += int(size)
		l.Flags = flagsOf(fb)
		if err := fn(&l); err != nil {
			return raw, err
		}
		if !l.Flags.Cut {
			l.N++
		}
	}
	return raw, nil
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
