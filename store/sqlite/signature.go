package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// RunSignature returns the signature recorded for a run ("" when its
// findings were never saved with one), so that a copy of the run in
// another store (forensics push) carries it: the signature is computed
// from the rules and the content keys alike in every backend.
func (db *DB) RunSignature(ctx context.Context, run int64) (string, error) {
	var sig string
	err := db.sql.QueryRowContext(ctx, `SELECT signature FROM main.runs WHERE id = ?`, run).Scan(&sig)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("no run %d in %s", run, db.Name())
	}
	return sig, err
}
