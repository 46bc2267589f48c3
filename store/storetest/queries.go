package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"forensics"
	"forensics/store"
)

// queryEvents are the events the queries select from, one source's lines
// 1 to 10: the kinds, nodes, times and subjects of three systems, with
// two events at the same time (lines 8 and 9) and a vbucket 0 next to
// events of no vbucket.
func queryEvents() []forensics.Event {
	at := func(sec int) forensics.Stamp {
		return forensics.Stamp{Time: base.Add(time.Duration(sec) * time.Second), Zone: forensics.ZoneUTC}
	}
	ev := func(sec int, kind forensics.Kind, node string, s forensics.Subject) forensics.Event {
		return forensics.Event{Stamp: at(sec), Kind: kind, Node: node, Subject: s}
	}
	evs := []forensics.Event{
		ev(1, "q.a", "n1", forensics.Subject{Bucket: "b1", VB: 0}),
		ev(2, "q.b", "n2", forensics.Subject{Bucket: "b1", VB: 7}),
		ev(3, "q.a", "n1", forensics.Subject{Bucket: "b2", VB: forensics.NoVB}),
		ev(4, "q.c", "n3", forensics.Subject{Range: 57, VB: forensics.NoVB}),
		ev(5, "q.c", "n3", forensics.Subject{Range: 58, VB: forensics.NoVB}),
		ev(6, "q.d", "n2", forensics.Subject{Keyspace: "customer", Shard: "-80", Table: "corder", VB: forensics.NoVB}),
		ev(7, "q.d", "n2", forensics.Subject{Keyspace: "commerce", Shard: "0", Table: "corder", VB: forensics.NoVB}),
		ev(8, "q.d", "n1", forensics.Subject{Keyspace: "customer", Shard: "80-", Table: "customer", VB: forensics.NoVB}),
		ev(8, "q.a", "n2", forensics.Subject{Bucket: "b1", VB: 7}),
		ev(10, "q.b", "n1", forensics.Subject{VB: forensics.NoVB}),
	}
	// Stored in another order than the timeline's, as a merge of files is.
	slices.Reverse(evs)
	for i := range evs {
		e := &evs[i]
		e.Line = int64(len(evs) - i)
		e.Text = fmt.Sprintf("q.log line %d", e.Line)
		e.Set("k", fmt.Sprint(e.Line))
	}
	return evs
}

// Queries checks that a timeline answers every field of forensics.Query
// the way the stores do, in timeline order, with whole events. build
// returns a timeline that holds the events given (lines of one source,
// q.log). The stores pass it through storetest.Run; rules/ruletest's
// timeline in memory passes it too, so a rule's tests read as a real run
// does.
func Queries(t *testing.T, build func(t *testing.T, evs []forensics.Event) forensics.Timeline) {
	tl := build(t, queryEvents())
	vb := func(n int) *int { return &n }
	sec := func(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }
	for _, c := range []struct {
		name  string
		q     forensics.Query
		lines []int64
	}{
		{"everything", forensics.Query{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"one kind", forensics.Query{Kinds: []forensics.Kind{"q.a"}}, []int64{1, 3, 9}},
		{"two kinds", forensics.Query{Kinds: []forensics.Kind{"q.c", "q.a"}}, []int64{1, 3, 4, 5, 9}},
		{"one node", forensics.Query{Nodes: []string{"n2"}}, []int64{2, 6, 7, 9}},
		{"two nodes", forensics.Query{Nodes: []string{"n3", "n1"}}, []int64{1, 3, 4, 5, 8, 10}},
		{"since, inclusive", forensics.Query{Since: sec(3)}, []int64{3, 4, 5, 6, 7, 8, 9, 10}},
		{"until, exclusive", forensics.Query{Until: sec(3)}, []int64{1, 2}},
		{"window", forensics.Query{Since: sec(4), Until: sec(8)}, []int64{4, 5, 6, 7}},
		{"bucket", forensics.Query{Bucket: "b1"}, []int64{1, 2, 9}},
		{"vbucket 0", forensics.Query{VB: vb(0)}, []int64{1}},
		{"vbucket 7", forensics.Query{VB: vb(7)}, []int64{2, 9}},
		{"range", forensics.Query{Range: 57}, []int64{4}},
		{"keyspace", forensics.Query{Keyspace: "customer"}, []int64{6, 8}},
		{"table", forensics.Query{Table: "corder"}, []int64{6, 7}},
		{"keyspace and table", forensics.Query{Keyspace: "customer", Table: "corder"}, []int64{6}},
		{"all at once", forensics.Query{Kinds: []forensics.Kind{"q.a"}, Nodes: []string{"n2"}, Bucket: "b1", VB: vb(7), Since: sec(8), Until: sec(9)}, []int64{9}},
		{"no such bucket", forensics.Query{Bucket: "b3"}, nil},
	} {
		var got []int64
		for e, err := range tl.Events(context.Background(), c.q) {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if e.Path != "q.log" || e.Text != fmt.Sprintf("q.log line %d", e.Line) || e.Attr("k") != fmt.Sprint(e.Line) {
				t.Errorf("%s: event %+v is not the one stored", c.name, e)
			}
			got = append(got, e.Line)
		}
		if !slices.Equal(got, c.lines) {
			t.Errorf("%s: lines %v, want %v", c.name, got, c.lines)
		}
	}
}

// storedTimeline writes the events as one run of one source, q.log, and
// returns the run's timeline as rules read it.
func storedTimeline(t *testing.T, db store.Backend, evs []forensics.Event) forensics.Timeline {
	t.Helper()
	w, src := begin(t, db, "q.log")
	if err := w.AddEvents(src.ID, evs); err != nil {
		t.Fatal(err)
	}
	src.Lines, src.Events = int64(len(evs)), int64(len(evs))
	src.First, src.Last = evs[len(evs)-1].Time, evs[0].Time
	return store.Timeline(reader(t, db), end(t, w, src))
}
