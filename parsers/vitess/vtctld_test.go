package vitess

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// reverseTrafficLog is a vtctld log of the #17326 incident as a v22-dev
// vtctld (main at 1058621) logs it: ReverseTraffic switches the replica
// reads back, then the writes on dst.wf1_reverse stall at LOCK TABLES on
// the dst primaries (a tablet roll) until the client's deadline cancels the
// context; the cancel runs on the same dead context and fails, leaving dst
// denying t1 and t2. Line numbers of callers are those of that revision.
var reverseTrafficLog = lines(
	"Log file created at: 2024/12/02 16:40:00",                                                                                                                          // 1
	"Running on machine: vtctld-7d9f5c6b8-x2x4q",                                                                                                                        // 2
	"Binary: Built with gc go1.23.3 for linux/amd64",                                                                                                                    // 3
	"Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg",                                                                                               // 4
	"I1202 16:40:00.112233       1 servenv.go:110] Version: 22.0.0-SNAPSHOT (Git revision 1058621 branch 'main')",                                                       // 5
	"I1202 16:41:54.998010       1 locks.go:165] Locking named dst/wf1 for action WorkflowSwitchTraffic with options: {lockType:0 ttl:0s}",                              // 6
	"I1202 16:41:55.004411       1 server.go:3394] Switching reads: dst.wf1 tablet types: REPLICA,RDONLY, cells: , workflow state: All Reads Switched. Writes Switched", // 7
	"I1202 16:41:55.004512       1 locks.go:165] Locking keyspace src for action SwitchReads with options: {lockType:0 ttl:30s}",                                        // 8
	"I1202 16:41:55.210000       1 locks.go:217] Unlocking keyspace src for successful action SwitchReads",                                                              // 9
	"I1202 16:41:55.210101       1 server.go:3311] Switch Reads done for workflow dst.wf1",                                                                              // 10
	"I1202 16:41:55.301002       1 locks.go:165] Locking keyspace dst for action SwitchWrites with options: {lockType:0 ttl:1m30s}",                                     // 11
	"I1202 16:41:55.350101       1 locks.go:165] Locking keyspace src for action SwitchWrites with options: {lockType:0 ttl:1m30s}",                                     // 12
	"I1202 16:41:55.420001       1 server.go:3645] No previous journals were found. Proceeding normally.",                                                               // 13
	"I1202 16:41:55.421000       1 server.go:3662] Stopping source writes",                                                                                              // 14
	"I1202 16:41:55.980000       1 tablet_picker.go:218] tablet picker: no healthy tablets in cell zone1",                                                               // 15 noise
	"I1202 16:41:56.600000       1 server.go:3668] Stopping streams",                                                                                                    // 16
	"I1202 16:41:56.700000       1 server.go:3687] Executing LOCK TABLES on source tables 2 times",                                                                      // 17
	"I1202 16:41:56.700101       1 traffic_switcher.go:1324] Locking (and then immediately unlocking) the following tables on source keyspace dst: [t1 t2]",             // 18
	"W1202 16:42:10.100000       1 healthcheck.go:349] health check stream error on tablet zone1-0000000200: rpc error: code = Unavailable desc = connection refused",   // 19 noise
	"E1202 16:42:25.300100       1 traffic_switcher.go:1350] Error executing LOCK TABLES `t1` READ,`t2` READ on source tablet alias:{cell:\"zone1\" uid:200} hostname:\"dst-x-80-primary\" keyspace:\"dst\" shard:\"-80\" type:PRIMARY: rpc error: code = DeadlineExceeded desc = context deadline exceeded", // 20
	"E1202 16:42:25.300512       1 traffic_switcher.go:1146] Cancel migration failed: deadline exceeded: /vitess/global/keyspaces/dst/shards/-80/Shard",                                                                                                                                                      // 21
	"E1202 16:42:25.300600       1 traffic_switcher.go:1158] Cancel migration failed: could not restart vreplication: rpc error: code = DeadlineExceeded desc = context deadline exceeded",                                                                                                                   // 22
	"E1202 16:42:25.300700       1 traffic_switcher.go:1163] Cancel migration failed: could not delete reverse vreplication streams: rpc error: code = Canceled desc = context canceled",                                                                                                                     // 23
	"E1202 16:42:25.300900       1 server.go:3557] Code: DEADLINE_EXCEEDED", // 24
	"rpc error: code = DeadlineExceeded desc = context deadline exceeded",   // 25
	"", // 26
	"failed to execute LOCK TABLES (attempt 1 of 2) on sources", // 27
	"I1202 16:42:25.301000       1 locks.go:214] Unlocking keyspace src for action SwitchWrites with error failed to execute LOCK TABLES (attempt 1 of 2) on sources: rpc error: code = DeadlineExceeded desc = context deadline exceeded", // 28
	"I1202 16:42:25.310000       1 grpc_vtctld_server.go:99] WorkflowSwitchTraffic: keyspace dst workflow wf1",                                                                                                                             // 29 noise
)

func TestVtctldReverseTrafficFailsAtLockTables(t *testing.T) {
	origin := forensics.Origin{Path: "bundle/vtctld.log", Name: "vtctld.log"}
	res := check(t, VtctldLogFormat, origin, reverseTrafficLog, []want{
		{kind: KindSwitchStart, line: 6, time: "2024-12-02T16:41:54.99801Z", keyspace: "dst",
			attrs: a{"step": "lock_workflow", "workflow": "wf1", "action": "WorkflowSwitchTraffic", "level": "I", "caller": "locks.go:165"}},
		{kind: KindSwitchStart, line: 7, keyspace: "dst", attrs: a{"step": "switch_reads", "workflow": "wf1"}},
		{kind: KindSwitchStart, line: 8, keyspace: "src", attrs: a{"step": "lock_keyspace", "action": "SwitchReads"}},
		{kind: KindSwitchDone, line: 10, keyspace: "dst", attrs: a{"step": "switch_reads", "workflow": "wf1"}},
		{kind: KindSwitchStart, line: 11, keyspace: "dst", attrs: a{"step": "lock_keyspace", "action": "SwitchWrites"}},
		{kind: KindSwitchStart, line: 12, keyspace: "src", attrs: a{"step": "lock_keyspace", "action": "SwitchWrites"}},
		{kind: KindSwitchStart, line: 13, attrs: a{"step": "switch_writes", "keyspace": ""}},
		{kind: KindStopSourceWrites, line: 14, time: "2024-12-02T16:41:55.421Z"},
		{kind: KindStopStreams, line: 16},
		{kind: KindLockTables, line: 17, attrs: a{"step": "lock_tables", "cycles": "2"}},
		{kind: KindLockTables, line: 18, keyspace: "dst", attrs: a{"step": "execute", "tables": "t1,t2"}},
		{kind: KindLockTablesFailed, line: 20, keyspace: "dst", shard: "-80", attrs: a{"step": "execute", "tables": "t1,t2", "level": "E",
			"error": "rpc error: code = DeadlineExceeded desc = context deadline exceeded"}},
		{kind: KindContextError, line: 20, keyspace: "dst", shard: "-80", attrs: a{"step": "execute", "error": "context deadline exceeded"}},
		{kind: KindCancelFailed, line: 21, attrs: a{"step": "revert_denied_tables", "error": "deadline exceeded: /vitess/global/keyspaces/dst/shards/-80/Shard", "caller": "traffic_switcher.go:1146"}},
		{kind: KindCancelFailed, line: 22, attrs: a{"step": "restart_workflows", "error": "rpc error: code = DeadlineExceeded desc = context deadline exceeded"}},
		{kind: KindContextError, line: 22, attrs: a{"step": "restart_workflows", "error": "context deadline exceeded"}},
		{kind: KindCancelFailed, line: 23, attrs: a{"step": "delete_reverse_workflows"}},
		{kind: KindContextError, line: 23, attrs: a{"error": "context canceled"}},
		{kind: KindLockTablesFailed, line: 24, time: "2024-12-02T16:42:25.3009Z", attrs: a{"step": "attempt", "attempt": "1", "attempts": "2",
			"error": "rpc error: code = DeadlineExceeded desc = context deadline exceeded"},
			text: "E1202 16:42:25.300900       1 server.go:3557] Code: DEADLINE_EXCEEDED\nrpc error: code = DeadlineExceeded desc = context deadline exceeded\n\nfailed to execute LOCK TABLES (attempt 1 of 2) on sources"},
		{kind: KindContextError, line: 24, attrs: a{"step": "attempt"}},
		{kind: KindSwitchFailed, line: 28, keyspace: "src", attrs: a{"step": "unlock_keyspace", "action": "SwitchWrites",
			"error": "failed to execute LOCK TABLES (attempt 1 of 2) on sources: rpc error: code = DeadlineExceeded desc = context deadline exceeded"}},
		{kind: KindContextError, line: 28, keyspace: "src", attrs: a{"step": "unlock_keyspace"}},
	})
	// The header lines: the first carries the file's creation time.
	if st := res.Stamps[0]; st.Time != time.Date(2024, 12, 2, 16, 40, 0, 0, time.UTC) || st.Zone != forensics.ZoneAssumed {
		t.Errorf("line 1 stamp %v", st)
	}
	for _, n := range []int{1, 2, 3, 24, 25, 26} {
		if st := res.Stamps[n]; !st.IsZero() {
			t.Errorf("line %d has a time of its own: %v", n+1, st)
		}
	}
	if st := res.Stamps[23]; st.Zone != forensics.ZoneAssumed {
		t.Errorf("glog times are assumed UTC, got %v", st.Zone)
	}
}

// Lines as other releases log the same steps.
func TestVtctldWordingByRelease(t *testing.T) {
	origin := forensics.Origin{Path: "vtctld.INFO", Name: "vtctld.INFO", ModTime: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)}
	check(t, VtctldLogFormat, origin, lines(
		// v23+ (#18608): handleError logs "<message>: <cause>" on the header line.
		"E0123 08:51:20.000001   96215 server.go:3072] failed to execute LOCK TABLES (attempt 2 of 2) on sources: target: src.0.primary: vttablet: rpc error: code = Unavailable desc = connection refused", // 1
		// #17620, Jan 2025: the cancel always failed for lack of locks.
		"E0123 08:51:21.627147   96215 traffic_switcher.go:1161] Cancel migration failed: could not revert denied tables / shard access: Code: INTERNAL", // 2
		"keyspace product is not locked (no locksInfo)", // 3
		// v22+ (#17782).
		"I0123 08:51:21.700000   96215 traffic_switcher.go:1151] cancelMigration (wf1_reverse): original context invalid: context deadline exceeded",                                                               // 4
		"I0123 08:51:21.700001   96215 traffic_switcher.go:1153] cancelMigration (wf1_reverse): starting",                                                                                                          // 5
		"I0123 08:51:21.700002   96215 traffic_switcher.go:1166] cancelMigration (wf1_reverse): adding denied tables to target",                                                                                    // 6
		"E0123 08:51:21.800000   96215 traffic_switcher.go:1177] Cancel migration failed (wf1_reverse): could not revert denied tables / shard access: node doesn't exist: keyspaces/src/shards/0/Shard",           // 7
		"E0123 08:51:21.900000   96215 traffic_switcher.go:1204] Cancel migration failed for wf1_reverse, manual cleanup work may be necessary: could not revert denied tables / shard access: node doesn't exist", // 8
		"I0123 08:51:21.900001   96215 traffic_switcher.go:1208] cancelMigration (wf1_reverse): completed",                                                                                                         // 9
		// Dec 2024 (#17340).
		"I0123 08:51:22.000000   96215 traffic_switcher.go:1146] In Cancel migration: original context invalid: context canceled", // 10
		// ≤ v19: the format bug of cancelMigration.
		"E0123 08:51:22.100000   96215 traffic_switcher.go:1006] Cancel migration failed:%!(EXTRA *vterrors.fundamental=Code: INTERNAL", // 11
		"keyspace src is not locked (no locksInfo)", // 12
		")", // 13
		"E0123 08:51:22.200000   96215 traffic_switcher.go:1023] Cancel migration failed: could not delete revers vreplication entries: node doesn't exist", // 14
		// ≤ v19: handleError logs "Code: INTERNAL" and then the message.
		"E0123 08:51:22.300000   96215 server.go:3182] Code: INTERNAL",                                                             // 15
		"failed to stop writes in the src keyspace: failed to successfully refresh all tablets in the src/0 source shard (<nil>):", // 16
		"  zone1-0000000101: timed out", // 17
		// v19 and older (wrangler, vtctlclient): the capitalised form.
		"E0123 08:51:22.400000   96215 traffic_switcher.go:589] Failed to execute LOCK TABLES (attempt 1 of 2) on sources: Code: DEADLINE_EXCEEDED", // 18
		// v23+ logging of the later writes steps.
		"I0123 08:51:23.000000   96215 server.go:3308] Creating journals for workflow dst.wf1",                                                                                    // 19
		"I0123 08:51:23.000100   96215 traffic_switcher.go:730] Creating journal: id:7224776740563431192 migration_type:TABLES tables:\"t1\" local_position:\"MySQL56/…\"",        // 20
		"I0123 08:51:23.100000   96215 traffic_switcher.go:794] Deleted routing: dst.t1",                                                                                          // 21
		"I0123 08:51:23.100001   96215 traffic_switcher.go:797] Added routing: t1 src.t1",                                                                                         // 22
		"I0123 08:51:23.100002   96215 traffic_switcher.go:778] Deleted shard routing: dst:-80",                                                                                   // 23
		"I0123 08:51:23.100003   96215 traffic_switcher.go:780] Added shard routing: src:-80",                                                                                     // 24
		"I0123 08:51:23.200000   96215 server.go:3324] Updated routing rules for workflow dst.wf1",                                                                                // 25
		"I0123 08:51:23.300000   96215 traffic_switcher.go:1216] Marking target streams frozen for workflow wf1 db_name vt_dst",                                                   // 26
		"I0123 08:51:23.300001   96215 server.go:3343] Marking workflow frozen dst.wf1",                                                                                           // 27
		"I0123 08:51:23.400000   96215 server.go:3349] Switch writes completed for workflow dst.wf1",                                                                              // 28
		"I0123 08:51:23.400001   96215 server.go:2837] Switch Writes done for workflow dst.wf1",                                                                                   // 29
		"I0123 08:51:23.400002   96215 server.go:2880] SwitchTraffic done for workflow dst.wf1, returning response summary:\"SwitchTraffic was successful for workflow dst.wf1\"", // 30
		"I0123 08:51:23.500000   96215 server.go:3296] Journals were found. Completing the left over steps.",                                                                      // 31
		"I0123 08:51:23.600000   96215 server.go:3234] Waiting for streams to catchup",                                                                                            // 32
		"I0123 08:51:23.600001   96215 server.go:3267] Creating reverse streams",                                                                                                  // 33
		// ≤ v19: the keyspace lock without options.
		"I0123 08:51:23.700000   96215 locks.go:246] Locking keyspace src for action SwitchWrites",                                               // 34
		"W0123 08:51:23.800000   96215 traffic_switcher.go:1131] Error in switchDeniedTables: deadline exceeded: keyspaces/dst/shards/-80/Shard", // 35
		"I0123 08:51:23.900000   96215 server.go:2852] ReverseTraffic done for workflow dst.wf1",                                                 // 36
	), []want{
		{kind: KindLockTablesFailed, line: 1, time: "2025-01-23T08:51:20.000001Z", attrs: a{"step": "attempt", "attempt": "2", "attempts": "2",
			"error": "target: src.0.primary: vttablet: rpc error: code = Unavailable desc = connection refused"}},
		{kind: KindCancelFailed, line: 2, attrs: a{"step": "revert_denied_tables", "workflow": "",
			"error": "Code: INTERNAL\nkeyspace product is not locked (no locksInfo)"},
			text: "E0123 08:51:21.627147   96215 traffic_switcher.go:1161] Cancel migration failed: could not revert denied tables / shard access: Code: INTERNAL\nkeyspace product is not locked (no locksInfo)"},
		{kind: KindCancelStart, line: 4, attrs: a{"step": "context_invalid", "workflow": "wf1_reverse", "error": "context deadline exceeded"}},
		{kind: KindContextError, line: 4, attrs: a{"step": "context_invalid", "workflow": "wf1_reverse"}},
		{kind: KindCancelStart, line: 5, attrs: a{"step": "start", "workflow": "wf1_reverse"}},
		{kind: KindCancelStep, line: 6, attrs: a{"step": "add_target_denied_tables", "workflow": "wf1_reverse"}},
		{kind: KindCancelFailed, line: 7, attrs: a{"step": "revert_denied_tables", "workflow": "wf1_reverse", "error": "node doesn't exist: keyspaces/src/shards/0/Shard"}},
		{kind: KindCancelFailed, line: 8, attrs: a{"step": "manual_cleanup", "workflow": "wf1_reverse", "error": "could not revert denied tables / shard access: node doesn't exist"}},
		{kind: KindCancelDone, line: 9, attrs: a{"workflow": "wf1_reverse"}},
		{kind: KindCancelStart, line: 10, attrs: a{"step": "context_invalid", "error": "context canceled"}},
		{kind: KindContextError, line: 10, attrs: a{"error": "context canceled"}},
		{kind: KindCancelFailed, line: 11, attrs: a{"step": "revert_denied_tables", "error": "Code: INTERNAL\nkeyspace src is not locked (no locksInfo)"}},
		{kind: KindCancelFailed, line: 14, attrs: a{"step": "delete_reverse_workflows", "error": "node doesn't exist"}},
		{kind: KindSwitchFailed, line: 15, attrs: a{"step": "stop_source_writes",
			"error": "failed to successfully refresh all tablets in the src/0 source shard (<nil>):\n  zone1-0000000101: timed out"}},
		{kind: KindLockTablesFailed, line: 18, attrs: a{"step": "attempt", "attempt": "1", "error": "Code: DEADLINE_EXCEEDED"}},
		{kind: KindCreateJournal, line: 19, keyspace: "dst", attrs: a{"workflow": "wf1"}},
		{kind: KindCreateJournal, line: 20, attrs: a{"step": "create_journal"}},
		{kind: KindRoutingChanged, line: 21, keyspace: "dst", table: "t1", attrs: a{"step": "deleted_routing", "tables": "t1"}},
		{kind: KindRoutingChanged, line: 22, keyspace: "src", table: "t1", attrs: a{"step": "added_routing", "tables": "t1"}},
		{kind: KindRoutingChanged, line: 23, keyspace: "dst", shard: "-80", attrs: a{"step": "deleted_shard_routing"}},
		{kind: KindRoutingChanged, line: 24, keyspace: "src", shard: "-80", attrs: a{"step": "added_shard_routing"}},
		{kind: KindRoutingChanged, line: 25, keyspace: "dst", attrs: a{"step": "routing_updated", "workflow": "wf1"}},
		{kind: KindFreeze, line: 26, attrs: a{"workflow": "wf1", "keyspace": ""}},
		{kind: KindFreeze, line: 27, keyspace: "dst", attrs: a{"workflow": "wf1"}},
		{kind: KindSwitchDone, line: 28, keyspace: "dst", attrs: a{"step": "switch_writes", "workflow": "wf1"}},
		{kind: KindSwitchDone, line: 29, keyspace: "dst", attrs: a{"step": "switch_writes", "workflow": "wf1"}},
		{kind: KindSwitchDone, line: 30, keyspace: "dst", attrs: a{"step": "switch_traffic", "workflow": "wf1"}},
		{kind: KindSwitchStart, line: 31, attrs: a{"step": "resume_writes"}},
		{kind: KindWaitCatchup, line: 32},
		{kind: KindCreateReverse, line: 33},
		{kind: KindSwitchStart, line: 34, keyspace: "src", attrs: a{"step": "lock_keyspace", "action": "SwitchWrites"}},
		{kind: KindSwitchFailed, line: 35, attrs: a{"step": "switch_denied_tables", "level": "W", "error": "deadline exceeded: keyspaces/dst/shards/-80/Shard"}},
		{kind: KindSwitchDone, line: 36, keyspace: "dst", attrs: a{"step": "reverse_traffic", "workflow": "wf1"}},
	})
}

// The tablets' side of denied tables: vttablet applying the shard record,
// and queries refused because of it, as vttablet and vtgate log them.
func TestVtctldDeniedTables(t *testing.T) {
	origin := forensics.Origin{Path: "vttablet.INFO", Name: "vttablet.INFO", Node: "zone1-0000000200", ModTime: time.Date(2024, 12, 3, 0, 0, 0, 0, time.UTC)}
	check(t, VtctldLogFormat, origin, lines(
		"I1202 16:41:55.900000       1 tm_state.go:403] Denying tables t1, t2",                             // 1
		"I1202 16:41:55.900001       1 tm_state.go:338] Blacklisting tables t1",                            // 2 (≤ v11)
		"W1202 16:41:55.900002       1 tm_state.go:328] Cannot update denied tables rule: no tables match", // 3
		"E1202 16:45:01.000000       1 tabletserver.go:1570] Code: FAILED_PRECONDITION",                    // 4
		"disallowed due to rule: enforce denied tables (CallerID: app)",                                    // 5
		"I1202 16:45:02.000000       1 logger.go:84] Error: target: dst.-80.primary: vttablet: rpc error: code = FailedPrecondition desc = disallowed due to rule: enforce denied tables (CallerID: app)", // 6
		"I1202 16:45:03.000000       1 logger.go:84] Error: disallowed due to rule: enforce blacklisted tables",                                                                                           // 7
		// Near misses: another rule, and the denied tables of a dry run report.
		"I1202 16:45:05.000000       1 logger.go:84] Error: disallowed due to rule: enforce query rules",                        // 8
		"I1202 16:45:06.000000       1 switcher_dry_run.go:432] Denied tables records on [t1,t2] will be removed from: [src/0]", // 9
	), []want{
		{kind: KindDeniedTables, line: 1, time: "2024-12-02T16:41:55.9Z", attrs: a{"step": "deny", "tables": "t1,t2"}},
		{kind: KindDeniedTables, line: 2, table: "t1", attrs: a{"step": "deny", "tables": "t1"}},
		{kind: KindDeniedTables, line: 3, attrs: a{"step": "update_failed", "error": "no tables match"}},
		{kind: KindDeniedTables, line: 4, attrs: a{"step": "query_denied", "keyspace": ""}},
		{kind: KindDeniedTables, line: 6, keyspace: "dst", shard: "-80", attrs: a{"step": "query_denied", "tablet_type": "primary"}},
		{kind: KindDeniedTables, line: 7, attrs: a{"step": "query_denied"}},
	})
}

// Lines that must not be events: other lock actions, other workflows'
// chatter, a context word that is not a context error, and text that
// only looks like a glog header.
func TestVtctldNearMisses(t *testing.T) {
	res := parsertest.Parse(VtctldLogFormat, forensics.Origin{Name: "vtctld.log"}, []byte(lines(
		"I1202 16:41:55.004512       1 locks.go:165] Locking keyspace src for action RebuildKeyspaceGraph with options: {lockType:0 ttl:30s}",
		"I1202 16:41:55.004513       1 locks.go:165] Locking named dst/wf1 for action WorkflowDelete with options: {lockType:0 ttl:0s}",
		"I1202 16:41:55.004514       1 locks.go:165] Locking shard dst/-80 for action RefreshState with options: {lockType:0 ttl:30s}",
		"I1202 16:41:55.210000       1 locks.go:217] Unlocking keyspace src for successful action SwitchWrites",
		"I1202 16:41:55.210001       1 locks.go:214] Unlocking keyspace src for action MoveTablesCreate with error table t1 not found",
		"I1202 16:41:55.300000       1 server.go:1142] Found tables to move: t1,t2",
		"I1202 16:41:55.300001       1 server.go:3720] Migrating streams",
		"I1202 16:41:55.300002       1 vreplicator.go:200] stream 1: context for the copy phase",
		"I1202 16:41:55.300003       1 server.go:2808] Writes already switched no need to check lag for the dst.wf1 workflow",
		"E1202 16:41:55.300004       1 server.go:3680] something else failed to execute LOCK TABLES (attempt 1 of 2) on sources: x",
		"I1202 16:41:55.300005       1 server.go:3680] failed to execute LOCK TABLES (attempt 1 of 2) on sources: logged at info is not handleError",
		"stopping source writes",
		"Stopping source writes",
		"I180213 10:21:36.579420 1234 storage/replica.go:123  [n1,s1] Stopping source writes",
	)))
	if len(res.Errors) > 0 || res.EndErr != nil {
		t.Errorf("unexpected errors: %v %v", res.Errors, res.EndErr)
	}
	for _, e := range res.Events {
		t.Errorf("unexpected %s on line %d: %s", e.Kind, e.Line, e.Text)
	}
}

func TestVtctldBadHeaders(t *testing.T) {
	res := parsertest.Parse(VtctldLogFormat, forensics.Origin{Name: "vtctld.log"}, []byte(lines(
		"I1202 16:41:55.004512       1 server.go:3662] Stopping source writes",
		"I1202 16:41:5", // truncated
		"E1302 16:41:55.004512       1 server.go:3662] x",           // month 13
		"W1202 16:41:55.004512    x1 server.go:3662] bad thread id", // not a thread id (none at all is a logutil event)
		"I1202 16:41:55.004512       1 server.go 3662 no caller",    // no file:line]
		"I1202 16:41:55.004512       1 server.go:3668] Stopping streams",
	)))
	var got []int64
	for _, e := range res.Errors {
		got = append(got, e.Line)
		if msg := e.Err.Error(); msg == "" || msg[0] < 'a' || msg[0] > 'z' {
			t.Errorf("line %d: error %q is not a lowercase sentence", e.Line, msg)
		}
	}
	if want := []int64{2, 3, 4, 5}; !equal(got, want) {
		t.Errorf("errors on lines %v, want %v (%v)", got, want, res.Errors)
	}
	if kinds := res.Kinds(); len(kinds) != 2 || kinds[0] != KindStopSourceWrites || kinds[1] != KindStopStreams {
		t.Errorf("kinds %v", kinds)
	}
	// A bad header starts no entry: the event before it keeps its own text.
	if res.Events[0].Text != "I1202 16:41:55.004512       1 server.go:3662] Stopping source writes" {
		t.Errorf("text %q", res.Events[0].Text)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The year of glog lines: from the header, from the file's time, and across
// New Year.
func TestVtctldYear(t *testing.T) {
	cases := []struct {
		name    string
		modTime time.Time
		input   string
		want    []string
	}{
		{
			name:    "header, across new year",
			modTime: time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC), // the header wins
			input: lines(
				"Log file created at: 2024/12/31 23:59:00",
				"I1231 23:59:59.900000       1 server.go:3662] Stopping source writes",
				"I0101 00:00:00.100000       1 server.go:3668] Stopping streams",
				"I1231 23:59:59.950000       1 server.go:3662] Stopping source writes",
				"I0101 00:00:01.000000       1 server.go:3668] Stopping streams",
			),
			want: []string{"2024-12-31T23:59:59.9Z", "2025-01-01T00:00:00.1Z", "2024-12-31T23:59:59.95Z", "2025-01-01T00:00:01Z"},
		},
		{
			name:    "modification time in January, lines in December",
			modTime: time.Date(2025, 1, 2, 8, 0, 0, 0, time.UTC),
			input: lines(
				"I1230 10:00:00.000000       1 server.go:3662] Stopping source writes",
				"I0102 07:00:00.000000       1 server.go:3668] Stopping streams",
			),
			want: []string{"2024-12-30T10:00:00Z", "2025-01-02T07:00:00Z"},
		},
		{
			name:    "modification time in the same year",
			modTime: time.Date(2024, 12, 3, 0, 0, 0, 0, time.UTC),
			input:   lines("I1202 16:41:55.421000       1 server.go:3662] Stopping source writes"),
			want:    []string{"2024-12-02T16:41:55.421Z"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := parsertest.Parse(VtctldLogFormat, forensics.Origin{Name: "vtctld.log", ModTime: c.modTime}, []byte(c.input))
			if len(res.Events) != len(c.want) {
				t.Fatalf("got %d events, want %d", len(res.Events), len(c.want))
			}
			for i, e := range res.Events {
				if got := e.Time.Format(time.RFC3339Nano); got != c.want[i] {
					t.Errorf("event %d: %s, want %s", i, got, c.want[i])
				}
				if e.Zone != forensics.ZoneAssumed {
					t.Errorf("event %d: zone %v", i, e.Zone)
				}
			}
		})
	}
}

func TestDetectGlog(t *testing.T) {
	cases := []struct {
		name, head string
		min, max   int
	}{
		{"vtctld with header", reverseTrafficLog, 80, 100},
		{"vttablet to stderr", lines(
			"I0121 13:35:09.379272       1 mysqld.go:329] Mysqld.Shutdown",
			"I0121 13:35:14.420687       1 backup.go:413] found 132 files to backup",
			"E0121 13:58:54.605921       1 engine.go:185] periodic schema reload failed"), 80, 100},
		{"another glog program", lines(
			"I0121 13:35:09.379272   12345 main.go:29] starting",
			"I0121 13:35:09.379273   12345 main.go:30] listening",
			"I0121 13:35:09.379274   12345 main.go:31] ready"), 1, 79},
		{"cockroach v1 log", "I180213 10:21:36.579420 1234 storage/replica.go:123  [n1,s1] hello\n", 0, 0},
		{"json", `{"rules": []}` + "\n", 0, 0},
		{"prose", "SwitchTraffic was successful for workflow dst.wf1\n", 0, 0},
	}
	for _, c := range cases {
		if got := logScore("x.log", []byte(c.head)); got < c.min || got > c.max {
			t.Errorf("%s: score %d, want %d..%d", c.name, got, c.min, c.max)
		}
	}
}

func TestVtctldHugeLine(t *testing.T) {
	long := "E1202 16:42:25.300100       1 traffic_switcher.go:1350] Error executing LOCK TABLES `t1` READ on source tablet x: " + strings.Repeat("context deadline exceeded ", 1<<16)
	res := parsertest.Parse(VtctldLogFormat, forensics.Origin{Name: "vtctld.log"}, []byte(long+"\n"+strings.Repeat(" ", 1<<17)+"\n"))
	if len(res.Events) != 2 || len(res.Events[0].Text) > maxEntry {
		t.Errorf("got %d events, text of %d bytes", len(res.Events), len(res.Events[0].Text))
	}
}

// A line that is not an event costs no allocation.
func TestVtctldNoAllocation(t *testing.T) {
	p := VtctldLogFormat.New(forensics.Origin{Name: "vtctld.log", ModTime: time.Date(2024, 12, 3, 0, 0, 0, 0, time.UTC)})
	noise := [][]byte{
		[]byte("I1202 16:41:55.980000       1 tablet_picker.go:218] tablet picker: no healthy tablets in cell zone1"),
		[]byte("W1202 16:42:10.100000       1 healthcheck.go:349] health check stream error on tablet zone1-0000000200: rpc error: code = Unavailable"),
		[]byte("E1202 16:42:10.200000       1 vtctld.go:122] failed to refresh tablet zone1-0000000200: connection refused"),
		[]byte("vitess.io/vitess/go/vt/vtctl/workflow.(*Server).switchWrites"),
		[]byte("I1202 16:41:55.300001       1 locks.go:165] Locking keyspace src for action RebuildKeyspaceGraph with options: {lockType:0 ttl:30s}"),
		[]byte("I1202 16:41:55.300002       1 vreplicator.go:200] stream 1: context for the copy phase"),
	}
	emit := func(e *forensics.Event) { t.Fatalf("unexpected event %s", e.Kind) }
	for i, l := range noise { // warm the entry buffer
		p.Line(int64(i+1), l, emit)
	}
	n := int64(len(noise))
	allocs := testing.AllocsPerRun(100, func() {
		for _, l := range noise {
			n++
			p.Line(n, l, emit)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations for %d lines without events", allocs, len(noise))
	}
}

// The wait for the target's streams to reach the source's position, in the
// wording of each release: v8's wrangler (vitessio/vitess#6951), the stream
// migrator's, and v13+'s "Before Catchup".
func TestCatchupLines(t *testing.T) {
	in := readField(t, "vtctld-6951-switch-writes-v8.log") + lines(
		"I1023 20:38:51.100000   27771 traffic_switcher.go:745] position for keyspace:shard: profiles:0 reached",
		"I0611 09:10:00.000000       1 stream_migrator.go:520] Waiting for keyspace:shard: customer:-80, position MySQL56/5c2e9a7a-0001:1-7734",
		"I0611 09:10:01.000000       1 stream_migrator.go:525] Position for keyspace:shard: customer:-80 reached",
		"I0611 09:10:02.000000       1 traffic_switcher.go:1090] Before Catchup: waiting for keyspace:shard: customer:80- to reach source position MySQL56/5c2e9a7a-0001:1-7734, uid 1",
		"I0611 09:10:02.100000       1 traffic_switcher.go:1097] After catchup: position for keyspace:shard: customer:80- reached, uid 1",
	)
	check(t, VtctldLogFormat, forensics.Origin{Name: "vtctld.INFO", ModTime: time.Date(2020, 10, 24, 0, 0, 0, 0, time.UTC)}, in, []want{
		{kind: KindSwitchStart, line: 1, keyspace: "sharded_by_profile"},
		{kind: KindSwitchStart, line: 2, keyspace: "profiles"},
		{kind: KindSwitchStart, line: 3},
		{kind: KindWaitCatchup, line: 8, keyspace: "profiles", shard: "0", attrs: a{"step": "wait_position"}},
		{kind: KindWaitCatchup, line: 9, keyspace: "profiles", shard: "0", attrs: a{"step": "position_reached"}},
		{kind: KindWaitCatchup, line: 10, keyspace: "customer", shard: "-80", attrs: a{"step": "wait_position"}},
		{kind: KindWaitCatchup, line: 11, keyspace: "customer", shard: "-80", attrs: a{"step": "position_reached"}},
		{kind: KindWaitCatchup, line: 12, keyspace: "customer", shard: "80-", attrs: a{"step": "wait_position"}},
		{kind: KindWaitCatchup, line: 13, keyspace: "customer", shard: "80-", attrs: a{"step": "position_reached"}},
	})
}
