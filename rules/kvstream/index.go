package kvstream

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/nsserver"
	"forensics/parsers/projector"
)

// events indexes the rule's events so that each question an incident asks
// (what happened on this node in this window, what did the consumer do for
// this vbucket after the failover) costs a binary search and the events that
// answer it, not a scan of every event: a bundle holds thousands of restart
// episodes, and scanning per episode made the rule quadratic (a 580 MB
// bundle with 5,500 episodes took 283 s here, against 7 s to ingest).
//
// Every slice is in timeline order. The indexes are built once, lazily.
type events struct {
	by     map[forensics.Kind][]*forensics.Event
	merged map[string][]*forensics.Event

	topics  map[string]*forensics.Event // node + "\x00" + topic → its first projector rollback; shared by the windows
	warmed  map[string]int              // node + "\x00" + bucket → longest warmup in seconds
	byVB    map[vbKey][]*forensics.Event
	begins  map[string][]*forensics.Event // source → its ixStreamBegin events, by line
	rolls   map[string][]*forensics.Event // source → its ixRollback events, by line
	indexed bool

	// text reads back the line of an event whose text was dropped to
	// save memory (window.go slim); nil when every event has its text.
	text func(*forensics.Event) (string, error)
	err  error // the first error of text
}

type vbKey struct {
	kind   forensics.Kind
	bucket string
	vb     int
}

func index(sets ...[]forensics.Event) *events {
	ix := &events{by: map[forensics.Kind][]*forensics.Event{}, merged: map[string][]*forensics.Event{}}
	for _, evs := range sets {
		for i := range evs {
			e := &evs[i]
			ix.by[e.Kind] = append(ix.by[e.Kind], e)
		}
	}
	for _, es := range ix.by {
		sortEvents(es)
	}
	return ix
}

// of returns the events of the kinds, merged in time order.
func (ix *events) of(kinds ...forensics.Kind) []*forensics.Event {
	if len(kinds) == 1 {
		return ix.by[kinds[0]]
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	key := strings.Join(names, "\x00")
	if out, ok := ix.merged[key]; ok {
		return out
	}
	var out []*forensics.Event
	for _, k := range kinds {
		out = append(out, ix.by[k]...)
	}
	sortEvents(out)
	ix.merged[key] = out
	return out
}

// span returns the events of es (in time order) with a time in [from, to);
// a zero to means no end.
func span(es []*forensics.Event, from, to time.Time) []*forensics.Event {
	i := sort.Search(len(es), func(i int) bool { return !es[i].Time.Before(from) })
	j := len(es)
	if !to.IsZero() {
		j = i + sort.Search(len(es)-i, func(k int) bool { return !es[i+k].Time.Before(to) })
	}
	return es[i:j]
}

// build makes the indexes that are not windows of a kind.
func (ix *events) build() {
	if ix.indexed {
		return
	}
	ix.indexed = true
	if ix.topics == nil {
		ix.topics = map[string]*forensics.Event{}
	}
	// Windows are read in time order: a topic's first rollback is that of
	// the first window that has one.
	for _, e := range ix.by[prRollback] {
		if t := e.Attr(projector.AttrTopic); t != "" {
			k := e.Node + "\x00" + t
			if ix.topics[k] == nil {
				c := *e // the window's events are dropped as it slides
				ix.topics[k] = &c
			}
		}
	}
	ix.warmed = map[string]int{}
	for _, e := range ix.by[nsWarmed] {
		if n, ok := e.Int(nsserver.AttrSeconds); ok {
			k := e.Node + "\x00" + e.Bucket
			if old, ok := ix.warmed[k]; !ok || int(n) > old {
				ix.warmed[k] = int(n)
			}
		}
	}
	ix.byVB = map[vbKey][]*forensics.Event{}
	for _, k := range []forensics.Kind{mcVBState, mcRollback, ixRollback} {
		for _, e := range ix.by[k] {
			key := vbKey{k, e.Bucket, e.VB}
			ix.byVB[key] = append(ix.byVB[key], e)
		}
	}
	byLine := func(k forensics.Kind) map[string][]*forensics.Event {
		m := map[string][]*forensics.Event{}
		for _, e := range ix.by[k] {
			m[e.Path] = append(m[e.Path], e)
		}
		for _, es := range m {
			sort.SliceStable(es, func(i, j int) bool { return es[i].Line < es[j].Line })
		}
		return m
	}
	ix.begins, ix.rolls = byLine(ixStreamBegin), byLine(ixRollback)
}

// vbEvents returns the events of kind for the bucket's vbucket, in time order.
func (ix *events) vbEvents(k forensics.Kind, bucket string, vb int) []*forensics.Event {
	ix.build()
	return ix.byVB[vbKey{k, bucket, vb}]
}

// lines returns the events of a source with a line in [from, to].
func lines(es []*forensics.Event, from, to int64) []*forensics.Event {
	i := sort.Search(len(es), func(i int) bool { return es[i].Line >= from })
	j := sort.Search(len(es), func(i int) bool { return es[i].Line > to })
	if j < i {
		j = i
	}
	return es[i:j]
}

// fill gives back the text of an event read without it.
func (ix *events) fill(e *forensics.Event) {
	if e == nil || e.Text != "" || ix.text == nil || ix.err != nil {
		return
	}
	e.Text, ix.err = ix.text(e)
}

func warmKey(node, bucket string) string { return node + "\x00" + bucket }

func itoa(n int) string { return strconv.Itoa(n) }
