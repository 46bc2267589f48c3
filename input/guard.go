package input

import (
	"fmt"
	"io"

	"github.com/klauspost/compress/zip"
)

// ErrChecksum is returned at the end of a zip member whose content does not
// match its CRC-32: every byte was read, but some may be damaged.
var ErrChecksum = zip.ErrChecksum

// ratioFloor is how much a member may decompress to before its compression
// ratio is checked: small files of repeated lines compress very well and are
// not bombs.
const ratioFloor = 16 << 20

// LimitError says that a limit stopped the reading of a member.
type LimitError struct {
	Path   string
	Reason string
}

func (e *LimitError) Error() string { return e.Reason }

// guard wraps open so that what the member decompresses to is bounded.
func (w *Walker) guard(path string, compressed int64, open func() (io.ReadCloser, error)) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		return w.guardCloser(path, compressed, rc), nil
	}
}

func (w *Walker) guardCloser(path string, compressed int64, rc io.ReadCloser) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{w.guardReader(path, compressed, rc), rc}
}

// guardReader bounds r to MaxRatio times the compressed size (when known)
// and counts it against the walk's MaxTotal.
func (w *Walker) guardReader(path string, compressed int64, r io.Reader) io.Reader {
	return &guarded{r: r, w: w, path: path, compressed: compressed}
}

type guarded struct {
	r          io.Reader
	w          *Walker
	path       string
	compressed int64
	n          int64
	err        error
}

func (g *guarded) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	total := g.w.total.Add(int64(n))
	l := g.w.Limits
	switch {
	case l.MaxRatio > 0 && g.compressed > 0 && g.n > ratioFloor && g.n > l.MaxRatio*g.compressed:
		g.err = &LimitError{g.path, fmt.Sprintf("decompresses to over %d times its %d compressed bytes: this looks like a zip bomb, reading stopped (if the file is genuine, raise --max-ratio)", l.MaxRatio, g.compressed)}
	case l.MaxTotal > 0 && total > l.MaxTotal:
		g.err = &LimitError{g.path, fmt.Sprintf("the inputs decompress to more than %d bytes in all, reading stopped (raise --max-bytes to read more)", l.MaxTotal)}
	}
	if g.err != nil {
		return n, g.err
	}
	return n, err
}
