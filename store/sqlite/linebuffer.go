package sqlite

import (
	"forensics/store"
	"forensics/store/block"
	"forensics/zran"
)

// lineBuffer encodes the lines of a source into blocks on the reading
// goroutine; the writer only inserts the compressed blocks.
type lineBuffer struct{ b *block.Builder }

func (lb *lineBuffer) Add(l *store.NewLine) {
	lb.b.Add(l.N, l.Stamp.Time.UnixNano(), l.Stamp.Offset, l.Flags, l.Text, l.Pos)
}

func (lb *lineBuffer) Full() bool             { return lb.b.Full() }
func (lb *lineBuffer) Empty() bool            { return lb.b.Empty() }
func (lb *lineBuffer) Batch() store.LineBatch { return &lineBatch{lb.b.Finish()} }
func (lb *lineBuffer) Release()               { lb.b.Release() }
func (lb *lineBuffer) Follow(t *zran.Trail)   { lb.b.Follow(t) }

// lineBatch is a compressed block on its way to the writer.
type lineBatch struct{ block.Block }

func (b *lineBatch) Release() { b.Block.Release() }
