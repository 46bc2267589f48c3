package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// On a database with the Citus extension the store distributes itself:
// every table of schema forensics that has an incident_id column is
// distributed by it and colocated with forensics.incidents, so that all of
// an incident's rows live in one shard group on one worker, and every
// query forensics makes of one incident (all of them lead with its id) is
// routed to that worker whole; a table without incident_id
// (schema_migrations) becomes a reference table, copied to every node.
//
// This is not a numbered migration: a numbered migration runs once, and a
// table a later migration adds must be distributed too, as must the tables
// of a store whose database got Citus after forensics made its schema.
// Instead every migration's transaction ends with distribute, and Open
// runs it once more (distributeAll). The shard count is the database's
// citus.shard_count (32 unless the administrator set another).

// distributeLock is the transaction-level advisory lock that keeps two
// clients from distributing the same table at once (Citus has advisory
// locks; CockroachDB, where this never runs, has none).
const distributeLock = 0x666f72656e736963 // "forensic"

// localTables lists the tables of schema forensics that Citus does not
// distribute yet, incidents first (the others are colocated with it),
// whether each has an incident_id column and rows.
const localTables = `SELECT c.relname,
	EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'incident_id' AND NOT a.attisdropped)
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname = 'forensics' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
	ORDER BY c.relname <> 'incidents', c.relname`

// distribute distributes the tables still local, in the transaction tx.
func distribute(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(distributeLock)); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, localTables)
	if err != nil {
		return err
	}
	type table struct {
		name     string
		incident bool
	}
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (table, error) {
		var t table
		return t, r.Scan(&t.name, &t.incident)
	})
	if err != nil {
		return err
	}
	for _, t := range tables {
		name := pgx.Identifier{"forensics", t.name}.Sanitize()
		stmt := `SELECT create_distributed_table($1::regclass, 'incident_id', colocate_with => 'forensics.incidents')`
		switch {
		case !t.incident:
			stmt = `SELECT create_reference_table($1::regclass)`
		case t.name == "incidents":
			stmt = `SELECT create_distributed_table($1::regclass, 'incident_id')`
		}
		if _, err := tx.Exec(ctx, stmt, name); err != nil {
			return fmt.Errorf("distribute %s on Citus: %w", name, err)
		}
		// The rows a local table held were copied into its shards; the
		// coordinator's copy is only space.
		if _, err := tx.Exec(ctx, `SELECT truncate_local_data_after_distributing_table($1::regclass)`, name); err != nil {
			return fmt.Errorf("distribute %s on Citus: %w", name, err)
		}
	}
	return nil
}

// distributeAll distributes what no migration did: the tables of a store
// that was made before its database had Citus. Distributing a table
// takes its owner; a store whose tables are all distributed asks nothing.
func distributeAll(ctx context.Context, pool *pgxpool.Pool) error {
	var local bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (`+localTables+`)`).Scan(&local); err != nil || !local {
		return err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := distribute(ctx, tx); err != nil {
		return fmt.Errorf("%w (the tables' owner distributes them: open the store once as that role)", err)
	}
	return tx.Commit(ctx)
}
