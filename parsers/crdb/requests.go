package crdb

import (
	"bytes"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"forensics"
	"forensics/parsers/scan"
)

// A saved /debug/requests page (golang.org/x/net/trace, trace.go and its
// page template), with CockroachDB's spans as traces of family "tracing"
// (trace.debug.enable). Each trace is a header row, then its events when the
// page was expanded (exp=1):
//
//	2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch
//	08:10:24.413826 . 2 ... txnID:bb4d74d6-fc80-46eb-b3e2-9121a450a1c2
//	08:10:24.414053 . 227 ... [client=127.0.0.1:35854,user=rk_user,n1] r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3
//
// The header is the start (2006/01/02 15:04:05.000000, server-local time)
// and the elapsed seconds (%.6f). An event row has the time of day, dated
// when the day changed, and the delta since the previous event, with the
// zeros of a delta under a second blanked ("0.000227" is " .   227").
// Copies from a browser separate the cells with tabs or spaces; the saved
// HTML has <td class="when"> and <td class="elapsed"> cells and escaped
// text. A trace shows in every latency bucket it qualifies for, so a page
// or a set of pages can list it several times: it is counted once.

type requestsParser struct {
	ds   sender
	m    message
	seen map[string]bool
	cur  traceState
	html htmlRow
	un   []byte // scratch for unescaped cell text
	tab  []byte // scratch for a Markdown table row rewritten as text
}

// traceState is the trace whose rows are being read.
type traceState struct {
	key   string    // start and title: the trace attr
	date  time.Time // midnight of the day the trace started
	prev  time.Time // the time of the previous row
	dup   bool      // the trace was already read: its rows are plain lines
	known bool      // a header was read
}

func newRequestsParser(o forensics.Origin) forensics.Parser {
	return &requestsParser{ds: sender{origin: o.Node}, seen: make(map[string]bool)}
}

var (
	errRowTime    = errors.New("trace row with an invalid date or time")
	errRowElapsed = errors.New("trace row without a readable elapsed time after its time")
	errRowText    = errors.New("trace event row without \"... \" before its message")
)

// maxSeen bounds the traces remembered for de-duplication.
const maxSeen = 1 << 16

func (p *requestsParser) Line(n int64, b []byte, emit forensics.Emit) (forensics.Stamp, error) {
	t := bytes.TrimLeft(b, " \t")
	if p.html.inCell || len(t) > 0 && t[0] == '<' {
		return p.htmlLine(n, b, emit)
	}
	if row, ok := tableRow(p.tab, t); ok {
		p.tab, t = row, row
	}
	r, err := parseRow(t)
	switch {
	case err != nil:
		return forensics.Stamp{}, err
	case r.kind == rowHeader:
		return p.header(n, r.day, r.tod, t[:26], r.elapsed, r.text, emit), nil
	case r.kind == rowEvent:
		st := p.rowStamp(r.dated, r.day, r.tod)
		p.event(n, st, b, r.text, emit)
		return st, nil
	}
	return forensics.Stamp{}, nil
}

type rowKind uint8

const (
	rowNone rowKind = iota
	rowHeader
	rowEvent
)

// row is a trace header or event row copied as text.
type row struct {
	kind    rowKind
	dated   bool
	day     time.Time // midnight, when dated
	tod     time.Time // the time of day, on the zero day
	elapsed []byte
	text    []byte // the title of a header, the message of an event
}

// parseRow reads a text row. Lines that do not start with a time are
// rowNone; a line that starts with one and does not read is an error.
func parseRow(t []byte) (row, error) {
	var r row
	if len(t) < 15 || !scan.IsDigit(t[0]) || !scan.IsDigit(t[1]) {
		return r, nil
	}
	rest := t
	if len(t) >= 26 && t[4] == '/' && t[7] == '/' && t[10] == ' ' {
		day, ok := parseDate(t[:10])
		if !ok {
			return r, errRowTime
		}
		r.day, r.dated = day, true
		rest = t[11:]
	}
	if len(rest) < 15 || rest[2] != ':' || rest[5] != ':' || rest[8] != '.' {
		if r.dated {
			return r, errRowTime
		}
		return r, nil
	}
	tod, ok := parseClock(rest[:15])
	if !ok {
		return r, errRowTime
	}
	r.tod = tod
	rest = rest[15:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return r, errRowTime
	}
	rest = bytes.TrimLeft(rest, " \t")
	el := elapsedLen(rest)
	if el == 0 {
		return r, errRowElapsed
	}
	r.elapsed = rest[:el]
	rest = bytes.TrimLeft(rest[el:], " \t")
	text, isEvent := eventText(rest)
	switch {
	case isEvent:
		r.kind, r.text = rowEvent, text
	case !r.dated:
		return r, errRowText
	case r.elapsed[0] == '.':
		return r, errRowElapsed
	default:
		r.kind, r.text = rowHeader, bytes.TrimRight(rest, " \t")
	}
	return r, nil
}

// eventText returns the message of an event row: the text after "... ", or
// "[redacted]" for an event the page did not show.
func eventText(rest []byte) ([]byte, bool) {
	switch {
	case scan.HasPrefix(rest, "... "):
		return rest[4:], true
	case bytes.Equal(bytes.TrimRight(rest, " \t"), []byte("...")):
		return nil, true
	case scan.HasPrefix(rest, "[redacted]"):
		return nil, true
	case isDiscarded(rest):
		return rest, true
	}
	return nil, false
}

// isDiscarded reports whether text is x/net/trace's "(%d events discarded)".
func isDiscarded(text []byte) bool {
	if len(text) == 0 || text[0] != '(' {
		return false
	}
	c := digits(text[1:])
	return c > 0 && scan.HasPrefix(text[1+c:], " events discarded)")
}

// elapsedLen returns the length of the elapsed cell at the start of b:
// "13.750285", or a delta under a second with its zeros blanked (". 227",
// ".   227", ".123456").
func elapsedLen(b []byte) int {
	i := digits(b)
	if i >= len(b) || b[i] != '.' {
		return 0
	}
	i++
	if i == 1 {
		for i < len(b) && b[i] == ' ' {
			i++
		}
	}
	d := digits(b[i:])
	if d == 0 {
		return 0
	}
	return i + d
}

// header starts a trace: it is a new trace unless its start, title and
// elapsed time were already read.
func (p *requestsParser) header(n int64, day, tod time.Time, start, elapsed, title []byte, emit forensics.Emit) forensics.Stamp {
	when := day.Add(tod.Sub(time.Time{}))
	st := forensics.Stamp{Time: when, Zone: forensics.ZoneAssumed}
	key := string(start) + " " + string(title)
	dedup := key + " " + string(elapsed)
	p.cur = traceState{key: key, date: day, prev: when, known: true, dup: p.seen[dedup]}
	if p.cur.dup {
		return st
	}
	if len(p.seen) >= maxSeen {
		clear(p.seen)
	}
	p.seen[dedup] = true
	ev := &p.ds.ev
	ev.Reset()
	ev.Kind = KindTraceStart
	ev.Stamp = st
	ev.Line = n
	ev.Set(AttrTrace, key)
	ev.Set(AttrTitle, string(title))
	ev.Set(AttrElapsed, string(elapsed))
	ev.Text = string(start) + " " + string(elapsed) + " " + string(title)
	emit(ev)
	return st
}

// rowStamp returns the time of an event row of the current trace. Rows are
// in time order and dated only when the day changed since the previous row,
// so an undated row earlier in the day than its predecessor is on the next day.
func (p *requestsParser) rowStamp(dated bool, day, tod time.Time) forensics.Stamp {
	if !dated && !p.cur.known {
		return forensics.Stamp{}
	}
	if !dated {
		day = p.cur.date
	}
	t := day.Add(tod.Sub(time.Time{}))
	if !dated && t.Before(p.cur.prev) {
		t = t.Add(24 * time.Hour)
	}
	if dated || t.Sub(p.cur.date) >= 24*time.Hour {
		p.cur.date = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	p.cur.prev = t
	return forensics.Stamp{Time: t, Zone: forensics.ZoneAssumed}
}

// event reads the message of an event row.
func (p *requestsParser) event(n int64, st forensics.Stamp, line, text []byte, emit forensics.Emit) {
	if p.cur.dup || len(text) == 0 {
		return
	}
	if isDiscarded(text) {
		// "(%d events discarded)" replaces the middle events of a full trace.
		ev := &p.ds.ev
		ev.Reset()
		ev.Kind = KindTraceDiscarded
		ev.Stamp = st
		ev.Line = n
		if p.cur.known {
			ev.Set(AttrTrace, p.cur.key)
		}
		ev.Set(AttrCount, string(text[1:1+digits(text[1:])]))
		ev.Text = string(line)
		emit(ev)
		return
	}
	tags, msg, _ := splitTags(text)
	t := candidate(msg)
	if t == tmplNone {
		return
	}
	p.m = message{n: n, stamp: st, text: line, tags: tags, msg: msg, trace: p.cur.key}
	p.ds.handle(t, &p.m, emit)
}

// parseDate reads 2006/01/02 as midnight UTC.
func parseDate(b []byte) (time.Time, bool) {
	y, ok1 := two(b[0:2])
	y2, ok2 := two(b[2:4])
	mo, ok3 := two(b[5:7])
	d, ok4 := two(b[8:10])
	if !(ok1 && ok2 && ok3 && ok4) || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	return time.Date(y*100+y2, time.Month(mo), d, 0, 0, 0, 0, time.UTC), true
}

// parseClock reads 15:04:05.000000 as a time on the zero day.
func parseClock(b []byte) (time.Time, bool) {
	h, ok1 := two(b[0:2])
	m, ok2 := two(b[3:5])
	s, ok3 := two(b[6:8])
	if !(ok1 && ok2 && ok3) || h > 23 || m > 59 || s > 60 {
		return time.Time{}, false
	}
	us := 0
	for _, c := range b[9:15] {
		if !scan.IsDigit(c) {
			return time.Time{}, false
		}
		us = us*10 + int(c-'0')
	}
	return time.Time{}.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(s)*time.Second + time.Duration(us)*time.Microsecond), true
}

func (p *requestsParser) End(forensics.Emit) error { return nil }

// htmlRow is the table row of a saved page being read: the template writes
// each <td> on a line of its own, and an event's text may span lines.
type htmlRow struct {
	inRow  bool
	first  bool // <tr class="first">: a trace header
	inCell bool
	cell   int       // the cell being read: cellWhen, cellElapsed, cellText
	cells  [3][]byte // raw (escaped) text of each cell
	has    [3]bool
	line   int64 // the line the text cell starts on
	stamp  forensics.Stamp
	day    time.Time
	tod    time.Time
	dated  bool
	bad    bool // the when cell did not read
}

const (
	cellWhen = iota
	cellElapsed
	cellText
	cellOther
)

// maxCell bounds the text kept of one cell.
const maxCell = 1 << 20

func (p *requestsParser) htmlLine(n int64, b []byte, emit forensics.Emit) (forensics.Stamp, error) {
	r := &p.html
	var st forensics.Stamp
	var err error
	i := 0
	for i <= len(b) {
		lt := bytes.IndexByte(b[i:], '<')
		if lt < 0 {
			if r.inCell {
				r.add(b[i:])
				r.add([]byte{'\n'})
			}
			break
		}
		lt += i
		if r.inCell {
			r.add(b[i:lt])
		}
		gt := bytes.IndexByte(b[lt:], '>')
		if gt < 0 {
			if r.inCell {
				r.add(b[lt:])
				r.add([]byte{'\n'})
			}
			break
		}
		gt += lt
		tag := b[lt+1 : gt]
		i = gt + 1
		switch {
		case tagIs(tag, "tr"):
			*r = htmlRow{cells: r.cells, inRow: true, first: bytes.Contains(tag, []byte(`"first"`))}
			for k := range r.cells {
				r.cells[k] = r.cells[k][:0]
			}
		case tagIs(tag, "td"):
			if !r.inRow {
				continue
			}
			r.inCell = true
			switch {
			case bytes.Contains(tag, []byte(`"when"`)):
				r.cell = cellWhen
			case bytes.Contains(tag, []byte(`"elapsed"`)):
				r.cell = cellElapsed
			case bytes.Contains(tag, []byte("class")):
				r.cell = cellOther
			default:
				r.cell = cellText
				r.line = n
			}
		case tagIs(tag, "/td"):
			if !r.inCell {
				continue
			}
			r.inCell = false
			if r.cell == cellOther {
				continue
			}
			r.has[r.cell] = true
			if r.cell == cellWhen {
				st, err = p.htmlWhen()
			}
		case tagIs(tag, "/tr"):
			if r.inRow {
				p.htmlRowEnd(n, emit)
			}
			*r = htmlRow{cells: r.cells}
		}
	}
	return st, err
}

func tagIs(tag []byte, name string) bool {
	if !scan.HasPrefix(tag, name) {
		return false
	}
	return len(tag) == len(name) || tag[len(name)] == ' ' || tag[len(name)] == '\t'
}

func (r *htmlRow) add(b []byte) {
	if r.cell == cellOther || len(r.cells[r.cell])+len(b) > maxCell {
		return
	}
	r.cells[r.cell] = append(r.cells[r.cell], b...)
}

// htmlWhen reads the when cell, so that its line gets the row's time.
func (p *requestsParser) htmlWhen() (forensics.Stamp, error) {
	r := &p.html
	w := bytes.TrimSpace(r.cells[cellWhen])
	if len(w) >= 26 && w[4] == '/' {
		day, ok1 := parseDate(w[:10])
		tod, ok2 := parseClock(w[11:26])
		if !ok1 || !ok2 || len(w) != 26 {
			r.bad = true
			return forensics.Stamp{}, errRowTime
		}
		r.day, r.tod, r.dated = day, tod, true
	} else {
		if len(w) != 15 {
			r.bad = true
			return forensics.Stamp{}, errRowTime
		}
		tod, ok := parseClock(w)
		if !ok {
			r.bad = true
			return forensics.Stamp{}, errRowTime
		}
		r.tod = tod
	}
	if r.first {
		if !r.dated {
			r.bad = true
			return forensics.Stamp{}, errRowTime
		}
		r.stamp = forensics.Stamp{Time: r.day.Add(r.tod.Sub(time.Time{})), Zone: forensics.ZoneAssumed}
		return r.stamp, nil
	}
	r.stamp = p.rowStamp(r.dated, r.day, r.tod)
	return r.stamp, nil
}

func (p *requestsParser) htmlRowEnd(n int64, emit forensics.Emit) {
	r := &p.html
	if !r.has[cellWhen] || r.bad || !r.has[cellText] {
		return
	}
	p.un = unescapeHTML(p.un[:0], bytes.TrimSpace(r.cells[cellText]))
	text := p.un
	if r.first {
		el := bytes.TrimSpace(r.cells[cellElapsed])
		w := bytes.TrimSpace(r.cells[cellWhen])
		p.header(r.line, r.day, r.tod, w, el, text, emit)
		return
	}
	msg, ok := eventText(text)
	if !ok {
		return
	}
	line := r.line
	if line == 0 {
		line = n
	}
	p.event(line, r.stamp, text, msg, emit)
}

// unescapeHTML appends b to dst with the character references html/template
// and browsers write (&lt; &gt; &amp; &#34; &#39; &#43; &quot; &nbsp; …)
// decoded. References it does not know stay as they are.
func unescapeHTML(dst, b []byte) []byte {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '&')
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i]...)
		b = b[i:]
		semi := bytes.IndexByte(b, ';')
		if semi < 2 || semi > 10 {
			dst = append(dst, '&')
			b = b[1:]
			continue
		}
		name := b[1:semi]
		var r rune = -1
		switch string(name) {
		case "lt":
			r = '<'
		case "gt":
			r = '>'
		case "amp":
			r = '&'
		case "quot":
			r = '"'
		case "apos":
			r = '\''
		case "nbsp":
			r = ' '
		default:
			if name[0] == '#' {
				var v uint64
				var err error
				if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
					v, err = strconv.ParseUint(string(name[2:]), 16, 32)
				} else {
					v, err = strconv.ParseUint(string(name[1:]), 10, 32)
				}
				if err == nil && v <= utf8.MaxRune {
					r = rune(v)
				}
			}
		}
		if r < 0 {
			dst = append(dst, '&')
			b = b[1:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
		b = b[semi+1:]
	}
	return dst
}

// detectRequests looks for a saved /debug/requests page: its HTML cells, or
// trace headers and event rows copied as text.
func detectRequests(_ string, head []byte) int {
	if bytes.Contains(head, []byte(`<td class="when">`)) {
		return 95
	}
	if bytes.Contains(head, []byte("<title>/debug/requests</title>")) {
		return 80
	}
	headers, events := 0, 0
	var tab []byte
	for {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break // the last line may be cut
		}
		line := bytes.TrimLeft(head[:i], " \t")
		if row, ok := tableRow(tab, line); ok {
			tab, line = row, row
		}
		if isMarkup(line) {
			return 0
		}
		r, err := parseRow(line)
		head = head[i+1:]
		switch {
		case err != nil:
		case r.kind == rowHeader:
			headers++
		case r.kind == rowEvent:
			events++
		}
	}
	switch {
	case headers >= 1 && events >= 1 && headers+events >= 3:
		return 90
	case events >= 3:
		return 70
	case headers >= 3: // a summary page lists only the headers
		return 40
	}
	return 0
}
