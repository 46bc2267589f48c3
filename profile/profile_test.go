package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
)

func capture(t *testing.T, s string) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	oldOut, oldSetting := out, setting
	out, setting = &buf, s
	t.Cleanup(func() { out, setting = oldOut, oldSetting })
	return &buf
}

var line = regexp.MustCompile(`(?m)^forensics phase (\w+): peak_rss_mb=(\d+|\?) wall_s=[0-9.]+ cpu_s=[0-9.]+$`)

func TestSilentUnlessAsked(t *testing.T) {
	buf := capture(t, "")
	Mark("ingest")
	Done()
	if buf.Len() != 0 {
		t.Errorf("printed %q with FORENSICS_PHASES unset", buf)
	}
}

// The peak of a phase is its own: a phase that touches 64 MB more than the
// one before reports that much more, because the high-water mark was reset
// between them.
func TestPeakPerPhase(t *testing.T) {
	buf := capture(t, "1")
	Mark("small")
	Mark("big")
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	Done()
	runtime.KeepAlive(b)
	ms := line.FindAllStringSubmatch(buf.String(), -1)
	if len(ms) != 2 || ms[0][1] != "small" || ms[1][1] != "big" {
		t.Fatalf("want a line for small, then big; got %q", buf)
	}
	if runtime.GOOS != "linux" {
		return
	}
	small, _ := strconv.Atoi(ms[0][2])
	big, _ := strconv.Atoi(ms[1][2])
	if big < small+60 {
		t.Errorf("peak of the phase that touched 64 MiB: %d MB, of the one before: %d MB", big, small)
	}
}

func TestProfilesPerPhase(t *testing.T) {
	dir := t.TempDir()
	capture(t, dir)
	Mark("ingest")
	Mark("rules")
	Done()
	for _, name := range []string{"ingest.cpu.pprof", "ingest.allocs.pprof", "rules.cpu.pprof", "rules.allocs.pprof"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
		} else if fi.Size() == 0 {
			t.Errorf("%s is empty", name)
		}
	}
}
