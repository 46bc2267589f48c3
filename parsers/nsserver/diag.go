package nsserver

import (
	"bytes"

	"forensics"
	"forensics/logtime"
)

// diag.log is cbcollect_info's copy of GET /diag (diag_handler:handle_just_diag,
// ns_server 7.x): a cbcollect header block, then
//
//	logs:
//	-------------------------------
//	<time>, <module>:<code>:<type>:<code string>(<node>) - <text>
//	…
//	-------------------------------
//
//	Event Logs:
//	-------------------------------
//	{"timestamp":"…Z","event_id":19,…}
//	…
//	-------------------------------
//
// and then Erlang terms (per_node_diag, nodes_info, buckets), read as plain
// lines. The logs section holds the user-visible log (ns_log), gossiped
// between nodes: every node's diag.log repeats the entries of all nodes, and
// (node) is the node that logged each. Its time is the logging node's local
// time, formatted by ale_default_formatter:format_time, which ends with the
// comma. An entry's text continues on the following lines.

type diagSection uint8

const (
	diagPreamble diagSection = iota
	diagLogsOpen             // after "logs:", before its dashes
	diagLogs
	diagBetween    // after the logs section
	diagEventsOpen // after "Event Logs:", before its dashes
	diagEvents     // the event log JSON lines
	diagRest       // Erlang terms to the end
)

type diagParser struct {
	section diagSection
	ent     entry
	out     emitter
	events  eventLogReader
}

// userKinds are the kinds whose templates are logged by the user logger,
// the only one that reaches ns_log and so diag.log.
var userKinds = map[forensics.Kind]bool{
	ServiceExited: true, BucketLoaded: true, FailoverStart: true, FailoverNode: true,
	FailoverFailed: true, FailoverEnd: true, AutoFailover: true,
}

func newDiag(o forensics.Origin) forensics.Parser {
	p := &diagParser{}
	p.out.via = "diag"
	p.out.collected = collectedAt(o)
	p.out.allow = func(k forensics.Kind) bool { return userKinds[k] || isAlertKind(k) }
	p.out.node = func(raw []byte) string { return string(raw) }
	return p
}

func isDashes(b []byte) bool {
	if len(b) < 20 {
		return false
	}
	for _, c := range b {
		if c != '-' {
			return false
		}
	}
	return true
}

func (p *diagParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	switch p.section {
	case diagLogs:
		if isDashes(text) {
			p.out.flush(&p.ent, emit)
			p.section = diagBetween
			return forensics.Stamp{}, nil
		}
		if string(bytes.TrimRight(text, " ")) == "Event Logs:" { // an excerpt without the dashes
			p.out.flush(&p.ent, emit)
			p.section = diagEventsOpen
			return forensics.Stamp{}, nil
		}
		d, st, err := parseDiagEntry(text)
		return p.out.line(&p.ent, n, text, d, st, emit), err
	case diagEvents:
		if isDashes(text) {
			p.section = diagRest
			return forensics.Stamp{}, nil
		}
		return p.events.line(n, text, emit)
	case diagLogsOpen:
		if isDashes(text) {
			p.section = diagLogs
			return forensics.Stamp{}, nil
		}
		p.section = diagLogs
		return p.Line(n, text, emit)
	case diagEventsOpen:
		if isDashes(text) {
			p.section = diagEvents
			return forensics.Stamp{}, nil
		}
		p.section = diagEvents
		return p.Line(n, text, emit)
	}
	// An excerpt of the logs section, pasted without its "logs:" opening
	// (as in issue reports), starts with an entry.
	if p.section == diagPreamble && len(text) > 0 && text[0] >= '0' && text[0] <= '9' {
		if _, st, _ := parseDiagEntry(text); st == goodHeader {
			p.section = diagLogs
			return p.Line(n, text, emit)
		}
	}
	// Outside the two sections only their openings matter, and only before
	// the Erlang terms that end the file.
	if p.section != diagRest && len(text) > 0 && (text[0] == 'l' || text[0] == 'E') {
		switch string(bytes.TrimRight(text, " ")) {
		case "logs:":
			if p.section == diagPreamble {
				p.section = diagLogsOpen
			}
		case "Event Logs:":
			p.section = diagEventsOpen
		}
	}
	return forensics.Stamp{}, nil
}

func (p *diagParser) End(emit forensics.Emit) error {
	p.out.flush(&p.ent, emit)
	return nil
}

// parseDiagEntry reads the head of a logs: entry (diag_handler
// diag_format_log_entry/7, "~s ~s:~B:~s:~s(~s) - ~s~n"). A line is taken for
// an entry when it starts with a timestamp and ", "; anything else continues
// the previous entry's text.
func parseDiagEntry(b []byte) (d header, st headerState, err error) {
	if len(b) < 24 || b[0] < '0' || b[0] > '9' {
		return d, notHeader, nil
	}
	stamp, n, ok := logtime.ISO(b)
	if !ok || n+2 > len(b) || b[n] != ',' || b[n+1] != ' ' {
		return d, notHeader, nil
	}
	d.stamp = stamp
	rest := b[n+2:]
	// module:code:type:
	i := 0
	for i < len(rest) && isWordChar(rest[i]) {
		i++
	}
	if i == 0 || i >= len(rest) || rest[i] != ':' {
		return d, badHeader, errDiagHeader
	}
	code, r := digits(rest[i+1:])
	if code == nil || len(r) == 0 || r[0] != ':' {
		return d, badHeader, errDiagHeader
	}
	sep := bytes.Index(r, []byte(") - "))
	if sep < 0 {
		// The text may be empty: "…(ns_1@10.0.0.1) - " loses its trailing space
		// nowhere, but a cut line can; accept ")" at the end of the line.
		if !bytes.HasSuffix(r, []byte(")")) {
			return d, badHeader, errDiagHeader
		}
		sep = len(r) - 1
	}
	open := bytes.LastIndexByte(r[:sep], '(')
	if open < 0 {
		return d, badHeader, errDiagHeader
	}
	base := len(b) - len(r)
	d.node = [2]int{base + open + 1, base + sep}
	d.msg = min(base+sep+4, len(b))
	return d, goodHeader, nil
}

func detectDiag(name string, head []byte) int {
	logs := bytes.Contains(head, []byte("\nlogs:\n---")) || bytes.HasPrefix(head, []byte("logs:\n---"))
	named := name == "diag.log" || (len(name) > 8 && name[:8] == "ns-diag-")
	entries := 0
	if !logs {
		entries = diagEntries(head)
	}
	switch {
	case logs && named:
		return 95
	case logs:
		return 85
	case entries >= 2 && named:
		return 90
	case entries >= 2:
		return 75
	case named && bytes.Contains(head, []byte("couchbase diags")):
		return 60
	case named:
		return 30
	}
	return 0
}

// diagEntries counts the lines at the start of head that are logs: entries
// or their continuations, stopping at the first line that is neither an
// entry nor indented text: an excerpt of the logs section must be one from
// its first line to be taken for one.
func diagEntries(head []byte) int {
	entries := 0
	for lines := 0; len(head) > 0 && lines < 100; lines++ {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			continue
		}
		if _, st, _ := parseDiagEntry(line); st == goodHeader {
			entries++
			continue
		}
		if entries == 0 {
			return 0
		}
	}
	return entries
}
