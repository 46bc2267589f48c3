package crdb

import (
	"bytes"
	"errors"
	"time"

	"forensics"
	"forensics/parsers/scan"
)

// A node log line, in every text format CockroachDB has written
// (pkg/util/log: clog.go up to v20.2, format_crdb_v1.go, format_crdb_v2.go):
//
//	I180220 08:10:24.413824 123 kv/dist_sender.go:1197  [n1,client=…] message            legacy v1.x–v20.1
//	I201102 10:00:00.123456 123 kv/kvclient/kvcoord/dist_sender.go:1942 ⋮ [n1] message  crdb-v1 (v20.2+, debug zips)
//	I210116 21:49:17.073282 14 1@cli/start.go:690 ⋮ [T1,n1] 40  message                  crdb-v2 (v21.1+)
//	I210116 21:49:17.073282 14 1@cli/start.go:690 ⋮ [T1,n1] 40 +continuation
//
// Lyymmdd hh:mm:ss.uuuuuu goid [chan@]file:line marker [tags] [counter] [cont]msg,
// where the marker is ⋮ when the entry is redactable and empty otherwise
// (two spaces), the tags are absent or [-] when there are none, and crdb-v2
// adds a continuation mark after the counter. The time is UTC.

// logHeader is what the common prefix of a log line holds.
type logHeader struct {
	stamp forensics.Stamp
	tags  []byte // nil when the line has none
	msg   []byte
	cont  byte // crdb-v2 continuation mark: ' ', '=', '+', '|', '!'; 0 otherwise
}

var (
	errLogTime = errors.New("log line with an invalid date or time")
	errLogFile = errors.New("log line without file:line after the goroutine id")
)

// looksLikeLogLine is the cheap test: a severity, six digits and the hour.
// A line that passes it and does not parse is an error; one that does not is
// the continuation of a legacy multi-line entry.
func looksLikeLogLine(b []byte) bool {
	if len(b) < 11 {
		return false
	}
	switch b[0] {
	case 'I', 'W', 'E', 'F':
	default:
		return false
	}
	return scan.IsDigit(b[1]) && scan.IsDigit(b[2]) && scan.IsDigit(b[3]) && scan.IsDigit(b[4]) && scan.IsDigit(b[5]) && scan.IsDigit(b[6]) &&
		b[7] == ' ' && scan.IsDigit(b[8]) && scan.IsDigit(b[9]) && b[10] == ':'
}

// parseLogHeader reads the common prefix of a line that looksLikeLogLine.
func parseLogHeader(b []byte) (logHeader, error) {
	var h logHeader
	if len(b) < 25 || b[13] != ':' || b[16] != '.' {
		return h, errLogTime
	}
	yy, ok1 := two(b[1:3])
	mo, ok2 := two(b[3:5])
	dd, ok3 := two(b[5:7])
	hh, ok4 := two(b[8:10])
	mi, ok5 := two(b[11:13])
	ss, ok6 := two(b[14:16])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 60 {
		return h, errLogTime
	}
	i := 17
	nsec, scale := 0, 100000000
	for i < len(b) && scan.IsDigit(b[i]) {
		nsec += int(b[i]-'0') * scale
		scale /= 10
		i++
	}
	if i == 17 || i >= len(b) || b[i] != ' ' {
		return h, errLogTime
	}
	h.stamp = forensics.Stamp{
		Time: time.Date(2000+yy, time.Month(mo), dd, hh, mi, ss, nsec, time.UTC),
		Zone: forensics.ZoneUTC,
	}
	i++
	// goid, omitted by crdb-v1 when zero.
	if d := digits(b[i:]); d > 0 && i+d < len(b) && b[i+d] == ' ' {
		i += d + 1
	}
	if scan.HasPrefix(b[i:], "(gostd) ") {
		i += len("(gostd) ")
	}
	// [chan@]file:line
	colon := bytes.IndexByte(b[i:], ':')
	if colon <= 0 {
		return h, errLogFile
	}
	i += colon + 1
	d := digits(b[i:])
	if d == 0 {
		return h, errLogFile
	}
	i += d
	if i < len(b) {
		if b[i] != ' ' {
			return h, errLogFile
		}
		i++
	}
	// The redactable marker, or the second space of an empty one.
	switch {
	case scan.HasPrefix(b[i:], "⋮ "):
		i += len("⋮ ")
	case i < len(b) && b[i] == ' ':
		i++
	}
	rest := b[i:]
	if tags, after, ok := splitTags(rest); ok {
		h.tags = tags
		rest = after
	}
	// [counter] and, in crdb-v2, the continuation mark.
	d = digits(rest)
	if d < len(rest) && rest[d] == ' ' {
		k := d + 1
		if k < len(rest) {
			switch c := rest[k]; c {
			case ' ', '=', '+', '|', '!':
				h.cont = c
				h.msg = rest[k+1:]
				return h, nil
			}
		}
		if d > 0 {
			h.msg = rest[k:]
			return h, nil
		}
	}
	h.msg = rest
	return h, nil
}

func two(b []byte) (int, bool) {
	if !scan.IsDigit(b[0]) || !scan.IsDigit(b[1]) {
		return 0, false
	}
	return int(b[0]-'0')*10 + int(b[1]-'0'), true
}

// logParser reads a node's text log.
type logParser struct {
	ds sender
	m  message
	id identity
	hl health
}

func newLogParser(o forensics.Origin) forensics.Parser {
	return &logParser{ds: sender{origin: o.Node}, id: newIdentity(o)}
}

func (p *logParser) Line(n int64, b []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if !looksLikeLogLine(b) {
		p.id.continued(b)
		p.hl.continued(n, b, b, forensics.Stamp{}, emit)
		return forensics.Stamp{}, nil
	}
	h, err := parseLogHeader(b)
	if err != nil {
		return forensics.Stamp{}, err
	}
	switch h.cont {
	case '=':
		// A structured event: a decommission's, or else a plain line.
		p.hl.structured(n, b, &h, p.ds.origin, emit)
		return h.stamp, nil
	case '+', '|', '!':
		// The rest of an entry or a stack.
		p.id.continued(h.msg)
		p.hl.continued(n, b, h.msg, h.stamp, emit)
		return h.stamp, nil
	}
	p.id.line(&p.ds, h.tags, h.msg)
	t := candidate(h.msg)
	if t == tmplNone {
		if m, ok := bytes.CutPrefix(h.msg, []byte(structuredEntryPrefix)); ok {
			// crdb-v1's form of a structured event.
			h.msg = m
			p.hl.structured(n, b, &h, p.ds.origin, emit)
			return h.stamp, nil
		}
		p.hl.text(n, b, &h, p.ds.origin, emit)
		return h.stamp, nil
	}
	p.m = message{n: n, stamp: h.stamp, text: b, tags: h.tags, msg: h.msg}
	p.ds.handle(t, &p.m, emit)
	return h.stamp, nil
}

func (p *logParser) End(forensics.Emit) error { return nil }

// Release returns the release the file header names (binary: CockroachDB CCL v24.3.1 …).
func (p *logParser) Release() string { return p.id.release }

// Node returns the node the log belongs to: the debug zip's folder, the
// header's nodeID or the first n<id> tag; else the host of the file name.
func (p *logParser) Node() string { return p.id.node(&p.ds) }

// detectLog looks for log lines in the head, and for the file header that
// names the format. It demands several well-formed lines, and a header only
// counts on a line that is itself a log line.
func detectLog(name string, head []byte) int {
	good, other, header := 0, 0, false
	first := 0 // 1: the first line is a log line; -1: it is not
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			// Possibly cut: it counts only as a log line (a header is
			// whole at the start of a cut line), which a one-line excerpt
			// without a final newline is.
			head = nil
			if _, err := parseLogHeader(line); err != nil || !looksLikeLogLine(line) {
				break
			}
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		if isMarkup(line) {
			return 0
		}
		if looksLikeLogLine(line) {
			if _, err := parseLogHeader(line); err == nil {
				if first == 0 {
					first = 1
				}
				good++
				if bytes.Contains(line, []byte("log format (utf8=✓): crdb-")) ||
					bytes.Contains(line, []byte("line format: [IWEF]yymmdd hh:mm:ss.uuuuuu goid")) {
					header = true
				}
				continue
			}
		}
		if first == 0 {
			first = -1
		}
		other++
	}
	switch {
	case header:
		return 95
	case good >= 3 && good >= other:
		return 85
	case good >= 3:
		return 40 // a log whose entries span lines: stacks, goroutine dumps
	case good >= 1 && good >= other && isLogName(name):
		return 60 // a short log under the name cockroach gives its logs
	case good >= 1 && good >= other && first == 1:
		// An excerpt under any name (pasted into a ticket or an issue): its
		// first line is a log line, and no other program writes the header
		// Lyymmdd hh:mm:ss.uuuuuu goid file:line.
		return 55
	}
	return 0
}

// isLogName reports whether name is one cockroach gives its log files:
// cockroach.log, cockroach.<host>.<user>.<timestamp>.<pid>.log, and those
// of the other file groups (cockroach-health.…, cockroach-kv-exec.…).
func isLogName(name string) bool {
	return name == "cockroach.log" || hostFromName(name) != ""
}
