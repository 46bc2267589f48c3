//go:build cgoinflate

package main

/*
#cgo LDFLAGS: -ldeflate -lisal
#include <stdlib.h>
#include <libdeflate.h>
#include <isa-l/igzip_lib.h>

// isal_run inflates what is in the state's input into out, n bytes, and
// says how much it wrote and whether the stream ended.
static int isal_run(struct inflate_state *s, uint8_t *in, uint32_t nin, uint8_t *out, uint32_t nout,
		uint32_t *left, uint32_t *wrote, int *done) {
	s->next_in = in;
	s->avail_in = nin;
	s->next_out = out;
	s->avail_out = nout;
	int rc = isal_inflate(s);
	*left = s->avail_in;
	*wrote = nout - s->avail_out;
	*done = s->block_state == ISAL_BLOCK_FINISH;
	return rc;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/klauspost/compress/zip"
)

func init() {
	decoders["isal"] = isal
	decoders["libdeflate"] = libdeflate
}

// isal streams a member through ISA-L's igzip inflate (raw deflate), 256
// KiB of input at a time, like the reader forensics uses.
func isal(f *zip.File, buf []byte) (int64, error) {
	if f.Method != zip.Deflate {
		return klauspost(f, buf)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return 0, err
	}
	s := (*C.struct_inflate_state)(C.malloc(C.size_t(unsafe.Sizeof(C.struct_inflate_state{}))))
	defer C.free(unsafe.Pointer(s))
	C.isal_inflate_init(s)
	s.crc_flag = C.ISAL_DEFLATE
	in := (*[1 << 30]byte)(C.malloc(256 << 10))[: 256<<10 : 256<<10]
	defer C.free(unsafe.Pointer(&in[0]))
	out := (*[1 << 30]byte)(C.malloc(1 << 20))[: 1<<20 : 1<<20]
	defer C.free(unsafe.Pointer(&out[0]))
	var total int64
	pending := 0 // input bytes not yet consumed, at the start of in
	for {
		n, rerr := raw.Read(in[pending:])
		pending += n
		eof := errors.Is(rerr, io.EOF)
		if rerr != nil && !eof {
			return total, rerr
		}
		for {
			var left, wrote C.uint32_t
			var done C.int
			rc := C.isal_run(s, (*C.uint8_t)(&in[0]), C.uint32_t(pending), (*C.uint8_t)(&out[0]), C.uint32_t(len(out)), &left, &wrote, &done)
			if rc != C.ISAL_DECOMP_OK {
				return total, fmt.Errorf("isal_inflate: %d", int(rc))
			}
			total += int64(wrote)
			copy(in, in[pending-int(left):pending])
			pending = int(left)
			if done != 0 {
				return total, nil
			}
			if wrote < C.uint32_t(len(out)) {
				break // it needs more input
			}
		}
		if eof {
			return total, errors.New("isal_inflate: truncated member")
		}
	}
}

// libdeflate inflates a whole member at once: libdeflate has no streaming
// interface, so the member and its output are in memory together.
func libdeflate(f *zip.File, buf []byte) (int64, error) {
	if f.Method != zip.Deflate {
		return klauspost(f, buf)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return 0, err
	}
	in := make([]byte, f.CompressedSize64)
	if _, err := io.ReadFull(raw, in); err != nil {
		return 0, err
	}
	out := make([]byte, max(f.UncompressedSize64, 1))
	d := C.libdeflate_alloc_decompressor()
	defer C.libdeflate_free_decompressor(d)
	var n C.size_t
	if len(in) == 0 {
		return 0, nil
	}
	rc := C.libdeflate_deflate_decompress(d, unsafe.Pointer(&in[0]), C.size_t(len(in)), unsafe.Pointer(&out[0]), C.size_t(len(out)), &n)
	if rc != C.LIBDEFLATE_SUCCESS {
		return 0, fmt.Errorf("libdeflate: %d", int(rc))
	}
	return int64(n), nil
}
