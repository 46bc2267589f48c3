package postgres

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"forensics"
	"forensics/store"
)

// where builds a WHERE clause whose values are all bound parameters.
type where struct {
	conds []string
	args  []any
}

// arg adds a value and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

func (w *where) add(cond string, vals ...any) {
	for _, v := range vals {
		if s, ok := v.(string); ok {
			v = pgText(s) // as the values were stored
		}
		cond = strings.Replace(cond, "?", w.arg(v), 1)
	}
	w.conds = append(w.conds, cond)
}

// in adds "col = ANY($n)" for the values, when there are any.
func in[T any](w *where, col string, vals []T) {
	if len(vals) == 0 {
		return
	}
	strs := make([]string, 0, len(vals))
	for _, v := range vals {
		strs = append(strs, pgText(fmt.Sprint(v)))
	}
	w.add(col+" = ANY(?)", strs)
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return "true"
	}
	return strings.Join(w.conds, " AND ")
}

// sources adds what events and lines are both filtered by: complete
// sources (alias s) of a run, written by one of the components, whose path
// contains one of the strings. A run names its incident, which leads the
// keys of every table the query reads.
func (db *DB) sources(ctx context.Context, w *where, run int64, components, paths []string) (incident int64, err error) {
	w.add("s.complete")
	var inc int64
	if run != 0 {
		if inc, err = db.incidentOf(ctx, run); err != nil {
			return 0, err
		}
		w.add("s.incident_id = ?", inc)
		w.add("s.id IN (SELECT source_id FROM forensics.run_sources WHERE incident_id = ? AND run_id = ?)", inc, run)
	}
	in(w, "s.component", components)
	if len(paths) > 0 {
		ors := make([]string, len(paths))
		for i, p := range paths {
			ors[i] = "strpos(s.path, " + w.arg(p) + ") > 0"
		}
		w.conds = append(w.conds, "("+strings.Join(ors, " OR ")+")")
	}
	return inc, nil
}

func scanSources(rows pgx.Rows) ([]forensics.Source, error) {
	defer rows.Close()
	var out []forensics.Source
	for rows.Next() {
		var s forensics.Source
		var first, last *int64
		var problems string
		if err := rows.Scan(&s.ID, &s.Key, &s.Path, &s.Node, &s.Format, &s.Component, &s.Release, &s.Bytes, &s.Lines, &s.Events, &s.Plain, &s.Skipped, &s.Errors, &first, &last, &problems); err != nil {
			return nil, err
		}
		if first != nil && last != nil {
			s.First = time.Unix(0, *first).UTC()
			s.Last = time.Unix(0, *last).UTC()
		}
		s.Key, s.Path, s.Node, s.Format, s.Component, s.Release = fromPG(s.Key), fromPG(s.Path), fromPG(s.Node), fromPG(s.Format), fromPG(s.Component), fromPG(s.Release)
		s.Problems = store.ParseProblems(fromPG(problems))
		out = append(out, s)
	}
	return out, rows.Err()
}

// Sources returns the complete sources of a run (all of them when run is 0), by path.
func (db *DB) Sources(ctx context.Context, run int64) ([]forensics.Source, error) {
	var w where
	if _, err := db.sources(ctx, &w, run, nil, nil); err != nil {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, `SELECT s.`+strings.ReplaceAll(sourceColumns, ", ", ", s.")+` FROM forensics.sources s WHERE `+w.String()+` ORDER BY s.path, s.id`, w.args...)
	if err != nil {
		return nil, db.fail("read sources", err)
	}
	srcs, err := scanSources(rows)
	if err != nil {
		return nil, db.fail("read sources", err)
	}
	return srcs, nil
}

// Events returns a cursor over the events the filter selects, in timeline
// order. Rows stream from the server as the cursor advances.
func (db *DB) Events(ctx context.Context, f store.EventFilter) iter.Seq2[*forensics.Event, error] {
	return func(yield func(*forensics.Event, error) bool) {
		if err := db.events(ctx, f, func(e *forensics.Event) bool { return yield(e, nil) }); err != nil {
			yield(nil, err)
		}
	}
}

func (db *DB) events(ctx context.Context, f store.EventFilter, fn func(*forensics.Event) bool) error {
	var w where
	inc, err := db.sources(ctx, &w, f.Run, f.Components, f.Paths)
	if err != nil {
		return err
	}
	if inc != 0 {
		// Repeated on e so the planner uses the events' own indexes, which all lead with it.
		w.add("e.incident_id = ?", inc)
	}
	store.EventConds(w.add, func(col string, vals []string) { in(&w, col, vals) }, f)
	if f.Text != "" {
		w.add("strpos(e.text, ?) > 0", f.Text)
	}
	q := `SELECT s.path, e.line, e.t, e.tz, e.zone, e.node, e.kind, e.bucket, e.vb, e.range_id, e.keyspace, e.shard, e.tbl, e.attrs, e.text
		FROM forensics.events e JOIN forensics.sources s ON s.incident_id = e.incident_id AND s.id = e.source_id
		WHERE ` + w.String() + ` ORDER BY e.t, s.path COLLATE "C", e.line, e.seq`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, f.Offset)
	}
	rows, err := db.pool.Query(ctx, q, w.args...)
	if err != nil {
		return db.fail("query events", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e forensics.Event
		var t int64
		var zone int16
		var kind, attrs string
		var bucket, keyspace, shard, table *string
		var vb *int32
		var rng *int64
		if err := rows.Scan(&e.Path, &e.Line, &t, &e.Offset, &zone, &e.Node, &kind, &bucket, &vb, &rng, &keyspace, &shard, &table, &attrs, &e.Text); err != nil {
			return db.fail("query events", err)
		}
		e.Time = time.Unix(0, t).UTC()
		e.Zone = forensics.Zone(zone)
		e.Kind = forensics.Kind(fromPG(kind))
		e.Path, e.Node, e.Text = fromPG(e.Path), fromPG(e.Node), fromPG(e.Text)
		e.Bucket, e.Keyspace, e.Shard, e.Table = fromPG(deref(bucket)), fromPG(deref(keyspace)), fromPG(deref(shard)), fromPG(deref(table))
		e.VB = forensics.NoVB
		if vb != nil {
			e.VB = int(*vb)
		}
		if rng != nil {
			e.Range = *rng
		}
		if e.Attrs, err = store.ParseAttrsJSON(attrs); err != nil {
			return fmt.Errorf("event %s:%d: attributes: %w", e.Path, e.Line, err)
		}
		fromPGAttrs(e.Attrs)
		if !fn(&e) {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return db.fail("query events", err)
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// LatestRun returns the id of the most recent analysis run, or 0 when there is none.
func (db *DB) LatestRun(ctx context.Context) (int64, error) {
	var id *int64
	if err := db.pool.QueryRow(ctx, `SELECT max(r.id) FROM forensics.runs r WHERE `+doneRun).Scan(&id); err != nil {
		return 0, db.fail("read", err)
	}
	if id == nil {
		return 0, nil
	}
	return *id, nil
}

// Findings returns the findings of a run (the latest when run is 0), in time order.
func (db *DB) Findings(ctx context.Context, run int64) ([]store.StoredFinding, error) {
	if run == 0 {
		var err error
		if run, err = db.LatestRun(ctx); err != nil || run == 0 {
			return nil, err
		}
	}
	inc, err := db.incidentOf(ctx, run)
	if err != nil {
		return nil, err
	}
	return db.queryFindings(ctx, `WHERE f.incident_id = $1 AND f.run_id = $2 ORDER BY f.start_ns, f.rule, f.id`, inc, run)
}

// FindingIn returns the finding of a run (of any run when run is 0, the
// most recent) whose id starts with prefix.
func (db *DB) FindingIn(ctx context.Context, run int64, prefix string) (store.StoredFinding, error) {
	prefix, err := store.IDPrefix(prefix)
	if err != nil {
		return store.StoredFinding{}, err
	}
	var w where
	w.add("left(f.id, ?) = ?", len(prefix), prefix)
	if run != 0 {
		inc, err := db.incidentOf(ctx, run)
		if err != nil {
			return store.StoredFinding{}, err
		}
		w.add("f.incident_id = ?", inc)
		w.add("f.run_id = ?", run)
	}
	// The ids first, a few: a short prefix may match thousands of rows,
	// and only one finding is read.
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT f.id FROM forensics.findings f WHERE `+w.String()+` ORDER BY f.id LIMIT 10`, w.args...)
	if err != nil {
		return store.StoredFinding{}, db.fail("read findings", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return store.StoredFinding{}, db.fail("read findings", err)
	}
	if err := store.Ambiguous(prefix, list); err != nil {
		return store.StoredFinding{}, err
	}
	fs, err := db.queryFindings(ctx, `WHERE `+w.String()+` ORDER BY f.run_id DESC LIMIT 1`, w.args...)
	if err != nil {
		return store.StoredFinding{}, err
	}
	return store.PickFinding(ctx, db, run, prefix, fs)
}

func (db *DB) queryFindings(ctx context.Context, where string, args ...any) ([]store.StoredFinding, error) {
	return store.CollectFindings(func(fn func(store.StoredFinding) error) error {
		return db.eachFinding(ctx, where, args, fn)
	})
}

// eachFinding calls fn with each finding the query selects, decoded and
// checked (store.DecodeFinding) one at a time; a body larger than a
// finding takes is not read.
func (db *DB) eachFinding(ctx context.Context, where string, args []any, fn func(store.StoredFinding) error) error {
	rows, err := db.pool.Query(ctx, `SELECT `+store.SelectFindings+` FROM forensics.findings f `+where, args...)
	if err != nil {
		return db.fail("read findings", err)
	}
	defer rows.Close()
	if err := store.EachScanned(rows, fn); err != nil {
		return db.fail("read findings", err)
	}
	return nil
}

// EachFinding calls fn with the findings of a run (the latest when run is
// 0), or with all those AllFindings returns, one at a time.
func (db *DB) EachFinding(ctx context.Context, run int64, all bool, fn func(store.StoredFinding) error) error {
	if all {
		return db.eachFinding(ctx, allFindings, nil, fn)
	}
	if run == 0 {
		var err error
		if run, err = db.LatestRun(ctx); err != nil || run == 0 {
			return err
		}
	}
	inc, err := db.incidentOf(ctx, run)
	if err != nil {
		return err
	}
	return db.eachFinding(ctx, `WHERE f.incident_id = $1 AND f.run_id = $2 ORDER BY f.start_ns, f.rule, f.id`, []any{inc, run}, fn)
}

// AllFindings returns the findings of every incident, each from the latest
// run that found it, in time order.
func (db *DB) AllFindings(ctx context.Context) ([]store.StoredFinding, error) {
	return db.queryFindings(ctx, allFindings)
}

// doneRun is the condition on runs r that are analyses, not runs still
// loading.
const doneRun = `NOT EXISTS (SELECT 1 FROM forensics.loading_runs l WHERE l.incident_id = r.incident_id AND l.run_id = r.id)`

// allFindings selects what AllFindings returns.
const allFindings = `WHERE (f.incident_id, f.run_id, f.id) IN (SELECT incident_id, max(run_id), id FROM forensics.findings d
		WHERE NOT EXISTS (SELECT 1 FROM forensics.loading_runs l WHERE l.incident_id = d.incident_id AND l.run_id = d.run_id) GROUP BY incident_id, id)
	ORDER BY f.start_ns, f.rule, f.id`

// Incidents lists the incidents of the timeline, the latest last.
func (db *DB) Incidents(ctx context.Context) ([]store.Incident, error) {
	rows, err := db.pool.Query(ctx, `SELECT r.id, r.started, r.args, i.name, r.incident_id,
		(SELECT count(*) FROM forensics.run_sources rs WHERE rs.incident_id = r.incident_id AND rs.run_id = r.id),
		(SELECT count(*) FROM forensics.findings f WHERE f.incident_id = r.incident_id AND f.run_id = r.id)
		FROM forensics.runs r JOIN forensics.incidents i ON i.incident_id = r.incident_id WHERE `+doneRun+` ORDER BY r.id`)
	if err != nil {
		return nil, db.fail("read incidents", err)
	}
	defer rows.Close()
	var runs store.IncidentRuns
	incidents := map[int64]int64{}
	for rows.Next() {
		var id, incident, sources, findings int64
		var started time.Time
		var args, name string
		if err := rows.Scan(&id, &started, &args, &name, &incident, &sources, &findings); err != nil {
			return nil, db.fail("read incidents", err)
		}
		name, args = fromPG(name), fromPG(args)
		runs.Add(id, name, started, args, int(sources), int(findings))
		incidents[id] = incident
	}
	if err := rows.Err(); err != nil {
		return nil, db.fail("read incidents", err)
	}
	// What the fleet commands ask next is by run: on Citus, a run looked
	// up by its id alone is a question to every shard.
	db.mu.Lock()
	maps.Copy(db.runs, incidents)
	db.mu.Unlock()
	return runs.List(), nil
}
