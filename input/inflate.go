//go:build !isal

package input

import (
	"bufio"
	"io"

	"github.com/klauspost/compress/flate"
)

// inflateBuffer is how much compressed data one read of the archive takes.
// flate wraps a reader without ReadByte in a 4 KiB bufio.Reader, which
// costs a pread of the zip file for every 4 KiB of compressed data.
const inflateBuffer = 64 << 10

// newInflater inflates a zip member with klauspost/compress, the pure-Go
// default; isal.go is the build with Intel ISA-L.
func newInflater(r io.Reader) io.ReadCloser {
	return flate.NewReader(bufio.NewReaderSize(r, inflateBuffer))
}
