//go:build isal

package input

/*
#cgo LDFLAGS: -lisal
#include <stdlib.h>
#include <isa-l/igzip_lib.h>

// isal_step inflates from the state's input into out and reports what it
// wrote and whether the deflate stream ended. Input and output are C
// memory: the state keeps pointers to them between calls.
static int isal_step(struct inflate_state *s, uint8_t *out, uint32_t nout, uint32_t *wrote, int *done) {
	s->next_out = out;
	s->avail_out = nout;
	int rc = isal_inflate(s);
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

	"forensics/zran"
)

// newInflater inflates a zip member with Intel ISA-L's igzip: built with
// -tags isal (and libisal-dev), it takes about a third of the CPU time of
// klauspost/compress on this evidence (bench/inflate -decoder isal).
// openMethod still checks the size and CRC-32 of what it returns. ISA-L
// tells no places where decoding could start again, so a member's lines
// are compressed again for the timeline.
func newInflater(r io.Reader) (io.ReadCloser, *zran.Trail) { return newISAL(r), nil }

const (
	isalIn  = 256 << 10
	isalOut = 256 << 10
)

// isalReader inflates a raw deflate stream. Its buffers and state are C
// memory, freed by Close.
type isalReader struct {
	src      io.Reader
	state    *C.struct_inflate_state
	in, out  []byte // C memory
	outStart int    // out[outStart:outEnd] is inflated and not yet read
	outEnd   int
	done     bool
	err      error
}

func newISAL(r io.Reader) io.ReadCloser {
	z := &isalReader{src: r}
	z.state = (*C.struct_inflate_state)(C.malloc(C.size_t(unsafe.Sizeof(C.struct_inflate_state{}))))
	C.isal_inflate_init(z.state)
	z.state.crc_flag = C.ISAL_DEFLATE
	z.in = unsafe.Slice((*byte)(C.malloc(isalIn)), isalIn)
	z.out = unsafe.Slice((*byte)(C.malloc(isalOut)), isalOut)
	return z
}

func (z *isalReader) Read(p []byte) (int, error) {
	for z.outStart == z.outEnd {
		if z.err != nil {
			return 0, z.err
		}
		if z.done {
			return 0, io.EOF
		}
		z.step()
	}
	n := copy(p, z.out[z.outStart:z.outEnd])
	z.outStart += n
	return n, nil
}

// step refills the input when ISA-L has used it all, and inflates once.
func (z *isalReader) step() {
	if z.state.avail_in == 0 {
		n, err := io.ReadFull(z.src, z.in)
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.ErrUnexpectedEOF
			}
			z.err = err
			return
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			z.err = err
			return
		}
		z.state.next_in = (*C.uint8_t)(unsafe.Pointer(&z.in[0]))
		z.state.avail_in = C.uint32_t(n)
	}
	var wrote C.uint32_t
	var done C.int
	if rc := C.isal_step(z.state, (*C.uint8_t)(unsafe.Pointer(&z.out[0])), isalOut, &wrote, &done); rc != C.ISAL_DECOMP_OK {
		z.err = fmt.Errorf("inflate: corrupt deflate stream (isa-l %d)", int(rc))
		return
	}
	z.outStart, z.outEnd, z.done = 0, int(wrote), done != 0
}

func (z *isalReader) Close() error {
	if z.state != nil {
		C.free(unsafe.Pointer(z.state))
		C.free(unsafe.Pointer(&z.in[0]))
		C.free(unsafe.Pointer(&z.out[0]))
		z.state, z.in, z.out = nil, nil, nil
	}
	return nil
}
