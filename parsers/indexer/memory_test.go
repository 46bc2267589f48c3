package indexer

import (
	"testing"

	"forensics"
)

// The indexer pausing for memory and resuming, as 7.6/8.0 log it (with
// "MOI") and as 7.2 does (without); the memory checks between them give no
// event but the mem_used of the change they lead to.
func TestMemoryPause(t *testing.T) {
	input := `2025-11-03T09:40:02.118-05:00 [Info] Indexer::monitorMemUsage MemoryUsed Total 3905843200 Idle 2097152
2025-11-03T09:40:12.120-05:00 [Info] Indexer::monitorMemUsage MemoryUsed Total 4093640704 Idle 1048576
2025-11-03T09:40:12.121-05:00 [Info] Indexer::handleIndexerPauseMOI
2025-11-03T09:40:12.131-05:00 [Info] Indexer::handleIndexerPauseMOI Indexer State Changed to Paused
2025-11-03T09:40:12.131-05:00 [Info] Timekeeper::handleIndexerPauseMOI
2025-11-03T09:40:12.132-05:00 [Info] MutationMgr::handleIndexerPauseMOI Stream MAINT_STREAM Paused
2025-11-03T09:40:12.132-05:00 [Info] MutationMgr::handleIndexerPauseMOI Stream INIT_STREAM Paused
2025-11-03T09:41:02.118-05:00 [Info] Indexer::monitorMemUsage MemoryUsed Total 3221225472 Idle 524288
2025-11-03T09:41:02.119-05:00 [Info] Indexer::handleIndexerResumeMOI
2025-11-03T09:41:03.120-05:00 [Info] Indexer::handlePrepareUnpauseMOI PrepareUnpause
2025-11-03T09:41:03.122-05:00 [Info] Indexer::handleUnpauseMOI PrepareUnpause
2025-11-03T09:45:00.000-05:00 [Info] Indexer::handleIndexerPauseMOI Ignoring request to pause indexer in Paused state
2024-03-11T07:40:12.131-07:00 [Info] Indexer::handleIndexerPause Indexer State Changed to Paused
2024-03-11T07:40:12.132-07:00 [Info] MutationMgr::handleIndexerPause Stream MAINT_STREAM Paused
2024-03-11T07:42:12.132-07:00 [Info] Indexer::handleUnpause PrepareUnpause
`
	res := parse(input)
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	want := []struct {
		kind  forensics.Kind
		line  int64
		attrs map[forensics.AttrKey]string
	}{
		{Paused, 4, map[forensics.AttrKey]string{AttrState: "Paused", AttrMemUsed: "4093640704"}},
		{StreamPaused, 6, map[forensics.AttrKey]string{AttrStream: "MAINT_STREAM"}},
		{StreamPaused, 7, map[forensics.AttrKey]string{AttrStream: "INIT_STREAM"}},
		{Resumed, 11, map[forensics.AttrKey]string{AttrState: "PrepareUnpause", AttrMemUsed: "3221225472"}},
		{Paused, 13, map[forensics.AttrKey]string{AttrState: "Paused"}},
		{StreamPaused, 14, map[forensics.AttrKey]string{AttrStream: "MAINT_STREAM"}},
		{Resumed, 15, nil},
	}
	if len(res.Events) != len(want) {
		t.Fatalf("got %v, want %d events", res.Kinds(), len(want))
	}
	for i, w := range want {
		e := res.Events[i]
		if e.Kind != w.kind || e.Line != w.line {
			t.Errorf("event %d: %s on line %d, want %s on line %d", i, e.Kind, e.Line, w.kind, w.line)
		}
		for k, v := range w.attrs {
			if got := e.Attr(k); got != v {
				t.Errorf("event %d: %s = %q, want %q", i, k, got, v)
			}
		}
	}
}

// The quota is logged in indexer.log only in PeriodicStats (with the stats
// logger off; 7.x writes them to indexer_stats.log by default): a pause
// after one carries it, a pause without one does not.
func TestMemoryQuota(t *testing.T) {
	input := `2025-11-03T09:39:00.000-05:00 [Info] Indexer::handleIndexerPauseMOI Indexer State Changed to Paused
2025-11-03T09:39:30.000-05:00 [Info] Indexer::handleUnpauseMOI PrepareUnpause
2025-11-03T09:40:00.004-05:00 [Info] PeriodicStats = {"avg_resident_percent":100,"cpu_utilization":412.7,"indexer_state":"Active","memory_quota":4294967296,"memory_used":3905843200,"memory_used_storage":3221225472,"num_connections":24}
2025-11-03T09:40:12.120-05:00 [Info] Indexer::monitorMemUsage MemoryUsed Total 4093640704 Idle 1048576
2025-11-03T09:40:12.131-05:00 [Info] Indexer::handleIndexerPauseMOI Indexer State Changed to Paused
2025-11-03T09:41:00.004-05:00 [Info] PeriodicStats = {"cpu_utilization":12.7,"memory_quota":"x"}
2025-11-03T09:41:03.122-05:00 [Info] Indexer::handleUnpauseMOI PrepareUnpause
`
	res := parse(input)
	if len(res.Errors) > 0 || len(res.Events) != 4 {
		t.Fatalf("got %v, errors %v", res.Kinds(), res.Errors)
	}
	for i, want := range []string{"", "", "4294967296", "4294967296"} {
		if got := res.Events[i].Attr(AttrMemQuota); got != want {
			t.Errorf("event %d (%s): mem_quota %q, want %q", i, res.Events[i].Kind, got, want)
		}
	}
}
