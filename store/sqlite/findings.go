package sqlite

import (
	"context"
	"database/sql"

	"forensics/store"
)

// LatestRun returns the id of the most recent analysis run, or 0 when there is none.
func (db *DB) LatestRun(ctx context.Context) (int64, error) {
	done, err := db.doneRuns(ctx)
	if err != nil {
		return 0, err
	}
	var id sql.NullInt64
	err = db.sql.QueryRowContext(ctx, `SELECT max(r.id) FROM main.runs r WHERE `+done).Scan(&id)
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

// EachFinding calls fn with the findings of a run (the latest when run is
// 0), or with all those AllFindings returns, one at a time.
func (db *DB) EachFinding(ctx context.Context, run int64, all bool, fn func(store.StoredFinding) error) error {
	if all {
		return db.eachFinding(ctx, allFindings, nil, fn)
	}
	if run == 0 {
		var err error
		if run, err = db.LatestRun(ctx); err != nil {
			return err
		}
	}
	return db.eachFinding(ctx, `WHERE run_id = ? ORDER BY start_ns, rule, id`, []any{run}, fn)
}

// Finding returns the most recent stored finding whose id starts with prefix.
func (db *DB) Finding(ctx context.Context, prefix string) (store.StoredFinding, error) {
	return db.FindingIn(ctx, 0, prefix)
}

// FindingIn returns the finding of a run (of any run when run is 0, the
// most recent) whose id starts with prefix.
func (db *DB) FindingIn(ctx context.Context, run int64, prefix string) (store.StoredFinding, error) {
	prefix, err := store.IDPrefix(prefix)
	if err != nil {
		return store.StoredFinding{}, err
	}
	where, args := `WHERE substr(id, 1, ?) = ?`, []any{len(prefix), prefix}
	if run != 0 {
		where += ` AND run_id = ?`
		args = append(args, run)
	}
	// The ids first, a few: a prefix of one hex digit may match thousands
	// of rows, and only one finding is read.
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT id FROM main.findings `+where+` LIMIT 10`, args...)
	if err != nil {
		return store.StoredFinding{}, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return store.StoredFinding{}, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return store.StoredFinding{}, err
	}
	if err := store.Ambiguous(prefix, ids); err != nil {
		return store.StoredFinding{}, err
	}
	fs, err := db.queryFindings(ctx, where+` ORDER BY run_id DESC LIMIT 1`, args...)
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
// checked (store.DecodeFinding) one at a time. A body larger than a finding
// takes is not read: its size alone says it was not written by forensics.
func (db *DB) eachFinding(ctx context.Context, where string, args []any, fn func(store.StoredFinding) error) error {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+store.SelectFindings+` FROM main.findings f `+where, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return store.EachScanned(rows, fn)
}
