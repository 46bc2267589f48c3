// Package profile measures the phases of a run (reading the evidence, running
// the rules, writing the report): each one's peak resident memory, wall time
// and CPU time, and, on request, a CPU and an allocation profile of each.
//
// It is silent unless FORENSICS_PHASES is set in the environment, so that a
// benchmark can tell which phase holds the memory without a debugger; what
// it prints goes to stderr, one line per phase:
//
//	forensics phase ingest: peak_rss_mb=63 wall_s=10.21 cpu_s=14.05
//
// When FORENSICS_PHASES names a directory (any value but "1"), each phase
// also writes <phase>.cpu.pprof and <phase>.allocs.pprof there: the
// allocation profile counts from the start of the run, so the allocations of
// one phase are the difference from the previous one's (go tool pprof
// -base). A CPU profile already running (analyze --cpuprofile) leaves the
// per-phase CPU profiles out.
//
// Peak memory is the kernel's high-water mark of the process (VmHWM in
// /proc/self/status), reset at each phase by writing 5 to
// /proc/self/clear_refs (Linux 4.0+). Elsewhere the peak is left out.
package profile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var (
	mu      sync.Mutex
	out     io.Writer = os.Stderr
	setting           = os.Getenv("FORENSICS_PHASES")
	current string
	started time.Time
	cpuAt   time.Duration
	cpuFile *os.File
)

// Mark ends the phase under way, if any, reporting it, and starts the named
// one. It costs nothing when FORENSICS_PHASES is not set.
func Mark(name string) {
	if setting == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	end()
	current, started, cpuAt = name, time.Now(), cpuTime()
	resetPeak()
	if dir := profileDir(); dir != "" {
		f, err := os.Create(filepath.Join(dir, name+".cpu.pprof"))
		if err != nil {
			fmt.Fprintf(out, "forensics phase %s: %v\n", name, err)
			return
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			os.Remove(f.Name())
			return
		}
		cpuFile = f
	}
}

// Done ends the last phase, reporting it.
func Done() {
	if setting == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	end()
	current = ""
}

func end() {
	if current == "" {
		return
	}
	wall, cpu := time.Since(started), cpuTime()-cpuAt
	peak := "peak_rss_mb=?"
	if kb, ok := peakKB(); ok {
		peak = fmt.Sprintf("peak_rss_mb=%d", kb*1024/1_000_000)
	}
	fmt.Fprintf(out, "forensics phase %s: %s wall_s=%.2f cpu_s=%.2f\n", current, peak, wall.Seconds(), cpu.Seconds())
	dir := profileDir()
	if dir == "" {
		return
	}
	if cpuFile != nil {
		pprof.StopCPUProfile()
		cpuFile.Close()
		cpuFile = nil
	}
	// The allocation profile is brought up to date by a collection.
	runtime.GC()
	f, err := os.Create(filepath.Join(dir, current+".allocs.pprof"))
	if err != nil {
		fmt.Fprintf(out, "forensics phase %s: %v\n", current, err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fmt.Fprintf(out, "forensics phase %s: write allocation profile: %v\n", current, err)
	}
}

func profileDir() string {
	if setting == "1" {
		return ""
	}
	return setting
}
