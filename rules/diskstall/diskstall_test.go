package diskstall

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/crdb"
	"forensics/rules/ruletest"
)

func src(path, node, text string) ruletest.Source {
	return ruletest.Source{Path: path, Node: node, Text: text, Format: crdb.LogFormat}
}

// v21.2 in a debug zip (crdb-v1): pebble's own stall line names the WAL
// file, the tags no store; heartbeats fail while it hangs.
const v21Stall = "W220308 14:39:50.000012 299 kv/kvserver/liveness/liveness.go:1212 ⋮ [n2,liveness-hb] slow heartbeat took 4.5s; err=context deadline exceeded\n" +
	"W220308 14:39:50.000100 299 kv/kvserver/liveness/liveness.go:670 ⋮ [n2,liveness-hb] failed node liveness heartbeat: context deadline exceeded\n" +
	"\n" +
	"An inability to maintain liveness will prevent a node from participating in a\n" +
	"W220308 14:39:54.500200 299 kv/kvserver/liveness/liveness.go:1212 ⋮ [n2,liveness-hb] slow heartbeat took 4.5s; err=context deadline exceeded\n" +
	"W220308 14:39:54.500300 299 kv/kvserver/liveness/liveness.go:670 ⋮ [n2,liveness-hb] failed node liveness heartbeat: context deadline exceeded\n" +
	"F220308 14:40:11.210005 1023 storage/pebble.go:861 ⋮ [n2] disk stall detected: pebble unable to write to ‹/mnt/data 1/it's/000123.log› in 20.48 seconds\n" +
	"goroutine 1023 [running]:\n"

func TestPebbleStall(t *testing.T) {
	evs := ruletest.Parse(t,
		src("debug/nodes/2/logs/cockroach.log", "n2", v21Stall),
		src("debug/nodes/1/logs/cockroach.log", "n1", "I220308 14:40:19.400100 5551 kv/kvserver/liveness/liveness.go:1102 ⋮ [n1,s1,r36/1:‹/Table/5{6-7}›] incremented n2 liveness epoch to 4\n"))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 {
		t.Fatalf("findings:%s\nwant one", ruletest.Describe(fs))
	}
	f := fs[0]
	if f.Subject.Node != "n2" || f.Subject.Details.Text("store") != "/mnt/data 1/it's" || f.Severity != forensics.Critical {
		t.Errorf("subject %+v severity %s", f.Subject, f.Severity)
	}
	// The stall began 20.48s before the fatal line; the finding's window
	// spans its evidence, from the first slow heartbeat to n1's epoch
	// increment.
	if !strings.HasSuffix(f.Title, "writes stuck for at least 20.48s") {
		t.Errorf("title %q, want the stall's 20.48s", f.Title)
	}
	if got := f.End.Sub(f.Start).Seconds(); got < 29.39 || got > 29.41 {
		t.Errorf("window of %.2fs, want 29.40s from the first heartbeat line to the epoch increment", got)
	}
	// Two heartbeat attempts, each logged twice, count as two.
	for _, s := range []string{"2 slow or failed", "the process stopped", "n1 incremented n2's liveness epoch to 4"} {
		if !strings.Contains(f.Explanation, s) {
			t.Errorf("explanation lacks %q:\n%s", s, f.Explanation)
		}
	}
	var notes []string
	for _, e := range f.Evidence {
		notes = append(notes, e.Note)
	}
	if len(f.Evidence) != 4 || f.Evidence[2].Note != "disk stall: the node stops" || f.Evidence[3].Node != "n1" {
		t.Errorf("evidence %q", notes)
	}
	// The store's path is quoted for the shell.
	if got := f.Fixes[0].Commands[2]; got != `df -h '/mnt/data 1/it'\''s'` {
		t.Errorf("fix command %s", got)
	}
}

const v23Slow = "W230915 08:01:34.700100 88 3@storage/pebble.go:1198 ⋮ [T1,n1,s1,pebble] 8790  disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 10.0s\n" +
	"W230915 08:01:39.700100 88 3@storage/pebble.go:1198 ⋮ [T1,n1,s1,pebble] 8791  disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 15.0s\n"

func TestFileWriteStall(t *testing.T) {
	evs := ruletest.Parse(t,
		src("cockroach-pebble.log", "", v23Slow),
		src("cockroach.log", "", "F230915 08:01:44.700100 88 3@storage/pebble.go:1212 ⋮ [T1,n1,s1,pebble] 8812  file write stall detected: disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 20.0s\n"+
			"F230915 08:01:44.700100 88 3@storage/pebble.go:1212 ⋮ [T1,n1,s1,pebble] 8812 !goroutine 88 [running]:\n"))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 || fs[0].Subject.Details.Text("store") != "s1" {
		t.Fatalf("findings:%s", ruletest.Describe(fs))
	}
	f := fs[0]
	if !strings.Contains(f.Explanation, "Another warning followed at 08:01:39.700") || len(f.Evidence) != 3 {
		t.Errorf("explanation %s\nevidence %d", f.Explanation, len(f.Evidence))
	}
	if !f.Start.Equal(evs[0].Time.Add(-10e9)) {
		t.Errorf("start %s, want 10s before the first warning", f.Start)
	}
}

// A stall that is not fatal (the setting is off) is still a stall.
func TestNonFatalStall(t *testing.T) {
	evs := ruletest.Parse(t, src("cockroach.log", "n3",
		"E220308 14:40:11.210005 1023 storage/pebble.go:864 ⋮ [n3] disk stall detected: pebble unable to write to ‹/mnt/data1/cockroach/000123.log› in 31.02 seconds\n"+
			"E220308 14:40:11.310005 1 util/log/file_sync_buffer.go:120 ⋮ [n3] disk stall detected: unable to sync log files within 30s\n"))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 || !strings.Contains(fs[0].Title, "n3 logged a disk stall on /mnt/data1/cockroach") ||
		!strings.Contains(fs[0].Explanation, "was not fatal") || len(fs[0].Evidence) != 2 {
		t.Fatalf("findings:%s", ruletest.Describe(fs))
	}
}

// v20.1's engine health check names the engine as "<attrs>=<dir>".
func TestEngineStall(t *testing.T) {
	evs := ruletest.Parse(t, src("cockroach.log", "n4",
		"F200601 03:00:20.000100 155 server/node.go:859  [n4] disk stall detected: unable to write to <no-attributes>=/mnt/data1/cockroach within 10s\n"))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 || fs[0].Subject.Details.Text("store") != "/mnt/data1/cockroach" || fs[0].Fixes[0].Commands[2] != "df -h /mnt/data1/cockroach" {
		t.Fatalf("findings:%s", ruletest.Describe(fs))
	}
}

// Near miss: slowness that recovers without a stall.
func TestSlownessOnly(t *testing.T) {
	evs := ruletest.Parse(t, src("cockroach-pebble.log", "", v23Slow))
	if len(evs) != 2 {
		t.Fatalf("parsed %d events", len(evs))
	}
	if fs := ruletest.Run(t, Rule, evs); len(fs) != 0 {
		t.Fatalf("findings:%s\nwant none", ruletest.Describe(fs))
	}
}

// Stalls of two nodes, or of one node an hour apart, are separate.
func TestStallsApart(t *testing.T) {
	line := "F230915 08:01:44.700100 88 3@storage/pebble.go:1212 ⋮ [T1,n1,s1,pebble] 8812  file write stall detected: disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 20.0s\n"
	evs := ruletest.Parse(t,
		src("a/cockroach.log", "", line),
		src("b/cockroach.log", "", strings.Replace(line, "08:01:44", "09:01:44", 1)),
		src("c/cockroach.log", "", strings.Replace(line, "n1,s1", "n2,s2", 1)))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 3 {
		t.Fatalf("findings:%s\nwant three", ruletest.Describe(fs))
	}
}
