package forensics

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"
)

// Rule recognises one kind of failure on the timeline. A rule is a value;
// the list of rules in use is rules.All().
type Rule struct {
	Name  string // kebab-case; the same string in flags, output and testdata folders
	Doc   Doc
	Kinds []Kind // the event kinds the rule reads
	// Details declares what the rule's findings' subjects hold beyond the
	// fields every subject shares (FindingSubject), in the order the JSON
	// writes them. Reports show and redact them as declared.
	Details []Detail
	Run     func(*Pass) error
}

// Doc is a rule's documentation, written for operators. `forensics rules
// explain` prints it, so the code and the docs do not drift.
type Doc struct {
	Title   string // short, lowercase
	Detects string // what the rule flags
	Why     string // why it matters
	Confirm string // how to confirm it by hand
	Inputs  string // what evidence the rule needs
	Fixes   string // what to do, in general; findings carry the exact fixes
}

// Query selects events. Zero fields do not filter.
type Query struct {
	Kinds    []Kind
	Nodes    []string
	Since    time.Time // inclusive
	Until    time.Time // exclusive
	Bucket   string
	VB       *int
	Range    int64
	Keyspace string
	Table    string
}

// Match reports whether the query selects e: the meaning of each field,
// which every Timeline applies (the stores in SQL, a test's timeline in
// memory).
func (q Query) Match(e *Event) bool {
	switch {
	case len(q.Kinds) > 0 && !slices.Contains(q.Kinds, e.Kind),
		len(q.Nodes) > 0 && !slices.Contains(q.Nodes, e.Node),
		!q.Since.IsZero() && e.Time.Before(q.Since),
		!q.Until.IsZero() && !e.Time.Before(q.Until),
		q.Bucket != "" && e.Bucket != q.Bucket,
		q.VB != nil && e.VB != *q.VB,
		q.Range != 0 && e.Range != q.Range,
		q.Keyspace != "" && e.Keyspace != q.Keyspace,
		q.Table != "" && e.Table != q.Table:
		return false
	}
	return true
}

// Timeline is what rules read.
type Timeline interface {
	// Events returns a cursor over the events the query selects, in
	// timeline order (Compare). Each event yielded is the caller's to keep.
	// An error ends the sequence.
	Events(ctx context.Context, q Query) iter.Seq2[*Event, error]
}

// Pass is one run of one rule over a timeline. It serves the rule only the
// kinds the rule declares (Rule.Kinds), as go/analysis serves an analyzer
// only the results it Requires, so the driver knows what every rule reads.
type Pass struct {
	Context  context.Context
	Rule     *Rule
	Timeline Timeline
	Report   func(Finding)
}

// Events returns a cursor over the events of the given kinds (every kind
// the rule declares when none is given), in timeline order.
func (p *Pass) Events(kinds ...Kind) iter.Seq2[*Event, error] {
	return p.Query(Query{Kinds: kinds})
}

// Query returns a cursor over the events q selects, in timeline order. Its
// kinds must be among those the rule declares; none means all of them.
func (p *Pass) Query(q Query) iter.Seq2[*Event, error] {
	if len(q.Kinds) == 0 {
		q.Kinds = p.Rule.Kinds
	}
	for _, k := range q.Kinds {
		if !slices.Contains(p.Rule.Kinds, k) {
			err := fmt.Errorf("reads kind %s, which the rule does not declare in its Kinds", k)
			return func(yield func(*Event, error) bool) { yield(nil, err) }
		}
	}
	return readAhead(p.Timeline.Events(p.Context, q))
}

// readAheadBatch is how many events a cursor's reader hands over at once.
const readAheadBatch = 128

// readAhead reads a cursor on a goroutine of its own, a batch ahead of its
// caller, so that the store decoding its blocks and the rule working on
// the events run side by side: a rule reading half a million events spent
// as long in one as in the other. The caller stopping stops the reader,
// and readAhead returns only once the reader has let go of the cursor.
func readAhead(seq iter.Seq2[*Event, error]) iter.Seq2[*Event, error] {
	type batch struct {
		evs []*Event
		err error
	}
	return func(yield func(*Event, error) bool) {
		ch := make(chan batch, 1)
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(ch)
			send := func(b batch) bool {
				select {
				case ch <- b:
					return true
				case <-done:
					return false
				}
			}
			var evs []*Event
			for e, err := range seq {
				if err != nil {
					send(batch{evs, err})
					return
				}
				evs = append(evs, e)
				select {
				case <-done: // the caller stopped: decode no more
					return
				default:
				}
				if len(evs) == readAheadBatch {
					if !send(batch{evs: evs}) {
						return
					}
					evs = make([]*Event, 0, readAheadBatch)
				}
			}
			if len(evs) > 0 {
				send(batch{evs: evs})
			}
		}()
		defer func() {
			close(done)
			wg.Wait()
		}()
		for b := range ch {
			for _, e := range b.evs {
				if !yield(e, nil) {
					return
				}
			}
			if b.err != nil {
				yield(nil, b.err)
				return
			}
		}
	}
}

// Collect reads a cursor to the end into a slice, for rules that need
// their events at hand.
func Collect(seq iter.Seq2[*Event, error]) ([]Event, error) {
	var out []Event
	for e, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, *e)
	}
	return out, nil
}

// EventsNear returns the events of the given kinds from before to after
// each anchor event, in time order. Rules read their rare events first (a
// restart, a redirect) and the kinds logged by the hundred thousand only
// around them, so a healthy bundle costs nothing and a large one does not
// have to fit in memory.
func (p *Pass) EventsNear(anchors []Event, before, after time.Duration, kinds ...Kind) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		var from, to time.Time
		// flush yields the window from..to and reports whether to go on.
		flush := func() bool {
			if from.IsZero() {
				return true
			}
			for e, err := range p.Query(Query{Kinds: kinds, Since: from, Until: to}) {
				if !yield(e, err) || err != nil {
					return false
				}
			}
			return true
		}
		for _, a := range anchors { // anchors come in time order, so windows do too
			start, end := a.Time.Add(-before), a.Time.Add(after)
			if !from.IsZero() && !start.After(to) {
				if end.After(to) {
					to = end
				}
				continue
			}
			if !flush() {
				return
			}
			from, to = start, end
		}
		flush()
	}
}

// Cursor returns a cursor over events already at hand, in their order,
// ending with err when it is not nil: the Timeline of a test, or of a rule
// that reads from a slice.
func Cursor(evs []Event, err error) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for i := range evs {
			if !yield(&evs[i], nil) {
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}
