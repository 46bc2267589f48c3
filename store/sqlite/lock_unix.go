//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockWriter takes the timeline's writer lock: one analyze at a time may
// write a timeline. A second would delete the first one's unfinished
// sources when it starts, and the first would fail midway. The lock is an
// flock on path.lock, which the kernel releases when the process ends, so a
// killed run leaves no stale lock behind; the file holds the pid of the
// holder for the message.
func lockWriter(path string) (release func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
			return nil, &InUseError{Path: path, PID: pid}
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// onReadOnlyMedia reports whether nothing can be written next to the
// timeline: its folder refuses a new file. (Permission bits do not tell, for
// root or on a read-only mount; trying does.)
func onReadOnlyMedia(path string) bool {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".forensics-probe-*")
	if err != nil {
		return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return false
}
