package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// QueryTimeout bounds a query written by the user (timeline query --sql):
// a shared server must not run one analyst's cross join for an hour.
const QueryTimeout = "60s"

var queryTimeout = QueryTimeout // shorter in tests

// QuerySQL runs a query written by the user against the documented views
// (schema forensics_query, first on the search path) and calls fn with each
// row. It runs in a READ ONLY transaction that has already taken its
// snapshot, so the query cannot switch it to read-write; it is sent as one
// prepared statement, so it cannot carry a second one; and the role the
// DSN names decides the rest (docs/fleet.md: a read-only role).
func (db *DB) QuerySQL(ctx context.Context, query string, args []any, fn func(cols []string, vals []any) error) error {
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return db.fail("query", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, stmt := range []string{
		`SET LOCAL statement_timeout = '` + queryTimeout + `'`,
		`SET LOCAL search_path = forensics_query, forensics`,
		`SELECT 1`, // takes the snapshot: from here on the transaction cannot become read-write
	} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return db.fail("query", err)
		}
	}
	// One row of the answer is held whole by the client: a row larger than
	// maxRow (SELECT repeat('x', 1e9)) is refused as it arrives, not held.
	fe := tx.Conn().PgConn().Frontend()
	fe.SetMaxBodyLen(maxRow)
	defer fe.SetMaxBodyLen(0)
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return describeQuery(err)
	}
	defer rows.Close()
	descs := rows.FieldDescriptions()
	cols := make([]string, len(descs))
	for i, d := range descs {
		cols[i] = d.Name
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return describeQuery(err)
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

// maxRow bounds one row of a --sql answer.
const maxRow = 64 << 20

func describeQuery(err error) error {
	msg := err.Error()
	var big *pgproto3.ExceededMaxBodyLenErr
	switch {
	case errors.As(err, &big):
		return fmt.Errorf("refused: a row of the answer is larger than %d MiB; select less of it (substr, length, a WHERE) (%w)", maxRow>>20, err)
	case strings.Contains(msg, "read-only transaction"):
		return fmt.Errorf("refused: --sql runs read-only queries, and this statement would change the timeline (%w)", err)
	case strings.Contains(msg, "permission denied"):
		return fmt.Errorf("refused: the role of this connection may not do this; --sql reads the documented views (forensics timeline schema) (%w)", err)
	case strings.Contains(msg, "statement timeout"):
		return fmt.Errorf("the query ran longer than %s and was stopped; filter on t and incident_id to keep it fast (%w)", queryTimeout, err)
	}
	return err
}
