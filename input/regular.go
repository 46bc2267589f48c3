package input

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Only regular files, folders and archives are inputs. A named pipe blocks
// open until a writer comes, /dev/zero and /dev/urandom never end, and a
// socket or a device is not evidence: all are refused before any read.

// notRegular says what a file that is not a regular file is, for the
// message that refuses it; "" for a regular file or a folder.
func notRegular(mode fs.FileMode) string {
	switch {
	case mode.IsRegular(), mode.IsDir():
		return ""
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// errNotRegular is returned by openRegular for anything but a regular file.
type errNotRegular struct{ what string }

func (e errNotRegular) Error() string {
	return fmt.Sprintf("%s, not a regular file: only files, folders and archives are read", e.what)
}

// openRegular opens p for reading only if it is a regular file. The open
// does not block on a FIFO (O_NONBLOCK), and the check is made on the file
// opened, so a file swapped for a pipe after the walk saw it is refused too.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if what := notRegular(info.Mode()); what != "" || info.IsDir() {
		f.Close()
		if what == "" {
			what = "a folder"
		}
		return nil, errNotRegular{what}
	}
	return f, nil
}

// fileCRC computes a file's CRC-32, stopping when ctx is done.
func fileCRC(ctx context.Context, p string) (uint32, error) {
	f, err := openRegular(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.NewIEEE()
	_, err = io.Copy(h, ctxReader{ctx, f})
	return h.Sum32(), err
}

// ctxReader ends a read with ctx's error once ctx is done, so a long read
// (a huge file, a bomb) stops on Ctrl-C or SIGTERM.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
