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
	"strings"
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
	size       int64 // uncompressed; -1 when unknown
	compressed int64 // 0 when unknown
	crc        uint32
	modified   time.Time
	open       func() (io.ReadCloser, error)
}

func centralEntries(r *zip.Reader) []zipEntry {
	var out []zipEntry
	for _, f := range r.File {
		f := f
		out = append(out, zipEntry{
			name: f.Name, mode: f.Mode(), encrypted: f.Flags&flagEncrypted != 0,
			size: int64(f.UncompressedSize64), compressed: int64(f.CompressedSize64), crc: f.CRC32, modified: f.Modified,
			open: func() (io.ReadCloser, error) { return f.Open() },
		})
	}
	return out
}

// zipMembers yields the files of a zip. Members are opened on demand, so the
// reader can decompress several at once.
func (w *Walker) zipMembers(ctx context.Context, entries []zipEntry, display, rel, node string, depth int, fn func(Member) error) error {
	seen := map[string]int{}
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
		base := path.Base(name)
		open := w.guard(mpath, e.compressed, e.open)
		switch {
		case strings.HasSuffix(base, ".zip"):
			if err := w.nestedZip(ctx, open, e.size, mpath, mrel, mnode, depth, fn); err != nil {
				return err
			}
			continue
		case strings.HasSuffix(base, ".tar.gz") || strings.HasSuffix(base, ".tgz") || strings.HasSuffix(base, ".tar"):
			if err := w.nestedTar(ctx, open, strings.HasSuffix(base, "gz"), mpath, mrel, mnode, depth, fn); err != nil {
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
				return w.guardCloser(mpath, e.size, zr), nil
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
func (w *Walker) nestedZip(ctx context.Context, open func() (io.ReadCloser, error), size int64, display, rel, node string, depth int, fn func(Member) error) error {
	if depth >= w.Limits.MaxDepth {
		w.problem(display, true, "archive nested deeper than %d levels, not read", w.Limits.MaxDepth)
		return nil
	}
	if size > w.Limits.MaxMember {
		w.problem(display, true, "nested zip of %d bytes is over the %d byte limit; extract it and pass it on its own", size, w.Limits.MaxMember)
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
	return w.zipMembers(ctx, centralEntries(r), display, rel, node, depth+1, fn)
}

func (w *Walker) nestedTar(ctx context.Context, open func() (io.ReadCloser, error), gz bool, display, rel, node string, depth int, fn func(Member) error) error {
	if depth >= w.Limits.MaxDepth {
		w.problem(display, true, "archive nested deeper than %d levels, not read", w.Limits.MaxDepth)
		return nil
	}
	rc, err := open()
	if err != nil {
		w.problem(display, true, "cannot read: %v", err)
		return nil
	}
	defer rc.Close()
	return w.tarMembers(ctx, rc, gz, display, rel, node, depth+1, fn)
}

// tarMembers yields the files of a tar stream. A tar can only be read in
// order, so each member is held in memory and yielded with its content.
func (w *Walker) tarMembers(ctx context.Context, r io.Reader, gz bool, display, rel, node string, depth int, fn func(Member) error) error {
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			w.problem(display, true, "not a readable gzip: %v", err)
			return nil
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
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
		if h.Size > w.Limits.MaxMember {
			w.problem(mpath, true, "member of %d bytes is over the %d byte limit for tar members; extract the archive and pass the folder", h.Size, w.Limits.MaxMember)
			continue
		}
		data, err := io.ReadAll(w.guardReader(mpath, 0, tr))
		if err != nil {
			w.problem(mpath, true, "cannot read: %v", err)
			return nil
		}
		mnode := nodeFromPath(mpath)
		if mnode == "" {
			mnode = node
		}
		base := path.Base(h.Name)
		if strings.HasSuffix(base, ".zip") {
			r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				w.problem(mpath, true, "not a readable zip: %v", err)
				continue
			}
			if depth >= w.Limits.MaxDepth {
				w.problem(mpath, true, "archive nested deeper than %d levels, not read", w.Limits.MaxDepth)
				continue
			}
			if err := w.zipMembers(ctx, centralEntries(r), mpath, mrel, mnode, depth+1, fn); err != nil {
				return err
			}
			continue
		}
		m := Member{Path: mpath, Rel: mrel, Name: base, Node: mnode, Size: int64(len(data)), ModTime: h.ModTime}
		if strings.HasSuffix(base, ".gz") {
			m.Name = strings.TrimSuffix(base, ".gz")
			m.Size = -1
			m.open = func() (io.ReadCloser, error) {
				zr, err := newGzipReader(bytes.NewReader(data), nil)
				if err != nil {
					return nil, err
				}
				return w.guardCloser(mpath, int64(len(data)), zr), nil
			}
		} else {
			m.open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		}
		if err := fn(m); err != nil {
			return err
		}
	}
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
	if err != nil {
		return nil, err
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
