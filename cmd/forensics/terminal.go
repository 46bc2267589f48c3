package main

import (
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"golang.org/x/sys/unix"

	"forensics/report"
)

// layoutFor says how wide the tables written to w may be: $COLUMNS when it
// is set (as shells export it, and as scripts and tests set it), else the
// width of the terminal w is, else no limit (a file or a pipe gets whole
// rows).
func layoutFor(w io.Writer, verbose bool) report.Layout {
	l := report.Layout{Verbose: verbose}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		l.Width = n
		return l
	}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			l.Width = int(ws.Col)
		}
	}
	return l
}

// isTerminal reports whether w is a terminal, where text from the evidence
// is neutralised (report.Escape) even in the formats meant for pipes.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
