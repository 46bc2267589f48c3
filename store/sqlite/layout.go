package sqlite

import (
	"context"
	"strconv"

	"forensics/store"
)

var _ store.Describer = (*DB)(nil)

// Layout says the engine and schema of the timeline: one file, its tables
// all local.
func (db *DB) Layout(context.Context) (store.Layout, error) {
	return store.Layout{Engine: "SQLite", Version: Version(), Schema: strconv.Itoa(db.schema)}, nil
}
