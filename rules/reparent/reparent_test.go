package reparent

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/vitess"
	"forensics/rules/ruletest"
)

var formats = []forensics.Format{vitess.SnapshotFormat, vitess.VtctldLogFormat, vitess.VttabletLogFormat, vitess.VtorcLogFormat}

var mod = time.Date(2025, 6, 11, 12, 0, 0, 0, time.UTC)

// topo/locks.go and reparentutil lines of a PlannedReparentShard whose
// primary-elect did not catch up (planned_reparenter.go performGracefulPromotion).
var prsFailed = []string{
	"I0611 09:00:00.100000       1 locks.go:165] Locking shard customer/-80 for action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>) with options: {lockType:0 ttl:30s}",
	"I0611 09:00:00.150000       1 healthcheck.go:349] HealthCheckUpdate(Serving State): tablet: zone1-0000000201 serving true => true for customer/-80 (REPLICA)",
	"I0611 09:00:00.200000       1 planned_reparenter.go:420] demoting current primary: zone1-0000000200",
	"W0611 09:00:30.300000       1 locks.go:230] Unlocking shard customer/-80 for action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>) with error primary-elect tablet zone1-0000000201 failed to catch up with replication MySQL56/5c2e9a7a-0001:1-7734: context deadline exceeded",
}

const shardServing = `{
  "keyspace": "customer",
  "name": "-80",
  "shard": {
    "primary_alias": {"cell": "zone1", "uid": 200},
    "primary_term_start_time": {"seconds": "1749600000", "nanoseconds": 0},
    "key_range": {"start": "", "end": "gA=="},
    "source_shards": [],
    "tablet_controls": [],
    "is_primary_serving": true
  }
}`

func TestPRSFailed(t *testing.T) {
	tl := ruletest.Read(t, formats,
		ruletest.File{Path: "case/vtctld.vtctld-0.vitess.log.INFO.20250611-080000.1", Text: ruletest.Lines(prsFailed...), ModTime: mod},
		ruletest.File{Path: "case/snapshot-20250611T091500Z/shard_customer_-80.json", Text: shardServing})
	got := ruletest.Run(t, Rule, tl)
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	f := got[0]
	want := `{"keyspace":"customer","shard":"-80","old_primary":"zone1-0000000200","new_primary":"zone1-0000000201"}`
	if f.Severity != forensics.High || ruletest.Subject(f) != want {
		t.Errorf("%v %s", f.Severity, ruletest.Subject(f))
	}
	if !strings.Contains(f.Explanation, "still names zone1-0000000200 as the serving primary") || !strings.Contains(f.Title, "did not catch up") {
		t.Errorf("%s\n%s", f.Title, f.Explanation)
	}
	cmds := ruletest.Commands(f)
	for _, c := range []string{
		"vtctldclient --server VTCTLD_HOST:15999 GetShard customer/-80",
		"vtctldclient --server VTCTLD_HOST:15999 PlannedReparentShard --new-primary zone1-0000000201 customer/-80",
	} {
		if !strings.Contains(cmds, c) {
			t.Errorf("no %q in\n%s", c, cmds)
		}
	}
	if len(f.Evidence) != 4 { // lock, demote, unlock, shard record
		t.Errorf("%d evidence lines", len(f.Evidence))
	}
}

// VTOrc's EmergencyReparentShard, in v24's JSON, found no candidate, and the
// shard record has no serving primary: critical.
func TestERSNoPrimaryJSON(t *testing.T) {
	log := ruletest.Lines(
		`{"time":"2026-06-11T09:00:00.100Z","level":"INFO","source":{"file":"/vt/src/vitess.io/vitess/go/vt/topo/locks.go","line":165},"msg":"Locking shard customer/80- for action EmergencyReparentShard with options: {lockType:0 ttl:30s}"}`,
		`{"time":"2026-06-11T09:00:00.101Z","level":"INFO","source":{"file":"/vt/src/vitess.io/vitess/go/vt/vtctl/reparentutil/emergency_reparenter.go","line":240},"msg":"will initiate emergency reparent shard in keyspace - customer, shard - 80-"}`,
		`{"time":"2026-06-11T09:00:03.500Z","level":"WARN","source":{"file":"/vt/src/vitess.io/vitess/go/vt/topo/locks.go","line":230},"msg":"Unlocking shard customer/80- for action EmergencyReparentShard with error no valid candidates for emergency reparent"}`,
	)
	shard := strings.NewReplacer(`"-80"`, `"80-"`, `"uid": 200`, `"uid": 300`, `"start": "", "end": "gA=="`, `"start": "gA==", "end": ""`, `"is_primary_serving": true`, `"is_primary_serving": false`).Replace(shardServing)
	tl := ruletest.Read(t, formats,
		ruletest.File{Path: "case/vtorc.log", Text: log},
		ruletest.File{Path: "case/snapshot-20260611T091500Z/shard_customer_80-.json", Text: shard})
	got := ruletest.Run(t, Rule, tl)
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	f := got[0]
	if f.Severity != forensics.Critical || f.Subject.Details.Text("old_primary") != "zone1-0000000300" || f.Subject.Details.Text("new_primary") != "" {
		t.Errorf("%v %+v", f.Severity, f.Subject)
	}
	if !strings.HasPrefix(f.Explanation, "At 09:00:00.100Z VTOrc took the lock of customer/80- for EmergencyReparentShard.") ||
		!strings.Contains(f.Explanation, "is_primary_serving is false") {
		t.Errorf("%s", f.Explanation)
	}
	if !strings.Contains(ruletest.Commands(f), "vtctldclient --server VTCTLD_HOST:15999 EmergencyReparentShard customer/80-") {
		t.Errorf("%s", ruletest.Commands(f))
	}
}

// Near miss: the reparent failed once and succeeded when run again.
func TestRetrySucceeded(t *testing.T) {
	log := append(append([]string{}, prsFailed...),
		"I0611 09:01:00.100000       1 locks.go:165] Locking shard customer/-80 for action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>) with options: {lockType:0 ttl:30s}",
		"I0611 09:01:00.200000       1 planned_reparenter.go:420] demoting current primary: zone1-0000000200",
		"I0611 09:01:02.300000       1 locks.go:230] Unlocking shard customer/-80 for successful action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>)",
	)
	tl := ruletest.Read(t, formats,
		ruletest.File{Path: "case/vtctld.INFO", Text: ruletest.Lines(log...), ModTime: mod},
		ruletest.File{Path: "case/snapshot-20250611T091500Z/shard_customer_-80.json", Text: strings.Replace(shardServing, `"uid": 200`, `"uid": 201`, 1)})
	if got := ruletest.Run(t, Rule, tl); len(got) != 0 {
		t.Errorf("%d findings: %s", len(got), got[0].Explanation)
	}
}

// A name from the log that is not a Vitess name gets no command.
func TestHostileNames(t *testing.T) {
	log := strings.ReplaceAll(ruletest.Lines(prsFailed...), "customer/-80", "cust$(id)/-80")
	got := ruletest.Run(t, Rule, ruletest.Read(t, formats, ruletest.File{Path: "case/vtctld.INFO", Text: log, ModTime: mod}))
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	if c := ruletest.Commands(got[0]); c != "" {
		t.Errorf("commands with a hostile name: %s", c)
	}
}

// What vtctldclient printed for a PlannedReparentShard that failed: the
// command line, its events (logutil, UTC, no thread id) and its error.
func TestVtctldclientOutput(t *testing.T) {
	out := ruletest.Lines(
		"$ vtctldclient --server vtctld:15999 PlannedReparentShard --new-primary zone1-0000000201 customer/-80",
		"I0611 09:02:31.556000 planned_reparenter.go:420] demoting current primary: zone1-0000000200",
		"E0611 11:02:46.507512   48213 main.go:56] rpc error: code = Unknown desc = primary-elect tablet zone1-0000000201 failed to catch up with replication MySQL56/5c2e9a7a-0001:1-7734: context deadline exceeded",
	)
	tl := ruletest.Read(t, formats,
		ruletest.File{Path: "case/prs-customer-80.txt", Text: out, ModTime: mod},
		ruletest.File{Path: "case/snapshot-20250611T091500Z/shard_customer_-80.json", Text: shardServing})
	got := ruletest.Run(t, Rule, tl)
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	want := `{"keyspace":"customer","shard":"-80","old_primary":"zone1-0000000200","new_primary":"zone1-0000000201"}`
	if f := got[0]; f.Severity != forensics.High || ruletest.Subject(f) != want || len(f.Evidence) != 3 {
		t.Errorf("%v %s %d", f.Severity, ruletest.Subject(f), len(f.Evidence))
	}
}

// VTOrc's recovery of a dead primary (v22's prefixed lines, as
// vitessio/vitess#17526 shows them) whose EmergencyReparentShard finds no
// candidate: the failure lines follow topology_recovery.go's templates
// (runEmergencyReparentOp "Error running ERS - %v", executeCheckAndRecoverFunction
// "Failed to recover: %+v").
var vtorcDeadPrimary = []string{
	"I0117 11:20:44.971064  231305 log.go:133] Recovery for DeadPrimary on commerce/0: Starting checkAndRecover",
	"I0117 11:20:44.971142  231305 log.go:138] Recovery for DeadPrimary on commerce/0: executeCheckAndRecoverFunction: proceeding with DeadPrimary detection on zone1-0000000100; isActionable?: true",
	"I0117 11:20:44.996823  231305 log.go:138] Recovery for DeadPrimary on commerce/0: Analysis: DeadPrimary, RecoverDeadPrimary zone1-0000000100",
	"I0117 11:20:44.997167  231305 log.go:138] Recovery for DeadPrimary on commerce/0: ERS - will initiate emergency reparent shard in keyspace - commerce, shard - 0",
	"E0117 11:20:45.012400  231305 log.go:150] Recovery for DeadPrimary on commerce/0: Error running ERS - no valid candidates for emergency reparent",
	"E0117 11:20:45.012500  231305 log.go:150] Recovery for DeadPrimary on commerce/0: Failed to recover: no valid candidates for emergency reparent",
}

func TestVTOrcRecoveryFailed(t *testing.T) {
	tl := ruletest.Read(t, formats, ruletest.File{Path: "case/vtorc.log", Text: ruletest.Lines(vtorcDeadPrimary...), ModTime: mod})
	got := ruletest.Run(t, Rule, tl)
	if len(got) != 1 {
		t.Fatalf("%d findings, want 1", len(got))
	}
	f := got[0]
	if f.Severity != forensics.Critical || f.Subject.Keyspace != "commerce" || f.Subject.Shard != "0" ||
		f.Title != "EmergencyReparentShard of commerce/0 failed (no candidate for primary)" {
		t.Errorf("%v %q %s", f.Severity, f.Title, ruletest.Subject(f))
	}
	if len(f.Evidence) != 4 { // analysis, initiate, Error running ERS, Failed to recover
		t.Errorf("%d evidence lines", len(f.Evidence))
	}

	// Near-misses: the recovery retried and succeeded; a lock another
	// process holds (vitessio/vitess#15555); a failed recovery that fixes one
	// replica, not the primary.
	retried := append(append([]string{}, vtorcDeadPrimary...),
		"I0117 11:20:50.100000  231305 log.go:138] Recovery for DeadPrimary on commerce/0: Analysis: DeadPrimary, RecoverDeadPrimary zone1-0000000100",
		"I0117 11:20:50.900000  231305 log.go:133] Recovery for DeadPrimary on commerce/0: Recovery succeeded")
	lockHeld := []string{
		"I0322 03:24:09.921850       1 locks.go:432] Locking shard quizlet4/- for action VTOrc Recovery for DeadPrimary on gcp_uscentral1c_1-2694376320",
		"E0322 03:24:09.923283       1 topology_recovery.go:804] node already exists: lock already exists at path keyspaces/quizlet4/shards/-",
	}
	replica := []string{
		"I0117 11:30:00.000000  231305 log.go:138] Recovery for ReplicationStopped on commerce/0: Analysis: ReplicationStopped, FixReplica zone1-0000000102",
		"E0117 11:30:00.100000  231305 log.go:150] Recovery for ReplicationStopped on commerce/0: Failed to recover: context deadline exceeded",
	}
	for name, lines := range map[string][]string{"retried": retried, "lock held": lockHeld, "replica": replica} {
		tl := ruletest.Read(t, formats, ruletest.File{Path: "case/vtorc.log", Text: ruletest.Lines(lines...), ModTime: mod})
		if got := ruletest.Run(t, Rule, tl); len(got) != 0 {
			t.Errorf("%s: %d findings: %s", name, len(got), got[0].Title)
		}
	}
}
