package main

import (
	"strings"
	"testing"
	"time"

	"forensics/ingest"
)

// The progress line shows the totals surveyed up front, a bar, the rate of
// the last seconds and the time left at that rate; then the phase by name.
func TestProgressLine(t *testing.T) {
	p := &ingest.Progress{}
	p.Files.Store(52)
	p.Bytes.Store(200 << 20)
	p.FilesDone.Store(13)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &meter{start: t0}
	m.sample(t0, 0)
	p.BytesRead.Store(50 << 20)
	m.sample(t0.Add(time.Second), 50<<20)
	line := progressLine(p, m, t0.Add(time.Second), 0)
	for _, want := range []string{"reading  █████░░░░░░░░░░░░░░░  25%", "50.0 MiB of 200.0 MiB", "13/52 files", "50.0 MiB/s", "ETA 3s"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	if l := progressLine(p, m, t0.Add(time.Second), 40); len([]rune(l)) >= 40 {
		t.Errorf("line %q does not fit 40 columns", l)
	}
	p.Step.Store(int32(ingest.Rules))
	progressLine(p, m, t0.Add(2*time.Second), 0)
	if line := progressLine(p, m, t0.Add(3500*time.Millisecond), 0); line != "rules    1.5s" {
		t.Errorf("rules phase: %q", line)
	}
}
