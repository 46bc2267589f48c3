package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"forensics/ingest"
)

// showProgress draws the progress of a run on stderr, when stderr is a
// terminal, until the returned function is called (more than once is fine).
func showProgress(stderr io.Writer, p *ingest.Progress) (stop func()) {
	f, ok := terminalFile(stderr) // the bar writes its own escapes, past the guard
	if !ok {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		m := &meter{start: time.Now()}
		for {
			select {
			case <-done:
				fmt.Fprint(f, "\r\033[K")
				return
			case now := <-tick.C:
				m.sample(now, p.BytesRead.Load())
				fmt.Fprint(f, "\r\033[K"+progressLine(p, m, now, layoutFor(f, false).Width))
			}
		}
	}()
	var stopped bool
	return func() {
		if !stopped {
			stopped = true
			close(done)
			<-finished
		}
	}
}

// meter measures the reading rate over the last few seconds, so the ETA
// follows the rate of now (a big memcached.log reads slower than many small
// files) rather than the average since the start.
type meter struct {
	start   time.Time
	samples []rateSample
	phase   ingest.Step
	since   time.Time // when the current phase started
}

type rateSample struct {
	at    time.Time
	bytes int64
}

const rateWindow = 3 * time.Second

func (m *meter) sample(now time.Time, bytes int64) {
	m.samples = append(m.samples, rateSample{now, bytes})
	for len(m.samples) > 2 && now.Sub(m.samples[1].at) >= rateWindow {
		m.samples = m.samples[1:]
	}
}

// rate is bytes per second over the window, 0 until there are two samples.
func (m *meter) rate() float64 {
	if len(m.samples) < 2 {
		return 0
	}
	a, b := m.samples[0], m.samples[len(m.samples)-1]
	if d := b.at.Sub(a.at).Seconds(); d > 0 {
		return float64(b.bytes-a.bytes) / d
	}
	return 0
}

const barWidth = 20

// progressLine writes one line: the phase, then, while reading, a bar, the
// bytes and files done of the totals surveyed up front, the rate and the
// time left at that rate; the other phases show how long they have taken.
func progressLine(p *ingest.Progress, m *meter, now time.Time, width int) string {
	phase := ingest.Step(p.Step.Load())
	if phase != m.phase || m.since.IsZero() {
		m.phase, m.since = phase, now
	}
	if phase != ingest.Reading {
		return fmt.Sprintf("%-8s %s", phase, (now.Sub(m.since)).Round(100*time.Millisecond))
	}
	read, total := p.BytesRead.Load(), p.Bytes.Load()
	total = max(total, read) // a gzip inside a zip is bigger than its member
	files, done := p.Files.Load(), p.FilesDone.Load()
	files = max(files, done)
	frac := 0.0
	if total > 0 {
		frac = float64(read) / float64(total)
	}
	fill := int(frac * barWidth)
	bar := strings.Repeat("█", fill) + strings.Repeat("░", barWidth-fill)
	line := fmt.Sprintf("reading  %s %3.0f%%  %s of %s  %d/%d files", bar, frac*100, mib(read), mib(total), done, files)
	if r := m.rate(); r > 0 {
		line += fmt.Sprintf("  %s/s", mib(int64(r)))
		if total > read {
			eta := time.Duration(float64(total-read) / r * float64(time.Second))
			line += "  ETA " + eta.Round(time.Second).String()
		}
	}
	if width > 0 && textWidth(line) >= width {
		line = clipRunes(line, width-1)
	}
	return line
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func textWidth(s string) int { return len([]rune(s)) }

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
