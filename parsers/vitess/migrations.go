package vitess

import (
	"fmt"
	"strings"

	"forensics"
)

// KindSchemaMigration is one Online DDL migration as `vtctldclient OnlineDDL
// show <keyspace> <uuid|all|…> --json` prints it: the GetSchemaMigrations
// answer, {"migrations": [{"uuid", "keyspace", "shard", "table", "status",
// "cutover_attempts", "stage", "message", …}]}, one migration per shard
// (go/cmd/vtctldclient/command/onlineddl.go commandOnlineDDLShow,
// cli.MarshalJSON with proto names; the status is the enum's name, or its
// number in the releases whose MarshalJSON used enum numbers).
const KindSchemaMigration forensics.Kind = "vitess.schema_migration"

var schemaMigrationDoc = forensics.KindDoc{Kind: KindSchemaMigration, Category: forensics.CategoryTopo, Label: "topology snapshot: Online DDL migration",
	Doc:   "an Online DDL migration on one shard as vtctldclient OnlineDDL show --json printed it: uuid, keyspace, shard, table, status (queued, running, complete, failed, …), cut-over attempts, stage and message",
	Attrs: attrs.Of(AttrAttempts, AttrError, AttrKeyspace, AttrShard, AttrSnapshot, AttrStage, AttrStatus, AttrTables, AttrUUID)}

// migrationStatuses are vtctldata.SchemaMigration.Status's names by number
// (proto/vtctldata.proto).
var migrationStatuses = []string{"unknown", "requested", "cancelled", "queued", "ready", "running", "complete", "failed"}

// isMigrations reports whether o is a GetSchemaMigrations answer.
func isMigrations(o object) bool {
	l, ok := o.get("migrations").([]any)
	if !ok || len(l) == 0 {
		return false
	}
	m, ok := l[0].(map[string]any)
	return ok && has(object(m), "uuid") && has(object(m), "keyspace") && has(object(m), "status")
}

// migrations emits one event per migration and shard.
func (p *snapshotParser) migrations(o object, line int64, text string, emit forensics.Emit) error {
	l, err := o.list("migrations", "$")
	if err != nil {
		return err
	}
	for i, raw := range l {
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("$.migrations[%d]: not an object", i)
		}
		mo := object(m)
		ev := p.start(KindSchemaMigration, line, text)
		ev.Keyspace, ev.Shard, ev.Table = str(mo.get("keyspace")), str(mo.get("shard")), str(mo.get("table"))
		set(ev, AttrUUID, str(mo.get("uuid")))
		set(ev, AttrKeyspace, ev.Keyspace)
		set(ev, AttrShard, ev.Shard)
		set(ev, AttrTables, ev.Table)
		set(ev, AttrStatus, migrationStatus(mo.get("status")))
		set(ev, AttrAttempts, str(mo.get("cutover_attempts")))
		set(ev, AttrStage, str(mo.get("stage")))
		set(ev, AttrError, str(mo.get("message")))
		set(ev, AttrSnapshot, p.snapshot)
		emit(ev)
	}
	return nil
}

// migrationStatus is the status in lower case, as the executor logs it.
func migrationStatus(v any) string {
	s := str(v)
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err == nil && fmt.Sprint(n) == s && n >= 0 && n < len(migrationStatuses) {
		return migrationStatuses[n]
	}
	return strings.ToLower(s)
}

// str is a scalar's text: a string, or a number kept as json.Number.
func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil, map[string]any, []any:
		return ""
	}
	return fmt.Sprint(v)
}
