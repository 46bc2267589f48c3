package goxdcr

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/cbservice"
	"forensics/parsers/parsertest"
)

var origin = forensics.Origin{Path: "cbcollect_info_ns_1@10.40.1.21_20251103-183005/ns_server.goxdcr.log", Name: "ns_server.goxdcr.log", Node: "ns_1@10.40.1.21"}

const repl = "5c7a1b0e9d2f4e6a8b3c1d0e9f8a7b6c/orders/orders"

// The lines of a replication whose target refuses connections, as goxdcr
// 7.6 and 8.0 write them: the updater's restart with the error map (one
// part a line), the failure of that restart, the checkpoint manager's
// _pre_replicate errors under its pipeline's context, and the return to
// normal; the header line of the restart ends with a space.
func TestPipelineRestarts(t *testing.T) {
	input := strings.Join([]string{
		"==============================================================================",
		"couchbase logs (goxdcr.log)",
		"cbbrowse_logs goxdcr.log",
		"==============================================================================",
		"2025-11-03T09:30:00.118-05:00 INFO GOXDCR.ResourceMgr: Resource Manager State = overallTP: 0 highTP: 0 highExist: false lowExist: false backlogExist: false maxTP: 0 highTPNeeded: 0 highTokens: 0 maxTokens: 0 lowTPLimit: 0 calibration: None dcpAction: Reset processCpu: 12 idleCpu: 81",
		"2025-11-03T09:31:12.551-05:00 INFO GOXDCR.PipelineMgr: Try to fix Pipeline " + repl + ". Current error(s)=xmem_" + repl + "_10.50.0.12:11210_0 : dial tcp 10.50.0.12:11210: connect: connection refused ",
		"CheckpointMgr : dial tcp 10.50.0.12:8091: connect: connection refused ",
		"2025-11-03T09:31:12.552-05:00 INFO GOXDCR.PipelineMgr: Try to stop pipeline " + repl,
		"2025-11-03T09:31:14.020-05:00 ERRO GOXDCR.CheckpointMgr: pipelineFullTopic=" + repl + ", Pre_replicate failed for 512. err=dial tcp 10.50.0.12:8091: connect: connection refused",
		"2025-11-03T09:31:14.201-05:00 ERRO GOXDCR.PipelineMgr: Failed to update pipeline " + repl + ", err=pipelineMgr.pipeline_factory.NewPipeline(" + repl + ") : Failed to get remote bucket: dial tcp 10.50.0.12:8091: i/o timeout",
		"2025-11-03T09:31:24.301-05:00 INFO GOXDCR.PipelineMgr: Try to fix Pipeline backfill_" + repl + ". Current error(s)=TopologyChangeDetectSvc : Source topology change for pipeline " + repl + " seems to have completed. ",
		"2025-11-03T09:31:25.410-05:00 INFO GOXDCR.PipelineMgr: Replication " + repl + " has been updated. Back to business",
		"2025-11-03T09:31:26.000Z ERRO GOXDCR.CheckpointMgr: pipelineFullTopic=backfill_" + repl + ", populateTargetVBOpaque(pre_replicate) failed for 7. err=Authentication failed",
		"2025-11-03T09:31:27.000-05:00 INFO GOXDCR.XmemNozzle: pipelineFullTopic=" + repl + ", xmem_" + repl + "_10.50.0.12:11210_0: Using adX1DsoRpCb6kQWoZYq5ew and QIpU9Op/zY2WDmGxkjwvPQ as source and target bucket IDs for HLV.",
		"2025-11-03T09:31:28.000-05:00 INFO GOXDCR.PipelineMgr: Try to start/restart Pipeline " + repl + ". ",
		"panic: runtime error: invalid memory address or nil pointer dereference",
		"2025-11-03T09:31:29.000-05:00 WARN GOXDCR.PipelineMgr: Try to fix Pipeline " + repl + ". Current error(s)=Xmem : Bucket doesn't exist",
	}, "\n") + "\n"
	res := parsertest.Parse(Format, origin, []byte(input))
	parsertest.Expect(t, res, []parsertest.Want{
		{Kind: PipelineFix, Line: 6, VB: forensics.NoVB, Bucket: "orders", Attrs: map[string]string{"replication": repl, "pipeline": "main",
			"target_cluster": "5c7a1b0e9d2f4e6a8b3c1d0e9f8a7b6c", "target_bucket": "orders", "cause": "connection_refused",
			"error": "xmem_" + repl + "_10.50.0.12:11210_0 : dial tcp 10.50.0.12:11210: connect: connection refused; CheckpointMgr : dial tcp 10.50.0.12:8091: connect: connection refused"}},
		{Kind: CheckpointFailed, Line: 9, VB: 512, Bucket: "orders", Attrs: map[string]string{"replication": repl, "cause": "connection_refused", "error": "dial tcp 10.50.0.12:8091: connect: connection refused"}},
		{Kind: UpdateFailed, Line: 10, VB: forensics.NoVB, Bucket: "orders", Attrs: map[string]string{"replication": repl, "cause": "timeout"}},
		{Kind: PipelineFix, Line: 11, VB: forensics.NoVB, Bucket: "orders", Attrs: map[string]string{"replication": repl, "pipeline": "backfill", "cause": "topology"}},
		{Kind: PipelineUpdated, Line: 12, VB: forensics.NoVB, Bucket: "orders", Attrs: map[string]string{"replication": repl, "pipeline": "main"}},
		{Kind: CheckpointFailed, Line: 13, VB: 7, Bucket: "orders", Attrs: map[string]string{"pipeline": "backfill", "cause": "auth"}},
		{Kind: PipelineFix, Line: 17, VB: forensics.NoVB, Bucket: "orders", Attrs: map[string]string{"cause": "bucket_missing", "error": "Xmem : Bucket doesn't exist"}},
	})
	for i, st := range res.Stamps {
		if stamped := i >= 4 && i != 6 && i != 15; st.IsZero() == stamped {
			t.Errorf("line %d: stamp %v", i+1, st.Time)
		}
	}
}

// A goxdcr.log of a Kubernetes node, as couchbase-fluent-bit's tests hold
// it (test/logs/goxdcr.log at 757ffc9f): times in UTC, a message that goes
// on over a line, blank lines. It is read as goxdcr's, with no event.
func TestFluentBitFile(t *testing.T) {
	input := "2021-03-09T17:32:01.823Z INFO GOXDCR.ReplMgr: GOMAXPROCS=4\n" +
		"2021-03-09T17:32:02.137Z INFO GOXDCR.ResourceMgr: collectCpuUsage starting ....\n" +
		"\n" +
		"2021-03-09T17:32:12.104Z INFO GOXDCR.ResourceMgr: DcpPriorityMap=map[]\n" +
		"ongoingReplMap=map[]\n"
	if got := Format.Detect("goxdcr.log", []byte(input)); got < 90 {
		t.Errorf("detect %d", got)
	}
	res := parsertest.Parse(Format, forensics.Origin{Path: "goxdcr.log", Name: "goxdcr.log"}, []byte(input))
	if len(res.Events) != 0 || len(res.Errors) != 0 || res.Stamps[0].IsZero() || !res.Stamps[2].IsZero() {
		t.Errorf("events %v, errors %v", res.Kinds(), res.Errors)
	}
}

func TestDetect(t *testing.T) {
	line := "2025-11-03T09:31:12.551-05:00 INFO GOXDCR.PipelineMgr: Try to stop pipeline x\n"
	for _, c := range []struct {
		name, head string
		min, max   int
	}{
		{"ns_server.goxdcr.log", "", 90, 100}, // cbcollect_info's copy, header block only
		{"goxdcr.log", line, 90, 100},
		{"goxdcr.log.1", line, 90, 100},
		{"goxdcr.log", "", 1, 60},
		{"excerpt.txt", line + line, 70, 85},
		{"excerpt.txt", line, 50, 65},
		{"indexer.log", "2025-11-03T09:31:12.551-05:00 [Info] Indexer::x\n", 0, 0},
		{"memcached.log", "2025-11-03T09:31:12.551000-05:00 INFO GOXDCR.x: y\n", 0, 0},
	} {
		if got := Format.Detect(c.name, []byte(c.head)); got < c.min || got > c.max {
			t.Errorf("Detect(%q, %q) = %d, want %d–%d", c.name, c.head, got, c.min, c.max)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(goxdcrLog(2 << 10)))
	f.Add([]byte("2025-11-03T09:31:12.551-05:00 INFO GOXDCR.PipelineMgr: Try to fix Pipeline a/b/c. Current error(s)=x : y\nz : w\n"))
	f.Add([]byte("2025-11-03T09:31:14.020-05:00 ERRO GOXDCR.CheckpointMgr: pipelineFullTopic=a/b/c, Pre_replicate failed for 99999. err=\n"))
	f.Add([]byte("2025-11-03T09:31:14.020-05:00 INFO GOXDCR.M: \n2025-11-03T09:31:14.020Z INFO GOXDCR.M: Replication  has been updated. Back to business\n\xff"))
	f.Fuzz(func(t *testing.T, input []byte) {
		parsertest.Check(t, Format, origin, input)
	})
}

func BenchmarkParse(b *testing.B) {
	parsertest.Bench(b, Format, origin, []byte(goxdcrLog(8<<20)))
}

// goxdcrLog builds a goxdcr.log the way a busy node writes one: the
// resource manager and the pipelines' parts every few seconds, and now and
// then a replication whose target went away (restarts, checkpoint errors).
func goxdcrLog(size int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	sec := 0
	for b.Len() < size {
		sec += 1 + r.IntN(3)
		ts := fmt.Sprintf("2025-11-03T%02d:%02d:%02d.%03d-05:00", 9+sec/3600%12, sec/60%60, sec%60, r.IntN(1000))
		switch k := r.IntN(100); {
		case k < 40:
			fmt.Fprintf(&b, "%s INFO GOXDCR.ResourceMgr: Resource Manager State = overallTP: %d highTP: %d highExist: true lowExist: false backlogExist: false maxTP: %d highTPNeeded: 0 highTokens: 0 maxTokens: 0 lowTPLimit: 0 calibration: None dcpAction: Reset processCpu: %d idleCpu: %d\n", ts, r.IntN(9000), r.IntN(9000), r.IntN(20000), r.IntN(100), r.IntN(100))
		case k < 70:
			fmt.Fprintf(&b, "%s INFO GOXDCR.XmemNozzle: pipelineFullTopic=%s, xmem_%s_10.50.0.12:11210_%d: xmem_%s_10.50.0.12:11210_%d processed %d items, %d were sent, %d were failed\n", ts, repl, repl, r.IntN(4), repl, r.IntN(4), r.IntN(100000), r.IntN(100000), r.IntN(10))
		case k < 85:
			fmt.Fprintf(&b, "%s INFO GOXDCR.CheckpointMgr: pipelineFullTopic=%s, Done checkpointing for replication %s in %dms\n", ts, repl, repl, r.IntN(900))
		case k < 95:
			fmt.Fprintf(&b, "%s INFO GOXDCR.ReplMgr: Mem stats = {\"Alloc\":%d,\"TotalAlloc\":%d,\"Sys\":72284408,\"NumGC\":%d}\n", ts, r.IntN(1<<24), r.IntN(1<<30), r.IntN(1000))
		case k < 98:
			fmt.Fprintf(&b, "%s ERRO GOXDCR.CheckpointMgr: pipelineFullTopic=%s, Pre_replicate failed for %d. err=dial tcp 10.50.0.12:8091: connect: connection refused\n", ts, repl, r.IntN(1024))
		default:
			fmt.Fprintf(&b, "%s INFO GOXDCR.PipelineMgr: Try to fix Pipeline %s. Current error(s)=xmem_%s_10.50.0.12:11210_0 : dial tcp 10.50.0.12:11210: connect: connection refused \nCheckpointMgr : dial tcp 10.50.0.12:8091: connect: connection refused \n", ts, repl, repl)
		}
	}
	return b.String()
}

// The lines that give no event: what the parser passes over.
func BenchmarkParseQuiet(b *testing.B) {
	quiet := parsertest.Plain([]byte(goxdcrLog(8<<20)), func(l string) bool {
		return strings.Contains(l, "Try to fix") || strings.Contains(l, "Pre_replicate") || strings.HasPrefix(l, "CheckpointMgr : ")
	})
	parsertest.Bench(b, Format, origin, quiet)
}

// The same log read as it was before this parser, as plain lines with
// their times (parsers/cbservice's reader): the cost of the events.
func BenchmarkParsePlainBaseline(b *testing.B) {
	parsertest.Bench(b, cbservice.Formats[0], origin, []byte(goxdcrLog(8<<20)))
}
