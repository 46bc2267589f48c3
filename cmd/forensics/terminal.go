package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether w is a terminal, where text from the evidence
// is neutralised (report.Escape) even in the formats meant for pipes.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
