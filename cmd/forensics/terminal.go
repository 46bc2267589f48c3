package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"forensics/report"
)

// layoutFor says how wide the text written to w may be: $COLUMNS when it
// is set (as shells export it, and as scripts and tests set it), else the
// width of the terminal w is, else no limit (a file or a pipe gets whole
// rows).
func layoutFor(w io.Writer, verbose bool) report.Layout {
	return report.Layout{Width: widthOf(w), Verbose: verbose}
}

func widthOf(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := terminalFile(w); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 0
}

// proseWidth is the width documentation is wrapped to: the terminal's, and
// 100 columns in a file or a pipe, which a pager shows.
func proseWidth(w io.Writer) int {
	if n := widthOf(w); n > 0 {
		return n
	}
	return 100
}

// addWideFlag adds --wide (also spelled --no-wrap), which writes every row
// whole whatever the terminal's width, as to a file: for scripts, and for
// reading in a pager that scrolls sideways (less -S).
func addWideFlag(cmd *cobra.Command, p *bool) {
	cmd.Flags().BoolVar(p, "wide", false, "write every line whole, unwrapped and uncut, whatever the terminal's width (for scripts, less -S)")
	cmd.Flags().BoolVar(p, "no-wrap", false, "the same as --wide")
}

// isTerminal reports whether w is a terminal, where text from the evidence
// is neutralised (report.Escape) even in the formats meant for pipes.
func isTerminal(w io.Writer) bool {
	_, ok := terminalFile(w)
	return ok
}

// terminalFile returns the terminal w writes to, through the guard of
// guardTerminal, and whether it is one.
func terminalFile(w io.Writer) (*os.File, bool) {
	if t, ok := w.(*report.TerminalWriter); ok {
		w = t.Underlying()
	}
	f, ok := w.(*os.File)
	return f, ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// guardTerminal wraps w, when it is a terminal, so that everything written
// to it is escaped as report.Escape escapes (report.TerminalWriter): the
// formats meant for pipes (JSON, CSV, raw lines, --sql cells) and every
// other output alike. A file or a pipe gets the bytes as they are. The
// returned function writes what the guard still holds.
func guardTerminal(w io.Writer) (io.Writer, func()) {
	if _, ok := w.(*report.TerminalWriter); ok || !isTerminal(w) {
		return w, func() {}
	}
	t := report.NewTerminalWriter(w)
	return t, func() { t.Flush() }
}

// terminalLimit is how many rows a listing prints on a terminal unless
// --limit says otherwise: a person reads a page, and a timeline someone
// else wrote may hold millions of rows. A file or a pipe gets every row.
const terminalLimit = 100

// addLimitFlag adds --limit to a listing of what.
func addLimitFlag(cmd *cobra.Command, p *int, what string) {
	cmd.Flags().IntVar(p, "limit", -1, fmt.Sprintf("at most `N` %s (0: all; default %d on a terminal, all otherwise)", what, terminalLimit))
}

// listLimit resolves --limit: as given, or terminalLimit on a terminal and
// no limit elsewhere.
func listLimit(cmd *cobra.Command, out io.Writer, limit int) int {
	if limit >= 0 {
		return limit
	}
	if isTerminal(out) {
		return terminalLimit
	}
	return 0
}
