package input

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zip"
)

// zipEntry is a member of a zip, from its central directory or, for a
// damaged zip, from its local header.
type zipEntry struct {
	name       string
	mode       fs.FileMode
	encrypted  bool
	method     uint16
	size       int64 // uncompressed; -1 when unknown
	compressed int64 // 0 when unknown
	offset     int64 // of the compressed data in the archive; -1 when unknown
	crc        uint32
	modified   time.Time
	open       func() (io.ReadCloser, error)
}

func centralEntries(r *zip.Reader) []zipEntry {
	var out []zipEntry
	for _, f := range r.File {
		f := f
		off, err := f.DataOffset()
		if err != nil {
			off = -1
		}
		e := zipEntry{
			name: f.Name, mode: f.Mode(), encrypted: f.Flags&flagEncrypted != 0, method: f.Method,
			size: int64(f.UncompressedSize64), compressed: int64(f.CompressedSize64), offset: off, crc: f.CRC32, modified: f.Modified,
		}
		// The member is decompressed here, not by the zip package, so that
		// a wrong uncompressed size in the header loses nothing (the zip
		// package stops at the declared size, or refuses the member).
		e.open = func() (io.ReadCloser, error) {
			raw, err := f.OpenRaw()
			if err != nil {
				return nil, err
			}
			return openMethod(f.Method, raw, e.size, f.CRC32, f.CRC32 != 0)
		}
		out = append(out, e)
	}
	return out
}

// overlapping returns the indexes of entries whose data starts inside the
// data of another entry. A real zip never shares data between members; an
// overlapping-entry bomb (600 entries pointing at one 16 MB stream)
// expands to gigabytes while each member looks harmless.
func overlapping(entries []zipEntry) map[int]bool {
	idx := make([]int, 0, len(entries))
	for i, e := range entries {
		if e.offset >= 0 && e.compressed > 0 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return entries[idx[a]].offset < entries[idx[b]].offset })
	bad := map[int]bool{}
	end := int64(-1)
	for _, i := range idx {
		e := entries[i]
		if e.offset < end {
			bad[i] = true
			continue
		}
		end = e.offset + e.compressed
	}
	return bad
}

// zipMembers yields the files of a zip. Members are opened on demand, so the
// reader can decompress several at once.
func (w *Walker) zipMembers(ctx context.Context, entries []zipEntry, display, rel, node string, depth int, b *budget, fn func(Member) error) error {
	seen := map[string]int{}
	if bad := overlapping(entries); len(bad) > 0 {
		first := ""
		for i := range entries {
			if bad[i] {
				first = entries[i].name
				break
			}
		}
		w.problem(display, true, "%d of its %d members share their compressed data with another member (the first is %s): this is how an overlapping-entry zip bomb is built, so those members are not read", len(bad), len(entries), first)
		kept := entries[:0:0]
		for i, e := range entries {
			if !bad[i] {
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.HasSuffix(e.name, "/") || e.mode.IsDir() {
			continue
		}
		name := e.name
		mpath := display + "!" + name
		mrel := joinRel(rel, name)
		// Two members may have the same name; both are read, under distinct names.
		if seen[name]++; seen[name] > 1 {
			mpath += fmt.Sprintf(" (copy %d)", seen[name])
			mrel += fmt.Sprintf(" (copy %d)", seen[name])
		}
		mnode := nodeFromPath(mpath)
		if mnode == "" {
			mnode = node
		}
		if e.mode&fs.ModeSymlink != 0 {
			w.problem(mpath, false, "symbolic link not followed")
			continue
		}
		if e.encrypted {
			w.problem(mpath, true, "encrypted member skipped; ask for an unencrypted bundle")
			continue
		}
		if !methodSupported(e.method) {
			w.problem(mpath, true, "compressed with %s, which forensics cannot decompress: not read; ask for the bundle zipped with deflate (zip's default)", methodName(e.method))
			continue
		}
		base := path.Base(name)
		open := w.guard(mpath, e.compressed, b, e.open)
		switch {
		case strings.HasSuffix(base, ".zip"):
			if err := w.nestedZip(ctx, open, e.size, mpath, mrel, mnode, depth, b, fn); err != nil {
				return err
			}
			continue
		case strings.HasSuffix(base, ".tar.gz") || strings.HasSuffix(base, ".tgz") || strings.HasSuffix(base, ".tar"):
			if err := w.nestedTar(ctx, open, strings.HasSuffix(base, "gz"), e.compressed, mpath, mrel, mnode, depth, b, fn); err != nil {
				return err
			}
			continue
		}
		m := Member{Path: mpath, Rel: mrel, Name: base, Node: mnode, Size: e.size, ModTime: e.modified, open: open}
		if e.size >= 0 {
			m.Key = Key(mnode, mrel, e.size, e.crc)
		}
		if strings.HasSuffix(base, ".gz") {
			m.Name = strings.TrimSuffix(base, ".gz")
			m.Size = -1
			m.open = func() (io.ReadCloser, error) {
				rc, err := open()
				if err != nil {
					return nil, err
				}
				zr, err := newGzipReader(rc, rc)
				if err != nil {
					return nil, err
				}
				return w.guardCloser(mpath, e.size, b, zr), nil
			}
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return nil
}

// nestedZip reads a zip inside an archive into memory (a zip needs random
// access) and yields its members.
func (w *Walker) nestedZip(ctx context.Context, open func() (io.ReadCloser, error), size int64, display, rel, node string, depth int, b *budget, fn func(Member) error) error {
	if depth >= w.Limits.MaxDepth {
		w.problem(display, true, "archive nested deeper than %d levels, not read (--max-depth)", w.Limits.MaxDepth)
		return nil
	}
	if size > w.Limits.MaxMember {
		w.problem(display, true, "nested zip of %d bytes is over the %d byte limit (--max-member); extract it and pass it on its own", size, w.Limits.MaxMember)
		return nil
	}
	data, err := readAllLimited(open, w.Limits.MaxMember)
	if err != nil {
		w.problem(display, true, "cannot read nested zip: %v", err)
		return nil
	}
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		w.problem(display, true, "not a readable zip: %v", err)
		return nil
	}
	return w.zipMembers(ctx, centralEntries(r), display, rel, node, depth+1, b, fn)
}

func (w *Walker) nestedTar(ctx context.Context, open func() (io.ReadCloser, error), gz bool, compressed int64, display, rel, node string, depth int, b *budget, fn func(Member) error) error {
	if depth >= w.Limits.MaxDepth {
		w.problem(display, true, "archive nested deeper than %d levels, not read (--max-depth)", w.Limits.MaxDepth)
		return nil
	}
	rc, err := open()
	if err != nil {
		w.problem(display, true, "cannot read: %v", err)
		return nil
	}
	defer rc.Close()
	return w.tarMembers(ctx, rc, gz, compressed, display, rel, node, depth+1, b, fn)
}

// tarMembers yields the files of a tar stream, in archive order. A tar can
// be read only once, in order, so a member is not held in memory: it is
// yielded as a stream, and the walk waits until the reader has closed it
// before moving to the next member. The limits of zip members apply: the
// ratio to the compressed size (of the whole gzip stream, which is all a
// tar.gz tells), the archive tree's budget and the total.
func (w *Walker) tarMembers(ctx context.Context, r io.Reader, gz bool, compressed int64, display, rel, node string, depth int, b *budget, fn func(Member) error) error {
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			w.problem(display, true, "not a readable gzip: %v", err)
			return nil
		}
		defer zr.Close()
		r = w.guardReader(display, compressed, b, zr)
	} else {
		r = w.guardReader(display, 0, b, r)
	}
	tr := tar.NewReader(ctxReader{ctx, r})
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var limit *LimitError
			if errors.As(err, &limit) {
				w.problem(display, true, "%s; members after this point are not read", limit.Reason)
				return nil
			}
			w.problem(display, true, "archive cut short, members after this point lost: %v", err)
			return nil
		}
		mpath := display + "!" + h.Name
		mrel := joinRel(rel, h.Name)
		switch h.Typeflag {
		case tar.TypeReg:
		case tar.TypeSymlink, tar.TypeLink:
			w.problem(mpath, false, "link not followed")
			continue
		default:
			continue
		}
		mnode := nodeFromPath(mpath)
		if mnode == "" {
			mnode = node
		}
		base := path.Base(h.Name)
		if strings.HasSuffix(base, ".zip") {
			// A zip needs random access: this one member is held in memory.
			if depth >= w.Limits.MaxDepth {
				w.problem(mpath, true, "archive nested deeper than %d levels, not read (--max-depth)", w.Limits.MaxDepth)
				continue
			}
			if h.Size > w.Limits.MaxMember {
				w.problem(mpath, true, "nested zip of %d bytes is over the %d byte limit (--max-member); extract it and pass it on its own", h.Size, w.Limits.MaxMember)
				continue
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				w.problem(mpath, true, "cannot read: %v", err)
				return nil
			}
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				w.problem(mpath, true, "not a readable zip: %v", err)
				continue
			}
			if err := w.zipMembers(ctx, centralEntries(zr), mpath, mrel, mnode, depth+1, b, fn); err != nil {
				return err
			}
			continue
		}
		s := &streamed{r: tr, done: make(chan struct{})}
		m := Member{Path: mpath, Rel: mrel, Name: base, Node: mnode, Size: h.Size, ModTime: h.ModTime, open: s.open}
		if strings.HasSuffix(base, ".gz") {
			m.Name = strings.TrimSuffix(base, ".gz")
			m.Size = -1
			m.open = func() (io.ReadCloser, error) {
				rc, err := s.open()
				if err != nil {
					return nil, err
				}
				zr, err := newGzipReader(rc, rc)
				if err != nil {
					return nil, err
				}
				return w.guardCloser(mpath, h.Size, b, zr), nil
			}
		}
		if err := fn(m); err != nil {
			return err
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// streamed is a tar member read in place. It can be opened once; closing it
// lets the walk go on to the next member.
type streamed struct {
	r      io.Reader
	done   chan struct{}
	mu     sync.Mutex
	opened bool
	once   sync.Once
}

func (s *streamed) open() (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opened {
		return nil, errors.New("a tar member can be read only once")
	}
	s.opened = true
	return s, nil
}

func (s *streamed) Read(p []byte) (int, error) { return s.r.Read(p) }

func (s *streamed) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// joinRel names a member inside an archive that is itself at rel.
func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "!" + name
}

func readAllLimited(open func() (io.ReadCloser, error), limit int64) ([]byte, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil && !errors.Is(err, ErrChecksum) {
		var se *SizeError
		if !errors.As(err, &se) {
			return nil, err
		}
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("over the %d byte limit", limit)
	}
	return data, nil
}

// gzipReader decompresses a gzip stream (all its members: rotated logs are
// often concatenated gzips) and closes the underlying file with it.
type gzipReader struct {
	*gzip.Reader
	under io.Closer
}

func newGzipReader(r io.Reader, under io.Closer) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		if under != nil {
			under.Close()
		}
		return nil, fmt.Errorf("not a readable gzip: %w", err)
	}
	return &gzipReader{zr, under}, nil
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.Reader.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("gzip stream cut short: %w", err)
	}
	return n, err
}

func (g *gzipReader) Close() error {
	g.Reader.Close()
	if g.under != nil {
		return g.under.Close()
	}
	return nil
}
