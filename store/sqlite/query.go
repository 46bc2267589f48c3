package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"
	"time"

	"forensics"
	"forensics/store"
)

// sourceSelect reads the sources table; a timeline written before sources
// had a release column reads "" for it.
func (db *DB) sourceSelect() string {
	release := "release"
	if !db.hasRelease {
		release = "''"
	}
	return `SELECT id, key, path, node, format, component, ` + release + `, bytes, lines, events, plain, skipped, errors, first_ns, last_ns, problems FROM main.sources`
}

func scanSources(rows *sql.Rows) ([]forensics.Source, error) {
	defer rows.Close()
	var out []forensics.Source
	for rows.Next() {
		var s forensics.Source
		var first, last sql.NullInt64
		var problems string
		if err := rows.Scan(&s.ID, &s.Key, &s.Path, &s.Node, &s.Format, &s.Component, &s.Release, &s.Bytes, &s.Lines, &s.Events, &s.Plain, &s.Skipped, &s.Errors, &first, &last, &problems); err != nil {
			return nil, err
		}
		if first.Valid {
			s.First = time.Unix(0, first.Int64).UTC()
			s.Last = time.Unix(0, last.Int64).UTC()
		}
		s.Problems = store.ParseProblems(problems)
		out = append(out, s)
	}
	return out, rows.Err()
}

// Sources returns the complete sources of a run (all of them when run is 0), by path.
func (db *DB) Sources(ctx context.Context, run int64) ([]forensics.Source, error) {
	q := db.sourceSelect() + ` WHERE complete = 1`
	var args []any
	if run != 0 {
		q += ` AND id IN (SELECT source_id FROM main.run_sources WHERE run_id = ?)`
		args = append(args, run)
	}
	rows, err := db.sql.QueryContext(ctx, q+` ORDER BY path`, args...)
	if err != nil {
		return nil, err
	}
	return scanSources(rows)
}

// where builds the WHERE clause and its arguments.
func eventWhere(f store.EventFilter) (string, []any) {
	var w where
	w.sources(f.Run, f.Components, f.Paths)
	store.EventConds(w.add, func(col string, vals []string) { in(&w, col, vals) }, f)
	if f.Text != "" {
		w.add("(e.text IS NULL OR instr(e.text, ?) > 0)", f.Text) // see events
	}
	return w.String(), w.args
}

// Events returns a cursor over the events the filter selects, in timeline
// order. Rows are scanned as the cursor advances; each event is a new one.
func (db *DB) Events(ctx context.Context, f store.EventFilter) iter.Seq2[*forensics.Event, error] {
	return func(yield func(*forensics.Event, error) bool) {
		err := db.events(ctx, f, func(e *forensics.Event) bool { return yield(e, nil) })
		if err != nil {
			yield(nil, err)
		}
	}
}

// events calls fn for each event the filter selects until fn returns false.
func (db *DB) events(ctx context.Context, f store.EventFilter, fn func(*forensics.Event) bool) error {
	if db.schema >= 3 {
		return db.blockEvents(ctx, f, fn)
	}
	// The text of most events is in their line's block, not in the row:
	// a text filter is applied here, after the text is given back, and so
	// are the limit and offset it would otherwise shift.
	text, limit, offset := f.Text, f.Limit, f.Offset
	if text != "" {
		f.Limit, f.Offset = 0, 0
	}
	where, args := eventWhere(f)
	q := `SELECT e.source_id, s.path, e.line, e.t, e.tz, e.zone, e.node, e.kind, e.bucket, e.vb, e.range_id, e.keyspace, e.shard, e.tbl, e.attrs, e.text
		FROM main.events e JOIN main.sources s ON s.id = e.source_id WHERE ` + where + ` ORDER BY e.t, s.path, e.line, e.id`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, f.Offset)
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("query events: %w", err)
	}
	defer rows.Close()
	lines := lineTexts{db: db, ctx: ctx}
	var attrs sql.RawBytes
	for rows.Next() {
		var e forensics.Event
		var src, t int64
		var zone int
		var kind string
		var bucket, keyspace, shard, table, etext sql.NullString
		var vb, rng sql.NullInt64
		if err := rows.Scan(&src, &e.Path, &e.Line, &t, &e.Offset, &zone, &e.Node, &kind, &bucket, &vb, &rng, &keyspace, &shard, &table, &attrs, &etext); err != nil {
			return err
		}
		e.Time = time.Unix(0, t).UTC()
		e.Zone = forensics.Zone(zone)
		e.Kind = forensics.Kind(kind)
		e.Bucket, e.Keyspace, e.Shard, e.Table = bucket.String, keyspace.String, shard.String, table.String
		e.VB = forensics.NoVB
		if vb.Valid {
			e.VB = int(vb.Int64)
		}
		e.Range = rng.Int64
		if e.Attrs, err = decodeAttrs(attrs); err != nil {
			return fmt.Errorf("event %s:%d: attributes: %w", e.Path, e.Line, err)
		}
		e.Text = etext.String
		if !etext.Valid {
			if e.Text, err = lines.text(src, e.Line); err != nil {
				return fmt.Errorf("event %s:%d: %w", e.Path, e.Line, err)
			}
		}
		if text != "" {
			if !strings.Contains(e.Text, text) {
				continue
			}
			if offset > 0 {
				offset--
				continue
			}
		}
		if !fn(&e) {
			return nil
		}
		if text != "" && limit > 0 {
			if limit--; limit == 0 {
				return nil
			}
		}
	}
	return rows.Err()
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		switch v := any(x).(type) {
		case forensics.Kind:
			out[i] = string(v)
		default:
			out[i] = v
		}
	}
	return out
}

// Keys returns the keys of the complete sources, to skip content already read.
func (db *DB) Keys(ctx context.Context) (map[string]bool, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT key FROM main.sources WHERE complete = 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys[k] = true
	}
	return keys, rows.Err()
}
