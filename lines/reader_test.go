package lines

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r *Reader) []Line {
	t.Helper()
	var out []Line
	for {
		l, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		l.Text = append([]byte(nil), l.Text...)
		out = append(out, l)
	}
}

func TestReaderSplits(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		cr   []bool
	}{
		{"empty", "", nil, nil},
		{"one without newline", "a", []string{"a"}, []bool{false}},
		{"lf", "a\nb\n", []string{"a", "b"}, []bool{false, false}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}, []bool{true, true}},
		{"blank lines kept", "a\n\n\nb", []string{"a", "", "", "b"}, []bool{false, false, false, false}},
		{"lone cr is content", "a\rb\n", []string{"a\rb"}, []bool{false}},
		{"nul and invalid utf8 kept", "a\x00\xff\n", []string{"a\x00\xff"}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time exercises every refill boundary.
			got := readAll(t, NewReader(iotest.OneByteReader(strings.NewReader(tt.in))))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines, want %d", len(got), len(tt.want))
			}
			for i, l := range got {
				if string(l.Text) != tt.want[i] || l.CR != tt.cr[i] || l.N != int64(i+1) {
					t.Errorf("line %d = {%q cr=%v n=%d}, want {%q cr=%v n=%d}", i, l.Text, l.CR, l.N, tt.want[i], tt.cr[i], i+1)
				}
			}
		})
	}
}

func TestReaderLongLineKeptWhole(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 10<<20)
	in := append(append([]byte("before\n"), long...), "\nafter\n"...)
	r := NewReader(bytes.NewReader(in))
	got := readAll(t, r)
	if len(got) != 3 || !bytes.Equal(got[1].Text, long) || got[1].Cut || string(got[2].Text) != "after" {
		t.Fatalf("got %d lines; middle %d bytes cut=%v", len(got), len(got[1].Text), got[1].Cut)
	}
	if r.Offset() != int64(len(in)) {
		t.Errorf("Offset = %d, want %d", r.Offset(), len(in))
	}
}

func TestReaderCutsLinesOverMax(t *testing.T) {
	r := NewReader(strings.NewReader("0123456789\nab\n"))
	r.max = 4
	got := readAll(t, r)
	var texts []string
	for _, l := range got {
		texts = append(texts, string(l.Text))
	}
	if strings.Join(texts, "|") != "0123|4567|89|ab" {
		t.Fatalf("pieces = %q", texts)
	}
	if !got[0].Cut || !got[1].Cut || got[2].Cut || got[2].N != 1 || got[3].N != 2 {
		t.Errorf("cut flags or numbers wrong: %+v", got)
	}
}

func TestReaderReturnsLinesBeforeError(t *testing.T) {
	boom := errors.New("unexpected EOF in gzip")
	r := NewReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	for _, want := range []string{"a", "b"} {
		l, err := r.Next()
		if err != nil || string(l.Text) != want {
			t.Fatalf("Next = %q, %v; want %q", l.Text, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
}

func TestCROnly(t *testing.T) {
	r := NewReader(strings.NewReader("first\rsecond\rthird"))
	var got []string
	for {
		l, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, string(l.Text))
	}
	if strings.Join(got, "|") != "first|second|third" || !r.CROnly() {
		t.Errorf("lines %q, CR only %v", got, r.CROnly())
	}
	// CRLF files and files with a stray CR are read by newlines.
	for _, in := range []string{"a\r\nb\r\n", "a\rb\nc\n"} {
		r := NewReader(strings.NewReader(in))
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		if r.CROnly() || n != 2 && n != 3 {
			t.Errorf("%q: %d lines, CR only %v", in, n, r.CROnly())
		}
	}
}
