package vitess

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// logScore is the best score any of the three log formats gives.
func logScore(name string, head []byte) int {
	best := 0
	for _, f := range []forensics.Format{VtctldLogFormat, VttabletLogFormat, VtorcLogFormat} {
		best = max(best, f.Detect(name, head))
	}
	return best
}

// v24 JSON lines, as slog.NewJSONHandler with AddSource writes them
// (go/vt/log/flags.go, release-24.0).
const (
	slogCancelV24 = `{"time":"2026-01-02T11:00:05.007+01:00","level":"ERROR","source":{"function":"vitess.io/vitess/go/vt/vtctl/workflow.(*trafficSwitcher).cancelMigration","file":"/vt/src/vitess.io/vitess/go/vt/vtctl/workflow/traffic_switcher.go","line":1187},"msg":"Cancel migration failed (commerce2customer): could not revert denied tables / shard access: Code: INTERNAL\nkeyspace customer is not locked (no locksInfo)"}`
	slogNoiseV24  = `{"time":"2026-01-02T11:00:05.100+01:00","level":"INFO","source":{"function":"vitess.io/vitess/go/vt/discovery.(*HealthCheckImpl).updateHealth","file":"/vt/src/vitess.io/vitess/go/vt/discovery/healthcheck.go","line":349},"msg":"HealthCheckUpdate(Serving State): tablet: zone1-0000000101 serving true => true for commerce/0 (REPLICA)"}`
	slogVReplV24  = `{"time":"2026-01-02T10:02:00.250Z","level":"ERROR","source":{"function":"vitess.io/vitess/go/vt/vttablet/tabletmanager/vreplication.(*controller).runBlp","file":"/vt/src/vitess.io/vitess/go/vt/vttablet/tabletmanager/vreplication/controller.go","line":292},"msg":"vreplication stream 3 going into error state due to Duplicate entry '17' for key 'corder.PRIMARY' (errno 1062) (sqlstate 23000)","keyspace":"customer","shard":"-80"}`
)

func TestSlogLines(t *testing.T) {
	in := lines(slogNoiseV24, slogCancelV24, `{"time":"2026-01-02T11:00:06.000+01:00","level":"INFO","source":{"file":"/vt/src/vitess.io/vitess/go/vt/servenv/servenv.go","line":112},"msg":"Version: 24.0.1 (Git revision 0c696f6 branch 'heads/v24.0.1') built on Mon Dec  1 10:00:00 UTC 2026 by runner@build using go1.25.4 linux/amd64"}`)
	origin := forensics.Origin{Name: "vtctld.vtctld-0.vitess.log.INFO.20260102-100000.1"}
	res := check(t, VtctldLogFormat, origin, in, []want{
		{kind: KindCancelFailed, line: 2, time: "2026-01-02T10:00:05.007Z", attrs: a{"step": "revert_denied_tables", "workflow": "commerce2customer",
			"caller": "traffic_switcher.go:1187", "level": "E", "error": "Code: INTERNAL\nkeyspace customer is not locked (no locksInfo)"}, text: slogCancelV24},
	})
	if res.Lines != 3 {
		t.Errorf("lines %d", res.Lines)
	}
	p := VtctldLogFormat.New(origin)
	for i, l := range []string{slogNoiseV24, lines(slogCancelV24)} {
		p.Line(int64(i+1), []byte(l), func(*forensics.Event) {})
	}
	p.Line(3, []byte(`{"time":"2026-01-02T11:00:06.000+01:00","level":"INFO","msg":"Version: 24.0.1 (Git revision 0c696f6 branch 'heads/v24.0.1') built on Mon Jun  1 10:00:00 UTC 2026 by runner@build using go1.25.4 linux/amd64"}`), func(*forensics.Event) {})
	if got := p.(forensics.Releaser).Release(); got != "24.0.1" {
		t.Errorf("release %q", got)
	}
}

// The keyspace and shard a structured call adds fill what the message does not say.
func TestSlogAttributes(t *testing.T) {
	check(t, VttabletLogFormat, forensics.Origin{Name: "vttablet.INFO"}, lines(slogVReplV24), []want{
		{kind: KindVReplError, line: 1, time: "2026-01-02T10:02:00.25Z", keyspace: "customer", shard: "-80",
			attrs: a{"stream": "3", "error": "Duplicate entry '17' for key 'corder.PRIMARY' (errno 1062) (sqlstate 23000)"}},
	})
}

func TestSlogMalformed(t *testing.T) {
	for _, l := range []string{
		`{"time":"2026-01-02T11:00:05.007+01:00","level":"ERROR","msg":"cut`,
		`{"time":"yesterday","level":"INFO","msg":"x"}`,
		`{"time":"2026-01-02T11:00:05.007+01:00","level":"INFO","msg":"bad \u12"}`,
	} {
		res := parsertest.Parse(VtctldLogFormat, forensics.Origin{Name: "vtctld.INFO"}, []byte(l+"\n"))
		if len(res.Errors) != 1 || len(res.Events) != 0 {
			t.Errorf("%s: %d errors, %d events", l, len(res.Errors), len(res.Events))
		}
	}
}

func TestDetectRoles(t *testing.T) {
	tabletGlog := lines(
		"Log file created at: 2025/06/11 08:00:00",
		"I0611 08:00:01.000000       1 tm_state.go:184] Changing Tablet Type: PRIMARY for cell:\"zone1\" uid:101",
		"I0611 08:00:02.000000       1 controller.go:202] stream 1: stopped")
	vtorcGlog := lines(
		"I0611 08:00:01.000000       1 topology_recovery.go:250] Analysis: DeadPrimary on zone1-0000000101, will run recovery RecoverDeadPrimary",
		"I0611 08:00:02.000000       1 vtorc.go:200] Starting VTOrc")
	vtctldGlog := reverseTrafficLog
	otherJSON := lines(`{"time":"2026-01-02T11:00:05.007+01:00","level":"INFO","source":{"file":"/src/app/main.go","line":3},"msg":"listening"}`)
	for _, c := range []struct {
		name, file, head string
		want             string
	}{
		{"vttablet by callers", "INFO.log", tabletGlog, "vttablet"},
		{"vttablet by name", "vttablet.vt-101.vitess.log.INFO.20250611-080000.1", vtctldGlog, "vttablet"},
		{"vtorc by callers", "log.txt", vtorcGlog, "vtorc"},
		{"vtctld", "x.log", vtctldGlog, "vtctld"},
		{"v24 JSON", "vtctld.log", lines(slogNoiseV24, slogCancelV24), "vtctld"},
		{"v24 JSON vttablet", "log.json", lines(slogVReplV24), "vttablet"},
		{"another program's JSON log", "app.log", otherJSON, ""},
		{"markdown", "report.md", "# forensics report\n\n| rule | severity |\n|---|---|\n", ""},
		{"markdown report quoting log lines", "want.md", lines(
			"# forensics report", "", "## 1. HIGH: PlannedReparentShard of customer/-80 failed", "", "### Evidence", "", "```text",
			"# 1. 2025-06-11T09:02:31.504118Z  vtctld.log:128  (the reparent takes the shard lock)",
			"I0611 09:02:31.504118       1 locks.go:165] Locking shard customer/-80 for action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>)",
			"", "# 2. 2025-06-11T09:02:46.507118Z  vtctld.log:131  (the reparent fails)",
			"W0611 09:02:46.507118       1 locks.go:230] Unlocking shard customer/-80 for action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>) with error x",
			"```", "", "### What to do", "", "1. **Check the state customer/-80 was left in**"), ""},
	} {
		got := ""
		for _, f := range []forensics.Format{VtctldLogFormat, VttabletLogFormat, VtorcLogFormat} {
			if f.Detect(c.file, []byte(c.head)) > 0 {
				if got != "" {
					t.Errorf("%s: both %s and %s", c.name, got, f.Name)
				}
				got = f.Name
			}
		}
		if got != c.want {
			t.Errorf("%s: detected as %q, want %q", c.name, got, c.want)
		}
	}
}

// Reparent lines of vtctld and VTOrc (topo/locks.go, reparentutil).
func TestReparentLines(t *testing.T) {
	in := lines(
		"I0611 09:00:00.100000       1 locks.go:165] Locking shard customer/-80 for action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>) with options: {lockType:0 ttl:30s}",
		"I0611 09:00:00.200000       1 planned_reparenter.go:420] demoting current primary: zone1-0000000200",
		"W0611 09:00:30.300000       1 locks.go:230] Unlocking shard customer/-80 for action PlannedReparentShard(zone1-0000000201, AvoidPrimary = <nil>) with error primary-elect tablet zone1-0000000201 failed to catch up with replication MySQL56/1-2-3: context deadline exceeded",
		"I0611 09:05:00.000000       1 emergency_reparenter.go:240] will initiate emergency reparent shard in keyspace - customer, shard - 80-",
		"I0611 09:05:01.000000       1 locks.go:230] Unlocking shard customer/80- for successful action EmergencyReparentShard",
		"I0611 09:05:02.000000       1 locks.go:165] Locking shard customer/80- for action RebuildKeyspaceGraph",
	)
	check(t, VtorcLogFormat, forensics.Origin{Name: "vtorc.INFO", ModTime: time.Date(2025, 6, 11, 12, 0, 0, 0, time.UTC)}, in, []want{
		{kind: KindReparentStart, line: 1, keyspace: "customer", shard: "-80", attrs: a{"action": "PlannedReparentShard", "new_primary": "zone1-0000000201"}},
		{kind: KindReparentStep, line: 2, attrs: a{"old_primary": "zone1-0000000200"}},
		{kind: KindReparentFailed, line: 3, keyspace: "customer", shard: "-80", attrs: a{"reason": "replica_not_caught_up"}},
		{kind: KindContextError, line: 3, keyspace: "customer", shard: "-80"},
		{kind: KindReparentStart, line: 4, keyspace: "customer", shard: "80-", attrs: a{"action": "EmergencyReparentShard"}},
		{kind: KindReparentDone, line: 5, keyspace: "customer", shard: "80-", attrs: a{"action": "EmergencyReparentShard"}},
	})
}

// VReplication lines of vttablet (vreplication/controller.go, vplayer.go).
func TestVReplicationLines(t *testing.T) {
	in := lines(
		"I0611 09:00:00.100000       1 vplayer.go:130] Starting VReplication player id: 3, name: commerce2customer, startPos: MySQL56/1-2-3, stop: ",
		"E0611 09:00:05.000000       1 controller.go:251] error in stream 3, retrying after 5s: Unknown column 'note' in 'field list' (errno 1054) (sqlstate 42S22)",
		"E0611 09:10:05.000000       1 controller.go:292] vreplication stream 3 going into error state due to Unknown column 'note' in 'field list' (errno 1054) (sqlstate 42S22)",
	)
	check(t, VttabletLogFormat, forensics.Origin{Name: "vttablet.INFO", ModTime: time.Date(2025, 6, 11, 12, 0, 0, 0, time.UTC)}, in, []want{
		{kind: KindVReplStart, line: 1, attrs: a{"stream": "3", "workflow": "commerce2customer"}},
		{kind: KindVReplRetry, line: 2, attrs: a{"stream": "3", "retry": "5s", "error": "Unknown column 'note' in 'field list' (errno 1054) (sqlstate 42S22)"}},
		{kind: KindVReplError, line: 3, attrs: a{"stream": "3"}},
	})
}

// v22+: the workflow lock of a traffic switch failed.
func TestWorkflowLockFailed(t *testing.T) {
	in := lines("E0611 09:00:00.100000       1 server.go:3390] failed to lock the customer/commerce2customer workflow: deadline exceeded: internal/named_locks/customer/commerce2customer")
	check(t, VtctldLogFormat, forensics.Origin{Name: "vtctld.INFO", ModTime: time.Date(2025, 6, 11, 12, 0, 0, 0, time.UTC)}, in, []want{
		{kind: KindSwitchFailed, line: 1, keyspace: "customer", attrs: a{"step": "lock_workflow", "workflow": "commerce2customer", "error": "deadline exceeded: internal/named_locks/customer/commerce2customer"}},
	})
}

// A JSON line that is not an event costs no allocation.
func TestSlogNoAllocation(t *testing.T) {
	p := VtctldLogFormat.New(forensics.Origin{Name: "vtctld.log"})
	noise := [][]byte{[]byte(slogNoiseV24), []byte(`{"time":"2026-01-02T11:00:05.100+01:00","level":"INFO","source":{"function":"f","file":"/vt/src/vitess.io/vitess/go/vt/vtctld/vtctld.go","line":9},"msg":"escaped \"quotes\" and \u00e9","keyspace":"commerce","n":3,"o":{"a":[1,2]}}`)}
	emit := func(e *forensics.Event) { t.Fatalf("unexpected event %s", e.Kind) }
	for i, l := range noise {
		if _, err := p.Line(int64(i+1), l, emit); err != nil {
			t.Fatal(err)
		}
	}
	n := int64(len(noise))
	allocs := testing.AllocsPerRun(100, func() {
		for _, l := range noise {
			n++
			p.Line(n, l, emit)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations for %d JSON lines without events", allocs, len(noise))
	}
}

// `vtctldclient Workflow list` prints the workflow names as a JSON array; it
// was reported as "JSON list is not a GetKeyspaces output".
func TestWorkflowList(t *testing.T) {
	in := lines(
		"$ vtctldclient --server vtctld:15999 Workflow --keyspace customer list",
		"[",
		`  "commerce2customer",`,
		`  "customer_reshard"`,
		"]",
		"$ vtctldclient GetWorkflows commerce",
		`{"workflows": []}`,
	)
	check(t, SnapshotFormat, origin("snapshot-20250611T091500Z/workflows.txt"), in, []want{
		{kind: KindWorkflowList, line: 2, keyspace: "customer", attrs: a{"workflows": "commerce2customer,customer_reshard"}},
		{kind: KindWorkflowList, line: 7, keyspace: "commerce", attrs: a{"workflows": ""}},
	})
	res := parsertest.Parse(SnapshotFormat, origin("snapshot-20250611T091500Z/workflow_list_customer.json"), []byte(`["a"]`+"\n"))
	l, err := DecodeWorkflowList(&res.Events[0])
	if err != nil || l.Keyspace != "customer" || len(l.Workflows) != 1 {
		t.Errorf("%+v %v", l, err)
	}
}

const shardFields = `{"keyspace": "customer", "name": "-80", "shard": {"primary_alias": {"cell": "zone1", "uid": 200}, "tablet_controls": [], "is_primary_serving": true}}`

// Files that are not evidence are not read as topology (they were, and
// pulled the timeline's span to their modification time).
func TestDetectNotEvidence(t *testing.T) {
	for _, c := range []struct{ name, file, head string }{
		{"SARIF report", "findings.sarif", `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "forensics", "rules": [{"id": "vitess-denied-tables-routing"}]}}}]}`},
		{"Markdown report", "report.md", "# Findings\n\n```json\n{\"keyspace\": \"dst\", \"name\": \"-80\", \"shard\": {\"tablet_controls\": []}}\n```\n"},
		{"notes", "notes.txt", "Customer says writes fail since 16:42.\n{\"rules\": []}\n"},
		{"eslint config", ".eslintrc.json", `{"rules": {"no-unused-vars": "error"}}`},
		{"package.json", "package.json", `{"name": "x", "keyspace": 1, "workflows": ["a"]}`},
		{"names without a command", "hosts.json", `["db1", "db2"]`},
		{"jq output", "out.json", `{"partitions": 3, "topic": "orders"}`},
	} {
		if got := detectSnapshot(c.file, []byte(c.head)); got != 0 {
			t.Errorf("%s: score %d, want 0", c.name, got)
		}
	}
	for _, c := range []struct{ name, file, head string }{
		{"workflow list", "workflow_list_customer.json", `["commerce2customer"]`},
		{"a failed command first", "session.txt", lines(
			"$ vtctldclient --server :15999 GetShard customer/-40",
			"E1031 15:38:45.079224    5090 main.go:56] rpc error: code = NotFound desc = node doesn't exist: keyspaces/customer/shards/-40/Shard",
			"$ vtctldclient --server :15999 GetShard customer/-80",
			shardFields)},
		{"cut shard", "shard.json", `{"keyspace": "dst", "name": "-80", "shard": {"primary_alias": {"cell": "zone1", "uid": 1`},
		{"malformed rules", "rr.json", `{"rules": [{"from_table": "t1", "to_tables": ["dst.t1"],}]}`},
	} {
		if got := detectSnapshot(c.file, []byte(c.head)); got == 0 {
			t.Errorf("%s: not detected", c.name)
		}
	}
}

// Fields newer releases add are read past: vtorc_state on shards (v22+,
// proto/topodata.proto) and allow_reads, and GetSrvKeyspaces printing enums
// as numbers.
func TestNewFields(t *testing.T) {
	shard := `{"keyspace": "customer", "name": "-80", "shard": {"primary_alias": {"cell": "zone1", "uid": 200}, "key_range": {"end": "gA=="}, "is_primary_serving": true, "tablet_controls": [], "vtorc_state": {"disable_emergency_reparent": true}}}`
	srv := `{"zone1": {"partitions": [{"served_type": 1, "shard_references": [{"name": "-80", "key_range": {"end": "gA=="}}], "allow_reads": true}, {"served_type": 2, "shard_references": [{"name": "-80", "key_range": {"end": "gA=="}}]}]}}`
	res := check(t, SnapshotFormat, origin("snapshot-20250611T091500Z/all.txt"), lines("$ vtctldclient GetShard customer/-80", shard, "$ vtctldclient GetSrvKeyspaces customer zone1", srv), []want{
		{kind: KindShard, line: 2, keyspace: "customer", shard: "-80"},
		{kind: KindSrvKeyspace, line: 4, keyspace: "customer"},
	})
	k, err := DecodeSrvKeyspaces(&res.Events[1])
	if err != nil || k.Cells["zone1"].Partitions[0].ServedType != "PRIMARY" || k.Cells["zone1"].Partitions[1].ServedType != "REPLICA" {
		t.Errorf("%+v %v", k, err)
	}
}

// vitessio/vitess#17127: the release of the vtctldclient that printed a
// session file, from its --version output.
func TestSnapshotRelease(t *testing.T) {
	in := lines(
		"vtctldclient --version",
		"vtctldclient version Version: 19.0.0-SNAPSHOT (Git revision b30be7742e85ea743231eaa55aa2f03b09f1fdad branch 'latest-19.0') built on Fri Jun 21 12:38:55 CEST 2024 by mcrauwel@Matthiass-MacBook-Air.local using go1.22.4 darwin/arm64",
		"$ vtctldclient --server :15999 GetShard dst/-80",
		getShardV22,
	)
	p := SnapshotFormat.New(origin("snapshot-20241031T154000Z/session.txt"))
	for i, l := range strings.Split(in, "\n") {
		p.Line(int64(i+1), []byte(l), func(*forensics.Event) {})
	}
	if err := p.End(func(*forensics.Event) {}); err != nil {
		t.Fatal(err)
	}
	if got := p.(forensics.Releaser).Release(); got != "19.0.0-SNAPSHOT" {
		t.Errorf("release %q", got)
	}
	q := SnapshotFormat.New(origin("x/shard.json"))
	q.Line(1, []byte(getShardV22), func(*forensics.Event) {})
	q.End(func(*forensics.Event) {})
	if got := q.(forensics.Releaser).Release(); got != "" {
		t.Errorf("release %q from a file that names none", got)
	}
}

// What vtctldclient prints for the events of a PlannedReparentShard
// (go/vt/logutil/logger.go EventToBuffer: no thread id, UTC).
func TestLogutilEvents(t *testing.T) {
	in := lines(
		"$ vtctldclient --server vtctld:15999 PlannedReparentShard --new-primary zone1-0000000201 customer/-80",
		"I0611 09:02:31.556000 planned_reparenter.go:420] demoting current primary: zone1-0000000200",
		"E0611 11:02:46.507512   48213 main.go:56] rpc error: code = Unknown desc = primary-elect tablet zone1-0000000201 failed to catch up with replication",
	)
	res := check(t, VtctldLogFormat, forensics.Origin{Name: "prs.txt", ModTime: time.Date(2025, 6, 11, 12, 0, 0, 0, time.UTC)}, in, []want{
		{kind: KindReparentStep, line: 2, time: "2025-06-11T09:02:31.556Z", attrs: a{"old_primary": "zone1-0000000200", "caller": "planned_reparenter.go:420"}},
		{kind: KindReparentFailed, line: 3, keyspace: "customer", shard: "-80", attrs: a{"action": "PlannedReparentShard", "new_primary": "zone1-0000000201",
			"reason": "replica_not_caught_up", "error": "primary-elect tablet zone1-0000000201 failed to catch up with replication"}},
	})
	if res.Events[0].Zone != forensics.ZoneUTC {
		t.Errorf("zone %v", res.Events[0].Zone)
	}
	if got := logScore("prs.txt", []byte(in)); got < 80 {
		t.Errorf("detected with %d", got)
	}
}

// vitessio/vitess#13999 pastes a GetShard with its middle elided ("..."):
// not JSON, so a problem on the line where it breaks, and the file is still
// taken for a topology document.
func TestIssue13999ElidedShard(t *testing.T) {
	in := lines(
		"$ vtctlclient --server :15999 GetShard fane_import_sharded/-80",
		"{",
		"...",
		`  "tablet_controls": [`,
		"    {",
		`      "tablet_type": 1,`,
		`      "cells": [],`,
		`      "denied_tables": [`,
		`        "sbtest1",`,
		`        "testing"`,
		"      ],",
		"...",
		"}",
	)
	if got := detectSnapshot("shard.txt", []byte(in)); got == 0 {
		t.Fatal("not detected")
	}
	res := parsertest.Parse(SnapshotFormat, origin("x/shard.txt"), []byte(in))
	if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "line 3, column 1: malformed JSON document (started on line 2)") || len(res.Events) != 0 {
		t.Errorf("%v, %d events", res.EndErr, len(res.Events))
	}
}

// The zerolog form of structured logs (go/vt/log/zlog.go on main for a
// while): level first, caller as file:line, message.
func TestZerologLines(t *testing.T) {
	l := `{"level":"error","time":"2026-01-02T10:00:05Z","caller":"/vt/src/vitess.io/vitess/go/vt/vtctl/workflow/traffic_switcher.go:1187","message":"Cancel migration failed (commerce2customer): could not revert denied tables / shard access: Code: INTERNAL"}`
	check(t, VtctldLogFormat, forensics.Origin{Name: "vtctld.log"}, lines(l), []want{
		{kind: KindCancelFailed, line: 1, time: "2026-01-02T10:00:05Z", attrs: a{"caller": "traffic_switcher.go:1187", "level": "E", "workflow": "commerce2customer"}},
	})
	if got := logScore("vtctld.log", []byte(lines(l))); got == 0 {
		t.Error("not detected")
	}
}
