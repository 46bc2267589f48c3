package crdb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"forensics"
	"forensics/parsers/scan"
)

// The JSON log formats (pkg/util/log/format_json.go, v21.1+): one object per
// line, with full keys (json, json-fluent) or one-letter keys (json-compact,
// json-fluent-compact):
//
//	{"channel_numeric":1,"channel":"OPS","timestamp":"1136214245.654321000","severity_numeric":2,"severity":"WARNING","goroutine":11,"file":"util/log/format_json_test.go","line":123,"entry_counter":0,"redactable":0,"tags":{"noval":"","s":"1","long":"2"},"message":"hello world"}
//	{"tag":"log_test.ops","c":1,"t":"1136214245.654321000","s":2,"sev":"W","g":11,"f":"util/log/format_json_test.go","l":123,"n":0,"r":0,"tags":{"noval":"","s":"1","long":"2"},"message":"hello world"}
//
// The timestamp is Unix seconds with nine decimals, UTC. Sink headers carry
// "header":1 and no channel. Structured entries have "event" instead of
// "message"; they are never DistSender events.

type jsonParser struct {
	ds sender
	m  message
	id identity
	hl health
}

func newJSONParser(o forensics.Origin) forensics.Parser {
	return &jsonParser{ds: sender{origin: o.Node}, id: newIdentity(o)}
}

// Release returns the release the sink header names.
func (p *jsonParser) Release() string { return p.id.release }

// Node returns the node the log belongs to (see logParser.Node).
func (p *jsonParser) Node() string { return p.id.node(&p.ds) }

var (
	keyN      = []byte(`"N":`)
	keyNodeID = []byte(`"node_id":`)
)

// identify reads the release from a header entry and, while no node is
// known, the node_id (N) every entry carries once the node has one.
func (p *jsonParser) identify(line []byte, mi int) {
	if p.id.release == "" && mi >= 0 && scan.HasPrefix(line[mi+len(keyMessage):], "binary: ") {
		v := line[mi+len(keyMessage)+len("binary: "):]
		if q := bytes.IndexByte(v, '"'); q >= 0 {
			p.id.release = releaseOf(v[:q])
		}
	}
	if p.ds.origin != "" {
		return
	}
	for _, k := range [][]byte{keyN, keyNodeID} {
		if i := bytes.Index(line, k); i >= 0 {
			v := line[i+len(k):]
			if d := digits(v); d > 0 && !(d == 1 && v[0] == '0') {
				p.ds.origin = "n" + string(v[:d])
				return
			}
		}
	}
}

var (
	keyTimestamp = []byte(`"timestamp":"`)
	keyT         = []byte(`"t":"`)
	keyMessage   = []byte(`"message":"`)
)

var errJSONTime = errors.New("json log entry without a readable timestamp")

func (p *jsonParser) Line(n int64, b []byte, emit forensics.Emit) (forensics.Stamp, error) {
	line := bytes.TrimLeft(b, " \t")
	if len(line) == 0 || line[0] != '{' {
		return forensics.Stamp{}, nil
	}
	// A key with its quotes cannot occur inside a JSON string, where quotes
	// are escaped, so a match is the entry's own key. The timestamp is among
	// the first keys and the message the last but the stacks: look there.
	ts := timestampAt(line[:min(len(line), 256)])
	if ts < 0 {
		ts = timestampAt(line)
	}
	if ts < 0 {
		return forensics.Stamp{}, errJSONTime
	}
	t, ok := unixStamp(line[ts:])
	if !ok {
		return forensics.Stamp{}, errJSONTime
	}
	st := forensics.Stamp{Time: t, Zone: forensics.ZoneUTC}
	mi := bytes.LastIndex(line, keyMessage)
	p.identify(line, mi)
	if mi < 0 {
		return st, nil
	}
	if candidate(line[mi+len(keyMessage):]) == tmplNone {
		return st, p.hl.json(n, b, line, st, line[mi+len(keyMessage):], p.ds.origin, emit)
	}
	var e jsonEntry
	if err := json.Unmarshal(line, &e); err != nil {
		return st, fmt.Errorf("json log entry: %w", err)
	}
	msg := []byte(e.Message)
	tm := candidate(msg)
	if tm == tmplNone {
		return st, nil
	}
	p.m = message{n: n, stamp: st, text: b, tags: jsonTags(e.Tags), msg: msg}
	for _, id := range []json.RawMessage{e.NodeID, e.N} {
		if d := digits(id); d > 0 && d == len(id) {
			p.m.node = "n" + string(id)
		}
	}
	p.ds.handle(tm, &p.m, emit)
	return st, nil
}

// timestampAt returns where the timestamp's value starts in b, or -1.
func timestampAt(b []byte) int {
	if i := bytes.Index(b, keyTimestamp); i >= 0 {
		return i + len(keyTimestamp)
	}
	if i := bytes.Index(b, keyT); i >= 0 {
		return i + len(keyT)
	}
	return -1
}

func (p *jsonParser) End(forensics.Emit) error { return nil }

// jsonEntry holds the fields an event needs. Both spellings of each key are
// declared: encoding/json matches keys without regard to case when no field
// matches exactly, and "t"/"T", "n"/"N" are different fields.
type jsonEntry struct {
	Message  string          `json:"message"`
	Tags     json.RawMessage `json:"tags"`
	NodeID   json.RawMessage `json:"node_id"`
	N        json.RawMessage `json:"N"`
	Counter  json.RawMessage `json:"n"`
	T        json.RawMessage `json:"t"`
	TenantID json.RawMessage `json:"T"`
}

// jsonTags renders the tags object as the text formats print tags:
// single-letter keys joined to their value (n1), others as key=value.
func jsonTags(raw json.RawMessage) []byte {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var out []byte
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		k, _ := kt.(string)
		val := ""
		switch x := v.(type) {
		case string:
			val = x
		case nil:
		default:
			val = fmt.Sprint(x)
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, k...)
		if val != "" && len(k) != 1 {
			out = append(out, '=')
		}
		out = append(out, val...)
	}
	return out
}

// unixStamp reads "1136214245.654321000" at the start of b, up to its
// closing quote.
func unixStamp(b []byte) (time.Time, bool) {
	d := digits(b)
	if d == 0 || d > 12 || d >= len(b) {
		return time.Time{}, false
	}
	sec := atoi(b[:d])
	var nsec int64
	i := d
	if b[i] == '.' {
		i++
		scale := int64(100000000)
		for i < len(b) && scan.IsDigit(b[i]) {
			nsec += int64(b[i]-'0') * scale
			scale /= 10
			i++
		}
	}
	if i >= len(b) || b[i] != '"' {
		return time.Time{}, false
	}
	return time.Unix(sec, nsec).UTC(), true
}

// detectJSONLog looks for a crdb JSON log entry on the first line.
func detectJSONLog(_ string, head []byte) int {
	line := bytes.TrimLeft(head, " \t\r\n")
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if len(line) == 0 || line[0] != '{' {
		return 0
	}
	full := bytes.Contains(line, keyTimestamp) && bytes.Contains(line, []byte(`"goroutine":`)) && bytes.Contains(line, []byte(`"file":"`))
	compact := bytes.Contains(line, keyT) && bytes.Contains(line, []byte(`"g":`)) && bytes.Contains(line, []byte(`"f":"`))
	if !full && !compact {
		return 0
	}
	ts := keyTimestamp
	if !full {
		ts = keyT
	}
	i := bytes.Index(line, ts)
	if _, ok := unixStamp(line[i+len(ts):]); !ok {
		return 0
	}
	return 90
}
