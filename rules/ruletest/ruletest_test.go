package ruletest

import (
	"testing"

	"forensics"
	"forensics/store/storetest"
)

// The timeline in memory answers the stores' cases of queries as they do.
func TestTimelineQueries(t *testing.T) {
	storetest.Queries(t, func(_ *testing.T, evs []forensics.Event) forensics.Timeline {
		for i := range evs {
			evs[i].Path = "q.log"
		}
		return Timeline(evs)
	})
}
