// Package evidence holds what every rule uses to make a finding of the
// events it read: the set of lines the finding quotes, the events it keeps
// once when the bundle holds copies, and how its explanation writes their
// times and counts.
package evidence

import (
	"fmt"
	"strings"
	"time"

	"forensics"
)

// Set collects the lines a finding quotes, each once: a line is known by
// its file and line number.
type Set struct {
	// Copies also knows a line by what it says (its kind, node, time and
	// first line) and quotes only its first line: Couchbase repeats every
	// node's user log entries in each node's diag.log, and dmesg lines in
	// journalctl's copy.
	Copies bool

	list []forensics.Evidence
	seen map[string]bool
}

// Add adds e with a note saying what it shows; nil is ignored. It reports
// whether the line was new.
func (s *Set) Add(e *forensics.Event, note string) bool {
	if e == nil {
		return false
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	loc := e.Path + ":" + fmt.Sprint(e.Line)
	var fact string
	if s.Copies {
		fact = fmt.Sprintf("%s|%s|%d|%s", e.Kind, e.Node, e.Time.UnixNano(), FirstLine(e.Text))
	}
	if s.seen[loc] || s.seen[fact] {
		return false
	}
	s.seen[loc] = true
	ev := forensics.EvidenceOf(e, note)
	if s.Copies {
		s.seen[fact] = true
		ev.Text = FirstLine(e.Text)
	}
	s.list = append(s.list, ev)
	return true
}

// Len is the number of lines in the set.
func (s *Set) Len() int { return len(s.list) }

// Sorted returns the evidence in timeline order.
func (s *Set) Sorted() []forensics.Evidence {
	out := append([]forensics.Evidence(nil), s.list...)
	forensics.SortEvidence(out)
	return out
}

// FirstLine is the first line of a possibly multi-line entry.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Dedupe keeps the first of events that say the same thing within window:
// a user log entry in info.log and in every diag.log. key says what an
// event says.
func Dedupe(evs []*forensics.Event, window time.Duration, key func(*forensics.Event) string) []*forensics.Event {
	var out []*forensics.Event
	last := map[string]time.Time{}
	for _, e := range evs {
		k := key(e)
		if t, ok := last[k]; ok && e.Time.Sub(t).Abs() <= window {
			continue
		}
		last[k] = e.Time
		out = append(out, e)
	}
	return out
}

// Ptrs returns pointers to the events, in order.
func Ptrs(evs []forensics.Event) []*forensics.Event {
	out := make([]*forensics.Event, len(evs))
	for i := range evs {
		out[i] = &evs[i]
	}
	return out
}

// Clock writes the time of day of t in UTC the way every explanation and
// title does: milliseconds, or microseconds when the line had them, and a
// Z, since the lines quoted with it often carry another zone.
func Clock(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		return t.Format("15:04:05.000000Z")
	}
	return t.Format("15:04:05.000Z")
}

// Day writes t's UTC date.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// Stamp writes t's UTC date and time of day, the time as Clock writes it.
func Stamp(t time.Time) string { return Day(t) + " " + Clock(t) }

// Plural returns one for a count of 1, else many: "is" or "are", "" or "s".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Round rounds a duration between events for an explanation: to the second
// above a minute, else to 10 ms.
func Round(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(10 * time.Millisecond)
}

// ByKind indexes events by kind, each kind's in the order given.
func ByKind(evs []forensics.Event) map[forensics.Kind][]*forensics.Event {
	by := map[forensics.Kind][]*forensics.Event{}
	for i := range evs {
		by[evs[i].Kind] = append(by[evs[i].Kind], &evs[i])
	}
	return by
}
