package rulefile

import (
	"strconv"
	"strings"
	"time"

	"forensics"
)

// typ is what a name stands for, known when the rule is loaded, so that a
// template or condition naming a field that does not exist, or using a
// time as a list, is an error then and not when a finding is written.
type typ uint8

const (
	tAny   typ = iota // a value whose type is not known (an attribute)
	tText             // text
	tNum              // a number
	tTime             // an instant
	tList             // a list of texts
	tEvent            // an event: its fields follow a dot
	tSel              // a selection or a lookup: count, first, last follow a dot
)

func (t typ) String() string {
	return [...]string{"a value", "text", "a number", "a time", "a list", "an event", "a selection"}[t]
}

// val is a value at run time: text, a number, a time, a list of texts or an
// event. bad marks a name that failed its check (a bucket name the bucket
// filter refused): a command holding one is left out.
type val struct {
	t    typ
	s    string
	n    float64
	tm   time.Time
	list []string
	ev   *forensics.Event
	bad  bool
}

func text(s string) val               { return val{t: tText, s: s} }
func num(n float64) val               { return val{t: tNum, n: n} }
func instant(t time.Time) val         { return val{t: tTime, tm: t} }
func list(l []string) val             { return val{t: tList, list: l} }
func eventVal(e *forensics.Event) val { return val{t: tEvent, ev: e} }

// String is the value as a template prints it.
func (v val) String() string {
	switch v.t {
	case tNum:
		return strconv.FormatFloat(v.n, 'f', -1, 64)
	case tTime:
		if v.tm.IsZero() {
			return ""
		}
		return v.tm.UTC().Format(time.RFC3339Nano)
	case tList:
		return strings.Join(v.list, ", ")
	case tEvent:
		if v.ev == nil {
			return ""
		}
		return firstLine(v.ev.Text)
	}
	return v.s
}

// empty reports whether the value holds nothing: no text, an empty list, no time.
func (v val) empty() bool {
	switch v.t {
	case tNum:
		return false
	case tTime:
		return v.tm.IsZero()
	case tList:
		return len(v.list) == 0
	case tEvent:
		return v.ev == nil
	}
	return v.s == ""
}

// number reads the value as a number: a number, a decimal text, or a Go
// duration ("612ms") in seconds; a time is its Unix seconds.
func (v val) number() (float64, bool) {
	switch v.t {
	case tNum:
		return v.n, true
	case tTime:
		if v.tm.IsZero() {
			return 0, false
		}
		return float64(v.tm.UnixNano()) / 1e9, true
	case tList:
		return float64(len(v.list)), true
	}
	return parseNumber(v.String())
}

func parseNumber(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, true
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d.Seconds(), true
	}
	return 0, false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// eventFields are the fields every event has, with their types; any other
// name after an event is an attribute its kind declares.
var eventFields = map[string]typ{
	"time": tTime, "node": tText, "source": tText, "line": tNum, "kind": tText, "text": tText,
	"bucket": tText, "vb": tNum, "range": tNum, "keyspace": tText, "shard": tText, "table": tText,
}

// field reads a field or attribute of an event. An event with no vbucket
// or range has "" there, not -1 or 0.
func field(e *forensics.Event, name string) val {
	switch name {
	case "time":
		return instant(e.Time)
	case "node":
		return text(e.Node)
	case "source":
		return text(e.Path)
	case "line":
		return num(float64(e.Line))
	case "kind":
		return text(string(e.Kind))
	case "text":
		return text(firstLine(e.Text))
	case "bucket":
		return text(e.Bucket)
	case "vb":
		if e.VB == forensics.NoVB {
			return text("")
		}
		return num(float64(e.VB))
	case "range":
		if e.Range == 0 {
			return text("")
		}
		return num(float64(e.Range))
	case "keyspace":
		return text(e.Keyspace)
	case "shard":
		return text(e.Shard)
	case "table":
		return text(e.Table)
	}
	return val{t: tAny, s: attr(e, strings.TrimPrefix(name, "attrs."))}
}

// attr reads an attribute by the name a rule file gives it: the rule
// names keys as data, where a Go rule names them by the parsers' constants.
func attr(e *forensics.Event, key string) string {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}
