package block

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"testing"

	"forensics/lines"
	"forensics/store"
	"forensics/zran"
)

// spanText is a log with CRLF and LF endings, empty lines, a line longer
// than a block and a last line without a newline.
func spanText(seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	for i := 0; b.Len() < 3<<20; i++ {
		switch {
		case i == 5000:
			b.WriteString(string(bytes.Repeat([]byte("x"), 700<<10)) + "\n")
		case r.Intn(50) == 0:
			b.WriteString("\n")
		case r.Intn(7) == 0:
			fmt.Fprintf(&b, "2022-07-21T17:39:%02d.%06d-07:00 WARNING %d: (vb:%d) crlf\r\n", r.Intn(60), r.Intn(1e6), i, r.Intn(1024))
		default:
			fmt.Fprintf(&b, "2022-07-21T17:39:%02d.%06d-07:00 INFO %d: (test3) DCP (Producer) - (vb:%d) Creating stream with start seqno %d\n", r.Intn(60), r.Intn(1e6), i, r.Intn(1024), r.Intn(1e7))
		}
	}
	b.WriteString("the last line")
	return b.Bytes()
}

type storedLine struct {
	n     int64
	t     int64
	flags store.LineFlags
	text  string
}

// buildBlocks reads text the way ingest does, from a deflate stream
// through its trail when traced is set, and returns the blocks and the
// lines it added.
func buildBlocks(t *testing.T, text []byte, traced bool) ([]Block, []storedLine) {
	t.Helper()
	var comp bytes.Buffer
	w, _ := flate.NewWriter(&comp, 6)
	w.Write(text)
	w.Close()
	rc, trail := zran.NewReader(&comp, 64<<10)
	b := NewBuilder()
	if traced {
		b.Follow(trail)
	}
	lr := lines.NewReader(rc)
	var blocks []Block
	var want []storedLine
	for {
		pos := lr.Offset()
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ts := 1658450352e9 + l.N*1e6
		flags := store.LineFlags{CR: l.CR, Cut: l.Cut}
		b.Add(l.N, ts, 0, flags, l.Text, pos)
		want = append(want, storedLine{l.N, ts, flags, string(l.Text)})
		if b.Full() {
			blocks = append(blocks, b.Finish())
		}
	}
	if !b.Empty() {
		blocks = append(blocks, b.Finish())
	}
	return blocks, want
}

// TestSpanBlocks checks that blocks that keep a deflate stream's own bytes
// give back every line, its number, time and flags, as blocks of S2 do.
func TestSpanBlocks(t *testing.T) {
	text := spanText(1)
	for _, traced := range []bool{false, true} {
		blocks, want := buildBlocks(t, text, traced)
		spans, size := 0, 0
		for _, blk := range blocks {
			if bytes.HasPrefix(blk.Data, zranMagic[:]) {
				spans++
			}
			size += len(blk.Data)
		}
		// Whole, as a search reads a block, and lazily, as a dump does.
		for _, whole := range []bool{true, false} {
			got, err := readBlocks(blocks, whole)
			if err != nil {
				t.Fatalf("traced %v, whole %v: %v", traced, whole, err)
			}
			if len(got) != len(want) {
				t.Fatalf("traced %v, whole %v: %d lines back of %d", traced, whole, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("traced %v, whole %v: line %d is\n%+v\nwant\n%+v", traced, whole, i, got[i], want[i])
				}
			}
		}
		switch {
		case traced && spans < len(blocks)-1:
			t.Errorf("only %d of %d blocks keep the deflate stream", spans, len(blocks))
		case !traced && spans > 0:
			t.Errorf("%d blocks keep a deflate stream the builder was not given", spans)
		}
		t.Logf("traced %v: %d blocks, %d bytes for %d of text", traced, len(blocks), size, len(text))
	}
}

// readBlocks reads the lines of blocks back with one Reader.
func readBlocks(blocks []Block, whole bool) ([]storedLine, error) {
	var got []storedLine
	var r Reader
	for _, blk := range blocks {
		if err := r.Open(blk.FirstLine, blk.Data, whole); err != nil {
			return got, fmt.Errorf("block at line %d: %w", blk.FirstLine, err)
		}
		for {
			l, err := r.Next()
			if err != nil {
				return got, fmt.Errorf("block at line %d: %w", blk.FirstLine, err)
			}
			if l == nil {
				break
			}
			got = append(got, storedLine{l.N, l.Time, l.Flags, string(l.Text)})
		}
	}
	return got, nil
}

// TestSpanBlockDamaged checks that a damaged block of a deflate span is an
// error, never a panic or an allocation the size of a lie.
func TestSpanBlockDamaged(t *testing.T) {
	blocks, _ := buildBlocks(t, spanText(2), true)
	blk := blocks[1]
	r := rand.New(rand.NewSource(3))
	nop := func(*Line) error { return nil }
	// One byte is 0x00, an empty S2 block; past half, the cut may fall in
	// the rest of the deflate block after the last line.
	for cut := 2; cut < len(blk.Data)/2; cut += 1 + len(blk.Data)/100 {
		if err := Decode(blk.FirstLine, blk.Data[:cut], nop); err == nil {
			t.Fatalf("the block cut to %d of %d bytes decoded", cut, len(blk.Data))
		} else if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut to %d: %v is not ErrCorrupt", cut, err)
		}
	}
	for i := range 2000 {
		d := bytes.Clone(blk.Data)
		for range 1 + r.Intn(4) {
			d[2+r.Intn(len(d)-2)] ^= byte(1 + r.Intn(255))
		}
		Decode(blk.FirstLine, d, nop) // an error or other lines, not a panic
		if i%4 == 0 {
			readBlocks([]Block{{FirstLine: blk.FirstLine, Data: d}}, false) // and read lazily
		}
	}
}

func FuzzLineBlock(f *testing.F) {
	text := []byte("2022-07-21T17:39:12.120-07:00 INFO 1: line one\r\nsecond\n\nfourth")
	for _, level := range []int{0, 6} {
		var comp bytes.Buffer
		w, _ := flate.NewWriter(&comp, level)
		w.Write(text)
		w.Close()
		rc, trail := zran.NewReader(&comp, 4096)
		b := NewBuilder()
		b.Follow(trail)
		lr := lines.NewReader(rc)
		for {
			pos := lr.Offset()
			l, err := lr.Next()
			if err != nil {
				break
			}
			b.Add(l.N, l.N*1e9, 3600, store.LineFlags{CR: l.CR}, l.Text, pos)
		}
		f.Add(b.Finish().Data)
	}
	s2b := NewBuilder()
	s2b.Add(1, 5, 0, store.LineFlags{}, text, 0)
	f.Add(s2b.Finish().Data)
	f.Fuzz(func(t *testing.T, data []byte) {
		// An error or lines, never a panic; the same lines read whole or lazily.
		blocks := []Block{{FirstLine: 1, Data: data}}
		whole, werr := readBlocks(blocks, true)
		lazy, lerr := readBlocks(blocks, false)
		if werr == nil && lerr == nil && !slices.Equal(whole, lazy) {
			t.Errorf("read whole: %d lines; lazily: %d lines, or others", len(whole), len(lazy))
		}
	})
}
