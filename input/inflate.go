//go:build !isal

package input

import (
	"io"

	"github.com/klauspost/compress/flate"
)

// newInflater inflates a zip member with klauspost/compress, the pure-Go
// default; isal.go is the build with Intel ISA-L.
func newInflater(r io.Reader) io.ReadCloser { return flate.NewReader(r) }
