package store

import (
	"encoding/json"
	"strings"

	"forensics"
)

// Both backends show an event's attributes as one JSON object of strings,
// in the order the parser set them (the attrs column of the events view), and
// a source's problems as a JSON array; a query written for one backend reads
// the other's.

// AppendAttrsJSON writes attrs as a JSON object of strings, keeping their order.
func AppendAttrsJSON(b *strings.Builder, attrs []forensics.Attr) {
	b.WriteByte('{')
	for i, a := range attrs {
		if i > 0 {
			b.WriteByte(',')
		}
		WriteJSONString(b, a.Key)
		b.WriteByte(':')
		WriteJSONString(b, a.Value)
	}
	b.WriteByte('}')
}

// WriteJSONString writes s as a JSON string. Most values are plain ASCII and
// are written as they are; the rest go through encoding/json.
func WriteJSONString(b *strings.Builder, s string) {
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

// ParseAttrsJSON reads attributes written by AppendAttrsJSON, keeping their
// order. The common case (keys and values without escapes) is read by hand;
// anything else goes to encoding/json.
func ParseAttrsJSON(s string) ([]forensics.Attr, error) {
	if s == "{}" || s == "" {
		return nil, nil
	}
	var out []forensics.Attr
	i := 1 // after '{'
	for i < len(s) && s[i] != '}' {
		k, n, ok := plainString(s, i)
		if !ok || n >= len(s) || s[n] != ':' {
			return attrsJSON(s)
		}
		v, m, ok := plainString(s, n+1)
		if !ok || m >= len(s) {
			return attrsJSON(s)
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

// attrsJSON reads a JSON object of strings with encoding/json, keeping the
// order of its keys.
func attrsJSON(s string) ([]forensics.Attr, error) {
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

// ProblemsJSON is how a source's problems are stored: a JSON array, [] when
// there are none.
func ProblemsJSON(ps []forensics.Problem) []byte {
	if ps == nil {
		ps = []forensics.Problem{}
	}
	b, _ := json.Marshal(ps)
	return b
}

// ParseProblems reads what ProblemsJSON wrote. Problems that cannot be read
// are left out: they describe a source, which is read all the same.
func ParseProblems(s string) []forensics.Problem {
	var ps []forensics.Problem
	if json.Unmarshal([]byte(s), &ps) != nil || len(ps) == 0 {
		return nil
	}
	return ps
}
