package input

import (
	"archive/zip"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
)

// Survey counts the files and the uncompressed bytes the paths hold, before
// anything is read, so a progress display knows its totals from the start:
// a zip's central directory gives every member's size, a gzip's trailer its
// uncompressed size (modulo 4 GiB, as gzip keeps it). A tarball's members are
// only known by reading it, so it counts as one file of its size; the
// display raises a total when the walk finds more. Survey never fails: what
// it cannot open counts as one file of its size, and Walk reports it.
func Survey(paths []string) (files, bytes int64) {
	add := func(p string, size int64) {
		f, b := surveyFile(p, size)
		files += f
		bytes += b
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !info.IsDir() {
			add(p, info.Size())
			continue
		}
		filepath.WalkDir(p, func(fp string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					add(fp, info.Size())
				}
			}
			return nil
		})
	}
	return files, bytes
}

func surveyFile(p string, size int64) (files, bytes int64) {
	kind, err := sniffFile(p)
	if err != nil {
		return 1, size
	}
	switch kind {
	case kindZip:
		r, err := zip.OpenReader(p)
		if err != nil {
			return 1, size
		}
		defer r.Close()
		for _, f := range r.File {
			if f.FileInfo().IsDir() {
				continue
			}
			files++
			bytes += int64(f.UncompressedSize64)
		}
		return files, bytes
	case kindGzip:
		if n := gzipSize(p, size); n > 0 {
			return 1, n
		}
	}
	return 1, size
}

// gzipSize reads the uncompressed size from a gzip's trailer (ISIZE, RFC
// 1952), or 0. A single-member gzip smaller than its trailer says cannot be
// right, and a trailer that claims less than the compressed size must have
// wrapped at 4 GiB.
func gzipSize(p string, size int64) int64 {
	if size < 18 {
		return 0
	}
	f, err := os.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	var b [4]byte
	if _, err := f.ReadAt(b[:], size-4); err != nil {
		return 0
	}
	n := int64(binary.LittleEndian.Uint32(b[:]))
	for n < size/2 {
		n += 1 << 32
	}
	if n > size*DefaultLimits.MaxRatio {
		return 0 // a cut or damaged trailer: no better guess than the size
	}
	return n
}
