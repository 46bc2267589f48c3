package sqlite

import (
	"encoding/binary"
	"errors"
	"forensics/store"
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
		return store.ParseAttrsJSON(string(raw))
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
	store.AppendAttrsJSON(&b, attrs)
	return b.String(), nil
}
