package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// terminal is a pseudo-terminal a test runs a command on, as a person's
// shell would: isatty says yes, the width is the terminal's, and what the
// command writes is read back from the other side.
type terminal struct {
	t    *testing.T
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
	term := &terminal{t: t, tty: tty, ptm: ptm, done: make(chan struct{})}
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

// resize sets the terminal's width, which a command reads when $COLUMNS
// is not set (the test unsets it).
func (term *terminal) resize(cols int) {
	term.t.Helper()
	term.t.Setenv("COLUMNS", "")
	if err := unix.IoctlSetWinsize(int(term.tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: 50}); err != nil {
		term.t.Skipf("set the terminal's size: %v", err)
	}
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

// start starts a program on the terminal, as its controlling terminal (an
// interactive shell), in dir.
func (term *terminal) start(dir, name string, args ...string) *exec.Cmd {
	term.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term.tty, term.tty, term.tty
	cmd.Env = append(os.Environ(), "TERM=dumb")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		term.t.Fatalf("start %s on a terminal: %v", name, err)
	}
	term.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// output is everything the terminal showed so far.
func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.String()
}

// wait waits until the output after its first from bytes matches re, and
// returns that part.
func (term *terminal) wait(from int, re string) string {
	term.t.Helper()
	rx := regexp.MustCompile(re)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if out := term.output()[from:]; rx.MatchString(out) {
			return out
		}
		select {
		case <-term.done:
			term.t.Fatalf("the terminal closed without showing %q:\n%s", re, term.output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	term.t.Fatalf("the terminal never showed %q:\n%s", re, term.output())
	return ""
}

// send types s on the terminal.
func (term *terminal) send(s string) {
	term.t.Helper()
	if _, err := io.WriteString(term.ptm, s); err != nil {
		term.t.Fatal(err)
	}
}

var ansiCSI = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// screenLines splits what a command wrote to a terminal into the lines
// left on the screen: a line overwritten after a carriage return (a
// progress display) shows what was written last.
func screenLines(out string) []string {
	out = ansiCSI.ReplaceAllString(out, "")
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		lines = append(lines, l)
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
