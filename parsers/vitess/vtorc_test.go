package vitess

import (
	"os"
	"testing"
	"time"

	"forensics"
)

var vtorcOrigin = forensics.Origin{Name: "vtorc.INFO", ModTime: time.Date(2025, 1, 20, 0, 0, 0, 0, time.UTC)}

func readField(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/field/vitess/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// VTOrc's recoveries, read from the lines users and maintainers posted:
// v22's prefixed lines (vitessio/vitess#17526), v19's (#15555, a shard lock
// another process holds) and v16's (#12023).
func TestVTOrcRecoveries(t *testing.T) {
	dead := a{"analysis": "DeadPrimary"}
	check(t, VtorcLogFormat, vtorcOrigin, readField(t, "vtorc-17526-dead-primary.log"), []want{
		{kind: KindRecovery, line: 1, keyspace: "commerce", shard: "0", attrs: a{"analysis": "DeadPrimary", "outcome": "started", "keyspace": "commerce", "shard": "0"}},
		{kind: KindRecovery, line: 2, keyspace: "commerce", shard: "0", attrs: a{"analysis": "DeadPrimary", "outcome": "detected", "tablet": "zone1-0000000100"}},
		{kind: KindRecovery, line: 6, keyspace: "commerce", shard: "0", attrs: a{"analysis": "DeadPrimary", "outcome": "attempted", "recovery": "RecoverDeadPrimary", "tablet": "zone1-0000000100"}},
		{kind: KindReparentStart, line: 7, keyspace: "commerce", shard: "0", attrs: a{"action": "EmergencyReparentShard", "step": "initiate"}},
	})
	check(t, VtorcLogFormat, vtorcOrigin, readField(t, "vtorc-17526-cluster-has-no-primary.log"), []want{
		{kind: KindRecovery, line: 1, keyspace: "commerce", shard: "0", attrs: a{"analysis": "ClusterHasNoPrimary", "outcome": "started"}},
		{kind: KindRecovery, line: 2, keyspace: "commerce", shard: "0", attrs: a{"analysis": "ClusterHasNoPrimary", "outcome": "detected"}},
	})
	check(t, VtorcLogFormat, vtorcOrigin, readField(t, "vtorc-15555-lock-exists.log"), []want{
		{kind: KindRecovery, line: 7, attrs: a{"analysis": "DeadPrimary", "outcome": "detected", "tablet": "gcp_uscentral1c_1-2694376320"}},
		{kind: KindRecovery, line: 8, keyspace: "quizlet4", shard: "-", attrs: a{"analysis": "DeadPrimary", "outcome": "lock", "tablet": "gcp_uscentral1c_1-2694376320"}},
		{kind: KindRecovery, line: 9, keyspace: "quizlet4", shard: "-", attrs: a{"outcome": "lock_failed", "error": "node already exists: lock already exists at path keyspaces/quizlet4/shards/-"}},
	})
	check(t, VtorcLogFormat, vtorcOrigin, readField(t, "vtorc-12023-errant-gtid.log"), []want{
		{kind: KindRecovery, line: 1, attrs: dead},
		{kind: KindReparentStart, line: 2, keyspace: "ks", shard: "0", attrs: a{"step": "initiate"}},
	})
	// The outcomes, as topology_recovery.go logs them (v22+).
	check(t, VtorcLogFormat, vtorcOrigin, lines(
		"I0117 11:20:45.012000  231305 log.go:138] Recovery for DeadPrimary on commerce/0: Analysis: DeadPrimary on tablet zone1-0000000100 - No longer valid, some other agent must have fixed the problem.",
		"E0117 11:20:45.012400  231305 log.go:150] Recovery for DeadPrimary on commerce/0: Error running ERS - no valid candidates for emergency reparent",
		"E0117 11:20:45.012500  231305 log.go:150] Recovery for DeadPrimary on commerce/0: Failed to recover: no valid candidates for emergency reparent",
		"E0117 11:20:46.000000  231305 log.go:150] Recovery for ClusterHasNoPrimary on commerce/0: Recovery not attempted: <nil>",
		"E0117 11:20:47.000000  231305 log.go:150] Recovery for DeadPrimary on commerce/-80: Failed to lock shard, aborting recovery: node already exists: lock already exists at path keyspaces/commerce/shards/-80",
		"I0117 11:20:48.000000  231305 log.go:133] Recovery for ClusterHasNoPrimary on commerce/0: Recovery succeeded",
		"I0117 11:20:48.100000  231305 log.go:138] Recovery for ClusterHasNoPrimary on commerce/0: Analysis: ClusterHasNoPrimary, will elect a new primary for commerce:0",
		"I0117 11:20:49.000000  231305 locks.go:250] Unlocking shard commerce/0 for action VTOrc Recovery for DeadPrimary on zone1-0000000100 with error no valid candidates for emergency reparent",
	), []want{
		{kind: KindRecovery, line: 1, keyspace: "commerce", shard: "0", attrs: a{"outcome": "already_fixed", "tablet": "zone1-0000000100"}},
		{kind: KindRecovery, line: 2, keyspace: "commerce", shard: "0", attrs: a{"outcome": "failed", "reason": "no_candidate"}},
		{kind: KindRecovery, line: 3, keyspace: "commerce", shard: "0", attrs: a{"outcome": "failed", "error": "no valid candidates for emergency reparent"}},
		{kind: KindRecovery, line: 4, keyspace: "commerce", shard: "0", attrs: a{"analysis": "ClusterHasNoPrimary", "outcome": "not_attempted"}},
		{kind: KindRecovery, line: 5, keyspace: "commerce", shard: "-80", attrs: a{"outcome": "lock_failed"}},
		{kind: KindRecovery, line: 6, keyspace: "commerce", shard: "0", attrs: a{"outcome": "succeeded"}},
		{kind: KindRecovery, line: 7, keyspace: "commerce", shard: "0", attrs: a{"outcome": "attempted", "recovery": "ElectNewPrimary"}},
		{kind: KindRecovery, line: 8, keyspace: "commerce", shard: "0", attrs: a{"analysis": "DeadPrimary", "outcome": "failed", "reason": "no_candidate"}},
	})
}

// A tablet's type and semi-sync, as vttablet logs them (vitessio/vitess#11868
// through Docker Desktop, #9272).
func TestTabletStateLines(t *testing.T) {
	check(t, VttabletLogFormat, forensics.Origin{Name: "vttablet.INFO"}, readField(t, "vttablet-9272-reparented-replica.log"), []want{
		{kind: KindSemiSync, line: 2, attrs: a{"semi_sync_primary": "false", "semi_sync_replica": "true"}},
		// state_manager.go's health line, as a v13 replica logged it.
		{kind: KindTabletHealth, line: 14, attrs: a{"health": "healthy", "caller": "state_manager.go:639"}},
	})
	check(t, VttabletLogFormat, forensics.Origin{Name: "vttablet.INFO"}, lines(
		"I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY",
		"I0611 09:00:01.000000       1 tm_state.go:198] Changing Tablet Type: REPLICA for zone1-0000000200",
		"I1120 18:49:26.850621   65778 replication.go:466] Setting semi-sync mode: master=true, slave=false",
	), []want{
		{kind: KindTabletType, line: 1, attrs: a{"tablet_type": "PRIMARY", "tablet": ""}},
		{kind: KindTabletType, line: 2, attrs: a{"tablet_type": "REPLICA", "tablet": "zone1-0000000200"}},
		{kind: KindSemiSync, line: 3, attrs: a{"semi_sync_primary": "true", "semi_sync_replica": "false"}},
	})
}
