package zran

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"math/rand"
	"testing"
)

// logText makes n bytes of log-like lines, with a share of random bytes
// that do not compress, so that the encoder writes stored blocks as well
// as Huffman ones.
func logText(n int, seed int64, random float64) []byte {
	r := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	for b.Len() < n {
		if r.Float64() < random {
			raw := make([]byte, 1+r.Intn(4000))
			r.Read(raw)
			b.Write(raw)
			b.WriteByte('\n')
			continue
		}
		fmt.Fprintf(&b, "2022-07-21T17:39:%02d.%06d-07:00 INFO %d: (test3) DCP (Producer) eq_dcpq:secidx:proj-test3 - (vb:%d) Creating stream with start seqno %d\n",
			r.Intn(60), r.Intn(1e6), 300+r.Intn(50), r.Intn(1024), r.Intn(1e7))
	}
	return b.Bytes()[:n]
}

func deflate(t *testing.T, data []byte, level int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

type span struct {
	p          Point
	start, end int64
	in         []byte
}

// TestSpans reads streams the way ingest does, a piece at a time, takes
// spans of the output at arbitrary places while the reader is ahead of
// them, and decodes every span again on its own from what the trail kept.
func TestSpans(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		level  int
		random float64
	}{
		{"logs level 6", 3 << 20, 6, 0},
		{"logs level 1", 3 << 20, 1, 0},
		{"logs best", 2 << 20, 9, 0},
		{"stored", 1 << 20, 0, 0},
		{"mixed", 3 << 20, 6, 0.05},
		{"huffman only", 1 << 20, flate.HuffmanOnly, 0},
		{"small", 3000, 6, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := logText(tc.size, int64(tc.size), tc.random)
			comp := deflate(t, data, tc.level)
			rc, tr := NewReader(bytes.NewReader(comp), 4096)
			r := rand.New(rand.NewSource(1))
			var out []byte
			var spans []span
			open, opened := int64(-1), Point{}
			buf := make([]byte, 70000)
			for {
				n, err := rc.Read(buf[:1+r.Intn(len(buf)-1)])
				out = append(out, buf[:n]...)
				// The consumer is behind the decoder by up to 200 KiB.
				behind := max(0, int64(len(out))-int64(r.Intn(200<<10)))
				if open >= 0 && behind > open && r.Intn(3) == 0 {
					spans = append(spans, span{opened, open, behind, bytes.Clone(tr.End(behind))})
					open = -1
				}
				if open < 0 && r.Intn(2) == 0 {
					if p, ok := tr.Begin(behind); ok {
						opened, open = p, behind
						opened.Window = append([]byte(nil), p.Window...)
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if open >= 0 {
				spans = append(spans, span{opened, open, int64(len(out)), tr.End(int64(len(out)))})
			}
			if !bytes.Equal(out, data) {
				t.Fatalf("the output is not the input")
			}
			if len(spans) < 3 && tc.size > 1<<20 {
				t.Fatalf("only %d spans taken", len(spans))
			}
			for i, s := range spans {
				if s.p.Out > s.start {
					t.Fatalf("span %d: point at %d after its start %d", i, s.p.Out, s.start)
				}
				dst := make([]byte, s.end-s.p.Out)
				if err := Decode(dst, s.in, s.p.Bit, s.p.Window); err != nil {
					t.Fatalf("span %d (%d-%d from point %d): %v", i, s.start, s.end, s.p.Out, err)
				}
				if !bytes.Equal(dst, data[s.p.Out:s.end]) {
					t.Fatalf("span %d (%d-%d from point %d) decodes to other bytes", i, s.start, s.end, s.p.Out)
				}
			}
			if tr.Held() > 4<<20 {
				t.Errorf("the trail holds %d bytes at the end", tr.Held())
			}
		})
	}
}

// TestDecodeShort checks that compressed bytes cut short give ErrShort,
// not bytes that were never there.
func TestDecodeShort(t *testing.T) {
	data := logText(1<<20, 3, 0)
	comp := deflate(t, data, 6)
	dst := make([]byte, len(data))
	if err := Decode(dst, comp[:len(comp)/2], 0, nil); err != ErrShort {
		t.Fatalf("half the data: %v, want ErrShort", err)
	}
	if err := Decode(dst, comp, 9, nil); err == nil {
		t.Fatal("bit offset 9 accepted")
	}
	if err := Decode(dst, comp, 0, nil); err != nil || !bytes.Equal(dst, data) {
		t.Fatalf("the whole stream: %v", err)
	}
}

// TestTrailBounded checks that a trail nobody takes spans from keeps only
// what its recent points need, not the whole stream.
func TestTrailBounded(t *testing.T) {
	data := logText(40<<20, 4, 0.01)
	comp := deflate(t, data, 6)
	rc, tr := NewReader(bytes.NewReader(comp), 64<<10)
	most := 0
	buf := make([]byte, 256<<10)
	for {
		_, err := rc.Read(buf)
		most = max(most, tr.Held())
		if err != nil {
			break
		}
	}
	if most > 3<<20 {
		t.Fatalf("the trail held %d bytes of %d", most, len(comp))
	}
}

func FuzzDecode(f *testing.F) {
	data := logText(100<<10, 5, 0.1)
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, 6)
	w.Write(data)
	w.Close()
	f.Add(b.Bytes(), uint8(0), []byte(nil), 200000)
	f.Add(b.Bytes()[10:], uint8(3), data[:100], 5000)
	f.Fuzz(func(t *testing.T, in []byte, bit uint8, window []byte, n int) {
		if n < 0 || n > 1<<20 {
			return
		}
		dst := make([]byte, n)
		Decode(dst, in, bit, window) // must not panic or hang
	})
}

// TestBlockEnds decodes a stream from its start up to the end of each of
// its blocks, with the compressed bytes the trail would keep for it: a
// span that ends with a block needs no byte of the next one but the few
// the decoder reads ahead.
func TestBlockEnds(t *testing.T) {
	for _, level := range []int{1, 6, 9, flate.HuffmanOnly} {
		data := logText(1<<20, int64(level+10), 0.02)
		comp := deflate(t, data, level)
		rc, tr := NewReader(bytes.NewReader(comp), 4096)
		p, _ := tr.Begin(0)
		if _, err := io.Copy(io.Discard, rc); err != nil {
			t.Fatal(err)
		}
		if len(tr.ends) < 5 {
			t.Fatalf("level %d: %d block ends recorded", level, len(tr.ends))
		}
		for _, e := range tr.ends {
			dst := make([]byte, e.out-p.Out)
			if err := Decode(dst, comp[p.In:min(e.in, int64(len(comp)))], p.Bit, p.Window); err != nil || !bytes.Equal(dst, data[:e.out]) {
				t.Fatalf("level %d: up to the block end at %d (byte %d): %v", level, e.out, e.in, err)
			}
		}
	}
}
