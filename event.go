// Package forensics holds the types that parsers, rules and the store share:
// an Event on the timeline, the Source it came from, the Format that reads it,
// the Rule that looks at events and the Finding it reports.
package forensics

import (
	"strconv"
	"time"
)

// Kind names what an event means, as "<component>.<what>",
// for example "memcached.stream_rollback". Kinds are part of the query
// interface (--kind) and of stored timelines: renaming one breaks users.
type Kind string

// Zone says how the time of a line was written.
type Zone uint8

const (
	// ZoneLogged: the line carries its UTC offset (memcached, ns_server, indexer).
	ZoneLogged Zone = iota
	// ZoneUTC: the format is UTC by definition (CockroachDB logs, JSON exports with epoch times).
	ZoneUTC
	// ZoneAssumed: the line has neither offset nor a UTC convention (glog, x/net/trace pages);
	// it is read as UTC and the event says so.
	ZoneAssumed
	// ZoneInherited: the line has no time of its own and took the previous line's.
	ZoneInherited
)

func (z Zone) String() string {
	switch z {
	case ZoneLogged:
		return "logged"
	case ZoneUTC:
		return "utc"
	case ZoneAssumed:
		return "assumed-utc"
	case ZoneInherited:
		return "inherited"
	}
	return "zone(" + strconv.Itoa(int(z)) + ")"
}

// Stamp is the time a line was logged at.
type Stamp struct {
	Time   time.Time // the instant, in UTC
	Offset int32     // seconds east of UTC as logged; 0 unless Zone is ZoneLogged
	Zone   Zone
}

// IsZero reports whether the stamp holds no time.
func (s Stamp) IsZero() bool { return s.Time.IsZero() }

// Local returns the time as the node logged it.
func (s Stamp) Local() time.Time {
	if s.Zone != ZoneLogged {
		return s.Time
	}
	return s.Time.In(time.FixedZone("", int(s.Offset)))
}

// NoVB is the VB of an event that is not about a vbucket.
const NoVB = -1

// Subject is what an event is about. The store indexes these fields, so
// queries like --bucket or --range do not read every event.
type Subject struct {
	Bucket   string // Couchbase bucket (the indexer's keyspace)
	VB       int    // vbucket; NoVB when none
	Range    int64  // CockroachDB range id; 0 when none
	Keyspace string // Vitess keyspace
	Shard    string // Vitess shard
	Table    string // Vitess table
}

// Attr is one named value of an event, as text. Values keep the spelling of the
// log (hex stays hex) unless the key says otherwise.
type Attr struct {
	Key, Value string
}

// Event is a line, or an entry of lines, that a parser recognised.
type Event struct {
	Stamp
	Node string // the node the line is about or was logged by
	Path string // the source's display path; set by the pipeline
	Line int64  // 1-based line number in the source
	Kind Kind
	Subject
	Attrs []Attr
	Text  string // the line as logged
}

// Reset clears e for reuse, keeping the capacity of Attrs.
func (e *Event) Reset() {
	attrs := e.Attrs[:0]
	*e = Event{Attrs: attrs}
	e.VB = NoVB
}

// Set adds or replaces an attribute.
func (e *Event) Set(key AttrKey, value string) {
	for i := range e.Attrs {
		if e.Attrs[i].Key == string(key) {
			e.Attrs[i].Value = value
			return
		}
	}
	e.Attrs = append(e.Attrs, Attr{string(key), value})
}

// Attr returns the value of an attribute, or "".
func (e *Event) Attr(key AttrKey) string {
	for _, a := range e.Attrs {
		if a.Key == string(key) {
			return a.Value
		}
	}
	return ""
}

// Int returns an attribute as a decimal integer, and whether it was one.
func (e *Event) Int(key AttrKey) (int64, bool) {
	n, err := strconv.ParseInt(e.Attr(key), 10, 64)
	return n, err == nil
}

// Uint returns an attribute as an unsigned decimal integer (seqnos, vbuuids), and whether it was one.
func (e *Event) Uint(key AttrKey) (uint64, bool) {
	n, err := strconv.ParseUint(e.Attr(key), 10, 64)
	return n, err == nil
}

// Distinct drops events read twice — the same log handed over twice, or a
// channel's file and the main log both holding the line — told apart by
// kind, node, time and text. The order is kept.
func Distinct(evs []Event) []Event {
	seen := make(map[string]bool, len(evs))
	out := evs[:0:0]
	for _, e := range evs {
		k := string(e.Kind) + "\x00" + e.Node + "\x00" + e.Time.String() + "\x00" + e.Text
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}
