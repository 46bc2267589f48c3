package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// TerminalWriter passes what is written to a terminal through the same
// escaping as Escape, keeping line breaks and tabs: whatever format a
// command prints there (JSON, CSV, raw lines, a query's cells), no byte
// of the evidence reaches the terminal as something it acts on. The
// commands wrap their output with it once, when it is a terminal; text
// already escaped passes unchanged, so it guards the outputs that are
// meant for pipes and escape nothing themselves.
type TerminalWriter struct {
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence cut by the end of a write
	b       strings.Builder
}

// NewTerminalWriter returns a TerminalWriter writing to w.
func NewTerminalWriter(w io.Writer) *TerminalWriter { return &TerminalWriter{w: w} }

// Underlying returns the writer it writes to (the terminal's file).
func (t *TerminalWriter) Underlying() io.Writer { return t.w }

// Write escapes p and writes it; a UTF-8 sequence cut at its end waits for
// the next write.
func (t *TerminalWriter) Write(p []byte) (int, error) {
	s := p
	if len(t.pending) > 0 {
		s = append(t.pending, p...)
		t.pending = nil
	}
	// Keep a trailing sequence that may yet be completed.
	if cut := incompleteTail(s); cut < len(s) {
		t.pending = append([]byte(nil), s[cut:]...)
		s = s[:cut]
	}
	t.b.Reset()
	for _, line := range strings.SplitAfter(string(s), "\n") {
		body := strings.TrimSuffix(line, "\n")
		for _, cell := range strings.SplitAfter(body, "\t") {
			escapeTo(&t.b, strings.TrimSuffix(cell, "\t"), true)
			if strings.HasSuffix(cell, "\t") {
				t.b.WriteByte('\t')
			}
		}
		if len(body) < len(line) {
			t.b.WriteByte('\n')
		}
	}
	if _, err := io.WriteString(t.w, t.b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a cut sequence that never got its end, escaped.
func (t *TerminalWriter) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	t.b.Reset()
	escapeTo(&t.b, string(t.pending), true)
	t.pending = nil
	_, err := io.WriteString(t.w, t.b.String())
	return err
}

// incompleteTail returns where a UTF-8 sequence that the end of s cuts
// short begins, or len(s).
func incompleteTail(s []byte) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax+1; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if !utf8.FullRune(s[i:]) {
			return i
		}
		break
	}
	return len(s)
}
