package forensics

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"
)

type fixed []Event

func (f fixed) Events(_ context.Context, q Query) iter.Seq2[*Event, error] {
	var out []Event
	for _, e := range f {
		for _, k := range q.Kinds {
			if e.Kind == k && (q.Since.IsZero() || !e.Time.Before(q.Since)) && (q.Until.IsZero() || e.Time.Before(q.Until)) {
				out = append(out, e)
			}
		}
	}
	return Cursor(out, nil)
}

// The pass serves a rule the kinds it declares, and refuses the others.
func TestPassServesDeclaredKinds(t *testing.T) {
	t0 := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	tl := fixed{
		{Stamp: Stamp{Time: t0}, Kind: "a.start"},
		{Stamp: Stamp{Time: t0.Add(time.Second)}, Kind: "b.other"},
		{Stamp: Stamp{Time: t0.Add(time.Hour)}, Kind: "a.start"},
	}
	p := &Pass{Context: context.Background(), Rule: &Rule{Name: "r", Kinds: []Kind{"a.start"}}, Timeline: tl}
	evs, err := Collect(p.Events())
	if err != nil || len(evs) != 2 {
		t.Errorf("no kinds named: %d events, %v; want the 2 of the declared kind", len(evs), err)
	}
	if _, err := Collect(p.Events("b.other")); err == nil || !strings.Contains(err.Error(), "b.other") {
		t.Errorf("undeclared kind: error %v, want one naming b.other", err)
	}
	if _, err := Collect(p.EventsNear(evs, time.Minute, time.Minute, "b.other")); err == nil {
		t.Error("undeclared kind around anchors: no error")
	}
	near, err := Collect(p.EventsNear(evs[:1], 0, time.Minute, "a.start"))
	if err != nil || len(near) != 1 {
		t.Errorf("around the first anchor: %d events, %v; want 1", len(near), err)
	}
}

func TestCompare(t *testing.T) {
	t0 := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	a := &Event{Stamp: Stamp{Time: t0}, Path: "a.log", Line: 9}
	b := &Event{Stamp: Stamp{Time: t0}, Path: "b.log", Line: 1}
	c := &Event{Stamp: Stamp{Time: t0}, Path: "b.log", Line: 2}
	d := &Event{Stamp: Stamp{Time: t0.Add(-time.Nanosecond)}, Path: "z.log", Line: 99}
	for _, tc := range []struct {
		x, y *Event
		want int
	}{{a, b, -1}, {b, c, -1}, {c, b, 1}, {d, a, -1}, {a, a, 0}} {
		if got := Compare(tc.x, tc.y); got != tc.want {
			t.Errorf("Compare(%v, %v) = %d, want %d", tc.x.Position(), tc.y.Position(), got, tc.want)
		}
	}
}

// A cursor read ahead yields what the store yields, in order, then its
// error; a caller that stops early stops the reader before it goes on.
func TestReadAhead(t *testing.T) {
	const n = 3*readAheadBatch + 5
	bad := errors.New("corrupt block")
	var stopped, finished bool
	store := func(n int, fail bool) iter.Seq2[*Event, error] {
		stopped, finished = false, false
		return func(yield func(*Event, error) bool) {
			defer func() { finished = true }()
			for i := range n {
				if !yield(&Event{Line: int64(i)}, nil) {
					stopped = true
					return
				}
			}
			if fail {
				yield(nil, bad)
			}
		}
	}
	var lines []int64
	var got error
	for e, err := range readAhead(store(n, true)) {
		if err != nil {
			got = err
			break
		}
		lines = append(lines, e.Line)
	}
	if len(lines) != n || lines[n-1] != n-1 || got != bad {
		t.Errorf("%d events (the last %d), error %v; want %d, then %v", len(lines), lines[len(lines)-1], got, n, bad)
	}
	for i, l := range lines {
		if l != int64(i) {
			t.Fatalf("event %d is line %d", i, l)
		}
	}
	// The reader holds a batch or three ahead, not a hundred.
	for e := range readAhead(store(100*readAheadBatch, false)) {
		if e.Line == readAheadBatch+1 {
			break
		}
	}
	if !stopped || !finished {
		t.Errorf("after the caller stopped: the reader was stopped %v, had returned %v", stopped, finished)
	}
}
