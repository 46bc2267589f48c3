package input

import (
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/klauspost/compress/zip"

	"forensics/zran"
)

// ErrChecksum is returned at the end of a zip member whose content does not
// match its CRC-32: every byte was read, but some may be damaged.
var ErrChecksum = zip.ErrChecksum

// ratioFloor is how much a member may decompress to before its compression
// ratio is checked: a few small files of repeated lines compress very well
// and are not bombs. It is small so that a bomb made of many small members
// (600 entries sharing one 16 MB stream) is caught member by member too.
const ratioFloor = 1 << 20

// budgetFloor is the least expansion budget an archive tree gets, so that a
// small bundle of very repetitive logs is read whole.
const budgetFloor = 256 << 20

// LimitError says that a limit stopped the reading of a member.
type LimitError struct {
	Path   string
	Reason string
}

func (e *LimitError) Error() string { return e.Reason }

// budget bounds what a whole archive tree (an archive given, and every
// archive inside it) may decompress to: MaxExpansion times the size of the
// outermost archive. Checked as bytes are produced, it cuts a nested bomb
// (zip of 16 zips of 16 zips of 4 GB of zeros) within seconds, where the
// per-member ratio sees each level as harmless.
type budget struct {
	root  string // the outermost archive
	size  int64  // its size on disk
	limit int64
	ratio int64
	used  atomic.Int64
}

func (w *Walker) newBudget(root string, size int64) *budget {
	if w.Limits.MaxExpansion <= 0 {
		return nil
	}
	limit := int64(math.MaxInt64)
	if size < math.MaxInt64/w.Limits.MaxExpansion {
		limit = max(w.Limits.MaxExpansion*size, budgetFloor)
	}
	return &budget{root: root, size: size, limit: limit, ratio: w.Limits.MaxExpansion}
}

// guard wraps open so that what the member decompresses to is bounded.
func (w *Walker) guard(path string, compressed int64, b *budget, open func() (io.ReadCloser, error)) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		return w.guardCloser(path, compressed, b, rc), nil
	}
}

func (w *Walker) guardCloser(path string, compressed int64, b *budget, rc io.ReadCloser) io.ReadCloser {
	return guardedCloser{w.guardReader(path, compressed, b, rc), rc}
}

type guardedCloser struct {
	io.Reader
	io.Closer
}

// Trail implements zran.Traced: the guard only counts and cuts the
// output, so its lines are still the stream's.
func (g guardedCloser) Trail() *zran.Trail {
	if t, ok := g.Closer.(zran.Traced); ok {
		return t.Trail()
	}
	return nil
}

// guardReader bounds r to MaxRatio times the compressed size (when known),
// counts it against the archive tree's budget (when r is inside one) and
// against the walk's MaxTotal.
func (w *Walker) guardReader(path string, compressed int64, b *budget, r io.Reader) io.Reader {
	return &guarded{r: r, w: w, path: path, compressed: compressed, budget: b}
}

type guarded struct {
	r          io.Reader
	w          *Walker
	path       string
	compressed int64
	budget     *budget
	n          int64
	err        error
}

func (g *guarded) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if b := g.budget; b != nil && b.used.Load() > b.limit {
		g.err = b.exceeded(g.path)
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	total := g.w.total.Add(int64(n))
	l := g.w.Limits
	var used int64
	if g.budget != nil {
		used = g.budget.used.Add(int64(n))
	}
	switch {
	case l.MaxRatio > 0 && g.compressed > 0 && g.n > ratioFloor && g.n > l.MaxRatio*g.compressed:
		g.err = &LimitError{g.path, fmt.Sprintf("decompresses to over %d times its %d compressed bytes: this looks like a zip bomb, reading stopped (if the file is genuine, raise --max-ratio)", l.MaxRatio, g.compressed)}
	case g.budget != nil && used > g.budget.limit:
		g.err = g.budget.exceeded(g.path)
	case l.MaxTotal > 0 && total > l.MaxTotal:
		g.err = &LimitError{g.path, fmt.Sprintf("the inputs decompress to more than %d bytes in all, reading stopped (raise --max-bytes to read more)", l.MaxTotal)}
	}
	if g.err != nil {
		return n, g.err
	}
	return n, err
}

func (b *budget) exceeded(path string) error {
	return &LimitError{path, fmt.Sprintf("%s (%d bytes) and the archives inside it decompress to more than %d bytes (%d times its size, at least %d): this looks like a nested zip bomb, reading of its members stopped (if the bundle is genuine, raise --max-expansion)",
		b.root, b.size, b.limit, b.ratio, int64(budgetFloor))}
}
