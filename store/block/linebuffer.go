package block

import (
	"forensics/store"
	"forensics/zran"
)

// LineBuffer is a backend's store.LineBuffer: it encodes the lines of a
// source into blocks on the reading goroutine, so the writer only stores
// the compressed blocks.
type LineBuffer struct {
	b     *Builder
	spans bool // the timeline keeps deflate spans (SQLite schema 4 on, PostgreSQL)
}

// NewLineBuffer returns a buffer whose blocks keep a deflate member's bytes
// for their lines when spans is set, and carry their sketch for the index
// of blocks when index is.
func NewLineBuffer(spans, index bool) *LineBuffer {
	b := NewBuilder()
	if index {
		b.Index()
	}
	return &LineBuffer{b: b, spans: spans}
}

func (lb *LineBuffer) Add(l *store.NewLine) {
	lb.b.Add(l.N, l.Stamp.Time.UnixNano(), l.Stamp.Offset, l.Flags, l.Text, l.Pos)
}

func (lb *LineBuffer) Full() bool             { return lb.b.Full() }
func (lb *LineBuffer) Empty() bool            { return lb.b.Empty() }
func (lb *LineBuffer) Batch() store.LineBatch { return &Batch{lb.b.Finish()} }
func (lb *LineBuffer) Release()               { lb.b.Release() }

// Follow keeps a deflate member's bytes for its lines where the timeline
// has blocks that do.
func (lb *LineBuffer) Follow(t *zran.Trail) bool {
	if !lb.spans {
		t = nil
	}
	lb.b.Follow(t)
	return t != nil
}

// Batch is a compressed block on its way to the writer.
type Batch struct{ Block }

func (b *Batch) Release() { b.Block.Release() }
