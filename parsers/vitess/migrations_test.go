package vitess

import (
	"os"
	"testing"

	"forensics"
)

// OnlineDDL show --json, as v21 prints it (status by name) and as a release
// whose MarshalJSON used enum numbers prints it (status 6).
func TestSchemaMigrations(t *testing.T) {
	b, err := os.ReadFile("../../rules/onlineddlcutover/vitess-online-ddl-cutover/cutover-never-catches-up/snapshot-20260403T123000Z/onlineddl_show_commerce.json")
	if err != nil {
		t.Fatal(err)
	}
	origin := forensics.Origin{Path: "snapshot-20260403T123000Z/onlineddl_show_commerce.json", Name: "onlineddl_show_commerce.json"}
	if SnapshotFormat.Detect(origin.Name, b) == 0 {
		t.Fatal("OnlineDDL show --json is not taken for a snapshot")
	}
	const uuid = "2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3"
	check(t, SnapshotFormat, origin, string(b), []want{
		{kind: KindSchemaMigration, line: 2, keyspace: "commerce", shard: "-80", table: "corder", attrs: a{"uuid": uuid, "status": "running", "attempts": "4"}},
		{kind: KindSchemaMigration, line: 2, keyspace: "commerce", shard: "80-", table: "corder", attrs: a{"uuid": uuid, "status": "running", "attempts": "3"}},
	})
	check(t, SnapshotFormat, forensics.Origin{Name: "migrations.json"}, `{"migrations": [{"uuid": "`+uuid+`", "keyspace": "commerce", "shard": "0", "table": "corder", "status": 6, "cutover_attempts": 2, "stage": "re-enabling writes", "message": ""}]}`+"\n", []want{
		{kind: KindSchemaMigration, line: 1, keyspace: "commerce", shard: "0", table: "corder", attrs: a{"status": "complete", "attempts": "2", "stage": "re-enabling writes"}},
	})
}

// A vttablet's /debug/vars (expvar's JSON, keys sorted) with its pool full.
func TestDebugVars(t *testing.T) {
	b, err := os.ReadFile("../../rules/txpoolfull/vitess-txpool-full/pool-held-by-long-transactions/snapshot-20260403T101800Z/zone1-0000000100-debug_vars.json")
	if err != nil {
		t.Fatal(err)
	}
	origin := forensics.Origin{Path: "snapshot-20260403T101800Z/zone1-0000000100-debug_vars.json", Name: "zone1-0000000100-debug_vars.json"}
	if SnapshotFormat.Detect(origin.Name, b) == 0 {
		t.Fatal("/debug/vars is not taken for a snapshot")
	}
	// Cut by the end of the head, it is still known by its pool's keys.
	if SnapshotFormat.Detect(origin.Name, b[:len(b)/2]) == 0 {
		t.Fatal("the head of /debug/vars is not taken for a snapshot")
	}
	check(t, SnapshotFormat, origin, string(b), []want{
		{kind: KindTxPoolStats, line: 1, keyspace: "commerce", shard: "0", attrs: a{"tablet": "zone1-0000000100", "capacity": "20", "in_use": "20", "waits": "1893", "wait_seconds": "612.330998112", "rejected": "690", "killed": "0"}},
	})
	// Before the pool's InUse, Capacity − Available.
	check(t, SnapshotFormat, origin, `{"TabletKeyspace": "commerce", "TabletShard": "0", "TransactionPoolAvailable": 3, "TransactionPoolCapacity": 300}`+"\n", []want{
		{kind: KindTxPoolStats, line: 1, keyspace: "commerce", shard: "0", attrs: a{"capacity": "300", "in_use": "297"}},
	})
}

// SHOW VITESS_MIGRATIONS through the mysql client, or OnlineDDL show without
// --json: one row per shard, read by the header's column names (the table
// is cut to the columns read and their neighbours).
func TestSchemaMigrationsTable(t *testing.T) {
	const uuid = "2e4a5c0e_1015_11f0_a0d5_0a43f95f28a3"
	in := lines(
		"mysql> SHOW VITESS_MIGRATIONS LIKE '"+uuid+"';",
		"+----+--------------------------------------+----------+-------+--------------+-------------+------------------+-----------------------------------------------------+------------------+------------------+",
		"| id | migration_uuid                       | keyspace | shard | mysql_schema | mysql_table | migration_status | message                                             | stage            | cutover_attempts |",
		"+----+--------------------------------------+----------+-------+--------------+-------------+------------------+-----------------------------------------------------+------------------+------------------+",
		"|  7 | "+uuid+" | commerce | -80   | vt_commerce  | corder      | running          | error waiting for pos: …, wait time: 10.003112s     | starting cut-over|                4 |",
		"|  7 | "+uuid+" | commerce | 80-   | vt_commerce  | corder      | complete         |                                                     | re-enabling writes |              2 |",
		"+----+--------------------------------------+----------+-------+--------------+-------------+------------------+-----------------------------------------------------+------------------+------------------+",
		"2 rows in set (0.01 sec)",
	)
	origin := forensics.Origin{Name: "show_vitess_migrations.txt"}
	if SnapshotFormat.Detect(origin.Name, []byte(in)) == 0 {
		t.Fatal("the migrations table is not taken for a snapshot")
	}
	check(t, SnapshotFormat, origin, in, []want{
		{kind: KindSchemaMigration, line: 5, keyspace: "commerce", shard: "-80", table: "corder", attrs: a{"uuid": uuid, "status": "running", "attempts": "4", "stage": "starting cut-over"}},
		{kind: KindSchemaMigration, line: 6, keyspace: "commerce", shard: "80-", table: "corder", attrs: a{"status": "complete", "attempts": "2"}},
	})
}
