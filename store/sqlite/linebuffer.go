package sqlite

import (
	"forensics/store"
	"forensics/store/block"
	"forensics/zran"
)

// lineBuffer encodes the lines of a source into blocks on the reading
// goroutine; the writer only inserts the compressed blocks.
type lineBuffer struct {
	b     *block.Builder
	spans bool // the timeline's schema keeps deflate spans (version 4 on)
}

func (lb *lineBuffer) Add(l *store.NewLine) {
	lb.b.Add(l.N, l.Stamp.Time.UnixNano(), l.Stamp.Offset, l.Flags, l.Text, l.Pos)
}

func (lb *lineBuffer) Full() bool             { return lb.b.Full() }
func (lb *lineBuffer) Empty() bool            { return lb.b.Empty() }
func (lb *lineBuffer) Batch() store.LineBatch { return &lineBatch{lb.b.Finish()} }
func (lb *lineBuffer) Release()               { lb.b.Release() }

// Follow keeps a deflate member's bytes for its lines where the timeline's
// schema has blocks that do.
func (lb *lineBuffer) Follow(t *zran.Trail) bool {
	if !lb.spans {
		t = nil
	}
	lb.b.Follow(t)
	return t != nil
}

// lineBatch is a compressed block on its way to the writer.
type lineBatch struct{ block.Block }

func (b *lineBatch) Release() { b.Block.Release() }
