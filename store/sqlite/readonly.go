package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

// The read-only drivers open connections for queries. Each connection is
// opened read-only (mode=ro), cannot attach another file, and is switched
// to query_only, so a query can neither change the timeline nor write
// anywhere else. A connection of sqlDriver, for the queries a user writes
// (QuerySQL), also gets the documented views as temporary views (which
// shadow the tables of the same name) and the functions they call. The
// program's own queries name main's tables and use neither: making the
// views took a millisecond of every connection, and a search opens one a
// core.
const (
	readOnlyDriver = "sqlite3-forensics-readonly"
	sqlDriver      = "sqlite3-forensics-sql"
)

var registerReadOnly = sync.OnceFunc(func() {
	sql.Register(readOnlyDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error { return readOnlyConn(c, false) }})
	sql.Register(sqlDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error { return readOnlyConn(c, true) }})
})

func readOnlyConn(c *sqlite3.SQLiteConn, views bool) error {
	if err := guardConn(c); err != nil {
		return err
	}
	c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	if views {
		for name, fn := range map[string]any{
			"forensics_time":        store.TimeText,
			"forensics_block_lines": blockLinesJSON,
			"forensics_attrs":       attrsJSON,
			"forensics_line":        new(blockLine).text,
			"forensics_event_block": eventBlockJSON,
		} {
			if err := c.RegisterFunc(name, fn, true); err != nil {
				return err
			}
		}
		release, err := releaseColumn(c)
		if err != nil {
			return err
		}
		blocks, err := eventsInBlocks(c)
		if err != nil {
			return err
		}
		if _, err := c.Exec(viewsSQL(release, blocks), nil); err != nil {
			return fmt.Errorf("create views: %w", err)
		}
	}
	if _, err := c.Exec(`PRAGMA query_only = 1`, nil); err != nil {
		return err
	}
	c.RegisterAuthorizer(refuseWritingPragmas)
	return nil
}

// writingPragmas change the database file or the connection: through
// --sql they would fail deep in SQLite ("disk I/O error: bad file
// descriptor" for journal_mode on a read-only connection) or undo the
// read-only guard (query_only). They are refused up front.
var writingPragmas = map[string]bool{
	"journal_mode": true, "wal_checkpoint": true, "locking_mode": true, "writable_schema": true,
	"query_only": true, "synchronous": true, "page_size": true, "auto_vacuum": true,
	"incremental_vacuum": true, "optimize": true, "schema_version": true, "user_version": true,
	"application_id": true, "journal_size_limit": true, "foreign_keys": true, "secure_delete": true,
	"cache_spill": true, "temp_store": true, "mmap_size": true, "wal_autocheckpoint": true,
}

// alwaysWriting are pragmas that act even without an argument.
var alwaysWriting = map[string]bool{"wal_checkpoint": true, "incremental_vacuum": true, "optimize": true}

func refuseWritingPragmas(op int, arg1, arg2, _ string) int {
	if op == sqlite3.SQLITE_PRAGMA {
		name := strings.ToLower(arg1)
		if writingPragmas[name] && (arg2 != "" || alwaysWriting[name]) {
			return sqlite3.SQLITE_DENY
		}
	}
	return sqlite3.SQLITE_OK
}

// blockLinesJSON decodes a block for the lines view, as a JSON array of
// [line, t, tz, zone, text] arrays that json_each can walk.
func blockLinesJSON(data []byte, firstLine int64) (string, error) {
	type row [5]any
	var rows []row
	err := block.Decode(firstLine, data, func(l *block.Line) error {
		rows = append(rows, row{l.N, l.Time, l.Offset, int(l.Flags.Zone), string(l.Text)})
		return nil
	})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(rows)
	return string(b), err
}

// blockLine is the events view's forensics_line: the text of an event kept
// only in its line's block. A query reads events in order, so the block
// decoded last is kept, for the next event on it.
type blockLine struct {
	lt lineTexts
}

func (bl *blockLine) text(id int64, data []byte, firstLine, n int64) (string, error) {
	for _, b := range bl.lt.blocks {
		if b.src == id {
			if t, ok := b.line(n); ok {
				return string(t), nil
			}
		}
	}
	b, err := bl.lt.decode(id, firstLine, data)
	if err != nil {
		return "", err
	}
	t, _ := b.line(n)
	return string(t), nil
}

const zoneName = `CASE %s WHEN 0 THEN 'logged' WHEN 1 THEN 'utc' WHEN 2 THEN 'assumed-utc' ELSE 'inherited' END`

// releaseColumn is what the sources view reads as release: the column, or
// ” in a timeline written before it existed.
func releaseColumn(c *sqlite3.SQLiteConn) (string, error) {
	rows, err := c.Query(`SELECT name FROM pragma_table_info('sources', 'main') WHERE name = 'release'`, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	if rows.Next(make([]driver.Value, 1)) == nil {
		return "release", nil
	}
	return "''", nil
}

// eventsInBlocks reports whether the timeline keeps its events in blocks
// (schema 3 and later).
func eventsInBlocks(c *sqlite3.SQLiteConn) (bool, error) {
	rows, err := c.Query(`SELECT value FROM main.meta WHERE key = 'schema'`, nil)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if rows.Next(v) != nil {
		return false, nil
	}
	s, _ := v[0].(string)
	if b, ok := v[0].([]byte); ok {
		s = string(b)
	}
	return readsVersions[s] >= 3, nil
}

// eventBlockJSON decodes a block of events for the events view, as a JSON
// array of [line, t, tz, zone, node, kind, bucket, vb, range_id, keyspace,
// shard, tbl, attrs, text] arrays that json_each can walk. attrs is the
// JSON object as a string; text is null for an event whose text is its
// line's.
func eventBlockJSON(data []byte) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	var attrs strings.Builder
	_, err := block.DecodeEvents(data, nil, nil, func(se *block.StoredEvent) error {
		e := &se.Event
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		fmt.Fprintf(&b, "[%d,%d,%d,%d,", e.Line, e.Time.UnixNano(), e.Offset, int(e.Zone))
		store.WriteJSONString(&b, e.Node)
		b.WriteByte(',')
		store.WriteJSONString(&b, string(e.Kind))
		b.WriteByte(',')
		jsonNullString(&b, e.Bucket)
		if e.VB != forensics.NoVB {
			fmt.Fprintf(&b, ",%d,", e.VB)
		} else {
			b.WriteString(",null,")
		}
		if e.Range != 0 {
			fmt.Fprintf(&b, "%d,", e.Range)
		} else {
			b.WriteString("null,")
		}
		jsonNullString(&b, e.Keyspace)
		b.WriteByte(',')
		jsonNullString(&b, e.Shard)
		b.WriteByte(',')
		jsonNullString(&b, e.Table)
		b.WriteByte(',')
		attrs.Reset()
		store.AppendAttrsJSON(&attrs, e.Attrs)
		store.WriteJSONString(&b, attrs.String())
		b.WriteByte(',')
		if se.OnLine {
			b.WriteString("null")
		} else {
			store.WriteJSONString(&b, e.Text)
		}
		b.WriteByte(']')
		return nil
	})
	b.WriteByte(']')
	return b.String(), err
}

// jsonNullString writes s as a JSON string, or null for "" (the events
// table's NULL).
func jsonNullString(b *strings.Builder, s string) {
	if s == "" {
		b.WriteString("null")
		return
	}
	store.WriteJSONString(b, s)
}

func viewsSQL(release string, eventBlocks bool) string {
	events := eventsTable
	if eventBlocks {
		events = eventsBlocks
	}
	return fmt.Sprintf(viewsTemplate, release, events)
}

// The events view of timelines that keep events a row each (schema 1 and 2).
var eventsTable = fmt.Sprintf(`
CREATE TEMP VIEW events AS
	SELECT e.id, e.source_id, s.path AS source, e.line, forensics_time(e.t) AS time, e.t, e.tz,
		%s AS zone, e.node, e.kind, e.bucket, e.vb, e.range_id, e.keyspace, e.shard, e.tbl,
		forensics_attrs(e.attrs) AS attrs,
		coalesce(e.text, (SELECT forensics_line(b.id, b.data, b.first_line, e.line) FROM main.blocks b
			WHERE b.source_id = e.source_id AND b.first_line <= e.line ORDER BY b.first_line DESC LIMIT 1)) AS text
	FROM main.events e JOIN main.sources s ON s.id = e.source_id WHERE s.complete = 1;
`, fmt.Sprintf(zoneName, "e.zone"))

// The events view of timelines that keep events in blocks (schema 3): the
// same columns, the id numbering the events of a block after its own.
var eventsBlocks = fmt.Sprintf(`
CREATE TEMP VIEW events AS
	SELECT e.block_id * %d + e.i AS id, e.source_id, e.source, e.line, forensics_time(e.t) AS time, e.t, e.tz,
		%s AS zone, e.node, e.kind, e.bucket, e.vb, e.range_id, e.keyspace, e.shard, e.tbl, e.attrs,
		coalesce(e.text, (SELECT forensics_line(b.id, b.data, b.first_line, e.line) FROM main.blocks b
			WHERE b.source_id = e.source_id AND b.first_line <= e.line ORDER BY b.first_line DESC LIMIT 1)) AS text
	FROM (SELECT eb.id AS block_id, j.key AS i, eb.source_id, s.path AS source,
			json_extract(j.value, '$[0]') AS line, json_extract(j.value, '$[1]') AS t, json_extract(j.value, '$[2]') AS tz,
			json_extract(j.value, '$[3]') AS zone, json_extract(j.value, '$[4]') AS node, json_extract(j.value, '$[5]') AS kind,
			json_extract(j.value, '$[6]') AS bucket, json_extract(j.value, '$[7]') AS vb, json_extract(j.value, '$[8]') AS range_id,
			json_extract(j.value, '$[9]') AS keyspace, json_extract(j.value, '$[10]') AS shard, json_extract(j.value, '$[11]') AS tbl,
			json_extract(j.value, '$[12]') AS attrs, json_extract(j.value, '$[13]') AS text
		FROM main.event_blocks eb JOIN main.sources s ON s.id = eb.source_id, json_each(forensics_event_block(eb.data)) j
		WHERE s.complete = 1) e;
`, block.MaxEvents, fmt.Sprintf(zoneName, "e.zone"))

var viewsTemplate = fmt.Sprintf(`
CREATE TEMP VIEW sources AS
	SELECT id, path, node, format, component, %%s AS release, bytes, lines, events, plain, skipped, errors,
		forensics_time(first_ns) AS first, forensics_time(last_ns) AS last, first_ns, last_ns
	FROM main.sources WHERE complete = 1;
%%s
CREATE TEMP VIEW lines AS
	SELECT b.source_id, s.path AS source, s.node, json_extract(j.value, '$[0]') AS line,
		forensics_time(json_extract(j.value, '$[1]')) AS time, json_extract(j.value, '$[1]') AS t,
		json_extract(j.value, '$[2]') AS tz, %s AS zone, json_extract(j.value, '$[4]') AS text
	FROM main.blocks b JOIN main.sources s ON s.id = b.source_id,
		json_each(forensics_block_lines(b.data, b.first_line)) j
	WHERE s.complete = 1;
CREATE TEMP VIEW findings AS
	SELECT id, run_id, rule, severity, forensics_time(start_ns) AS start, forensics_time(end_ns) AS "end",
		start_ns, end_ns, json_extract(body, '$.title') AS title, body
	FROM main.findings;
`, fmt.Sprintf(zoneName, "json_extract(j.value, '$[3]')"))

// describeQuery says why a query written by the user was refused.
func describeQuery(err error) error {
	var se sqlite3.Error
	switch {
	case strings.Contains(err.Error(), "not authorized"):
		return fmt.Errorf("refused: --sql runs read-only queries, and this statement would change the timeline or the connection (%w)", err)
	case errors.As(err, &se) && se.Code == sqlite3.ErrTooBig:
		return fmt.Errorf("refused: a value of the answer is larger than %d MiB; select less of it (substr, length, a WHERE) (%w)", maxValue>>20, err)
	case errors.As(err, &se) && se.Code == sqlite3.ErrNomem:
		return fmt.Errorf("refused: the query needs more than the %d MiB forensics lets SQLite take; select less (%w)", heapLimit>>20, err)
	}
	return err
}

// QuerySQL runs a query written by the user on the read-only connection and
// calls fn with each row. The views above are the documented interface.
func (db *DB) QuerySQL(ctx context.Context, query string, args []any, fn func(cols []string, vals []any) error) error {
	if !db.readOnly {
		return fmt.Errorf("raw queries run only on a read-only timeline")
	}
	rows, err := db.user.QueryContext(ctx, query, args...)
	if err != nil {
		return describeQuery(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		if err := fn(cols, vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return describeQuery(err)
	}
	return nil
}
