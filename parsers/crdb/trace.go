package crdb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"time"

	"forensics"
	"forensics/parsers/scan"
)

// Trace exports of a statement diagnostics bundle (pkg/sql/explain_bundle.go):
//
//   - trace.txt: the statement, three blank lines, then the recording as
//     tracingpb Recording.String() prints it: per row the milliseconds since
//     the trace started and since the previous row ("% 10.3fms % 10.3fms"),
//     four spaces per nesting level, then "=== operation:<name> <tags>" for a
//     span or "event:<file:line> [tags] <message>" for a message. There is no
//     wall time: events carry offset_ms and take the time the pipeline gives.
//   - trace.json: the root span as a tracingpb NormalizedSpan in protobuf
//     JSON (operation, tags, startTime, duration, logs[{time, message |
//     fields[{key, value}]}], children[…]).
//   - trace-jaeger.json: Jaeger's JSON (data[].spans[] with operationName,
//     startTime and logs[].timestamp in µs, fields[{key:"event", value}],
//     processID "node N"), or a Zipkin array of spans (zipkin.go).
//
// JSON documents are kept whole (up to maxDocument) and read in End.

// maxDocument bounds the JSON document kept in memory. A variable for tests.
var maxDocument = 128 << 20

type traceMode uint8

const (
	modeUnknown traceMode = iota
	modeText
	modeJSON
)

type traceParser struct {
	ds    sender
	m     message
	extra [1]forensics.Attr
	mode  traceMode

	// trace.txt: the span open at each nesting level, and its node.
	spans []traceSpan

	// JSON: the document, the offset of each of its lines, the number of
	// its first line.
	doc       []byte
	starts    []int32
	firstLine int64
	overAt    int64 // the line at which the document outgrew maxDocument
	evs       []forensics.Event
}

type traceSpan struct {
	key  string
	node string
}

func newTraceParser(o forensics.Origin) forensics.Parser {
	return &traceParser{ds: sender{origin: o.Node}}
}

func (p *traceParser) Line(n int64, b []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if p.mode == modeUnknown {
		t := bytes.TrimLeft(b, " \t")
		if len(t) == 0 {
			return forensics.Stamp{}, nil
		}
		if t[0] == '{' || t[0] == '[' {
			p.mode = modeJSON
			p.firstLine = n
		} else {
			p.mode = modeText
		}
	}
	if p.mode == modeJSON {
		if p.overAt == 0 && len(p.doc)+len(b)+1 > maxDocument {
			p.overAt = n
		}
		if p.overAt == 0 {
			p.starts = append(p.starts, int32(len(p.doc)))
			p.doc = append(p.doc, b...)
			p.doc = append(p.doc, '\n')
		}
		return forensics.Stamp{}, nil
	}
	p.textLine(n, b, emit)
	return forensics.Stamp{}, nil
}

// textLine reads a trace.txt row.
func (p *traceParser) textLine(n int64, b []byte, emit forensics.Emit) {
	offset, depth, body, ok := traceRow(b)
	if !ok {
		return
	}
	switch {
	case scan.HasPrefix(body, "=== operation:"):
		op, node := operationOf(body[len("=== operation:"):])
		key := op + "@" + strconv.FormatInt(n, 10)
		if depth < len(p.spans) {
			p.spans = p.spans[:depth]
		}
		for len(p.spans) < depth {
			p.spans = append(p.spans, traceSpan{})
		}
		if node == "" && depth > 0 {
			node = p.spans[depth-1].node
		}
		p.spans = append(p.spans, traceSpan{key: key, node: node})
		ev := &p.ds.ev
		ev.Reset()
		ev.Kind = KindTraceStart
		ev.Line = n
		ev.Node = node
		ev.Set(AttrTrace, key)
		ev.Set(AttrOperation, op)
		ev.Set(AttrOffsetMS, string(offset))
		ev.Text = string(b)
		emit(ev)
	case scan.HasPrefix(body, "event:"):
		var span traceSpan
		if depth < len(p.spans) {
			span = p.spans[depth]
		}
		p.traceEvent(n, forensics.Stamp{}, b, body[len("event:"):], span, offset, emit)
	}
}

// traceEvent reads the message of a recorded log: "<file:line> [tags] msg"
// since v21.1, "[tags] msg" before. offset is trace.txt's milliseconds
// since the start; nil in the JSON documents, which have times.
func (p *traceParser) traceEvent(n int64, st forensics.Stamp, text, msg []byte, span traceSpan, offset []byte, emit forensics.Emit) {
	msg = skipFileLine(msg)
	tags, msg, _ := splitTags(msg)
	t := candidate(msg)
	if t == tmplNone {
		return
	}
	var extra []forensics.Attr
	if offset != nil {
		p.extra[0] = forensics.NewAttr(AttrOffsetMS, string(offset))
		extra = p.extra[:1]
	}
	p.m = message{n: n, stamp: st, text: text, tags: tags, msg: msg, trace: span.key, node: span.node, extra: extra}
	p.ds.handle(t, &p.m, emit)
}

// skipFileLine drops a leading "kv/kvclient/kvcoord/dist_sender.go:2644 ".
func skipFileLine(b []byte) []byte {
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return b
	}
	tok := b[:sp]
	c := bytes.LastIndexByte(tok, ':')
	if c <= 0 || c == len(tok)-1 || digits(tok[c+1:]) != len(tok)-c-1 || !bytes.Contains(tok[:c], []byte(".go")) {
		return b
	}
	return b[sp+1:]
}

// traceRow reads "     0.031ms      0.031ms        event:…": the
// milliseconds since the start (as printed), the nesting level, the body.
func traceRow(b []byte) (offset []byte, depth int, body []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	start := i
	n := msLen(b[i:])
	if n == 0 {
		return nil, 0, nil, false
	}
	offset = b[start : start+n-2]
	i += n
	for i < len(b) && b[i] == ' ' {
		i++
	}
	m := msLen(b[i:])
	if m == 0 {
		return nil, 0, nil, false
	}
	i += m
	sp := 0
	for i < len(b) && b[i] == ' ' {
		sp++
		i++
	}
	if sp < 4 {
		return nil, 0, nil, false
	}
	return offset, sp/4 - 1, b[i:], true
}

// msLen returns the length of "-12.345ms" at the start of b, or 0.
func msLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	d := digits(b[i:])
	if d == 0 {
		return 0
	}
	i += d
	if i >= len(b) || b[i] != '.' {
		return 0
	}
	i++
	f := digits(b[i:])
	if f == 0 {
		return 0
	}
	i += f
	if !scan.HasPrefix(b[i:], "ms") {
		return 0
	}
	return i + 2
}

// operationOf splits "dist sender send _verbose:1 node:1 txn:…" into the
// operation, whose words have no colon, and the node of its node tag.
func operationOf(b []byte) (op, node string) {
	rest := b
	end := len(b)
	for len(rest) > 0 {
		sp := bytes.IndexByte(rest, ' ')
		word := rest
		if sp >= 0 {
			word = rest[:sp]
		}
		if bytes.IndexByte(word, ':') >= 0 {
			end = len(b) - len(rest)
			break
		}
		if sp < 0 {
			break
		}
		rest = rest[sp+1:]
	}
	op = string(bytes.TrimSpace(b[:end]))
	if i := bytes.Index(b[end:], []byte("node:")); i >= 0 && (i == 0 || b[end+i-1] == ' ') {
		v := b[end+i+len("node:"):]
		if d := digits(v); d > 0 && (d == len(v) || v[d] == ' ') {
			node = "n" + string(v[:d])
		}
	}
	return op, node
}

func (p *traceParser) End(emit forensics.Emit) error {
	if p.mode != modeJSON {
		return nil
	}
	if p.overAt > 0 {
		return fmt.Errorf("trace document larger than %d MiB: stopped keeping it at line %d; its events were not read", maxDocument>>20, p.overAt)
	}
	w := &docWalker{p: p, dec: json.NewDecoder(bytes.NewReader(p.doc))}
	w.dec.UseNumber()
	collect := func(e *forensics.Event) {
		c := *e
		c.Attrs = append([]forensics.Attr(nil), e.Attrs...)
		p.evs = append(p.evs, c)
	}
	w.emit = collect
	err := w.top()
	sort.SliceStable(p.evs, func(i, j int) bool { return p.evs[i].Line < p.evs[j].Line })
	for i := range p.evs {
		emit(&p.evs[i])
	}
	if err != nil {
		err = w.locate(err)
	}
	p.evs, p.doc, p.starts = nil, nil, nil
	return err
}

// docWalker reads a JSON trace document token by token, so that each span
// and log knows the line it starts on.
type docWalker struct {
	p    *traceParser
	dec  *json.Decoder
	emit forensics.Emit
}

const maxSpanDepth = 1000

var errNotTrace = errors.New("not a trace: the document is neither a tracing span, Jaeger JSON nor Zipkin spans")

func (w *docWalker) locate(err error) error {
	off := w.dec.InputOffset()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off > int64(len(w.p.doc)) {
		off = int64(len(w.p.doc))
	}
	line := w.lineAt(off)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("trace document is cut: the JSON ends unfinished at line %d (byte offset %d)", line, off)
	}
	return fmt.Errorf("trace document: %v at line %d (byte offset %d)", err, line, off)
}

// lineAt returns the source line holding byte off of the document.
func (w *docWalker) lineAt(off int64) int64 {
	s := w.p.starts
	i := sort.Search(len(s), func(i int) bool { return int64(s[i]) > off }) - 1
	if i < 0 {
		i = 0
	}
	return w.p.firstLine + int64(i)
}

// next returns where the next value starts.
func (w *docWalker) next() int64 {
	off := w.dec.InputOffset()
	d := w.p.doc
	for off < int64(len(d)) {
		switch d[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (w *docWalker) object(fn func(key string) error) error {
	t, err := w.dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('{') {
		return fmt.Errorf("expected an object, found %v", t)
	}
	for w.dec.More() {
		kt, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err = w.dec.Token()
	return err
}

func (w *docWalker) array(fn func(at int64) error) error {
	t, err := w.dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('[') {
		return fmt.Errorf("expected an array, found %v", t)
	}
	for w.dec.More() {
		if err := fn(w.next()); err != nil {
			return err
		}
	}
	_, err = w.dec.Token()
	return err
}

func (w *docWalker) skip() error {
	var raw json.RawMessage
	return w.dec.Decode(&raw)
}

// top reads the document: a span (trace.json) or Jaeger's {"data": …}.
func (w *docWalker) top() error {
	if at := w.next(); at < int64(len(w.p.doc)) && w.p.doc[at] == '[' {
		return w.zipkinSpans()
	}
	seen := false
	err := w.span(w.next(), 0, &seen)
	if err == nil && !seen {
		return errNotTrace
	}
	return err
}

// normLog is a tracingpb LogRecord in protobuf JSON.
type normLog struct {
	Time    string `json:"time"`
	Message string `json:"message"`
	Fields  []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"fields"`
	DeprecatedFields []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"deprecatedFields"`
}

func (l normLog) text() string {
	if l.Message != "" {
		return l.Message
	}
	for _, f := range append(l.Fields, l.DeprecatedFields...) {
		if f.Key == "event" {
			return f.Value
		}
	}
	return ""
}

type pendingLog struct {
	line int64
	when time.Time
	msg  string
}

// span reads a NormalizedSpan. At the top it also takes Jaeger's "data".
func (w *docWalker) span(at int64, depth int, seen *bool) error {
	if depth > maxSpanDepth {
		return fmt.Errorf("spans nested deeper than %d", maxSpanDepth)
	}
	var op, start, dur string
	var tags map[string]any
	var logs []pendingLog
	node := ""
	err := w.object(func(key string) error {
		switch key {
		case "operation":
			*seen = true
			return w.dec.Decode(&op)
		case "startTime":
			return w.dec.Decode(&start)
		case "duration":
			return w.dec.Decode(&dur)
		case "tags":
			return w.dec.Decode(&tags)
		case "logs":
			return w.array(func(at int64) error {
				var l normLog
				if err := w.dec.Decode(&l); err != nil {
					return err
				}
				t, _ := time.Parse(time.RFC3339Nano, l.Time)
				logs = append(logs, pendingLog{line: w.lineAt(at), when: t, msg: l.text()})
				return nil
			})
		case "children":
			return w.array(func(at int64) error { return w.span(at, depth+1, seen) })
		case "data":
			if depth == 0 {
				*seen = true
				return w.jaegerData()
			}
		}
		return w.skip()
	})
	if err != nil || op == "" {
		return err
	}
	if v, ok := tags["node"]; ok {
		node = "n" + fmt.Sprint(v)
	}
	span := traceSpan{key: op + " " + start, node: node}
	st := forensics.Stamp{}
	if t, err := time.Parse(time.RFC3339Nano, start); err == nil {
		st = forensics.Stamp{Time: t.UTC(), Zone: forensics.ZoneUTC}
	}
	extra := []forensics.Attr{forensics.NewAttr(AttrDuration, dur)}
	if d, err := time.ParseDuration(dur); err == nil {
		extra = append(extra, forensics.NewAttr(AttrElapsed, strconv.FormatFloat(d.Seconds(), 'f', 6, 64)))
	}
	w.spanStart(w.lineAt(at), st, op, span, extra)
	for _, l := range logs {
		w.log(l, span)
	}
	return nil
}

func (w *docWalker) spanStart(line int64, st forensics.Stamp, op string, span traceSpan, extra []forensics.Attr) {
	ev := &w.p.ds.ev
	ev.Reset()
	ev.Kind = KindTraceStart
	ev.Stamp = st
	ev.Line = line
	ev.Node = span.node
	ev.Set(AttrTrace, span.key)
	ev.Set(AttrOperation, op)
	ev.Attrs = append(ev.Attrs, extra...)
	ev.Text = op
	w.emit(ev)
}

func (w *docWalker) log(l pendingLog, span traceSpan) {
	st := forensics.Stamp{}
	if !l.when.IsZero() {
		st = forensics.Stamp{Time: l.when.UTC(), Zone: forensics.ZoneUTC}
	}
	msg := []byte(l.msg)
	w.p.traceEvent(l.line, st, msg, msg, span, nil, w.emit)
}

type jaegerKV struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

type jaegerLog struct {
	Timestamp json.Number `json:"timestamp"`
	Fields    []jaegerKV  `json:"fields"`
}

func (w *docWalker) jaegerData() error {
	return w.array(func(int64) error {
		return w.object(func(key string) error {
			if key == "spans" {
				return w.array(w.jaegerSpan)
			}
			return w.skip()
		})
	})
}

var jaegerProcess = regexp.MustCompile(`^node (\d+)$`)

// jaegerSpan reads one span of a Jaeger trace (tracingpb ToJaegerJSON).
func (w *docWalker) jaegerSpan(at int64) error {
	var spanID, op, process string
	var start, dur json.Number
	var tags []jaegerKV
	var logs []pendingLog
	err := w.object(func(key string) error {
		switch key {
		case "spanID":
			return w.dec.Decode(&spanID)
		case "operationName":
			return w.dec.Decode(&op)
		case "processID":
			return w.dec.Decode(&process)
		case "startTime":
			return w.dec.Decode(&start)
		case "duration":
			return w.dec.Decode(&dur)
		case "tags":
			return w.dec.Decode(&tags)
		case "logs":
			return w.array(func(at int64) error {
				var l jaegerLog
				if err := w.dec.Decode(&l); err != nil {
					return err
				}
				pl := pendingLog{line: w.lineAt(at)}
				if us, err := l.Timestamp.Int64(); err == nil {
					pl.when = time.UnixMicro(us)
				}
				for _, f := range l.Fields {
					if s, ok := f.Value.(string); ok && f.Key == "event" {
						pl.msg = s
					}
				}
				logs = append(logs, pl)
				return nil
			})
		}
		return w.skip()
	})
	if err != nil {
		return err
	}
	node := ""
	if m := jaegerProcess.FindStringSubmatch(process); m != nil {
		node = "n" + m[1]
	}
	for _, t := range tags {
		if t.Key == "node" && node == "" {
			node = "n" + fmt.Sprint(t.Value)
		}
	}
	key := spanID
	if key == "" {
		key = op + " " + start.String()
	}
	span := traceSpan{key: key, node: node}
	st := forensics.Stamp{}
	if us, err := start.Int64(); err == nil {
		st = forensics.Stamp{Time: time.UnixMicro(us).UTC(), Zone: forensics.ZoneUTC}
	}
	var extra []forensics.Attr
	if dur != "" {
		extra = append(extra, forensics.NewAttr(AttrDurationUs, dur.String()))
		if us, err := dur.Int64(); err == nil {
			extra = append(extra, forensics.NewAttr(AttrElapsed, strconv.FormatFloat(float64(us)/1e6, 'f', 6, 64)))
		}
	}
	w.spanStart(w.lineAt(at), st, op, span, extra)
	for _, l := range logs {
		w.log(l, span)
	}
	return nil
}

var traceTxtRow = regexp.MustCompile(`(?m)^ *-?\d+\.\d{3}ms +-?\d+\.\d{3}ms {4,}(=== operation:|event:)`)

// detectTrace looks for trace.txt rows, a Jaeger trace or a tracing span in
// protobuf JSON.
func detectTrace(_ string, head []byte) int {
	if traceTxtRow.Match(head) {
		return 90
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if isZipkin(t) {
		return 85
	}
	if len(t) == 0 || t[0] != '{' {
		return 0
	}
	if bytes.Contains(t, []byte(`"operationName"`)) && bytes.Contains(t, []byte(`"spans"`)) &&
		(bytes.Contains(t, []byte(`"processID"`)) || bytes.Contains(t, []byte(`"startTime"`))) {
		return 90
	}
	if bytes.Contains(t, []byte(`"operation"`)) && bytes.Contains(t, []byte(`"startTime"`)) &&
		(bytes.Contains(t, []byte(`"logs"`)) || bytes.Contains(t, []byte(`"children"`)) || bytes.Contains(t, []byte(`"duration"`))) {
		return 85
	}
	return 0
}
