package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"forensics/ingest"
)

// showProgress draws the progress of a run on stderr, when stderr is a
// terminal, until the returned function is called.
func showProgress(stderr io.Writer, p *ingest.Progress) (stop func()) {
	f, ok := stderr.(*os.File)
	if !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(f, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprint(f, "\r\033[K"+progressLine(p, time.Since(start)))
			}
		}
	}()
	return func() { close(done); <-finished }
}

func progressLine(p *ingest.Progress, elapsed time.Duration) string {
	read, total := p.BytesRead.Load(), p.Bytes.Load()
	rate := float64(read) / elapsed.Seconds()
	line := fmt.Sprintf("reading %d/%d files  %s", p.FilesDone.Load(), p.Files.Load(), mib(read))
	if total > 0 {
		line += " of " + mib(total)
	}
	line += fmt.Sprintf("  %.0f MB/s", rate/1e6)
	if total > read && rate > 0 {
		eta := time.Duration(float64(total-read) / rate * float64(time.Second))
		line += "  ETA " + eta.Round(time.Second).String()
	}
	return line
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
