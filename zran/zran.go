// Package zran gives random access into a deflate stream, the way zlib's
// examples/zran.c does: while the stream is decoded once, it records the
// places where deflate blocks begin (a bit position and the 32 KiB of
// output before it), so that any part of the output can later be decoded
// again from the nearest such place and the compressed bytes after it.
//
// A zip member's lines are already compressed in the archive; keeping the
// compressed bytes the member holds, and where to start decoding them,
// costs no compression and a third of the space of compressing the lines
// a second time.
package zran

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
)

// WindowSize is how much output before a point decoding from it needs:
// deflate's matches reach at most that far back (RFC 1951, 3.2.5).
const WindowSize = 32 << 10

// pointGap is the least output between two points a Trail keeps: each
// costs a copy of its window, and a reader decodes at most about this much
// it does not need before the lines it wants.
const pointGap = 128 << 10

// maxPoints is how many points a Trail keeps. They cover 1 MiB of output,
// more than a reader of the stream reads ahead of the line it hands on.
const maxPoints = 8

// Point is a place in a deflate stream where a block begins.
type Point struct {
	In     int64  // offset of the compressed byte that holds the block's first bit
	Bit    uint8  // bits of that byte before the block's first bit
	Out    int64  // offset in the output
	Window []byte // the output before Out, at most WindowSize bytes
}

// Trail records a deflate stream as it is decoded: its compressed bytes and
// the points where its blocks begin. A user of the output asks for a Span
// of it with Begin and End, and the trail keeps the compressed bytes from
// Begin on until End; otherwise it keeps only what its recent points need.
// A Trail is used by one goroutine, the one that reads the output.
type Trail struct {
	src    io.Reader
	br     *bufio.Reader // what the decoder reads from
	data   []byte        // compressed bytes from offset base
	base   int64
	read   int64 // compressed bytes read from src
	points []Point
	ends   []end    // where each deflate block since the oldest point ends
	spare  [][]byte // windows of points let go of, for reuse
	pinned bool
	pin    int64 // while pinned: the offset from which data is kept
}

// NewReader decodes the raw deflate stream r, reading it bufSize bytes at a
// time, and returns the output with the trail of its decoding.
func NewReader(r io.Reader, bufSize int) (io.ReadCloser, *Trail) {
	t := &Trail{src: r, points: []Point{{}}} // the stream's start is a point with no window
	if d, ok := buffers.Get().(*[]byte); ok {
		t.data = (*d)[:0]
	}
	t.br = bufio.NewReaderSize(tee{t}, bufSize)
	return closer{flate.NewReaderOpts(t.br, flate.WithEobCallback(t.point)), t}, t
}

// A member of a bundle is a few MiB; its trail's buffer is reused for the
// next, rather than grown again from nothing.
var buffers sync.Pool

// closer gives the trail's buffer back when the output is closed: the
// trail holds nothing after.
type closer struct {
	io.ReadCloser
	t *Trail
}

func (c closer) Close() error {
	t := c.t
	if t.data != nil {
		d := t.data[:0]
		buffers.Put(&d)
	}
	t.data, t.points, t.spare, t.ends, t.pinned = nil, nil, nil, nil, false
	return c.ReadCloser.Close()
}

// Traced is implemented by a reader of a deflate stream that has a Trail.
type Traced interface {
	Trail() *Trail
}

type tee struct{ t *Trail }

func (r tee) Read(p []byte) (int, error) {
	t := r.t
	n, err := t.src.Read(p)
	if t.points == nil { // closed
		return n, err
	}
	t.read += int64(n)
	t.data = append(t.data, p[:n]...)
	// Unpinned, only the oldest point's bytes on are needed. They are
	// dropped a few at a time, so that the move is paid once per byte.
	keep := t.points[0].In
	if t.pinned {
		keep = min(keep, t.pin)
	}
	if drop := keep - t.base; drop > 1<<20 && drop > int64(len(t.data))/2 {
		t.data = t.data[:copy(t.data, t.data[drop:])]
		t.base = keep
	}
	return n, err
}

// lookahead is how many bytes past a block's last bit the decoder may
// read before it returns the block's last output.
const lookahead = 8

// end is where a deflate block's output and compressed bytes end.
type end struct{ out, in int64 }

// point is called by the decoder after each block but the last.
func (t *Trail) point(cp flate.InflateCheckpoint) {
	if t.points == nil { // closed
		return
	}
	// The decoder holds up to 32 bits it has read ahead of the block's
	// end, and decoding the block again needs them there too.
	in := cp.CompressedOffset + lookahead
	if !t.pinned && len(t.ends) >= 64 {
		t.ends = t.ends[:copy(t.ends, t.ends[32:])]
	}
	t.ends = append(t.ends, end{cp.UncompressedOffset, in})
	if last := t.points[len(t.points)-1]; cp.UncompressedOffset-last.Out < pointGap {
		return
	}
	var w []byte
	if len(t.points) == maxPoints {
		w = t.points[0].Window
		t.points = append(t.points[:0], t.points[1:]...)
	} else if n := len(t.spare); n > 0 {
		w, t.spare = t.spare[n-1], t.spare[:n-1]
	}
	t.points = append(t.points, Point{
		In: cp.CompressedOffset, Bit: cp.BitOffset, Out: cp.UncompressedOffset,
		Window: append(w[:0], cp.Window...),
	})
}

// consumed is the offset of the compressed data the decoder has taken:
// every byte of output returned so far was decoded from bytes before it.
func (t *Trail) consumed() int64 { return t.read - int64(t.br.Buffered()) }

// Begin returns the last point at or before output offset pos and keeps
// the compressed bytes from it on until End. The point's window is valid
// until the next read of the output. It reports false when the trail holds
// no such point (the reader of the output has fallen too far behind it).
func (t *Trail) Begin(pos int64) (Point, bool) {
	if t.points == nil { // closed
		return Point{}, false
	}
	i := len(t.points) - 1
	for i >= 0 && t.points[i].Out > pos {
		i--
	}
	if i < 0 || t.points[i].In < t.base {
		return Point{}, false
	}
	p := t.points[i]
	// The points before it are no longer needed by anyone.
	for _, old := range t.points[:i] {
		t.spare = append(t.spare, old.Window)
	}
	t.points = append(t.points[:0], t.points[i:]...)
	t.pinned, t.pin = true, p.In
	return p, true
}

// End returns the compressed bytes from the point Begin returned to the
// end of the deflate block that holds output offset hi (or of all that was
// decoded, while that block is not done), and lets them go: they are valid
// until the next read of the output.
func (t *Trail) End(hi int64) []byte {
	if !t.pinned {
		return nil
	}
	t.pinned = false
	stop := t.consumed()
	i := 0
	for i < len(t.ends) && t.ends[i].out < hi {
		i++
	}
	if i < len(t.ends) {
		stop = min(stop, t.ends[i].in)
	}
	t.ends = t.ends[:copy(t.ends, t.ends[i:])]
	return t.data[t.pin-t.base : stop-t.base]
}

// Held returns how many compressed bytes the trail holds.
func (t *Trail) Held() int { return len(t.data) }

// ErrShort means the compressed bytes end before the output asked for.
var ErrShort = errors.New("zran: the compressed data ends early")

var decoders sync.Pool

type resetter interface {
	io.ReadCloser
	ResetCP(r io.Reader, cp flate.InflateCheckpoint) error
}

// Decode decodes len(dst) bytes of output into dst, from compressed bytes
// in that begin at a point with the given bit offset and window.
func Decode(dst, in []byte, bit uint8, window []byte) error {
	d, err := Stream(in, bit, window)
	if err != nil {
		return err
	}
	defer d.Close()
	_, err = io.ReadFull(d, dst)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return ErrShort
	}
	return err
}

// Stream returns the output of compressed bytes in that begin at a point
// with the given bit offset and window, decoded as it is read: a reader
// that holds a few lines at a time holds the decoder's 32 KiB and not the
// whole output. Close gives the decoder back for reuse.
func Stream(in []byte, bit uint8, window []byte) (io.ReadCloser, error) {
	if bit > 7 || len(window) > WindowSize {
		return nil, errors.New("zran: not a point")
	}
	cp := flate.InflateCheckpoint{BitOffset: bit, Window: window}
	// A *bytes.Reader takes the decoder's fastest path.
	src := bytes.NewReader(in)
	d, _ := decoders.Get().(resetter)
	if d == nil {
		d = flate.NewReaderOpts(src, flate.WithResumeFrom(cp)).(resetter)
	} else if err := d.ResetCP(src, cp); err != nil {
		decoders.Put(d)
		return nil, err
	}
	return &stream{d: d}, nil
}

type stream struct{ d resetter }

func (s *stream) Read(p []byte) (int, error) {
	if s.d == nil {
		return 0, io.ErrClosedPipe
	}
	return s.d.Read(p)
}

func (s *stream) Close() error {
	if s.d != nil {
		decoders.Put(s.d)
		s.d = nil
	}
	return nil
}
