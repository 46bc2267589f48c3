package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// terminal is a pseudo-terminal a test runs a command on, as a person's
// shell would: isatty says yes, and what the command writes is read back
// from the other side.
type terminal struct {
	tty  *os.File // the side the command writes to
	ptm  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

// openTerminal opens a pseudo-terminal and starts reading what is written to it.
func openTerminal(t *testing.T) *terminal {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		ptm.Close()
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		ptm.Close()
		t.Skipf("pseudo-terminal number: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		ptm.Close()
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	// Raw output: the terminal's own line discipline turns \n into \r\n,
	// which would hide a carriage return the command wrote.
	if tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS); err == nil {
		tio.Oflag &^= unix.OPOST
		unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio)
	}
	term := &terminal{tty: tty, ptm: ptm, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := ptm.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); ptm.Close() })
	return term
}

// run runs a command line with its stdout and stderr on the terminal, and
// returns its exit code and what reached the terminal.
func (term *terminal) run(args ...string) (int, string) {
	term.mu.Lock()
	term.out.Reset()
	term.mu.Unlock()
	code := run(args, term.tty, term.tty)
	// A mark after the command's output says when the reader has all of it.
	const mark = "\x00end of output\x00"
	term.tty.WriteString(mark)
	for {
		term.mu.Lock()
		s := term.out.String()
		term.mu.Unlock()
		if i := strings.Index(s, mark); i >= 0 {
			return code, s[:i]
		}
		select {
		case <-term.done:
			return code, s
		case <-time.After(5 * time.Millisecond):
		}
	}
}
