package memcached

import (
	"bytes"

	"forensics/parsers/scan"
)

// Levels as spdlog names them in memcached.log (kv_engine logger tests look
// for "CRITICAL …"); 0 is a word that is not a level.
const (
	levelTrace = iota + 1
	levelDebug
	levelInfo
	levelWarning
	levelError
	levelCritical
)

// level reads the level word at the start of b and returns it with the
// message after it. ok is false when b is empty.
func level(b []byte) (lvl int, msg []byte, ok bool) {
	if len(b) == 0 {
		return 0, nil, false
	}
	word := b
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		word, msg = b[:i], b[i+1:]
	}
	switch string(word) {
	case "INFO":
		lvl = levelInfo
	case "WARNING":
		lvl = levelWarning
	case "ERROR":
		lvl = levelError
	case "CRITICAL":
		lvl = levelCritical
	case "DEBUG":
		lvl = levelDebug
	case "TRACE":
		lvl = levelTrace
	}
	return lvl, msg, true
}

// number splits a run of ASCII digits off the start of b. ok is false when
// b does not start with a digit or the run is too long for a uint64.
func number(b []byte) (digits, rest []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || i > 20 {
		return nil, b, false
	}
	return b[:i], b[i:], true
}

// vbID reads "vb:N" at the start of b and returns N with the rest.
func vbID(b []byte) (int, []byte, bool) {
	r, ok := scan.Cut(b, "vb:")
	if !ok {
		return 0, b, false
	}
	d, r, ok := number(r)
	if !ok || len(d) > 9 {
		return 0, b, false
	}
	n := 0
	for _, c := range d {
		n = n*10 + int(c-'0')
	}
	return n, r, true
}

// field returns the text between key and the next stop byte (or the end of
// b), searching for key anywhere in b.
func field(b []byte, key string, stop byte) ([]byte, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil, false
	}
	v := b[i+len(key):]
	if j := bytes.IndexByte(v, stop); j >= 0 {
		v = v[:j]
	}
	return v, true
}

// pair reads "{a,b}" at the start of b (the snapshot and seqno pairs of DCP
// lines) and returns a, b and the rest.
func pair(b []byte) (a, c, rest []byte, ok bool) {
	r, ok := scan.Cut(b, "{")
	if !ok {
		return nil, nil, b, false
	}
	a, r, ok = number(r)
	if !ok {
		return nil, nil, b, false
	}
	if r, ok = scan.Cut(r, ","); !ok {
		return nil, nil, b, false
	}
	c, r, ok = number(r)
	if !ok {
		return nil, nil, b, false
	}
	if r, ok = scan.Cut(r, "}"); !ok {
		return nil, nil, b, false
	}
	return a, c, r, true
}

// bucketNameByte reports whether c can be part of a bucket name
// (ns_server allows letters, digits, '.', '_', '%' and '-').
func bucketNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '%' || c == '-'
}
