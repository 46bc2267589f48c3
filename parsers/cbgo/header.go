// Package cbgo reads the log grammar that Couchbase's Go services share:
// the header the GSI logger writes (secondary/logging, the indexer's and
// the projector's logs, and eventing's and the query service's in the same
// shape), the way Detect scores a log in it, and the numbers and keyspace
// ids GSI prints. The indexer and projector parsers both build on it.
package cbgo

import (
	"bytes"
	"strconv"
	"strings"

	"forensics"
	"forensics/logtime"
	"forensics/parsers/scan"
)

// Level is the severity that secondary/logging writes in brackets.
type Level uint8

const (
	Fatal Level = iota + 1
	Error
	Warn
	Info
	Verbose
	Timing
	Debug
	Trace
)

var levelNames = [...]string{Fatal: "Fatal", Error: "Error", Warn: "Warn", Info: "Info",
	Verbose: "Verbose", Timing: "Timing", Debug: "Debug", Trace: "Trace"}

func (l Level) String() string {
	if l == 0 || int(l) >= len(levelNames) {
		return "Level(" + strconv.Itoa(int(l)) + ")"
	}
	return levelNames[l]
}

// Header is the start of a line written by the GSI logger that the indexer
// and the projector share (secondary/logging/logging.go, all releases from
// 4.x to 8.0):
//
//	ts := time.Now().Format("2006-01-02T15:04:05.000-07:00")
//	log.target.Printf(ts+" ["+at.String()+"] "+format, v...)
//
// so "2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd …". A line without
// it continues the previous entry (stack traces, the rows of a TsVbuuid).
type Header struct {
	Stamp forensics.Stamp
	Level Level
	Msg   []byte // the message after "] "; aliases the line and is valid as long as it is
}

// ParseHeader reads the header at the start of line, without allocating.
func ParseHeader(line []byte) (Header, bool) {
	// The cheapest test first: the fixed date punctuation and " [".
	if len(line) < 29 || line[4] != '-' || line[10] != 'T' {
		return Header{}, false
	}
	st, n, ok := logtime.ISO(line)
	if !ok || len(line) < n+5 || line[n] != ' ' || line[n+1] != '[' {
		return Header{}, false
	}
	rest := line[n+2:]
	end := bytes.IndexByte(rest, ']')
	if end < 4 || end > 7 {
		return Header{}, false
	}
	lvl := parseLevel(rest[:end])
	if lvl == 0 {
		return Header{}, false
	}
	msg := rest[end+1:]
	switch {
	case len(msg) == 0:
	case msg[0] == ' ':
		msg = msg[1:]
	default:
		return Header{}, false
	}
	return Header{Stamp: st, Level: lvl, Msg: msg}, true
}

func parseLevel(b []byte) Level {
	switch string(b) { // no allocation: the compiler compares in place
	case "Info":
		return Info
	case "Warn":
		return Warn
	case "Error":
		return Error
	case "Verbose":
		return Verbose
	case "Debug":
		return Debug
	case "Trace":
		return Trace
	case "Timing":
		return Timing
	case "Fatal":
		return Fatal
	}
	return 0
}

// Sniff reads up to the first 200 lines of head and counts the lines in the
// GSI grammar (headers) and, of those, the ones whose message starts with
// one of prefixes (marked). Formats use it in Detect.
func Sniff(head []byte, prefixes []string) (headers, marked int) {
	for lines := 0; len(head) > 0 && lines < 200; lines++ {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		h, ok := ParseHeader(bytes.TrimSuffix(line, []byte{'\r'}))
		if !ok {
			continue
		}
		headers++
		for _, p := range prefixes {
			if scan.HasPrefix(h.Msg, p) {
				marked++
				break
			}
		}
	}
	return headers, marked
}

// Score turns what Detect knows into a score: a file named like the log and
// holding the grammar is certain; the grammar with the component's own
// messages is likely; the grammar alone is shared with other Couchbase Go
// services (eventing), so it is a weak guess.
func Score(named bool, headers, marked int) int {
	switch {
	case named && headers > 0:
		return 95
	case named:
		return 50
	case headers >= 2 && marked >= 1:
		return 80
	case headers >= 1 && marked >= 1:
		return 60
	case headers >= 2:
		return 30
	case headers == 1:
		return 20
	}
	return 0
}

// NamedLike reports whether a base name is one of names, or a rotation of
// one (indexer.log.3), or cbcollect_info's copy of one (ns_server.indexer.log).
func NamedLike(base string, names ...string) bool {
	base = strings.TrimSuffix(base, ".gz")
	base = strings.TrimPrefix(base, "ns_server.")
	for _, n := range names {
		if base == n {
			return true
		}
		if rest, ok := strings.CutPrefix(base, n+"."); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}
