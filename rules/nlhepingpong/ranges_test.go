package nlhepingpong

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"forensics/parsers/crdb"
)

// Judging each range at its pauses finds what judging the whole timeline
// at once finds: the same episodes, with the same redirects, on timelines
// of loops, bounces, chains and pauses across ranges, gateways, traces
// and discarded events, some read twice.
func TestRangesJudgeAsAWhole(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		var tl timeline
		replicas := []string{n1, n2, n3}
		leases := map[string]string{n1: leaseOld, n2: leaseNew, n3: leaseN3}
		// Node logs name a request by its tags, traces by their header;
		// only traces discard events.
		traces := []string{"", "[n1,client=10.0.1.7:51882]", traceA, traceB}
		at := time.Duration(0)
		for range 40 + r.Intn(80) {
			// Pauses around maxGap, and now and then a long one.
			at += []time.Duration{time.Millisecond, 40 * time.Millisecond, maxGap / 2, maxGap, maxGap + time.Millisecond, 3 * maxGap, time.Minute}[r.Intn(7)]
			rng := int64(50 + r.Intn(3))
			gw := fmt.Sprintf("n%d", 1+r.Intn(2))
			tr := traces[r.Intn(len(traces))]
			switch r.Intn(6) {
			case 0:
				at = tl.pingpong(at, 2+r.Intn(8), time.Duration(1+r.Intn(600))*time.Millisecond, tr, gw, rng)
			case 1:
				if tr != "" {
					tl.event(crdb.KindTraceDiscarded, at, tr, "", 0, "(12 events discarded)", "count", "12")
				}
			default:
				refuser := replicas[r.Intn(3)]
				tl.nlhe(at, tr, gw, rng, refuser, leases[replicas[r.Intn(3)]])
			}
			if len(tl.evs) > 0 && r.Intn(10) == 0 { // the same file handed over twice
				e := tl.evs[len(tl.evs)-1]
				e.Path = "copy.txt"
				tl.add(e)
			}
		}
		evs := tl.sorted()
		want := detect(dedupe(evs))
		got := judgeEach(evs)
		if a, b := describeEpisodes(got), describeEpisodes(want); a != b {
			t.Fatalf("seed %d: judged by range:\n%s\njudged whole:\n%s", seed, a, b)
		}
	}
}

func describeEpisodes(eps []*episode) string {
	var s string
	for _, e := range eps {
		s += fmt.Sprintf("r%d %v %s..%s cycles %d/%d:", e.rng, e.members, e.start.Format("15:04:05.000"), e.end.Format("15:04:05.000"), e.maxCycles, e.cycles)
		for _, r := range e.redirects() {
			s += fmt.Sprintf(" %s:%d", r.ev.Path, r.ev.Line)
		}
		s += "\n"
	}
	return s
}

// A node log's redirects are held only while their range is busy: a day of
// loops on a thousand ranges one after another holds one range's at a time.
func TestRangesHoldOnlyBusyRanges(t *testing.T) {
	var tl timeline
	at := time.Duration(0)
	for rng := int64(1); rng <= 1000; rng++ {
		at = tl.pingpong(at, 8, 3*time.Millisecond, "[n1,client=10.0.1.7:51882]", "n1", rng) + time.Minute
	}
	evs := tl.sorted()
	rs := newRanges(nil)
	most := 0
	for i := range evs {
		rs.add(&evs[i])
		held := 0
		for _, rr := range rs.open {
			held += len(rr.evs)
		}
		most = max(most, held)
	}
	if eps := rs.episodes(); len(eps) != 1000 {
		t.Fatalf("%d episodes, want 1000", len(eps))
	}
	if most > 16 {
		t.Errorf("held up to %d redirects at once, want at most 16 (two ranges' loops)", most)
	}
}
