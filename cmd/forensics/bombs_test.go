package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os/exec"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"forensics/report"
)

// Archive bombs and damaged zip headers (issue 12, defects 5 to 9). The
// large ones are generated here; none needs more than a few MB on disk.

func init() {
	hostileCases = append(hostileCases, bombCases...)
}

var bombCases = []hostileCase{
	{
		// Defect 13: a file with CR line endings only.
		name: "cr-only",
		files: func(t *testing.T) map[string][]byte {
			return map[string][]byte{hostileFolder + "ns_server.indexer.log": []byte(strings.ReplaceAll(indexerLog(30), "\n", "\r"))}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			s := wantSource(t, rep, "ns_server.indexer.log", 60)
			if s != nil && s.Events != 30 {
				t.Errorf("events = %d, want the 30 StreamEnd lines", s.Events)
			}
			wantProblem(t, rep, "the lines end in CR only", false)
		},
	},
	{
		// Defect 13: 42.zip-like repetition: 2,000 members with the same
		// problem print one line and a count; a 60,000-character member
		// name does not widen the table.
		name:     "repeated-problems",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			var ms []zipMember
			for i := 0; i < 2000; i++ {
				ms = append(ms, zipMember{name: fmt.Sprintf("lib/%04d.zip", i), data: []byte("not a zip")})
			}
			ms = append(ms, zipMember{name: hostileFolder + strings.Repeat("n", 60000) + ".log", data: []byte(indexerLog(2))})
			return map[string][]byte{"many.zip": buildZip(t, ms)}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			if !strings.Contains(stderr, "… and 1999 more like it") {
				t.Error("repeated problems are not folded")
			}
			for _, l := range strings.Split(stderr, "\n") {
				if len(l) > 1000 {
					t.Errorf("a line of %d characters", len(l))
					break
				}
			}
		},
	},
	{
		// Defect 5: 600 central-directory entries share one deflate
		// stream of 16 MB.
		name:     "overlapping-entries",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			return map[string][]byte{
				"collectinfo-2022-07-22T004733-" + hostileNode + ".zip": overlapZip(t, 600, bytes.Repeat([]byte{'0'}, 16<<20)),
				"ns_server.indexer.log":                                 []byte(indexerLog(10)),
			}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "599 of its 600 members share their compressed data with another member", true)
			wantSource(t, rep, "ns_server.indexer.log", 20)
			if n := len(rep.Sources); n > 2 {
				t.Errorf("%d sources read: the overlapping members were read", n)
			}
		},
	},
	{
		// Defect 6: zip → 16 zips → 16 zips → 64 MB of zeros each, 16 GB in
		// all from a few hundred KB: the tree's budget cuts it.
		name:     "nested-bomb",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			inner := buildZip(t, []zipMember{{name: "cbcollect_info_ns_1@10.9.9.5_20220722-004733/memcached.log", data: bytes.Repeat([]byte{0}, 64<<20)}})
			var mid []zipMember
			for i := 0; i < 16; i++ {
				mid = append(mid, zipMember{name: fmt.Sprintf("part%02d.zip", i), data: inner})
			}
			midZip := buildZip(t, mid)
			var outer []zipMember
			for i := 0; i < 16; i++ {
				outer = append(outer, zipMember{name: fmt.Sprintf("volume%02d.zip", i), data: midZip})
			}
			return map[string][]byte{"bundle.zip": buildZip(t, outer), "ns_server.indexer.log": []byte(indexerLog(10))}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "this looks like a nested zip bomb", true)
			wantSource(t, rep, "ns_server.indexer.log", 20)
		},
	},
	{
		// Defect 7: a tar.gz of 6 × 64 MB of zeros is streamed and cut by
		// the ratio of the gzip stream, not held in memory.
		name:     "targz-bomb",
		generate: true,
		files: func(t *testing.T) map[string][]byte {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			tw := tar.NewWriter(zw)
			zeros := bytes.Repeat([]byte{0}, 64<<20)
			for i := 0; i < 6; i++ {
				tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("logs/memcached.log.%d", i), Mode: 0o644, Size: int64(len(zeros)), Typeflag: tar.TypeReg})
				tw.Write(zeros)
			}
			tw.Close()
			zw.Close()
			return map[string][]byte{"logs.tar.gz": b.Bytes(), "ns_server.indexer.log": []byte(indexerLog(10))}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantProblem(t, rep, "looks like a zip bomb", true)
			wantSource(t, rep, "ns_server.indexer.log", 20)
		},
	},
	{
		// Defect 8: the header declares 1,000 bytes (or ten times the
		// truth); the deflate stream holds all the lines.
		name: "wrong-size",
		files: func(t *testing.T) map[string][]byte {
			log := []byte(indexerLog(300))
			small := buildZip(t, []zipMember{{name: hostileFolder + "ns_server.indexer.log", data: log}})
			setUncompressedSize(small, 1000)
			large := buildZip(t, []zipMember{{name: hostileFolder + "ns_server.projector.log", data: []byte(projectorLog(300))}})
			setUncompressedSize(large, uint32(len(projectorLog(300))*10))
			return map[string][]byte{"declared-small.zip": small, "declared-large.zip": large}
		},
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantSource(t, rep, "ns_server.indexer.log", 600)
			wantSource(t, rep, "ns_server.projector.log", 300)
			wantProblem(t, rep, "the zip header declares 1000 bytes uncompressed, the compressed data holds", false)
			wantProblem(t, rep, fmt.Sprintf("the zip header declares %d bytes uncompressed", len(projectorLog(300))*10), false)
		},
	},
	{
		// Defect 9: members compressed with methods other than deflate.
		name:  "compression-methods",
		files: methodZip,
		check: func(t *testing.T, rep *report.Report, stderr string) {
			wantSource(t, rep, "bzip2/ns_server.indexer.log", 40)
			wantSource(t, rep, "zstd/ns_server.indexer.log", 40)
			wantProblem(t, rep, "compressed with LZMA (method 14), which forensics cannot decompress", true)
			wantProblem(t, rep, "compressed with unknown compression method 77", true)
			for _, p := range rep.Problems {
				if strings.Contains(p.Reason, "method") && !strings.Contains(p.Path, "methods.zip!") {
					t.Errorf("the problem does not name the member: %+v", p)
				}
			}
		},
	},
}

// overlapZip writes a zip whose n central-directory entries all point at
// one local header and its deflate stream.
func overlapZip(t *testing.T, n int, data []byte) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	crc := crc32.ChecksumIEEE(data)
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	name := "cbcollect_info_ns_1@10.9.9.5_20220722-004733/memcached.log"
	le(uint32(0x04034b50))
	le(uint16(20))
	le(uint16(0))
	le(uint16(8))
	le(uint32(0))
	le(crc)
	le(uint32(comp.Len()))
	le(uint32(len(data)))
	le(uint16(len(name)))
	le(uint16(0))
	b.WriteString(name)
	b.Write(comp.Bytes())
	cd := b.Len()
	for i := 0; i < n; i++ {
		cname := fmt.Sprintf("cbcollect_info_ns_1@10.9.9.5_20220722-004733/memcached.log.%d", i)
		le(uint32(0x02014b50))
		le(uint16(20))
		le(uint16(20))
		le(uint16(0))
		le(uint16(8))
		le(uint32(0))
		le(crc)
		le(uint32(comp.Len()))
		le(uint32(len(data)))
		le(uint16(len(cname)))
		le(uint16(0))
		le(uint16(0))
		le(uint16(0))
		le(uint16(0))
		le(uint32(0))
		le(uint32(0)) // every entry's local header is the first one
		b.WriteString(cname)
	}
	cdLen := b.Len() - cd
	le(uint32(0x06054b50))
	le(uint16(0))
	le(uint16(0))
	le(uint16(n))
	le(uint16(n))
	le(uint32(cdLen))
	le(uint32(cd))
	le(uint16(0))
	return b.Bytes()
}

// setUncompressedSize rewrites the uncompressed size in every local and
// central header, as a tool that got it wrong would write it.
func setUncompressedSize(z []byte, size uint32) {
	for i := 0; i+4 <= len(z); i++ {
		switch binary.LittleEndian.Uint32(z[i:]) {
		case 0x04034b50:
			binary.LittleEndian.PutUint32(z[i+22:], size)
		case 0x02014b50:
			binary.LittleEndian.PutUint32(z[i+24:], size)
		}
	}
}

// methodZip holds the same log compressed with bzip2 (by the bzip2 tool:
// Go has no bzip2 writer), zstd, and two methods forensics cannot read.
func methodZip(t *testing.T) map[string][]byte {
	log := []byte(indexerLog(20))
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	raw := func(name string, method uint16, comp []byte) {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: method, CRC32: crc32.ChecksumIEEE(log),
			CompressedSize64: uint64(len(comp)), UncompressedSize64: uint64(len(log))})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp)
	}
	if _, err := exec.LookPath("bzip2"); err == nil {
		cmd := exec.Command("bzip2", "-c")
		cmd.Stdin = bytes.NewReader(log)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		raw("bzip2/ns_server.indexer.log", 12, out)
	} else {
		t.Skip("no bzip2 to write the bzip2 member")
	}
	enc, _ := zstd.NewWriter(nil)
	raw("zstd/ns_server.indexer.log", 93, enc.EncodeAll(log, nil))
	raw("lzma/ns_server.indexer.log", 14, []byte("\x09\x14\x05\x00]\x00\x00\x80\x00not really lzma"))
	raw("unknown/ns_server.indexer.log", 77, []byte("whatever method 77 would be"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"methods.zip": b.Bytes()}
}
