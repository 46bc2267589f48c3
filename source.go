package forensics

import (
	"strconv"
	"time"
)

// Source is one file (or archive member) that was read, with its accounting:
// every line read is an event, a plain line, or skipped, so
// Lines == Events + Plain + Skipped.
type Source struct {
	ID        int64
	Path      string // display path
	Node      string
	Format    string
	Component string
	Release   string // the release that wrote it, as the file says ("7.6.4-5146", "v24.3.1"); "" when it does not
	Key       string // content identity: the same key means the same bytes were already read
	Bytes     int64
	Lines     int64
	Events    int64 // lines that produced at least one event
	Plain     int64 // lines kept on the timeline without an event
	Skipped   int64 // lines not kept
	Errors    int64 // lines kept that looked like the format but did not parse
	First     time.Time
	Last      time.Time
	Problems  []Problem
}

// Problem is something wrong with an input that did not stop the analysis.
type Problem struct {
	Path   string `json:"path"`           // file or member, as displayed
	Line   int64  `json:"line,omitempty"` // 0 when it concerns the whole file
	Reason string `json:"reason"`         // why, in words, ending with what to do where there is something to do
	Lost   bool   `json:"lost,omitempty"` // whether content was lost (not read) because of it
}

func (p Problem) Error() string {
	if p.Line > 0 {
		return p.Path + ":" + strconv.FormatInt(p.Line, 10) + ": " + p.Reason
	}
	return p.Path + ": " + p.Reason
}
