package sqlite

import (
	"context"
	"strings"
	"time"

	"forensics/store"
)

// SetIncident names the incident the run analyses.
func (w *Writer) SetIncident(name string) error {
	// Outside the writer's transaction, like the run itself: the store has
	// one connection, which the reads before the load need too.
	_, err := w.db.sql.ExecContext(w.ctx, `INSERT INTO main.run_incidents(run_id, incident) VALUES (?, ?)
		ON CONFLICT(run_id) DO UPDATE SET incident = excluded.incident`, w.run, name)
	return err
}

// Incidents lists the incidents of the timeline, the latest last. A run from
// before incidents were recorded is named after its inputs.
func (db *DB) Incidents(ctx context.Context) ([]store.Incident, error) {
	named, err := db.hasIncidents(ctx)
	if err != nil {
		return nil, err
	}
	done, err := db.doneRuns(ctx)
	if err != nil {
		return nil, err
	}
	q := `SELECT r.id, r.started, r.args, '',
		(SELECT count(*) FROM main.run_sources rs WHERE rs.run_id = r.id),
		(SELECT count(*) FROM main.findings f WHERE f.run_id = r.id)
		FROM main.runs r WHERE ` + done + ` ORDER BY r.id`
	if named {
		q = strings.Replace(q, `''`, `coalesce((SELECT incident FROM main.run_incidents i WHERE i.run_id = r.id), '')`, 1)
	}
	rows, err := db.sql.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs store.IncidentRuns
	for rows.Next() {
		var id int64
		var started, args, name string
		var sources, findings int
		if err := rows.Scan(&id, &started, &args, &name, &sources, &findings); err != nil {
			return nil, err
		}
		t, _ := time.Parse(time.RFC3339Nano, started)
		runs.Add(id, name, t, args, sources, findings)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return runs.List(), nil
}

// doneRuns is the condition on runs r that are analyses, not runs still
// loading (loading_runs; a timeline written before it has none).
func (db *DB) doneRuns(ctx context.Context) (string, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'loading_runs'`).Scan(&n)
	if n == 0 {
		return "1", err
	}
	return "r.id NOT IN (SELECT run_id FROM main.loading_runs)", err
}

// hasIncidents says whether the timeline records incident names: one
// written before they were is read as it is, its runs named after their
// inputs.
func (db *DB) hasIncidents(ctx context.Context) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'run_incidents'`).Scan(&n)
	return n > 0, err
}

// AllFindings returns the findings of every incident, each from the latest
// run that found it, in time order.
func (db *DB) AllFindings(ctx context.Context) ([]store.StoredFinding, error) {
	return db.queryFindings(ctx, allFindings)
}

// allFindings selects what AllFindings returns.
const allFindings = `WHERE (run_id, id) IN (SELECT max(run_id), id FROM main.findings GROUP BY id) ORDER BY start_ns, rule, id`
