package store

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Search is a search for lines read a page at a time, the way a web page
// of results pages through them: the lines its filter selects, in
// timeline order, from after the place the page before ended.
type Search struct {
	LineFilter
	After string // the Next of the page before; "" from the first line
	Limit int    // at most this many lines (0: every one)
}

// SearchResult is how a search ended.
type SearchResult struct {
	// Next is where the next page starts, to pass as After: the place of
	// the last line given. "" when the search read every line it selects.
	Next  string
	Stats SearchStats
}

// SearchStats says how a search read the timeline (--verbose).
type SearchStats struct {
	Query   string // what every match contains, as the blocks were checked for it; "" when nothing rules a block out
	Indexed bool   // the index of the blocks chose those to read
	Blocks  int    // blocks of lines of the sources and window searched
	Chosen  int    // of those, the blocks the index did not rule out (all of them without an index)
	Read    int    // blocks whose lines were read one by one: the others' text holds no string every match contains
	Lines   int    // lines given
	// Unindexed is how many of the blocks were written before the
	// timeline had an index: they are read whatever the query
	// (forensics timeline reindex indexes them).
	Unindexed int
}

// Add adds the counts of another search's stats to st: a search made of
// several (one an incident, one a window).
func (st *SearchStats) Add(o SearchStats) {
	if st.Query == "" {
		st.Query = o.Query
	}
	st.Indexed = st.Indexed || o.Indexed
	st.Blocks += o.Blocks
	st.Chosen += o.Chosen
	st.Read += o.Read
	st.Lines += o.Lines
	st.Unindexed += o.Unindexed
}

// Mark is a place in the order a search gives its lines. Within a source
// the order is the file's, which keeps a line whose clock went back after
// the line before it; a merge takes the sources' lines by their times, so
// each line's place is its source's latest time up to it, then its own
// path and line.
type Mark struct {
	Time     int64 // unix ns
	Path     string
	Line     int64
	Incident int64 // with Source, which of two sources of the same path
	Source   int64
}

// Compare orders marks as the timeline orders lines: time, path, line,
// then the source, so that no two lines of a search tie.
func (m Mark) Compare(o Mark) int {
	switch {
	case m.Time != o.Time:
		return cmp(m.Time, o.Time)
	case m.Path != o.Path:
		return strings.Compare(m.Path, o.Path)
	case m.Line != o.Line:
		return cmp(m.Line, o.Line)
	case m.Incident != o.Incident:
		return cmp(m.Incident, o.Incident)
	}
	return cmp(m.Source, o.Source)
}

func cmp(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String encodes the mark for Search.After and SearchResult.Next: URL-safe
// base64, so that a web page can carry it in a link.
func (m Mark) String() string {
	var b []byte
	b = binary.AppendVarint(b, m.Time)
	b = binary.AppendVarint(b, m.Line)
	b = binary.AppendVarint(b, m.Incident)
	b = binary.AppendVarint(b, m.Source)
	b = append(b, m.Path...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrBadMark means a search's After is not a place a search gave.
var ErrBadMark = errors.New("not a place a search ended")

// ParseMark decodes a mark written by Mark.String.
func ParseMark(s string) (Mark, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Mark{}, fmt.Errorf("%w: %q", ErrBadMark, s)
	}
	var m Mark
	for _, f := range []*int64{&m.Time, &m.Line, &m.Incident, &m.Source} {
		v, k := binary.Varint(b)
		if k <= 0 {
			return Mark{}, fmt.Errorf("%w: %q", ErrBadMark, s)
		}
		*f, b = v, b[k:]
	}
	m.Path = string(b)
	return m, nil
}
