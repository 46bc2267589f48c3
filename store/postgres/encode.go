package postgres

import (
	"encoding/json"
	"strings"

	"forensics"
	"forensics/store"
	"forensics/store/block"
	"forensics/zran"
)

// Events' attributes are stored as the SQLite backend stores them, a JSON
// object of strings in the order logged, so a query written for one
// backend's attrs column reads the other's (cast to jsonb here to use ->>).

func encodeAttrs(b *strings.Builder, attrs []forensics.Attr) {
	b.WriteByte('{')
	for i, a := range attrs {
		if i > 0 {
			b.WriteByte(',')
		}
		v, _ := json.Marshal(a.Key)
		b.Write(v)
		b.WriteByte(':')
		v, _ = json.Marshal(a.Value)
		b.Write(v)
	}
	b.WriteByte('}')
}

// decodeAttrs reads attributes written by encodeAttrs, keeping their order.
func decodeAttrs(s string) ([]forensics.Attr, error) {
	if s == "{}" || s == "" {
		return nil, nil
	}
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

type problemJSON struct {
	Path   string `json:"path"`
	Line   int64  `json:"line,omitempty"`
	Reason string `json:"reason"`
	Lost   bool   `json:"lost,omitempty"`
}

func problemsJSON(ps []forensics.Problem) []problemJSON {
	out := make([]problemJSON, 0, len(ps))
	for _, p := range ps {
		out = append(out, problemJSON(p))
	}
	return out
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullInt(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}

// lineBuffer encodes the lines of a source into blocks on the reading
// goroutine; the writer only copies the compressed blocks.
type lineBuffer struct{ b *block.Builder }

func (lb *lineBuffer) Add(l *store.NewLine) {
	lb.b.Add(l.N, l.Stamp.Time.UnixNano(), l.Stamp.Offset, l.Flags, l.Text, l.Pos)
}

func (lb *lineBuffer) Full() bool             { return lb.b.Full() }
func (lb *lineBuffer) Empty() bool            { return lb.b.Empty() }
func (lb *lineBuffer) Batch() store.LineBatch { return &lineBatch{lb.b.Finish()} }
func (lb *lineBuffer) Release()               { lb.b.Release() }
func (lb *lineBuffer) Follow(t *zran.Trail) bool {
	lb.b.Follow(t)
	return t != nil
}

type lineBatch struct{ block.Block }

func (b *lineBatch) Release() { b.Block.Release() }
