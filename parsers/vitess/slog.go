package vitess

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf8"

	"forensics"
	"forensics/logtime"
)

// Vitess v24 logs through log/slog by default (go/vt/log/flags.go, release-24.0:
// --log-structured defaults to true, slog.NewJSONHandler with AddSource; glog
// only with --log-structured=false). Each entry is one JSON object on one line,
// in the handler's order:
//
//	{"time":"2026-01-02T10:00:05.007+01:00","level":"ERROR","source":{"function":"…","file":"/vt/src/vitess.io/vitess/go/vt/vtctl/workflow/traffic_switcher.go","line":1187},"msg":"Cancel migration failed …","keyspace":"dst"}
//
// time is RFC 3339 with milliseconds and the process's zone; level is DEBUG,
// INFO, WARN or ERROR; msg is what the glog call printed (newlines escaped),
// and structured calls add attributes after it. The same messages are
// matched as in glog.

// slogLine is what a JSON log line holds. Its slices point into the line or
// into the parser's buffer, and are valid until the next line.
type slogLine struct {
	stamp  forensics.Stamp
	level  byte // I, W, E, D as glog's letters
	file   []byte
	line   []byte
	msg    []byte
	fields [][2][]byte // the string attributes after msg: key, raw value
}

var (
	slogPrefix  = []byte(`{"time":"`)
	zlogPrefix  = []byte(`{"level":"`)
	errSlog     = errors.New("JSON log line: not a complete JSON object")
	errSlogTime = errors.New("JSON log line: unreadable time, want RFC 3339")
)

// isSlog is the cheap test: slog's JSON handler writes time first. The
// zerolog backend that main carried for a while (go/vt/log/zlog.go, glog.go)
// writes level first, "caller" as file:line and "message": read as well.
func isSlog(b []byte) bool { return bytes.HasPrefix(b, slogPrefix) || bytes.HasPrefix(b, zlogPrefix) }

// parseSlog reads a JSON log line. msg is unescaped into buf (reused); the
// other values are left as they are in the line unless they hold escapes.
func parseSlog(b []byte, buf []byte, out *slogLine) ([]byte, error) {
	*out = slogLine{fields: out.fields[:0]}
	s := jscan{b: b, i: 1}
	for {
		s.space()
		if s.i < len(s.b) && s.b[s.i] == '}' {
			s.i++
			break
		}
		key, ok := s.rawString()
		if !ok || !s.colon() {
			return buf, errSlog
		}
		switch string(key) {
		case "time":
			v, ok := s.rawString()
			if !ok {
				return buf, errSlog
			}
			st, n, ok := logtime.ISO(v)
			if !ok || n != len(v) {
				return buf, errSlogTime
			}
			out.stamp = st
		case "level":
			v, ok := s.rawString()
			if !ok {
				return buf, errSlog
			}
			out.level = slogLevel(v)
		case "msg", "message":
			start := len(buf)
			var ok bool
			buf, ok = s.unescape(buf)
			if !ok {
				return buf, errSlog
			}
			out.msg = buf[start:]
		case "source":
			if !s.source(out) {
				return buf, errSlog
			}
		case "caller":
			v, ok := s.rawString()
			if !ok {
				return buf, errSlog
			}
			if k := bytes.LastIndexByte(v, '/'); k >= 0 {
				v = v[k+1:]
			}
			if c := bytes.LastIndexByte(v, ':'); c > 0 {
				out.file, out.line = v[:c], v[c+1:]
			}
		default:
			if s.i < len(s.b) && s.b[s.i] == '"' {
				v, ok := s.rawString()
				if !ok {
					return buf, errSlog
				}
				if len(out.fields) < 8 {
					out.fields = append(out.fields, [2][]byte{key, v})
				}
			} else if !s.skip() {
				return buf, errSlog
			}
		}
		s.space()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(s.b) && s.b[s.i] == '}' {
			s.i++
			break
		}
		return buf, errSlog
	}
	if out.stamp.IsZero() {
		return buf, errSlogTime
	}
	return buf, nil
}

func slogLevel(v []byte) byte {
	switch string(v) {
	case "ERROR", "error":
		return 'E'
	case "WARN", "warn", "WARNING", "warning":
		return 'W'
	case "DEBUG", "debug":
		return 'D'
	case "FATAL", "fatal":
		return 'F'
	}
	return 'I'
}

// jscan is a small JSON scanner over one line, enough for slog's flat
// objects: it does not allocate.
type jscan struct {
	b []byte
	i int
}

func (s *jscan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t') {
		s.i++
	}
}

func (s *jscan) colon() bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ':' {
		s.i++
		s.space()
		return true
	}
	return false
}

// rawString reads a string and returns its bytes between the quotes, escapes
// left as they are.
func (s *jscan) rawString() ([]byte, bool) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			j++
		case '"':
			s.i = j + 1
			return s.b[start:j], true
		}
	}
	return nil, false
}

// unescape reads a string and appends its value to buf.
func (s *jscan) unescape(buf []byte) ([]byte, bool) {
	raw, ok := s.rawString()
	if !ok {
		return buf, false
	}
	for j := 0; j < len(raw); j++ {
		c := raw[j]
		if c != '\\' {
			buf = append(buf, c)
			continue
		}
		j++
		if j >= len(raw) {
			return buf, false
		}
		switch raw[j] {
		case 'n':
			buf = append(buf, '\n')
		case 't':
			buf = append(buf, '\t')
		case 'r':
			buf = append(buf, '\r')
		case 'b', 'f':
		case 'u':
			if j+4 >= len(raw) {
				return buf, false
			}
			r := 0
			for _, h := range raw[j+1 : j+5] {
				r <<= 4
				switch {
				case '0' <= h && h <= '9':
					r |= int(h - '0')
				case 'a' <= h && h <= 'f':
					r |= int(h-'a') + 10
				case 'A' <= h && h <= 'F':
					r |= int(h-'A') + 10
				default:
					return buf, false
				}
			}
			buf = utf8.AppendRune(buf, rune(r))
			j += 4
		default:
			buf = append(buf, raw[j])
		}
	}
	return buf, true
}

// source reads {"function":…,"file":…,"line":N}.
func (s *jscan) source(out *slogLine) bool {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return s.skip()
	}
	s.i++
	for {
		s.space()
		if s.i < len(s.b) && s.b[s.i] == '}' {
			s.i++
			return true
		}
		key, ok := s.rawString()
		if !ok || !s.colon() {
			return false
		}
		switch string(key) {
		case "file":
			v, ok := s.rawString()
			if !ok {
				return false
			}
			if k := bytes.LastIndexByte(v, '/'); k >= 0 {
				v = v[k+1:]
			}
			out.file = v
		case "line":
			start := s.i
			for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
				s.i++
			}
			out.line = s.b[start:s.i]
		default:
			if !s.skip() {
				return false
			}
		}
		s.space()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
		}
	}
}

// skip passes over one value of any type.
func (s *jscan) skip() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		_, ok := s.rawString()
		return ok
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, ok := s.rawString(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	}
	for s.i < len(s.b) && s.b[s.i] != ',' && s.b[s.i] != '}' {
		s.i++
	}
	return true
}

// jsonLine reads one v24 JSON log line: an entry of its own.
func (p *vtctldParser) jsonLine(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	p.flush(emit)
	var err error
	p.msg, err = parseSlog(text, p.msg[:0], &p.sl)
	if err != nil {
		return forensics.Stamp{}, err
	}
	l := &p.sl
	e := &p.ent
	e.open, e.full = true, false
	e.n = n
	e.stamp = l.stamp
	e.level = l.level
	e.raw = append(e.raw[:0], text[:min(len(text), maxEntry)]...)
	e.attrs = [3][2]int{}
	for _, f := range l.fields {
		j := -1
		switch string(f[0]) {
		case "keyspace":
			j = 0
		case "shard":
			j = 1
		case "workflow":
			j = 2
		}
		if j >= 0 && bytes.IndexByte(f[1], '\\') < 0 {
			if off := offsetIn(text, f[1]); off >= 0 && off+len(f[1]) <= len(e.raw) {
				e.attrs[j] = [2]int{off, off + len(f[1])}
			}
		}
	}
	e.buf = append(e.buf[:0], l.file...)
	if len(l.line) > 0 {
		e.buf = append(e.buf, ':')
		e.buf = append(e.buf, l.line...)
	}
	e.caller = [2]int{0, len(e.buf)}
	e.buf = append(e.buf, "] "...)
	e.msg = len(e.buf)
	e.buf = append(e.buf, l.msg[:min(len(l.msg), maxEntry)]...)
	p.noteRelease(e.buf[e.msg:])
	return l.stamp, nil
}

// offsetIn returns the offset of sub, a slice of b, in b: sub = b[i:j]
// has the capacity of b less i.
func offsetIn(b, sub []byte) int {
	i := cap(b) - cap(sub)
	if len(sub) == 0 || i < 0 || i+len(sub) > len(b) {
		return -1
	}
	return i
}

// Message returns the message of a log event's text, without the glog
// header ("E1202 16:42:31.534219       1 file.go:123] ") or, for a v24 JSON
// line, as its msg field: rules quote it.
func Message(text string) string {
	if isSlog([]byte(text)) {
		var sl slogLine
		if buf, err := parseSlog([]byte(text), nil, &sl); err == nil {
			return string(buf)
		}
		return text
	}
	if i := strings.Index(text, "] "); i > 0 && i < 80 && !strings.Contains(text[:i], "\n") {
		return text[i+2:]
	}
	return text
}
