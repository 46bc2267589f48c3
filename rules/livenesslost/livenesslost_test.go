package livenesslost

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"forensics/parsers/crdb"
	"forensics/rules/ruletest"
)

func src(path, text string) ruletest.Source {
	return ruletest.Source{Path: path, Text: text, Format: crdb.LogFormat}
}

// heartbeats writes n failing heartbeat attempts of node 2 every 4.5s from
// 08:01:30, each as liveness.go logs it: the slow line, then the failure.
func heartbeats(n int, err string) string {
	var b strings.Builder
	at := time.Date(2023, 9, 15, 8, 1, 30, 101844000, time.UTC)
	for i := 0; i < n; i++ {
		ts := at.Format("060102 15:04:05.000000")
		fmt.Fprintf(&b, "W%s 301 kv/kvserver/liveness/liveness.go:1212 ⋮ [T1,n2,liveness-hb] %d  slow heartbeat took 4.5s; err=%s\n", ts, 2*i+1, err)
		fmt.Fprintf(&b, "W%s 301 kv/kvserver/liveness/liveness.go:670 ⋮ [T1,n2,liveness-hb] %d  failed node liveness heartbeat: %s\n", at.Add(100*time.Microsecond).Format("060102 15:04:05.000000"), 2*i+2, err)
		fmt.Fprintf(&b, "W%s 301 kv/kvserver/liveness/liveness.go:670 ⋮ [T1,n2,liveness-hb] %d +An inability to maintain liveness will prevent a node from participating in a\n", at.Add(100*time.Microsecond).Format("060102 15:04:05.000000"), 2*i+2)
		at = at.Add(4500 * time.Millisecond)
	}
	return b.String()
}

const deadline = "operation ‹\"node liveness heartbeat\"› timed out after 4.5s (given timeout 4.5s): context deadline exceeded"
const epoch = "I230915 08:01:49.318210 551231 kv/kvserver/liveness/liveness.go:1102 ⋮ [T1,n1,s1,r36/1:‹/Table/106{-/1/500}›] 77  incremented n2 liveness epoch to 5\n"

func TestRepeatedFailures(t *testing.T) {
	evs := ruletest.Parse(t, src("n2/cockroach.log", heartbeats(4, deadline)), src("n1/cockroach.log", epoch))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 {
		t.Fatalf("findings:%s\nwant one", ruletest.Describe(fs))
	}
	f := fs[0]
	if f.Subject.Node != "n2" || f.Subject.Details.Text("window") != "2023-09-15T08:01:30.101944Z/2023-09-15T08:01:49.318210Z" {
		t.Errorf("subject %+v", f.Subject)
	}
	// Four attempts, each logged twice: four failures.
	if !strings.Contains(f.Title, "failed 4 liveness heartbeats") || !strings.Contains(f.Title, "cause: overload") {
		t.Errorf("title %s", f.Title)
	}
	if !strings.Contains(f.Explanation, "n1 incremented n2's liveness epoch to 5") {
		t.Errorf("explanation %s", f.Explanation)
	}
	if n := len(f.Evidence); n != 4 || f.Evidence[n-1].Path != "n1/cockroach.log" {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

func TestCauses(t *testing.T) {
	refused := `failed to connect to n1 at ‹roach-1:26257›: ‹initial connection heartbeat failed›: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial tcp ‹10.0.0.1:26257›: connect: connection refused"`
	disk := "W230915 08:01:34.700100 88 3@storage/pebble.go:1198 ⋮ [T1,n2,s2,pebble] 8790  disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 10.0s\n" +
		"F230915 08:01:44.700100 88 3@storage/pebble.go:1212 ⋮ [T1,n2,s2,pebble] 8812  file write stall detected: disk slowness detected: syncdata on file ‹000457.log› has been ongoing for 20.0s\n"
	otherDisk := strings.ReplaceAll(disk, "n2,s2", "n3,s3")
	for _, tc := range []struct {
		name  string
		srcs  []ruletest.Source
		cause string
		words string
	}{
		{"network", []ruletest.Source{src("n2/cockroach.log", heartbeats(3, refused))}, "network", "connection refused"},
		{"disk, the stall first", []ruletest.Source{src("n2/cockroach.log", heartbeats(3, deadline)), src("n2/cockroach-pebble.log", disk)}, "disk", "a disk stall on 000457.log (20.0s at 08:01:44.700100Z)"},
		{"another node's disk is not the cause", []ruletest.Source{src("n2/cockroach.log", heartbeats(3, deadline)), src("n3/cockroach-pebble.log", otherDisk)}, "overload", "no disk or network error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := ruletest.Run(t, Rule, ruletest.Parse(t, tc.srcs...))
			if len(fs) != 1 {
				t.Fatalf("findings:%s", ruletest.Describe(fs))
			}
			if !strings.Contains(fs[0].Title, "cause: "+tc.cause) || !strings.Contains(fs[0].Explanation, tc.words) {
				t.Errorf("title %s\nexplanation %s", fs[0].Title, fs[0].Explanation)
			}
		})
	}
}

// Near misses: one failure that recovers, two in a row, heartbeats that
// are slow but succeed.
func TestNearMisses(t *testing.T) {
	ok := strings.ReplaceAll(heartbeats(6, "‹<nil>›"), "failed node liveness heartbeat: ‹<nil>›", "the next heartbeat")
	for name, text := range map[string]string{
		"one failure":       heartbeats(1, deadline),
		"two failures":      heartbeats(2, deadline),
		"slow but succeeds": ok,
	} {
		t.Run(name, func(t *testing.T) {
			evs := ruletest.Parse(t, src("n2/cockroach.log", text))
			if len(evs) == 0 {
				t.Fatal("no events parsed")
			}
			if fs := ruletest.Run(t, Rule, evs); len(fs) != 0 {
				t.Fatalf("findings:%s\nwant none", ruletest.Describe(fs))
			}
		})
	}
}

// One failure is enough when another node then increments the epoch.
func TestOneFailureAndEpoch(t *testing.T) {
	evs := ruletest.Parse(t, src("n2/cockroach.log", heartbeats(1, deadline)),
		src("n1/cockroach.log", strings.Replace(epoch, "08:01:49", "08:01:40", 1)))
	if fs := ruletest.Run(t, Rule, evs); len(fs) != 1 {
		t.Fatalf("findings:%s\nwant one", ruletest.Describe(fs))
	}
}

// Failures more than a minute apart are separate windows, each below the
// threshold.
func TestFailuresApart(t *testing.T) {
	later := strings.NewReplacer("08:01:3", "08:09:3").Replace(heartbeats(1, deadline))
	evs := ruletest.Parse(t, src("n2/cockroach.log", heartbeats(2, deadline)+later))
	if fs := ruletest.Run(t, Rule, evs); len(fs) != 0 {
		t.Fatalf("findings:%s\nwant none", ruletest.Describe(fs))
	}
}

// Real lines of a v20.1 cluster (cockroachdb/cockroach#49607): n4 fails two
// heartbeats in a row, as its range lease goroutines wait 14.6s on them; it
// increments n6's epoch. Two failures are below the threshold, and n6's own
// failures are not in this excerpt: no finding, but every line is read.
func TestIssue49607(t *testing.T) {
	const lines = "E200527 19:02:20.779025 100243 storage/replica_range_lease.go:292  [n4,s4,r6077/5:/System/tsd/cr.node.sys.…] heartbeat failed on epoch increment\n" +
		"I200527 19:02:20.779035 100157 storage/node_liveness.go:729  [n4,s4,r410864/2:/Table/55/1/14205{5230…-6580…}] incremented n6 liveness epoch to 252\n" +
		"W200527 19:02:21.981885 1459 storage/node_liveness.go:523  [n4,hb] slow heartbeat took 4.5s\n" +
		"W200527 19:02:21.981911 1459 storage/node_liveness.go:463  [n4,hb] failed node liveness heartbeat: operation \"node liveness heartbeat\" timed out after 4.5s\n" +
		"I200527 19:02:25.642819 1388 server/status/runtime.go:500  [n4] runtime stats: 36 GiB RSS, 481 goroutines, 2.5 GiB/158 MiB/3.0 GiB GO alloc/idle/total, 27 GiB/34 GiB CGO alloc/total, 17330.3 CGO/sec, 1031.4/17.5 %(u/s)time, 0.0 %gc (7x), 25 MiB/27 MiB (r/w)net\n" +
		"W200527 19:02:26.482004 1459 storage/node_liveness.go:523  [n4,hb] slow heartbeat took 4.5s\n" +
		"W200527 19:02:26.482037 1459 storage/node_liveness.go:463  [n4,hb] failed node liveness heartbeat: operation \"node liveness heartbeat\" timed out after 4.5s\n" +
		"W200527 19:02:28.688809 100209 storage/node_liveness.go:523  [n4,s4,r15732/2:/System/tsd/cr.store.raft.pro…] slow heartbeat took 14.6s\n"
	evs := ruletest.Parse(t, src("cockroach.log", lines))
	if len(evs) != 6 {
		t.Fatalf("parsed %d events, want 6 (epoch, 3 slow, 2 failed)", len(evs))
	}
	if fs := ruletest.Run(t, Rule, evs); len(fs) != 0 {
		t.Fatalf("findings:%s\nwant none", ruletest.Describe(fs))
	}
	// A third failure makes it a loss.
	third := "W200527 19:02:30.982110 1459 storage/node_liveness.go:463  [n4,hb] failed node liveness heartbeat: operation \"node liveness heartbeat\" timed out after 4.5s\n"
	fs := ruletest.Run(t, Rule, ruletest.Parse(t, src("cockroach.log", lines+third)))
	if len(fs) != 1 || fs[0].Subject.Node != "n4" || !strings.Contains(fs[0].Title, "failed 3 liveness heartbeats") {
		t.Fatalf("findings:%s\nwant n4 with 3 failures", ruletest.Describe(fs))
	}
}
