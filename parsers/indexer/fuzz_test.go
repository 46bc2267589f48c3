package indexer

import (
	"fmt"
	"strings"
	"testing"

	"forensics/parsers/parsertest"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 77409272469274 4168\n",
		"2022-07-21T17:39:17.712-07:00 [Info] TK StreamBegin MAINT_STREAM test3 141 77409272469274 4109 1 172.23.100.15:8091. HWT [4163-4168,4168].\n",
		"2022-07-21T17:39:17.712-07:00 [Warn] Timekeeper::handleStreamBegin StreamBegin rollback for StreamId MAINT_STREAM KeyspaceId test3 vbucket 141. Rollback (4109,     46674030171a). \n",
		"2022-07-21T17:39:19.500-07:00 [Info] Timekeeper::repairStream need rollback for MAINT_STREAM test3 1. Sending Init Prepare.\n",
		"2022-07-21T17:39:16.284-07:00 [Info] Indexer::handleKVStreamRepair Initiate Stream Repair MAINT_STREAM Bucket test3 StreamId 1\n",
		"2022-07-21T17:39:16.284-07:00 [Info] Indexer::startBucketStream Stream: MAINT_STREAM Bucket: test3 SessionId 1 RestartTS bucket: test3, vbuckets: 1024 Crc64: 0 snapType NO_SNAP -\n\n{vbno, vbuuid, seqno, snapshot-start, snapshot-end}\n\n{  141     46674030171a       4168       4163       4168}\n",
		"2022-07-21T17:39:16.284-07:00 [Info] Indexer::startKeyspaceIdStream Stream: INIT_STREAM KeyspaceId: b:s:c SessionId 5 RestartTS bucket: b, scopeId: 8, collectionId: 9, vbuckets: 1 Crc64: 0 snapType DISK_SNAP OpenOSOSnap true -\n    {vbno, vbuuid, manifest, seqno, osocount, snapshot-start, snapshot-end}\n    {    0     5ee1d2c4a13c 1a        120         40          0        120}\n",
		"2022-07-21T17:39:20.001-07:00 [Info] StorageMgr::handleRollback MAINT_STREAM test3 rollbackTs bucket: test3, scopeId: , collectionId: , vbuckets: 1 Crc64: 0 snapType NO_SNAP OpenOSOSnap false -\n    {  141     46674030171a 0       4109       4109       4109}\n",
		"2022-07-21T17:39:20.002-07:00 [Info] StorageMgr::rollbackAllToZero MAINT_STREAM test3\n",
		"2022-07-21T17:39:12.200-07:00 [Info] TK ConnError MAINT_STREAM test3 [140 141 512]\n",
		"2022-07-21T17:39:16.900-07:00 [Error] KVSender::restartVbuckets MAINT_STREAM test3 Error Received feed.invalidBucket from 172.23.100.15:9999\n",
		"2022-07-21T17:40:00.000-07:00 [Info] PeriodicStats = {\"cpu_utilization\":4.5}\n",
		"2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141 \xff\x00 4168\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		parsertest.Check(t, Format, origin, input)
	})
}

// indexerLog builds a log the way a busy 7.1 indexer writes one: mostly
// periodic stats, snapshot and storage lines, with now and then a stream
// end, a repair with its restart timestamp, stream begins and a rollback.
func indexerLog(size int) []byte {
	var b strings.Builder
	stats := make([]string, 0, 400)
	for i := 0; i < 100; i++ {
		stats = append(stats, fmt.Sprintf(`"test3:idx_%d:num_docs_indexed":%d,"test3:idx_%d:items_count":%d,"test3:idx_%d:avg_scan_latency":%d,"test3:idx_%d:resident_percent":100`, i, 1000+i, i, 1000+i, i, 2000*i, i))
	}
	statsLine := `PeriodicStats = {"avg_resident_percent":100,"cpu_utilization":4.53,"memory_used":123456789,` + strings.Join(stats, ",") + "}"
	ts := func(sec int) string {
		return fmt.Sprintf("2022-07-21T%02d:%02d:%02d.%03d-07:00", 10+sec/3600%12, sec/60%60, sec%60, sec*7%1000)
	}
	for sec := 0; b.Len() < size; sec++ {
		t := ts(sec)
		if sec%60 == 0 {
			fmt.Fprintf(&b, "%s [Info] %s\n", t, statsLine)
		}
		fmt.Fprintf(&b, "%s [Info] StorageMgr::handleCreateSnapshot Added New Snapshot Index: 14467360447212374216 PartitionId: 0 SliceId: 0 Crc64: 0 (SnapshotInfo: count:%d committed:false) SnapType INMEM_SNAP SnapAligned true SnapCreateDur 27.21µs SnapOpenDur 9.106µs\n", t, 1000+sec)
		fmt.Fprintf(&b, "%s [Info] plasmaSlice 14467360447212374216:0 mutation rate %d.00 drain rate %d.00 saturateCount 0 minimum drain rate 0.00\n", t, sec%97, sec%89)
		fmt.Fprintf(&b, "%s [Info] Timekeeper::checkInitialBuildDone Index: 14467360447212374216 Stream: INIT_STREAM KeyspaceId: test3 Session: 1 BuildTS: [1024]\n", t)
		fmt.Fprintf(&b, "%s [Info] LSS test3/idx_1/Mainstore#14467360447212374216:0 (shard1) : logCleaner: completed... cleaned:%d compact_frags:0 frag:12%% data:1234567 used:2345678 disk:3456789\n", t, sec)
		if sec%30 == 0 {
			vb := sec % 1024
			fmt.Fprintf(&b, "%s [Info] TK StreamEnd MAINT_STREAM test3 %d 77409272469274 %d\n", t, vb, 4000+sec)
			fmt.Fprintf(&b, "%s [Info] Indexer::handleKVStreamRepair Initiate Stream Repair MAINT_STREAM KeyspaceId test3 StreamId %d\n", t, sec)
			fmt.Fprintf(&b, "%s [Info] Indexer::startKeyspaceIdStream Stream: MAINT_STREAM KeyspaceId: test3 SessionId %d RestartTS bucket: test3, scopeId: , collectionId: , vbuckets: 4 Crc64: 0 snapType NO_SNAP OpenOSOSnap false -\n", t, sec)
			b.WriteString("    {vbno, vbuuid, manifest, seqno, snapshot-start, snapshot-end}\n")
			for v := vb; v < vb+4; v++ {
				fmt.Fprintf(&b, "    {%5d %16x %v %10d %10d %10d}\n", v, 77409272469274+v, 0, 4000+sec, 3990+sec, 4000+sec)
			}
			fmt.Fprintf(&b, "%s [Info] TK StreamBegin MAINT_STREAM test3 %d 77409272469274 %d %d 172.23.100.15:8091. HWT [%d-%d,%d].\n", t, vb, 4000+sec, sec, 3990+sec, 4000+sec, 4000+sec)
			fmt.Fprintf(&b, "%s [Warn] Timekeeper::handleStreamBegin StreamBegin rollback for StreamId MAINT_STREAM KeyspaceId test3 vbucket %d. Rollback (%d, %16x). \n", t, vb, 3900+sec, 77409272469274)
		}
	}
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	parsertest.Bench(b, Format, origin, indexerLog(8<<20))
}

// BenchmarkPlain reads only lines that are not events: allocs/op must stay
// at the one allocation of the parser itself.
func BenchmarkPlain(b *testing.B) {
	parsertest.Bench(b, Format, origin, parsertest.Plain(indexerLog(4<<20), func(l string) bool {
		return strings.Contains(l, "TK ") || strings.Contains(l, "Stream Repair") || strings.Contains(l, "startKeyspaceIdStream") || strings.Contains(l, "rollback for") || strings.HasPrefix(l, "    {")
	}))
}
