package forensics

import (
	"context"
	"time"
)

// Rule recognises one kind of failure on the timeline. A rule is a value;
// the list of rules in use is rules.All.
type Rule struct {
	Name  string // kebab-case; the same string in flags, output and testdata folders
	Doc   Doc
	Kinds []Kind // the event kinds the rule reads
	Run   func(*Pass) error
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

// Timeline is what rules read. Events come in time order (then source, then line).
type Timeline interface {
	Events(ctx context.Context, q Query) ([]Event, error)
}

// Pass is one run of one rule over a timeline.
type Pass struct {
	Context  context.Context
	Rule     *Rule
	Timeline Timeline
	Report   func(Finding)
}

// Events returns the events of the given kinds, in time order.
func (p *Pass) Events(kinds ...Kind) ([]Event, error) {
	return p.Timeline.Events(p.Context, Query{Kinds: kinds})
}

// EventsNear returns the events of the given kinds from before to after
// each anchor event, in time order. Rules read their rare events first (a
// restart, a redirect) and the kinds logged by the hundred thousand only
// around them, so a healthy bundle costs nothing and a large one does not
// have to fit in memory.
func (p *Pass) EventsNear(anchors []Event, before, after time.Duration, kinds ...Kind) ([]Event, error) {
	var out []Event
	var from, to time.Time
	flush := func() error {
		if from.IsZero() {
			return nil
		}
		evs, err := p.Timeline.Events(p.Context, Query{Kinds: kinds, Since: from, Until: to})
		out = append(out, evs...)
		return err
	}
	for _, a := range anchors { // anchors come in time order, so windows do too
		start, end := a.Time.Add(-before), a.Time.Add(after)
		if !from.IsZero() && !start.After(to) {
			if end.After(to) {
				to = end
			}
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		from, to = start, end
	}
	return out, flush()
}
