package vitess

import (
	"os"
	"testing"

	"forensics"
)

// OnlineDDL show --json, as v21 prints it (status by name) and as a release
// whose MarshalJSON used enum numbers prints it (status 6).
func TestSchemaMigrations(t *testing.T) {
	b, err := os.ReadFile("../../rules/onlineddlcutover/vitess-online-ddl-cutover/cutover-never-catches-up/snapshot-20250403T123000Z/onlineddl_show_commerce.json")
	if err != nil {
		t.Fatal(err)
	}
	origin := forensics.Origin{Path: "snapshot-20250403T123000Z/onlineddl_show_commerce.json", Name: "onlineddl_show_commerce.json"}
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
