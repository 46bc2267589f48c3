// Package jsonrec reads log lines that each hold one JSON object with an
// ISO 8601 "timestamp" and a numeric id: ns_server's event log
// (event_log.erl) and the audit log (kv_engine auditd). A line that does not
// start with '{' is not a record: those logs hold nothing else, but a
// pasted excerpt does.
package jsonrec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"forensics"
	"forensics/logtime"
)

// A Record is the object a parser reads a line into: the fields it
// reads, with the two every record has.
type Record interface {
	Stamp() string       // the "timestamp"
	Number() json.Number // the id
}

// Format names a kind of record in the errors of its lines.
type Format struct{ errJSON, errTime, errID error }

// New returns the format of the records called what, whose id is the
// field id.
func New(what, id string) Format {
	return Format{
		errJSON: fmt.Errorf("%s is not a valid JSON object", what),
		errTime: fmt.Errorf("%s has no readable \"timestamp\"", what),
		errID:   fmt.Errorf("%s has no numeric %q", what, id),
	}
}

// Object returns the JSON object a line holds, trimmed, and whether it
// holds one (it starts with '{'). A parser asks before it makes a record:
// a plain line costs no allocation.
func Object(text []byte) ([]byte, bool) {
	b := bytes.TrimSpace(text)
	return b, len(b) > 0 && b[0] == '{'
}

// Read reads a line's object into r and returns the record's time and
// id. The error says what the record lacks; with an id missing, the time
// is read.
func (f Format) Read(obj []byte, r Record) (st forensics.Stamp, id int, err error) {
	if Decode(obj, r) != nil {
		return forensics.Stamp{}, 0, f.errJSON
	}
	st, _, ok := logtime.ISO([]byte(r.Stamp()))
	if !ok {
		return forensics.Stamp{}, 0, f.errTime
	}
	if id, err = strconv.Atoi(r.Number().String()); err != nil {
		return st, 0, f.errID
	}
	return st, id, nil
}

// Decode reads data, one JSON object, into v. A field whose value has
// another type than v's is left out and the others are read: a release
// that changed one field's type still has its records read.
func Decode(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}
