package input

import (
	"compress/bzip2"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zstd"

	"forensics/zran"
)

// Zip compression methods (PKWARE APPNOTE.TXT 4.4.5).
const (
	methodStore   = 0
	methodDeflate = 8
	methodBzip2   = 12
	methodZstd    = 93
)

var methodNames = map[uint16]string{
	1: "Shrink", 2: "Reduce", 3: "Reduce", 4: "Reduce", 5: "Reduce", 6: "Implode", 9: "Deflate64",
	10: "PKWARE DCL Implode", 14: "LZMA", 18: "IBM TERSE", 19: "IBM LZ77", 20: "zstd (deprecated id)",
	94: "MP3", 95: "XZ", 96: "JPEG", 97: "WavPack", 98: "PPMd", 99: "AES encryption",
}

func methodSupported(m uint16) bool {
	switch m {
	case methodStore, methodDeflate, methodBzip2, methodZstd:
		return true
	}
	return false
}

// methodName names a compression method for a problem.
func methodName(m uint16) string {
	if n, ok := methodNames[m]; ok {
		return fmt.Sprintf("%s (method %d)", n, m)
	}
	return fmt.Sprintf("unknown compression method %d", m)
}

// zstdMaxWindow bounds the memory a zstd member can make the decoder take.
const zstdMaxWindow = 64 << 20

// openMethod decompresses a member's raw data. The content is checked at
// its end against the size and CRC-32 the header declares: a mismatch is
// reported after every byte was delivered, so no line is lost to it.
func openMethod(method uint16, raw io.Reader, size int64, crc uint32, hasCRC bool) (io.ReadCloser, error) {
	var rc io.ReadCloser
	var trail *zran.Trail
	switch method {
	case methodStore:
		rc = io.NopCloser(raw)
	case methodDeflate:
		rc, trail = newInflater(raw)
	case methodBzip2:
		rc = io.NopCloser(bzip2.NewReader(raw))
	case methodZstd:
		d, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(1<<40))
		if err != nil {
			return nil, err
		}
		rc = d.IOReadCloser()
	default:
		return nil, fmt.Errorf("compressed with %s, which forensics cannot decompress", methodName(method))
	}
	return &checked{rc: rc, trail: trail, size: size, crc: crc, hasCRC: hasCRC, h: crc32.NewIEEE()}, nil
}

// SizeError is returned at the end of a zip member whose content is not
// the size its header declares: every byte the compressed data holds was
// read (unzip -t accepts such a member; the zip package would drop lines).
type SizeError struct {
	Declared, Read int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("the zip header declares %d bytes uncompressed, the compressed data holds %d", e.Declared, e.Read)
}

type checked struct {
	rc      io.ReadCloser
	trail   *zran.Trail // nil: not a deflate stream with one
	size    int64       // declared; -1 when unknown
	crc     uint32
	hasCRC  bool
	h       hash.Hash32
	n       int64
	pending error // reported on the call after the last bytes
}

func (c *checked) Read(p []byte) (int, error) {
	if c.pending != nil {
		return 0, c.pending
	}
	n, err := c.rc.Read(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	if err == io.EOF {
		switch {
		case c.size >= 0 && c.n != c.size:
			err = &SizeError{Declared: c.size, Read: c.n}
		case c.hasCRC && c.h.Sum32() != c.crc:
			err = ErrChecksum
		}
		if err != io.EOF && n > 0 {
			c.pending, err = err, nil
		}
	}
	return n, err
}

func (c *checked) Close() error { return c.rc.Close() }

// Trail implements zran.Traced.
func (c *checked) Trail() *zran.Trail { return c.trail }

// Sum32 implements Checksummed: the CRC-32 of what was read so far.
func (c *checked) Sum32() uint32 { return c.h.Sum32() }
