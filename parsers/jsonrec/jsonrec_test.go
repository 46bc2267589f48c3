package jsonrec

import (
	"encoding/json"
	"testing"
)

type rec struct {
	Timestamp string      `json:"timestamp"`
	ID        json.Number `json:"id"`
	Name      string      `json:"name"`
	Port      int         `json:"port"`
}

func (r *rec) Stamp() string       { return r.Timestamp }
func (r *rec) Number() json.Number { return r.ID }

func TestRead(t *testing.T) {
	f := New("test record", "id")
	for _, tc := range []struct {
		line, err, name string
		object, stamped bool
		id              int
	}{
		{line: `  {"timestamp":"2022-07-22T00:47:33.123-07:00","id":8243,"name":"x"}  `, object: true, stamped: true, id: 8243, name: "x"},
		// A field of another type is left out; the others are read.
		{line: `{"timestamp":"2022-07-22T00:47:33Z","id":1,"name":"y","port":"11210"}`, object: true, stamped: true, id: 1, name: "y"},
		{line: `{"timestamp":"2022-07-22T00:47:33Z","id":1.5}`, object: true, stamped: true, err: `test record has no numeric "id"`},
		{line: `{"id":1}`, object: true, err: `test record has no readable "timestamp"`},
		{line: `{"timestamp":`, object: true, err: "test record is not a valid JSON object"},
		{line: `[2022-07-22T00:47:33Z] not an object`},
		{line: ``},
	} {
		obj, ok := Object([]byte(tc.line))
		if ok != tc.object {
			t.Errorf("%q: object %v, want %v", tc.line, ok, tc.object)
		}
		if !ok {
			continue
		}
		var r rec
		st, id, err := f.Read(obj, &r)
		if got := errString(err); got != tc.err || id != tc.id || r.Name != tc.name || st.Time.IsZero() == tc.stamped {
			t.Errorf("%q: %v %d %q %v, want %v %d %q stamped %v", tc.line, st.Time, id, r.Name, got, tc.stamped, tc.id, tc.name, tc.err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
