package memcached

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// The lines of ep_bucket.cc compactInternal in each release's grammar:
// 7.0 writes the result as a bool, 7.1–7.2 the CompactDBStatus's name,
// 7.6 its format_as, 8.0 a JSON context.
func TestCompactionDone(t *testing.T) {
	o := forensics.Origin{Name: "memcached.log", Node: "ns_1@10.40.1.22"}
	tests := []struct {
		name  string
		line  string
		vb    int
		attrs map[string]string // nil: no event
	}{
		{"7.0 ok", `2023-09-21T01:30:14.526019-05:00 INFO (orders) Compaction of vb:625 done (ok). purged tombstones:2, prepares:0, collection_items_erased:alive:0,deleted:0, size/items/tombstones/purge_seqno pre{757760, 425, 8, 0}, post{1236992, 7201, 0, 6438}`,
			625, map[string]string{"result": "Success", "purged_tombstones": "2", "size_before": "757760", "size_after": "1236992"}},
		{"7.0 failed", `2023-09-21T01:30:14.526019-05:00 INFO (orders) Compaction of vb:12 done (failed). purged tombstones:0, prepares:0, collection_items_erased:alive:0,deleted:0, size/items/tombstones/purge_seqno pre{0, 0, 0, 0}, post{0, 0, 0, 0}`,
			12, map[string]string{"result": "Failed", "purged_tombstones": "0"}},
		{"7.2 success", `2024-02-01T03:00:01.000100+00:00 INFO (travel-sample) Compaction of vb:1023 done (Success). purged tombstones:31, prepares:0, prepareBytes:0 collection_items_erased:alive:0,deleted:0, collections_erased:0, size/items/tombstones/purge_seqno pre{3530752, 3080, 6, 0}, post{299008, 4276, 0, 806}`,
			1023, map[string]string{"result": "Success", "purged_tombstones": "31", "size_before": "3530752", "size_after": "299008"}},
		{"7.6 success", `2025-11-03T16:24:41.902113-05:00 INFO (orders) Compaction of vb:87 done (CompactDBStatus::Success). purged tombstones:27, prepares:0, prepareBytes:0 collection_items_erased:alive:0,deleted:0, collections_erased:0, size/items/tombstones/purge_seqno pre{184180736, 208512, 4411, 9120}, post{97406976, 206977, 0, 12804}`,
			87, map[string]string{"result": "Success", "purged_tombstones": "27", "size_before": "184180736", "size_after": "97406976"}},
		{"7.6 aborted", `2025-11-03T16:24:41.902113-05:00 INFO (orders) Compaction of vb:88 done (CompactDBStatus::Aborted). purged tombstones:0, prepares:0, prepareBytes:0 collection_items_erased:alive:0,deleted:0, collections_erased:0, size/items/tombstones/purge_seqno pre{184180736, 208512, 4411, 9120}, post{0, 0, 0, 0}`,
			88, map[string]string{"result": "Aborted", "size_after": "0"}},
		{"8.0", `2025-11-03T16:24:41.902113+00:00 INFO Compaction complete {"bucket":"carts","vb":"vb:141","result":"CompactDBStatus::Success","purged":{"tombstones":12,"prepares":0,"prepare_bytes":0,"collections_items":0,"collections_deleted_items":0,"collections":0},"pre":{"size":4177920,"items":5120,"deleted_items":40,"purge_seqno":0},"post":{"size":2088960,"items":5120,"deleted_items":28,"purge_seqno":6120},"obsolete_keys":0}`,
			141, map[string]string{"result": "Success", "purged_tombstones": "12", "size_before": "4177920", "size_after": "2088960"}},
		{"8.0 no sizes", `2025-11-03T16:24:41.902113+00:00 INFO Compaction complete {"bucket":"carts","vb":"vb:2","result":"CompactDBStatus::Failed"}`,
			2, map[string]string{"result": "Failed", "purged_tombstones": "", "size_before": ""}},
		// Not an end: the request (7.x and 8.0), a slow compaction task, a cut line.
		{"7.6 scheduled", `2025-11-03T16:22:03.118301-05:00 INFO (orders) Compaction of vb:87, task:412, purge_before_ts:1761939723, purge_before_seq:0, drop_deletes:false, internal:false created with delay:0s (awaiting completion).`, 0, nil},
		{"8.0 scheduled", `2025-11-03T16:22:03.118301+00:00 INFO Compaction scheduled {"bucket":"carts","vb":"vb:141","task":412,"purge_before_ts":0,"purge_before_seq":0,"drop_deletes":false,"internal":false,"status":"created","delay":0.0,"obsolete_keys":0}`, 0, nil},
		{"slow task", `2024-03-11T07:29:59.200000-07:00 WARNING (travel-sample) Slow runtime for 'Compacting vb:5' on thread WriterPool0: 2 s`, 0, nil},
		{"cut", `2025-11-03T16:24:41.902113-05:00 INFO (orders) Compaction of vb:87 done (`, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := parsertest.Parse(Format, o, []byte(tc.line+"\n"))
			got := r.OfKind(CompactionDone)
			if tc.attrs == nil {
				if len(got) != 0 {
					t.Fatalf("got %v, want no compaction", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d compactions, want 1: %v (errors %v)", len(got), r.Events, r.Errors)
			}
			e := got[0]
			if e.VB != tc.vb || e.Bucket == "" {
				t.Errorf("vb %d bucket %q, want vb %d and a bucket", e.VB, e.Bucket, tc.vb)
			}
			checkAttrs(t, e, tc.attrs)
			parsertest.Check(t, Format, o, []byte(tc.line+"\n"))
		})
	}
}
