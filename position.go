package forensics

import "time"

// Position is where a line is on the timeline. The timeline order is by
// time, then source path, then line number: events, lines and evidence all
// sort by it, so that the same input reads the same way everywhere.
type Position struct {
	Time time.Time
	Path string
	Line int64
}

// Compare orders two positions on the timeline: -1 when p comes first, 1
// when q does, 0 when they are the same place.
func (p Position) Compare(q Position) int {
	if c := p.Time.Compare(q.Time); c != 0 {
		return c
	}
	if p.Path != q.Path {
		if p.Path < q.Path {
			return -1
		}
		return 1
	}
	switch {
	case p.Line < q.Line:
		return -1
	case p.Line > q.Line:
		return 1
	}
	return 0
}

// Position returns where the event is on the timeline.
func (e *Event) Position() Position { return Position{e.Time, e.Path, e.Line} }

// Position returns where the evidence is on the timeline.
func (e *Evidence) Position() Position { return Position{e.Time, e.Path, e.Line} }

// Compare orders two events in timeline order, for slices.SortFunc.
func Compare(a, b *Event) int { return a.Position().Compare(b.Position()) }

// Before reports whether a comes before b in timeline order.
func Before(a, b *Event) bool { return Compare(a, b) < 0 }
