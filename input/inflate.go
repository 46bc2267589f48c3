//go:build !isal

package input

import (
	"io"

	"forensics/zran"
)

// inflateBuffer is how much compressed data one read of the archive takes.
// flate wraps a reader without ReadByte in a 4 KiB bufio.Reader, which
// costs a pread of the zip file for every 4 KiB of compressed data.
const inflateBuffer = 64 << 10

// newInflater inflates a zip member with klauspost/compress, the pure-Go
// default (isal.go is the build with Intel ISA-L), and keeps the trail
// that lets the store keep the member's compressed bytes for its lines.
func newInflater(r io.Reader) (io.ReadCloser, *zran.Trail) {
	return zran.NewReader(r, inflateBuffer)
}
