package kvstream

import (
	"encoding/json"
	"testing"
)

// Restarts every few minutes for hours make one window of the whole
// timeline. Analysed as the reading slides past each look, with what no
// later look can use dropped on the way, they must give the findings of
// the window read whole.
func TestSlidingWindowFindsWhatTheWholeWindowFinds(t *testing.T) {
	var script []ev
	const episodes, every = 40, 5 * 60 * 1000.0 // a crash every five minutes
	for i := range episodes {
		base := float64(i) * every
		script = append(script,
			ev{ms: base, node: n15, kind: nsExited, attrs: a{"service": "memcached", "status": "137"}},
			ev{ms: base + 1200, node: n15, kind: mcStart, attrs: a{"unclean": "true", "version": "7.1.1-3175-enterprise"}},
		)
		// Stream churn all along, answered before traffic in odd episodes only.
		for j := range 30 {
			script = append(script, created15(base+2000+float64(j)*9000, 100+j))
		}
		if i%2 == 1 {
			script = append(script, rollback15(base+1500, 141+i, "4109"))
		}
		script = append(script, traffic15(base+1800))
	}
	evs := mk(script...)

	defer func(n int) { slideBatch = n }(slideBatch)
	slideBatch = len(evs) * 10
	whole := findings(t, evs)
	slideBatch = 4
	slid := findings(t, evs)

	if len(whole) != episodes/2 {
		t.Fatalf("the whole window gives %d findings, want %d (one per episode answered before traffic)", len(whole), episodes/2)
	}
	a, _ := json.Marshal(whole)
	b, _ := json.Marshal(slid)
	if string(a) != string(b) {
		t.Errorf("sliding gives other findings than the whole window:\nwhole: %s\nslid:  %s", a, b)
	}
}
