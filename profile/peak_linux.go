package profile

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// peakKB returns the process's peak resident memory since the last reset,
// in KiB, from the VmHWM line of /proc/self/status (proc(5)).
func peakKB() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmHWM:")); ok {
			v = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))
			n, err := strconv.ParseInt(string(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// resetPeak sets the peak resident memory back to the current one: writing
// 5 to clear_refs resets VmHWM (proc(5), Linux 4.0).
func resetPeak() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
