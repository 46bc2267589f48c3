// Package lines splits a byte stream into lines for the parsers.
//
// bufio.Scanner stops at its token limit, and real logs have lines of
// megabytes (a crash dump, a stats blob). Reader keeps every line whole up to
// MaxLine and cuts longer ones into pieces rather than stopping.
package lines

import (
	"bytes"
	"errors"
	"io"
)

// MaxLine is the longest line kept in one piece. A longer line is returned
// in pieces of MaxLine bytes, each marked Cut.
const MaxLine = 64 << 20

const startSize = 256 << 10

// Reader returns the lines of a stream one at a time.
type Reader struct {
	r          io.Reader
	buf        []byte
	start, end int // unread bytes are buf[start:end]
	err        error
	n          int64 // lines returned
	offset     int64 // bytes consumed
	max        int
	cut        bool
	sep        byte // the line ending: '\n', or '\r' for a file with CR endings only
	decided    bool
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, startSize), max: MaxLine, sep: '\n'}
}

// Line is one line of the stream.
type Line struct {
	N    int64  // 1-based line number
	Text []byte // without the line ending; valid until the next call to Next
	CR   bool   // the line ended in \r\n
	Cut  bool   // the line was longer than MaxLine: this is a piece of it, and the next piece follows
}

// Next returns the next line. At the end of the stream it returns io.EOF;
// a last line without a newline is returned before that. A read error is
// returned once the lines before it have been returned.
func (r *Reader) Next() (Line, error) {
	if !r.decided {
		r.decide()
	}
	scanned := 0 // bytes after r.start known to hold no newline
	for {
		i := bytes.IndexByte(r.buf[r.start+scanned:r.end], r.sep)
		if i >= 0 && scanned+i <= r.max {
			j := r.start + scanned + i
			text := r.buf[r.start:j]
			r.offset += int64(j + 1 - r.start)
			r.start = j + 1
			return r.line(text, true), nil
		}
		scanned = r.end - r.start
		if scanned > r.max {
			return r.piece(), nil
		}
		if r.err != nil {
			if r.start < r.end {
				text := r.buf[r.start:r.end]
				r.offset += int64(r.end - r.start)
				r.start = r.end
				return r.line(text, false), nil
			}
			err := r.err
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			return Line{}, err
		}
		r.fill()
	}
}

// piece returns the first MaxLine bytes of a line too long to keep whole.
func (r *Reader) piece() Line {
	text := r.buf[r.start : r.start+r.max]
	r.offset += int64(r.max)
	r.start += r.max
	l := r.line(text, false)
	l.Cut = true
	r.cut = true
	return l
}

func (r *Reader) line(text []byte, newline bool) Line {
	l := Line{Text: text}
	if r.cut {
		// The end of a cut line continues the same line number.
		r.cut = false
	} else {
		r.n++
	}
	l.N = r.n
	if newline && r.sep == '\n' && len(text) > 0 && text[len(text)-1] == '\r' {
		l.Text = text[:len(text)-1]
		l.CR = true
	}
	return l
}

// fill reads more of the stream, moving unread bytes to the front or growing
// the buffer when a line does not fit.
func (r *Reader) fill() {
	if r.start > 0 {
		if len(r.buf) > 4*startSize && r.end-r.start <= startSize {
			// A long line is behind: its buffer goes, rather than stay for
			// the short lines after it (and add to the next long one's).
			nb := make([]byte, startSize)
			r.end = copy(nb, r.buf[r.start:r.end])
			r.buf, r.start = nb, 0
		} else {
			copy(r.buf, r.buf[r.start:r.end])
			r.end -= r.start
			r.start = 0
		}
	}
	if r.end == len(r.buf) {
		size := 2 * len(r.buf)
		if size > r.max+1 {
			size = r.max + 1
		}
		nb := make([]byte, size)
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	n, err := r.r.Read(r.buf[r.end:])
	r.end += n
	if err != nil {
		r.err = err
	}
}

// crProbe is how much of the stream decide looks at.
const crProbe = 64 << 10

// decide tells the line ending from the start of the stream: a file
// written with CR endings only (classic Mac OS, some serial consoles) has
// carriage returns and no newline, and read by newlines it is one line.
func (r *Reader) decide() {
	r.decided = true
	for r.err == nil && r.end-r.start < crProbe && bytes.IndexByte(r.buf[r.start:r.end], '\n') < 0 {
		r.fill()
	}
	head := r.buf[r.start:r.end]
	if bytes.IndexByte(head, '\n') < 0 && bytes.Count(head, []byte{'\r'}) >= 2 {
		r.sep = '\r'
	}
}

// CROnly reports whether the stream's lines end in CR only, and are split
// there.
func (r *Reader) CROnly() bool { return r.sep == '\r' }

// Offset returns the number of bytes consumed so far.
func (r *Reader) Offset() int64 { return r.offset }
