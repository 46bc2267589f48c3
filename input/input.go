// Package input walks what the user gave forensics — zips, tarballs, gzip
// files, folders and plain files, nested in any of these — and yields every
// file inside as a Member to read, without extracting anything to disk.
package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zip"

	"forensics"
)

// Member is one file to read: a plain file, or a member of an archive.
type Member struct {
	Path    string // display path: "bundle.zip!cbcollect_info_ns_1@h_20220722-004733/memcached.log"
	Name    string // base name, without a .gz suffix
	Rel     string // path inside the input given: relative to a folder, or the member's name in an archive
	Node    string // node named by the path; "" when the path names none
	Size    int64  // uncompressed size when known, else -1
	ModTime time.Time
	// Key identifies the content when that is known without reading it (a
	// zip member's CRC-32, a gzip trailer); "" means the reader computes it.
	Key string
	// Named is set when the user named this file itself, not a folder or
	// archive holding it: a file named but not readable is a problem, where
	// an unreadable member of a bundle is only noted.
	Named bool
	open  func() (io.ReadCloser, error)
}

// Open returns the member's content, decompressed.
func (m Member) Open() (io.ReadCloser, error) { return m.open() }

// Origin returns what a parser is told about the member.
func (m Member) Origin() forensics.Origin {
	return forensics.Origin{Path: m.Path, Name: m.Name, Node: m.Node, ModTime: m.ModTime}
}

// Limits protect against archives built to exhaust the machine.
type Limits struct {
	MaxDepth  int   // archives inside archives
	MaxMember int64 // bytes of a zip inside an archive, held in memory to read it
	MaxRatio  int64 // decompressed bytes per compressed byte of a member
	MaxTotal  int64 // decompressed bytes of all inputs together
	// MaxExpansion bounds what an archive given and every archive inside
	// it decompress to together, as a multiple of the outer archive's size.
	MaxExpansion int64
}

// DefaultLimits are generous for real bundles: logs compress 5 to 50 times,
// and a cluster's bundle is tens of GiB at most.
var DefaultLimits = Limits{MaxDepth: 4, MaxMember: 512 << 20, MaxRatio: 300, MaxTotal: 1 << 40, MaxExpansion: 1000}

// Walker finds members in inputs.
type Walker struct {
	Limits Limits
	// Problem is told about each input or member that cannot be read.
	Problem func(forensics.Problem)
	// Skip is told about each file in a folder that is not a file to read
	// (a named pipe, a device, a socket), with the reason.
	Skip func(path, reason string)

	total  atomic.Int64 // bytes decompressed so far, for MaxTotal
	mu     sync.Mutex
	closer []io.Closer // archives stay open until Close: members are read after the walk moves on
}

// Close closes the archives opened by Walk. Members must not be opened after.
func (w *Walker) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.closer {
		c.Close()
	}
	w.closer = nil
	return nil
}

func (w *Walker) keepOpen(c io.Closer) {
	w.mu.Lock()
	w.closer = append(w.closer, c)
	w.mu.Unlock()
}

// Walk calls fn for every member of every path, in order. A path that cannot
// be read is reported through Problem and the walk goes on; Walk returns an
// error only when fn does, or when ctx is done. Members can be opened until
// Close is called, except the members of a tar: a tar is read once, in
// order, so each is a stream that can be opened once, and Walk waits until
// it is closed (or ctx is done) before it yields the next one.
func (w *Walker) Walk(ctx context.Context, paths []string, fn func(Member) error) error {
	if w.Limits == (Limits{}) {
		w.Limits = DefaultLimits
	}
	for _, p := range paths {
		if err := w.walkPath(ctx, p, fn); err != nil {
			return err
		}
	}
	return nil
}

func (w *Walker) problem(path string, lost bool, format string, args ...any) {
	if w.Problem != nil {
		w.Problem(forensics.Problem{Path: path, Reason: fmt.Sprintf(format, args...), Lost: lost})
	}
}

func (w *Walker) skip(path, reason string) {
	if w.Skip != nil {
		w.Skip(path, reason)
	} else {
		w.problem(path, false, "%s", reason)
	}
}

// walkPath walks one path. An error from fn ends the walk and is returned
// unchanged; a path that cannot be read is a problem, and the walk goes on.
func (w *Walker) walkPath(ctx context.Context, p string, fn func(Member) error) error {
	info, err := os.Stat(p)
	if err != nil {
		w.problem(p, true, "cannot read: %v", unwrapPath(err))
		return nil
	}
	if what := notRegular(info.Mode()); what != "" {
		w.problem(p, true, "%s", errNotRegular{what}.Error())
		return nil
	}
	if !info.IsDir() {
		return w.file(ctx, p, p, filepath.Base(p), info, func(m Member) error {
			m.Named = m.Path == p
			return fn(m)
		})
	}
	var files []string
	err = filepath.WalkDir(p, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			w.problem(fp, true, "cannot read: %v", unwrapPath(err))
			return nil
		}
		switch {
		case d.Type().IsRegular():
			files = append(files, fp)
		case d.Type()&fs.ModeSymlink != 0:
			// Following links could leave the folder given, or loop.
			w.problem(fp, false, "symbolic link not followed")
		case !d.IsDir():
			w.skip(fp, errNotRegular{notRegular(d.Type())}.Error())
		}
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, fp := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := os.Stat(fp)
		if err != nil {
			w.problem(fp, true, "cannot read: %v", unwrapPath(err))
			continue
		}
		rel, err := filepath.Rel(p, fp)
		if err != nil {
			rel = fp
		}
		if err := w.file(ctx, fp, fp, filepath.ToSlash(rel), info, fn); err != nil {
			return err
		}
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// file yields a file on disk, or the members of the archive it is.
func (w *Walker) file(ctx context.Context, fsPath, display, rel string, info fs.FileInfo, fn func(Member) error) error {
	kind, err := sniffFile(fsPath)
	var nr errNotRegular
	if errors.As(err, &nr) {
		w.skip(display, nr.Error())
		return nil
	}
	if err != nil {
		w.problem(display, true, "cannot read: %v", unwrapPath(err))
		return nil
	}
	switch kind {
	case kindZip:
		r, err := zip.OpenReader(fsPath)
		if err != nil {
			return w.salvage(ctx, fsPath, display, info.Size(), err, fn)
		}
		w.keepOpen(r)
		return w.zipMembers(ctx, centralEntries(&r.Reader), display, "", nodeFromPath(display), 1, w.newBudget(display, info.Size()), fn)
	case kindTarGz, kindTar:
		f, err := openRegular(fsPath)
		if err != nil {
			w.problem(display, true, "cannot read: %v", unwrapPath(err))
			return nil
		}
		defer f.Close()
		return w.tarMembers(ctx, f, kind == kindTarGz, info.Size(), display, "", nodeFromPath(display), 1, w.newBudget(display, info.Size()), fn)
	case kindGzip:
		m := Member{
			Path:    display,
			Rel:     rel,
			Name:    strings.TrimSuffix(path.Base(filepath.ToSlash(display)), ".gz"),
			Node:    nodeFromPath(display),
			Size:    -1,
			ModTime: info.ModTime(),
			open: func() (io.ReadCloser, error) {
				f, err := openRegular(fsPath)
				if err != nil {
					return nil, err
				}
				zr, err := newGzipReader(f, f)
				if err != nil {
					return nil, err
				}
				return w.guardCloser(display, info.Size(), nil, zr), nil
			},
		}
		m.Key = gzipKey(fsPath, m.Node, m.Rel, info.Size())
		return fn(m)
	default:
		m := Member{
			Path:    display,
			Rel:     rel,
			Name:    path.Base(filepath.ToSlash(display)),
			Node:    nodeFromPath(display),
			Size:    info.Size(),
			ModTime: info.ModTime(),
			open:    func() (io.ReadCloser, error) { return openRegular(fsPath) },
		}
		if sum, err := fileCRC(ctx, fsPath); err == nil {
			m.Key = Key(m.Node, m.Rel, info.Size(), sum)
		}
		return fn(m)
	}
}

// salvage reads a zip whose central directory is missing or damaged by its
// local headers, and says what was recovered and what was lost.
func (w *Walker) salvage(ctx context.Context, fsPath, display string, size int64, cause error, fn func(Member) error) error {
	f, err := openRegular(fsPath)
	if err != nil {
		w.problem(display, true, "cannot read: %v", unwrapPath(err))
		return nil
	}
	found, end := salvageZip(f, size)
	if len(found) == 0 {
		f.Close()
		w.problem(display, true, "not a readable zip (%v) and no member could be recovered; ask for the file again", cause)
		return nil
	}
	w.keepOpen(f)
	var entries []zipEntry
	cut := ""
	for _, m := range found {
		m := m
		e := zipEntry{name: m.name, encrypted: m.flags&flagEncrypted != 0, method: m.method, size: -1, compressed: m.dataEnd - m.dataStart, offset: m.dataStart, crc: m.crc, modified: m.modified,
			open: func() (io.ReadCloser, error) { return m.open(f) }}
		if m.flags&flagDescriptor == 0 && !m.cut {
			e.size = m.size
		}
		if m.cut {
			cut = m.name
		}
		entries = append(entries, e)
	}
	msg := fmt.Sprintf("zip central directory missing or damaged (%v): recovered %d members by scanning local headers", cause, len(found))
	switch {
	case cut != "":
		msg += fmt.Sprintf("; the archive ends inside %s (its lines up to the cut are read), and members after it are lost", cut)
	case end < size:
		msg += fmt.Sprintf("; bytes %d to %d could not be read, members there are lost", end, size)
	}
	w.problem(display, true, "%s; ask for the file again to read it all", msg)
	return w.zipMembers(ctx, entries, display, "", nodeFromPath(display), 1, w.newBudget(display, size), fn)
}

// Key is the content identity of a member: the same node, place in the
// input (rel), size and CRC-32 is taken to be the same content. The place
// matters: two snapshots taken minutes apart may hold identical files, and
// each is evidence of its own time.
func Key(node, rel string, size int64, crc uint32) string {
	return node + "|" + rel + "|" + strconv.FormatInt(size, 10) + "|" + strconv.FormatUint(uint64(crc), 16)
}

// Rekey returns a key that names the same place as key (its node and
// rel), with the size and CRC-32 of the content actually read: content is
// stored under what it is, not under what an archive states it is.
func Rekey(key string, size int64, crc uint32) string {
	i := strings.LastIndexByte(key, '|')
	if i < 0 {
		return key
	}
	j := strings.LastIndexByte(key[:i], '|')
	if j < 0 {
		return key
	}
	return key[:j+1] + strconv.FormatInt(size, 10) + "|" + strconv.FormatUint(uint64(crc), 16)
}

// ReadSum returns the CRC-32 of what a member's reader (Member.Open) gave
// so far, when the reader computes it anyway (a zip member's, checked
// against its header): the content is keyed by it without computing it
// twice. It returns false for the others.
func ReadSum(rc io.Reader) (uint32, bool) {
	var inner any = rc
	if g, ok := rc.(guardedCloser); ok {
		inner = g.Closer
	}
	if c, ok := inner.(*checked); ok {
		return c.Sum32(), true
	}
	return 0, false
}

// gzipKey reads the gzip trailer (CRC-32 and size of the content) so a file
// already read is recognised without decompressing it again.
func gzipKey(p, node, name string, size int64) string {
	f, err := os.Open(p)
	if err != nil || size < 18 {
		return ""
	}
	defer f.Close()
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return ""
	}
	crc := uint32(tail[0]) | uint32(tail[1])<<8 | uint32(tail[2])<<16 | uint32(tail[3])<<24
	isize := int64(uint32(tail[4]) | uint32(tail[5])<<8 | uint32(tail[6])<<16 | uint32(tail[7])<<24)
	return Key(node, name+"@gz"+strconv.FormatInt(size, 10), isize, crc)
}

type fileKind int

const (
	kindPlain fileKind = iota
	kindZip
	kindGzip
	kindTarGz
	kindTar
)

// sniffFile tells archives by their magic bytes, not their names: users
// rename files, and a .log can be a gzip.
func sniffFile(p string) (fileKind, error) {
	f, err := openRegular(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return 0, err
	}
	head = head[:n]
	kind := sniff(head)
	if kind == kindGzip {
		// A gzip holding a tar is a tarball.
		if _, err := f.Seek(0, io.SeekStart); err == nil {
			if zr, err := gzip.NewReader(f); err == nil {
				inner := make([]byte, 512)
				k, _ := io.ReadFull(zr, inner)
				if isTar(inner[:k]) {
					return kindTarGz, nil
				}
			}
		}
	}
	return kind, nil
}

func sniff(head []byte) fileKind {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return kindZip
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return kindGzip
	case isTar(head):
		return kindTar
	}
	return kindPlain
}

func isTar(head []byte) bool {
	return len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar"))
}

// nodeFromPath finds the node a path belongs to (forensics.NodeFolder).
func nodeFromPath(p string) string {
	node, _ := forensics.NodeFolder(p)
	return node
}
