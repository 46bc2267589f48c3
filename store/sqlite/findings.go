package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"forensics/store"
)

// LatestRun returns the id of the most recent analysis run, or 0 when there is none.
func (db *DB) LatestRun(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT max(id) FROM main.runs`).Scan(&id)
	return id.Int64, err
}

// Findings returns the findings of a run (the latest when run is 0), in time order.
func (db *DB) Findings(ctx context.Context, run int64) ([]store.StoredFinding, error) {
	if run == 0 {
		var err error
		if run, err = db.LatestRun(ctx); err != nil {
			return nil, err
		}
	}
	return db.queryFindings(ctx, `WHERE run_id = ? ORDER BY start_ns, rule, id`, run)
}

// Finding returns the most recent stored finding whose id starts with prefix.
func (db *DB) Finding(ctx context.Context, prefix string) (store.StoredFinding, error) {
	return db.FindingIn(ctx, 0, prefix)
}

// FindingIn returns the finding of a run (of any run when run is 0, the
// most recent) whose id starts with prefix.
func (db *DB) FindingIn(ctx context.Context, run int64, prefix string) (store.StoredFinding, error) {
	if prefix == "" {
		return store.StoredFinding{}, errors.New("empty finding id")
	}
	where, args := `WHERE substr(id, 1, ?) = ?`, []any{len(prefix), prefix}
	if run != 0 {
		where += ` AND run_id = ?`
		args = append(args, run)
	}
	fs, err := db.queryFindings(ctx, where+` ORDER BY run_id DESC`, args...)
	if err != nil {
		return store.StoredFinding{}, err
	}
	return store.PickFinding(ctx, db, run, prefix, fs)
}

func (db *DB) queryFindings(ctx context.Context, where string, args ...any) ([]store.StoredFinding, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT run_id, body FROM main.findings `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return store.ScanFindings(rows)
}
