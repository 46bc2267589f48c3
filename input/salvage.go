package input

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"time"
)

// A zip cut off by an upload limit has lost its central directory, which is
// at the end, but every member before the cut still starts with a local
// header. salvageZip finds the members by walking those headers.

const (
	localHeaderSig   = 0x04034b50
	centralHeaderSig = 0x02014b50
	localHeaderLen   = 30
	flagEncrypted    = 0x1
	flagDescriptor   = 0x8
)

type salvaged struct {
	name       string
	method     uint16
	flags      uint16
	modified   time.Time
	crc        uint32
	dataStart  int64
	dataEnd    int64 // end of the compressed data, or of the file
	compressed int64 // from the header; 0 when a data descriptor follows
	size       int64 // uncompressed size from the header; 0 when unknown
	cut        bool  // the file ends inside this member
}

// salvageZip scans f for local file headers. It returns the members found,
// and the offset after which nothing could be read.
func salvageZip(f *os.File, size int64) ([]salvaged, int64) {
	var out []salvaged
	off := int64(0)
	for off+localHeaderLen <= size {
		var h [localHeaderLen]byte
		if _, err := f.ReadAt(h[:], off); err != nil {
			break
		}
		if binary.LittleEndian.Uint32(h[0:]) != localHeaderSig {
			break
		}
		m := salvaged{
			flags:  binary.LittleEndian.Uint16(h[6:]),
			method: binary.LittleEndian.Uint16(h[8:]),
			crc:    binary.LittleEndian.Uint32(h[14:]),
		}
		m.modified = msDosTime(binary.LittleEndian.Uint16(h[12:]), binary.LittleEndian.Uint16(h[10:]))
		m.compressed = int64(binary.LittleEndian.Uint32(h[18:]))
		m.size = int64(binary.LittleEndian.Uint32(h[22:]))
		nameLen := int64(binary.LittleEndian.Uint16(h[26:]))
		extraLen := int64(binary.LittleEndian.Uint16(h[28:]))
		name := make([]byte, nameLen)
		if _, err := f.ReadAt(name, off+localHeaderLen); err != nil {
			break
		}
		m.name = string(name)
		m.dataStart = off + localHeaderLen + nameLen + extraLen
		if m.dataStart > size {
			break
		}
		if m.flags&flagDescriptor == 0 && m.compressed > 0 {
			m.dataEnd = m.dataStart + m.compressed
		} else {
			// Sizes follow the data: the data ends where the next header starts.
			m.dataEnd = nextHeader(f, m.dataStart, size)
			m.compressed = 0
		}
		if m.dataEnd > size {
			m.dataEnd, m.cut = size, true
		}
		if m.dataEnd == size && m.flags&flagDescriptor != 0 {
			m.cut = true
		}
		out = append(out, m)
		if m.cut {
			return out, size
		}
		off = m.dataEnd
		if m.flags&flagDescriptor != 0 {
			off = nextHeader(f, off, size)
		}
	}
	return out, off
}

// nextHeader finds the next local or central header signature at or after from.
func nextHeader(f *os.File, from, size int64) int64 {
	buf := make([]byte, 64<<10)
	for pos := from; pos < size; {
		n, err := f.ReadAt(buf, pos)
		if n < 4 {
			break
		}
		chunk := buf[:n]
		for i := 0; i+4 <= len(chunk); {
			j := bytes.Index(chunk[i:], []byte("PK"))
			if j < 0 || i+j+4 > len(chunk) {
				break
			}
			sig := binary.LittleEndian.Uint32(chunk[i+j:])
			if sig == localHeaderSig || sig == centralHeaderSig {
				return pos + int64(i+j)
			}
			i += j + 1
		}
		if err != nil {
			break
		}
		pos += int64(n - 3) // a signature may straddle chunks
	}
	return size
}

func msDosTime(date, t uint16) time.Time {
	return time.Date(int(date>>9)+1980, time.Month(date>>5&0xf), int(date&0x1f),
		int(t>>11), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.UTC)
}

// open returns the member's decompressed content.
func (m salvaged) open(f *os.File) (io.ReadCloser, error) {
	sec := io.NewSectionReader(f, m.dataStart, m.dataEnd-m.dataStart)
	size, hasCRC := int64(-1), false
	if m.flags&flagDescriptor == 0 && !m.cut {
		size, hasCRC = m.size, m.crc != 0
	}
	rc, err := openMethod(m.method, sec, size, m.crc, hasCRC)
	if err != nil {
		return nil, err
	}
	if m.cut {
		return &cutReader{rc}, nil
	}
	return rc, nil
}

// cutReader reports the end of a member the archive lost as an error, so
// the lines read are kept and the loss is reported.
type cutReader struct{ io.ReadCloser }

func (c *cutReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = fmt.Errorf("the archive ends inside this member: %w", io.ErrUnexpectedEOF)
	}
	return n, err
}
