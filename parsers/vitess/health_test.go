package vitess

import (
	"testing"

	"forensics"
)

// vtgateLog is a vtgate's glog: replica reads of commerce/-80 fail for want
// of a healthy replica (the error as vitessio/vitess#15632 quotes it,
// logged by vtgate.go through the Execute throttled logger), a planned
// reparent of commerce/0 is buffered.
var vtgateLog = lines(
	"Log file created at: 2025/04/03 14:00:00",
	"Running on machine: vtgate-zone1-5cb4fcddcb-gnpb2",
	"Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg",
	"I0403 14:00:00.101000       1 servenv.go:100] Version: 20.0.4 (Git revision 4d8c1bb branch 'HEAD') built on Tue Jan 14 10:02:22 UTC 2025 by vitess@buildkitsandbox using go1.22.10 linux/amd64",
	`I0403 14:02:11.120033       1 vtgate.go:631] Execute: target: commerce.-80.replica: no healthy tablet available for 'keyspace:"commerce" shard:"-80" tablet_type:REPLICA', request: map[BindVariables:map[] Session:autocommit:true target_string:"@replica" Sql:select id from corder where customer_id = :vtg1]`,
	"I0403 14:02:16.000001       1 throttled.go:85] Execute: skipped 41 log messages",
	`I0403 14:03:00.500000       1 vtgate.go:631] StreamExecute: target: commerce.-80.replica: no healthy tablet available for 'keyspace:"commerce"  shard:"-80"  tablet_type:REPLICA', request: map[]`,
	"I0403 14:05:01.000100       1 shard_buffer.go:297] Starting buffering for shard: commerce/0 (window: 10s, size: 1000, max failover duration: 20s) (A failover was detected by this seen error: Code: CLUSTER_EVENT\nprimary is not serving, there is a reparent operation in progress.)",
	"I0403 14:05:03.400100       1 shard_buffer.go:560] Stopping buffering for shard: commerce/0 after: 2.4 seconds due to: a primary promotion has been detected. Draining 17 buffered requests now.",
	`I0403 14:06:00.000000       1 healthcheck.go:349] HealthCheckUpdate(Serving State): tablet: zone1-0000000101 (10.0.0.12) serving false => true for commerce/-80 (REPLICA) reason: healthCheck update`,
)

func TestVtgateNoHealthyTablet(t *testing.T) {
	origin := forensics.Origin{Path: "vtgate-zone1/vtgate.vtgate-zone1-5cb4fcddcb-gnpb2.vitess.log.INFO.20250403-140000.1", Name: "vtgate.vtgate-zone1-5cb4fcddcb-gnpb2.vitess.log.INFO.20250403-140000.1"}
	if s := VtgateLogFormat.Detect(origin.Name, []byte(vtgateLog)); s == 0 {
		t.Fatal("a vtgate glog file is not taken for vtgate's")
	}
	if s := VtctldLogFormat.Detect(origin.Name, []byte(vtgateLog)); s != 0 {
		t.Fatalf("a vtgate glog file is taken for vtctld's (%d)", s)
	}
	// Without its name, vtgate's own source files tell.
	if s := VtgateLogFormat.Detect("INFO", []byte(vtgateLog)); s == 0 {
		t.Fatal("an unnamed vtgate glog file is not taken for vtgate's")
	}
	check(t, VtgateLogFormat, origin, vtgateLog, []want{
		{kind: KindNoHealthyTablet, line: 5, time: "2025-04-03T14:02:11.120033Z", keyspace: "commerce", shard: "-80", attrs: a{"tablet_type": "REPLICA", "caller": "vtgate.go:631"}},
		{kind: KindNoHealthyTablet, line: 7, keyspace: "commerce", shard: "-80", attrs: a{"tablet_type": "REPLICA"}},
		{kind: KindBuffering, line: 8, keyspace: "commerce", shard: "0", attrs: a{"step": "start", "error": "Code: CLUSTER_EVENT"}},
		{kind: KindBuffering, line: 10, keyspace: "commerce", shard: "0", attrs: a{"step": "stop", "seconds": "2.4", "buffered": "17", "reason": "a primary promotion has been detected"}},
	})
}

// vttabletHealthLog is a replica of commerce/-80 whose replication stops,
// as v19 logs it (state_manager.go), then recovers.
var vttabletHealthLog = lines(
	"Log file created at: 2025/04/03 13:50:00",
	"I0403 13:50:00.200000       1 servenv.go:100] Version: 19.0.7 (Git revision 2d2d8e0 branch 'HEAD') built on Wed Oct 30 08:45:10 UTC 2024 by vitess@buildkitsandbox using go1.22.8 linux/amd64",
	"I0403 13:50:02.000000       1 state_manager.go:433] TabletServer transition: REPLICA: Not Serving -> REPLICA: Serving for tablet zone1:commerce/-80",
	"I0403 14:01:58.000120       1 state_manager.go:680] Going unhealthy due to replication error: replication is not running",
	"I0403 14:01:58.100000       1 state_manager.go:433] TabletServer transition: REPLICA: Serving -> REPLICA: Not Serving for tablet zone1:commerce/-80",
	"I0403 14:20:01.000000       1 state_manager.go:688] Going unhealthy due to high replication lag: 2h0m3s",
	"I0403 14:25:00.000000       1 state_manager.go:693] Replication is healthy",
	`{"time":"2025-04-03T14:30:00.007Z","level":"INFO","source":{"function":"vitess.io/vitess/go/vt/vttablet/tabletserver.(*stateManager).refreshReplHealthLocked","file":"/vt/src/vitess.io/vitess/go/vt/vttablet/tabletserver/state_manager.go","line":688},"msg":"Going unhealthy due to high replication lag: 45s"}`,
)

func TestVttabletHealth(t *testing.T) {
	origin := forensics.Origin{Path: "commerce-x-80-replica-1/vttablet.INFO", Name: "vttablet.INFO"}
	check(t, VttabletLogFormat, origin, vttabletHealthLog, []want{
		{kind: KindTabletHealth, line: 3, keyspace: "commerce", shard: "-80", attrs: a{"health": "serving", "serving": "true", "tablet_type": "REPLICA"}},
		{kind: KindTabletHealth, line: 4, keyspace: "commerce", shard: "-80", attrs: a{"health": "replication_error", "error": "replication is not running", "tablet_type": "REPLICA"}},
		{kind: KindTabletHealth, line: 5, keyspace: "commerce", shard: "-80", attrs: a{"health": "not_serving", "serving": "false"}},
		{kind: KindTabletHealth, line: 6, keyspace: "commerce", shard: "-80", attrs: a{"health": "high_lag", "lag": "2h0m3s"}},
		{kind: KindTabletHealth, line: 7, keyspace: "commerce", shard: "-80", attrs: a{"health": "healthy"}},
		{kind: KindTabletHealth, line: 8, time: "2025-04-03T14:30:00.007Z", keyspace: "commerce", shard: "-80", attrs: a{"health": "high_lag", "lag": "45s"}},
	})
}

// vttabletPoolLog is a primary whose transaction pool fills: the first
// refusal, the throttled logger's count (the grammar of
// vitessio/vitess#1873's "TxPoolFull: skipped 33 log messages"), and the
// transactions that held the pool, logged as they end (tab-separated).
var vttabletPoolLog = lines(
	"Log file created at: 2025/04/03 09:00:00",
	"I0403 09:00:00.900000       1 tm_state.go:198] Changing Tablet Type: PRIMARY for zone1-0000000100",
	"I0403 09:00:01.000000       1 state_manager.go:433] TabletServer transition: PRIMARY: Not Serving, Jan 1, 1970 at 00:00:00 (UTC) -> PRIMARY: Serving, Apr 3, 2025 at 09:00:01 (UTC) for tablet zone1:commerce/0",
	`E0403 10:12:33.123456       1 tabletserver.go:1602] TxPoolFull: transaction pool connection limit exceeded: Sql: "begin", BindVars: {}`,
	"E0403 10:13:33.200000       1 throttled.go:85] TxPoolFull: skipped 214 log messages",
	"I0403 10:13:40.000001       1 stateful_connection.go:297] Logged transaction: 1743671500000000001\t'orders-api'\t'orders'\tApr  3 10:11:02.000001\tApr  3 10:13:40.000001\t158.000000\tcommit\tbegin;update corder set status = :vtg1 where order_id = :vtg2;commit\t",
	"W0403 10:14:02.000000       1 tx_pool.go:139] killing transaction (exceeded timeout: 30s): 1743671500000000007\t'batch'\t'batch'\tApr  3 10:13:31.000000\tApr  3 10:14:02.000000\t31.000000\t\tbegin;select * from customer for update\t",
)

func TestVttabletTxPool(t *testing.T) {
	origin := forensics.Origin{Path: "commerce-0-primary/vttablet.ERROR", Name: "vttablet.ERROR"}
	check(t, VttabletLogFormat, origin, vttabletPoolLog, []want{
		{kind: KindTabletType, line: 2, attrs: a{"tablet_type": "PRIMARY", "tablet": "zone1-0000000100"}},
		{kind: KindTabletHealth, line: 3, keyspace: "commerce", shard: "0", attrs: a{"health": "serving", "tablet_type": "PRIMARY", "tablet": "zone1-0000000100"}},
		{kind: KindTxPoolFull, line: 4, keyspace: "commerce", shard: "0", attrs: a{"error": `transaction pool connection limit exceeded: Sql: "begin", BindVars: {}`}},
		{kind: KindTxPoolFull, line: 5, keyspace: "commerce", shard: "0", attrs: a{"skipped": "214", "tablet": "zone1-0000000100"}},
		{kind: KindTxLogged, line: 6, keyspace: "commerce", shard: "0", attrs: a{"user": "orders-api", "seconds": "158.000000", "conclusion": "commit", "queries": "begin;update corder set status = :vtg1 where order_id = :vtg2;commit"}},
		{kind: KindTxLogged, line: 7, keyspace: "commerce", shard: "0", attrs: a{"tablet": "zone1-0000000100", "user": "batch", "seconds": "31.000000", "conclusion": "killed"}},
	})
}

// onlineDDLLog is the primary of commerce/0 cutting over an Online DDL
// migration (executor.go): the first attempt times out waiting for the
// post-lock position (engine.go's error, as the migration's message), the
// second one completes.
var onlineDDLLog = lines(
	"I0403 11:00:00.000000       1 state_manager.go:433] TabletServer transition: PRIMARY: Not Serving, Jan 1, 1970 at 00:00:00 (UTC) -> PRIMARY: Serving, Apr 3, 2025 at 11:00:00 (UTC) for tablet zone1:commerce/0",
	"I0403 11:20:00.000000       1 executor.go:3978] updateMigrationStatus: transitioning migration: 2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3 into status: running",
	"I0403 11:41:02.000000       1 executor.go:3940] updateMigrationStage: uuid=2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3, stage=starting cut-over",
	"I0403 11:41:02.300000       1 executor.go:3940] updateMigrationStage: uuid=2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3, stage=waiting for post-lock pos: MySQL56/6f7a8d4c-1015-11f0-9e1b-0a43f95f28a3:1-88213",
	"E0403 11:41:12.300100       1 engine.go:886] Error waiting for pos: MySQL56/6f7a8d4c-1015-11f0-9e1b-0a43f95f28a3:1-88213, last pos: MySQL56/6f7a8d4c-1015-11f0-9e1b-0a43f95f28a3:1-87990: context deadline exceeded, wait time: 10.000112s",
	"I0403 11:41:12.300500       1 executor.go:3940] updateMigrationStage: uuid=2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3, stage=timeout while waiting for post-lock pos: error waiting for pos: MySQL56/6f7a8d4c-1015-11f0-9e1b-0a43f95f28a3:1-88213, last pos: MySQL56/6f7a8d4c-1015-11f0-9e1b-0a43f95f28a3:1-87990: context deadline exceeded, wait time: 10.000112s",
	"I0403 11:41:12.301000       1 executor.go:4052] updateMigrationMessage: uuid=2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3, message=error waiting for pos: MySQL56/6f7a8d4c-1015-11f0-9e1b-0a43f95f28a3:1-88213, last pos: MySQL56/6f7a8d4c-1015-11f0-9e1b-0a43f95f28a3:1-87990: context deadline exceeded, wait time: 10.000112s",
	"I0403 11:42:02.000000       1 executor.go:3978] updateMigrationStatus: transitioning migration: 2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3 into status: complete",
)

func TestVttabletOnlineDDL(t *testing.T) {
	origin := forensics.Origin{Path: "commerce-0-primary/vttablet.INFO", Name: "vttablet.INFO"}
	const uuid = "2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3"
	check(t, VttabletLogFormat, origin, onlineDDLLog, []want{
		{kind: KindTabletHealth, line: 1, keyspace: "commerce", shard: "0"},
		{kind: KindOnlineDDL, line: 2, keyspace: "commerce", shard: "0", attrs: a{"step": "status", "uuid": uuid, "status": "running"}},
		{kind: KindOnlineDDL, line: 3, keyspace: "commerce", shard: "0", attrs: a{"step": "cutover", "uuid": uuid, "stage": "starting cut-over"}},
		{kind: KindOnlineDDL, line: 4, keyspace: "commerce", shard: "0", attrs: a{"step": "stage", "uuid": uuid}},
		// Entries that carry a context error are also vtctld.context_error.
		{kind: KindContextError, line: 5, attrs: a{"caller": "engine.go:886", "error": "context deadline exceeded"}},
		{kind: KindOnlineDDL, line: 6, keyspace: "commerce", shard: "0", attrs: a{"step": "stage", "uuid": uuid, "wait": "10.000112s"}},
		{kind: KindContextError, line: 6, keyspace: "commerce", shard: "0"},
		{kind: KindOnlineDDL, line: 7, keyspace: "commerce", shard: "0", attrs: a{"step": "message", "uuid": uuid, "wait": "10.000112s"}},
		{kind: KindContextError, line: 7, keyspace: "commerce", shard: "0"},
		{kind: KindOnlineDDL, line: 8, keyspace: "commerce", shard: "0", attrs: a{"step": "status", "uuid": uuid, "status": "complete"}},
	})
}
