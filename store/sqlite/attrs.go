package sqlite

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"

	"forensics"
)

// Attributes are stored packed, not as JSON: a dense bundle has hundreds of
// thousands of events with ten attributes each, and quoting, escaping and
// checking them cost more CPU than storing the row, and a fifth of the
// events table. The packed form is attrsPacked, then each key and value as
// a uvarint length and its bytes, in the event's order. The events view
// shows them as the JSON object timelines of schema 1 stored (forensics_attrs),
// so queries with json_extract(attrs, ...) read both.
const attrsPacked = 0x01

// appendAttrs appends the packed form of attrs to b.
func appendAttrs(b []byte, attrs []forensics.Attr) []byte {
	b = append(b, attrsPacked)
	for _, a := range attrs {
		b = binary.AppendUvarint(b, uint64(len(a.Key)))
		b = append(b, a.Key...)
		b = binary.AppendUvarint(b, uint64(len(a.Value)))
		b = append(b, a.Value...)
	}
	return b
}

var errAttrs = errors.New("damaged attributes")

// decodeAttrs reads stored attributes, packed or JSON (schema 1), keeping
// their order. The strings share one allocation, a copy of raw.
func decodeAttrs(raw []byte) ([]forensics.Attr, error) {
	if len(raw) == 0 || raw[0] != attrsPacked {
		return decodeAttrsText(string(raw))
	}
	if len(raw) == 1 {
		return nil, nil
	}
	s := string(raw)
	n := 0
	for i := 1; i < len(s); n++ {
		var ok bool
		if _, i, ok = packedString(s, i); !ok {
			return nil, errAttrs
		}
		if _, i, ok = packedString(s, i); !ok {
			return nil, errAttrs
		}
	}
	out := make([]forensics.Attr, 0, n)
	for i := 1; i < len(s); {
		var a forensics.Attr
		a.Key, i, _ = packedString(s, i)
		a.Value, i, _ = packedString(s, i)
		out = append(out, a)
	}
	return out, nil
}

// packedString reads a length-prefixed string at s[i:] and returns it with
// the index after it.
func packedString(s string, i int) (string, int, bool) {
	n, k := uvarint(s[i:])
	if k <= 0 || uint64(len(s)-i-k) < n {
		return "", 0, false
	}
	i += k
	return s[i : i+int(n)], i + int(n), true
}

func uvarint(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<(7*i), i + 1
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	return 0, 0
}

// attrsJSON is the events view's forensics_attrs: stored attributes as the
// JSON object of strings the view documents.
func attrsJSON(raw []byte) (string, error) {
	if len(raw) == 0 || raw[0] != attrsPacked {
		return string(raw), nil
	}
	attrs, err := decodeAttrs(raw)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	encodeAttrs(&b, attrs)
	return b.String(), nil
}

// encodeAttrs writes attributes as a JSON object, keeping their order: the
// form of schema 1 timelines, and of the events view.
func encodeAttrs(b *strings.Builder, attrs []forensics.Attr) {
	b.WriteByte('{')
	for i, a := range attrs {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, a.Key)
		b.WriteByte(':')
		writeJSONString(b, a.Value)
	}
	b.WriteByte('}')
}

// writeJSONString writes s as a JSON string. Most values are plain ASCII and
// are written as they are; the rest go through encoding/json.
func writeJSONString(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			v, _ := json.Marshal(s)
			b.Write(v)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// decodeAttrsText reads attributes written by encodeAttrs (schema 1),
// keeping their order. The common case (keys and values without escapes) is
// read by hand; anything else goes to encoding/json.
func decodeAttrsText(s string) ([]forensics.Attr, error) {
	if s == "{}" || s == "" {
		return nil, nil
	}
	var out []forensics.Attr
	i := 1 // after '{'
	for i < len(s) && s[i] != '}' {
		k, n, ok := plainString(s, i)
		if !ok || n >= len(s) || s[n] != ':' {
			return decodeAttrsJSON(s)
		}
		v, m, ok := plainString(s, n+1)
		if !ok || m >= len(s) {
			return decodeAttrsJSON(s)
		}
		out = append(out, forensics.Attr{Key: k, Value: v})
		i = m
		if s[i] == ',' {
			i++
		}
	}
	return out, nil
}

// plainString reads a JSON string without escapes starting at s[i], and
// returns it with the index after it.
func plainString(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			return s[i+1 : j], j + 1, true
		case '\\':
			return "", 0, false
		}
	}
	return "", 0, false
}

func decodeAttrsJSON(s string) ([]forensics.Attr, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []forensics.Attr
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		key, _ := k.(string)
		out = append(out, forensics.Attr{Key: key, Value: v})
	}
	return out, nil
}
