package rulefile

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/rules/ruletest"
)

// A storm far larger than a spread's sample: the values are those of
// every event (count, median, worst, top), the evidence starts and ends
// with the storm and spreads within one sample step of even places, and
// what the finding keeps of the events stays bounded.
func TestLargeStorm(t *testing.T) {
	src := strings.Replace(strings.Replace(rule, "  worst: {max: duration}", `  worst: {max: duration}
  median: {median: duration}
  ops: {top: opcode, n: 2}`, 1), "limit: 3", "limit: 5", 1)
	r := mustRule(t, src)
	const n = 20000
	var evs []forensics.Event
	for i := range n {
		op := "GET"
		if i%4 == 0 {
			op = "SET"
		}
		evs = append(evs, slow("n1", float64(i)/10, op, fmt.Sprint(1+i%7)))
	}
	// The worst in the middle; the median of 1..7 is 4.
	evs[n/2] = slow("n1", float64(n/2)/10, "DELETE", "90")
	fs := ruletest.Run(t, r, evs)
	if len(fs) != 1 {
		t.Fatalf("want one storm, got %s", ruletest.Describe(fs))
	}
	f := fs[0]
	if f.Title != fmt.Sprintf("%d slow operations on n1", n) || !strings.Contains(f.Explanation, "the worst took 90s") {
		t.Errorf("title %q, explanation %q", f.Title, f.Explanation)
	}
	if len(f.Evidence) != 5 {
		t.Fatalf("want 5 lines spread over the storm, got %d", len(f.Evidence))
	}
	step := time.Duration(2*n/sampleCap) * 100 * time.Millisecond // a sample step, in event time
	for i, e := range f.Evidence {
		want := t0.Add(time.Duration(i*(n-1)/4) * 100 * time.Millisecond)
		if d := e.Time.Sub(want); d < -step || d > step {
			t.Errorf("evidence %d at %s, want within %s of %s", i, e.Time, step, want)
		}
	}
	sp := mustSpec(t, src)
	tl := sp.newTally()
	for i := range evs {
		tl.add(sp, 0, &evs[i])
	}
	var vals []string
	for i, v := range sp.values {
		vals = append(vals, v.name+"="+tl.aggs[i].value(v.agg).String())
	}
	if got, want := strings.Join(vals, " "), "worst=90 median=4 ops=GET (15000), SET (4999)"; got != want {
		t.Errorf("values %q, want %q", got, want)
	}
	if kept := len(tl.picks[0].evs); kept > sampleCap {
		t.Errorf("the spread keeps %d events of %d", kept, n)
	}
	if !f.Evidence[0].Time.Equal(t0) || !f.Evidence[4].Time.Equal(t0.Add((n-1)*100*time.Millisecond)) {
		t.Errorf("the spread starts %s and ends %s, want the storm's first and last", f.Evidence[0].Time, f.Evidence[4].Time)
	}
}

// The values and picks of a tally do not depend on the order events come
// in: a lookup's events come after the selections', earlier in time or
// not.
func TestTallyOrder(t *testing.T) {
	src := strings.Replace(rule, "values:\n", `nearby:
  restarts:
    kinds: [test.restart]
    before: 1h
values:
  first_op: {first: opcode, of: [slow]}
  last_service: {last: service, of: [restarts]}
  n: {count: [slow, restarts]}
`, 1)
	sp := mustSpec(t, strings.Replace(src, "evidence:\n", `evidence:
  - of: [slow, restarts]
    pick: first
    limit: 2
  - of: [slow, restarts]
    pick: last
  - of: slow
    pick: max
    by: duration
    limit: 2
`, 1))
	slowEvs := []forensics.Event{slow("n1", 10, "GET", "2"), slow("n1", 20, "SET", "5"), slow("n1", 30, "GET", "5")}
	restarts := []forensics.Event{ev("test.restart", "n1", 5, "service", "memcached"), ev("test.restart", "n1", 40, "service", "indexer")}
	sel := sp.setIndex("slow")
	look := sp.setIndex("restarts")
	forward, backward := sp.newTally(), sp.newTally()
	for i := range slowEvs {
		forward.add(sp, sel, &slowEvs[i])
		backward.add(sp, sel, &slowEvs[len(slowEvs)-1-i])
	}
	for i := range restarts {
		forward.add(sp, look, &restarts[i])
		backward.add(sp, look, &restarts[len(restarts)-1-i])
	}
	for _, tl := range []*tally{forward, backward} {
		var got []string
		for i, v := range sp.values {
			if v.agg != nil {
				got = append(got, v.name+"="+tl.aggs[i].value(v.agg).String())
			}
		}
		for i := range sp.evidence {
			var at []string
			for _, e := range tl.picks[i].events(&sp.evidence[i]) {
				at = append(at, fmt.Sprint(e.Time.Sub(t0).Seconds()))
			}
			got = append(got, strings.Join(at, ","))
		}
		want := "first_op=GET last_service=indexer n=5 worst=5 5,10 40 20,30 10,20,30"
		if s := strings.Join(got, " "); s != want {
			t.Errorf("got %q, want %q", s, want)
		}
	}
}

func mustSpec(t *testing.T, src string) *spec {
	t.Helper()
	f, err := Parse("test.yaml", []byte(src), vocab)
	if err != nil {
		t.Fatal(err)
	}
	return f.spec
}
