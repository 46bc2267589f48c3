package nsserver

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// compaction_daemon.erl's lines as 7.6 and 8.0 write them in
// ns_server.info.log and debug.log, among the daemon's other lines.
func TestCompactionALE(t *testing.T) {
	input := lines(
		"[ns_server:info,2025-11-03T16:21:58.412-05:00,ns_1@10.40.1.22:compaction_daemon<0.32881.0>:compaction_daemon:spawn_scheduled_kv_compactor:482]Start compaction of vbuckets for bucket orders with config: ",
		"[{parallel_db_and_view_compaction,false},",
		" {database_fragmentation_threshold,{30,undefined}},",
		" {view_fragmentation_threshold,{30,undefined}}]",
		"[ns_server:info,2025-11-03T16:21:58.415-05:00,ns_1@10.40.1.22:<0.14210.7>:compaction_daemon:spawn_dbs_compactor:643]Compacting databases for bucket orders",
		"[ns_server:debug,2025-11-03T16:21:58.416-05:00,ns_1@10.40.1.22:<0.14210.7>:compaction_daemon:spawn_dbs_compactor:673]Started KV compaction manager <0.14213.7>",
		"[ns_server:info,2025-11-03T16:22:03.101-05:00,ns_1@10.40.1.22:<0.14220.7>:compaction_daemon:maybe_compact_vbucket:750]Compacting 'orders/87', DataSize = 97406976, FileSize = 184180736, Options = {1761335723,0,false}",
		"[ns_server:info,2025-11-03T16:24:41.903-05:00,ns_1@10.40.1.22:<0.14220.7>:compaction_daemon:maybe_compact_vbucket:753]Compaction of <<\"orders/87\">> has finished with ok",
		"[ns_server:info,2025-11-03T16:41:09.220-05:00,ns_1@10.40.1.22:<0.14210.7>:compaction_daemon:spawn_dbs_compactor:691]Finished compaction of databases for bucket orders",
		"[ns_server:info,2025-11-03T21:00:00.100+00:00,ns_1@10.40.1.21:<0.9120.3>:compaction_daemon:spawn_dbs_compactor:676]Compacting databases for bucket travel-sample",
		"[ns_server:info,2025-11-03T21:03:00.100+00:00,ns_1@10.40.1.21:<0.9120.3>:compaction_daemon:spawn_dbs_compactor:725]Finished compaction of databases for bucket travel-sample",
		// Not the bucket's compaction: a user's message, a name ns_server would refuse.
		"[user:info,2025-11-03T21:04:00.100+00:00,ns_1@10.40.1.21:<0.9120.3>:compaction_daemon:handle_info:436]User-triggered compaction of bucket `travel-sample` completed.",
		"[ns_server:info,2025-11-03T21:05:00.100+00:00,ns_1@10.40.1.21:<0.9120.3>:compaction_daemon:spawn_dbs_compactor:676]Compacting databases for bucket a b",
	)
	res := parsertest.Parse(Format, origin15, []byte(input))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	want := []struct {
		kind   forensics.Kind
		bucket string
		line   int64
	}{
		{CompactionStart, "orders", 5},
		{CompactionEnd, "orders", 9},
		{CompactionStart, "travel-sample", 10},
		{CompactionEnd, "travel-sample", 11},
	}
	var got []forensics.Event
	for _, e := range res.Events {
		if e.Kind == CompactionStart || e.Kind == CompactionEnd {
			got = append(got, e)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d compaction events, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Kind != w.kind || g.Bucket != w.bucket || g.Line != w.line {
			t.Errorf("event %d: %s %q line %d, want %s %q line %d", i, g.Kind, g.Bucket, g.Line, w.kind, w.bucket, w.line)
		}
	}
	parsertest.Check(t, Format, origin15, []byte(input))
}
