package vitess

import (
	"bytes"
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

// The text forms of the migrations: `vtctldclient OnlineDDL show` without
// --json (cli.WriteQueryResultTable of schematools.MarshallableSchemaMigrations)
// and `SHOW VITESS_MIGRATIONS` through the mysql client print the same
// table, one row per migration and shard, with _vt.schema_migrations'
// column names (migration_uuid, keyspace, shard, mysql_table,
// migration_status, cutover_attempts, stage, message, …).
var migrationHeader = []byte("| migration_uuid ")

// isMigrationHeader reports whether line is the table's header row.
func isMigrationHeader(line []byte) bool {
	return bytes.HasPrefix(line, []byte("| ")) && bytes.Contains(line, migrationHeader) && bytes.Contains(line, []byte("| migration_status "))
}

// tableCells splits a row "| a | b |" into its trimmed cells.
func tableCells(line []byte) []string {
	line = bytes.TrimSpace(line)
	if len(line) < 2 || line[0] != '|' || line[len(line)-1] != '|' {
		return nil
	}
	parts := strings.Split(string(line[1:len(line)-1]), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// migrationTable reads the table whose first border is at pos, and
// returns where reading resumes.
func (p *snapshotParser) migrationTable(s *lineIndex, pos int, emit forensics.Emit) (int, bool) {
	end := lineEnd(p.buf, pos)
	if !bytes.HasPrefix(p.buf[pos:end], []byte("+-")) || end+1 >= len(p.buf) {
		return 0, false
	}
	hEnd := lineEnd(p.buf, end+1)
	header := p.buf[end+1 : hEnd]
	if !isMigrationHeader(header) {
		return 0, false
	}
	cols := map[string]int{}
	for i, c := range tableCells(header) {
		cols[c] = i
	}
	get := func(cells []string, name string) string {
		if i, ok := cols[name]; ok && i < len(cells) {
			if v := cells[i]; v != "NULL" {
				return v
			}
		}
		return ""
	}
	next := hEnd + 1
	for next < len(p.buf) {
		e := lineEnd(p.buf, next)
		row := p.buf[next:e]
		if bytes.HasPrefix(row, []byte("+-")) {
			next = e + 1
			continue
		}
		cells := tableCells(row)
		if cells == nil {
			break
		}
		ev := p.start(KindSchemaMigration, s.lineOf(next), string(row))
		ev.Keyspace, ev.Shard, ev.Table = get(cells, "keyspace"), get(cells, "shard"), get(cells, "mysql_table")
		set(ev, AttrUUID, get(cells, "migration_uuid"))
		set(ev, AttrKeyspace, ev.Keyspace)
		set(ev, AttrShard, ev.Shard)
		set(ev, AttrTables, ev.Table)
		set(ev, AttrStatus, migrationStatus(get(cells, "migration_status")))
		set(ev, AttrAttempts, get(cells, "cutover_attempts"))
		set(ev, AttrStage, get(cells, "stage"))
		set(ev, AttrError, get(cells, "message"))
		set(ev, AttrSnapshot, p.snapshot)
		emit(ev)
		next = e + 1
	}
	return min(next, len(p.buf)), true
}
