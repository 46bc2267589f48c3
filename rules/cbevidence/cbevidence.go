// Package cbevidence holds what the Couchbase rules share: the set of
// evidence lines a finding quotes, the way they print times, and the checks
// a node or bucket name from the logs must pass before it goes into a fix
// command.
package cbevidence

import (
	"fmt"
	"strings"
	"time"

	"forensics"
	"forensics/names"
)

// Set collects evidence lines once each. diag.log entries are repeated in
// every node's cbcollect_info, and dmesg lines in journalctl's copy, so a
// line is also known by what it says.
type Set struct {
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
	fact := fmt.Sprintf("%s|%s|%d|%s", e.Kind, e.Node, e.Time.UnixNano(), FirstLine(e.Text))
	if s.seen[loc] || s.seen[fact] {
		return false
	}
	s.seen[loc], s.seen[fact] = true, true
	ev := forensics.EvidenceOf(e, note)
	ev.Text = FirstLine(e.Text)
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

// Clock prints t in UTC the way explanations do: milliseconds, or
// microseconds when the line had them.
func Clock(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		return t.Format("15:04:05.000000Z")
	}
	return t.Format("15:04:05.000Z")
}

// Day prints t's UTC date.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// Host is the host part of an OTP node name (ns_1@10.0.0.1 → 10.0.0.1).
func Host(node string) string {
	if i := strings.LastIndexByte(node, '@'); i >= 0 {
		return node[i+1:]
	}
	return node
}

// Node is the OTP node name of a host as ns_server names data nodes.
func Node(host string) string {
	if strings.Contains(host, "@") {
		return host
	}
	return "ns_1@" + host
}

// HasNode reports whether a comma-joined list of node names holds node.
func HasNode(list, node string) bool {
	for _, n := range strings.Split(list, ",") {
		if n == node {
			return true
		}
	}
	return false
}

// ValidHost reports whether s can be a host name or address (names.Host),
// so that a fix command built from it names that host and nothing else.
func ValidHost(s string) bool {
	return names.Host(s) == nil
}

// ValidBucket reports whether s is a name Couchbase accepts for a bucket
// (names.Bucket).
func ValidBucket(s string) bool {
	return names.Bucket(s) == nil
}

// HostOr returns node's host when it is valid, else a placeholder the user
// fills in, so that no unchecked text reaches a command.
func HostOr(node string) string {
	if h := Host(node); ValidHost(h) {
		return h
	}
	return "HOST"
}

// BucketOr returns the bucket when it is valid, else a placeholder.
func BucketOr(b string) string {
	if ValidBucket(b) {
		return b
	}
	return "BUCKET"
}

// Dedupe keeps the first of events that say the same thing about the same
// node within window: a user log entry in info.log and in every diag.log.
func Dedupe(evs []*forensics.Event, window time.Duration, key func(*forensics.Event) string) []*forensics.Event {
	var out []*forensics.Event
	last := map[string]time.Time{}
	for _, e := range evs {
		k := key(e)
		if t, ok := last[k]; ok && absDur(e.Time.Sub(t)) <= window {
			continue
		}
		last[k] = e.Time
		out = append(out, e)
	}
	return out
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Ptrs returns pointers to the events, in order.
func Ptrs(evs []forensics.Event) []*forensics.Event {
	out := make([]*forensics.Event, len(evs))
	for i := range evs {
		out[i] = &evs[i]
	}
	return out
}
