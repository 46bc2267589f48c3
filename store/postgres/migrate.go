package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the schema's versions, applied in order of their number.
//
//go:embed migrations/*.sql
var migrations embed.FS

type migration struct {
	version int
	name    string
	sql     string
	engine  string // from a first line "-- engine: NAME": applied only there
}

// engineOnly is the first line of a migration that only one engine runs
// (a storage setting PostgreSQL has and the others lack; Citus runs what
// PostgreSQL runs, runsOn). Elsewhere its version is recorded and its
// statements skipped, so the versions stay one sequence on every engine.
const engineOnly = "-- engine: "

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: the name must start with its number", e.Name())
		}
		b, err := migrations.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		m := migration{version: v, name: e.Name(), sql: string(b)}
		if first, _, _ := strings.Cut(m.sql, "\n"); strings.HasPrefix(first, engineOnly) {
			m.engine = strings.TrimSpace(strings.TrimPrefix(first, engineOnly))
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// latestVersion is the schema version this forensics writes.
func latestVersion() int {
	ms, _ := loadMigrations()
	return ms[len(ms)-1].version
}

// migrate brings the schema to the latest version on engine eng (see
// engine). Several clients may start at once. Advisory locks would
// serialise them on PostgreSQL, but CockroachDB has none; instead each
// migration runs in a transaction that first inserts its version into
// forensics.schema_migrations. A second client inserting the same version
// waits on the first one's row and then fails on the primary key, rolls
// back, and finds the version applied. On Citus each migration's
// transaction also distributes the tables it created (citus.go), so every
// later migration runs on distributed tables, as it does in a store that
// was distributed long ago.
func migrate(ctx context.Context, pool *pgxpool.Pool, eng string) error {
	// Only where the schema is missing: Citus sends CREATE SCHEMA IF NOT
	// EXISTS on to its workers even when the schema is there, where only
	// its owner may, and a writer opening the store is not its owner.
	var made bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = 'forensics' AND table_name = 'schema_migrations')`).Scan(&made); err != nil {
		return err
	}
	for _, stmt := range []string{
		`CREATE SCHEMA IF NOT EXISTS forensics`,
		`CREATE TABLE IF NOT EXISTS forensics.schema_migrations (
			version    INTEGER NOT NULL PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
		)`,
	} {
		if made {
			break
		}
		if err := execRacing(ctx, pool, stmt); err != nil {
			return err
		}
	}
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	applied, err := appliedVersion(ctx, pool)
	if err != nil {
		return err
	}
	if applied > ms[len(ms)-1].version {
		return fmt.Errorf("the timeline schema is at version %d, newer than this forensics (version %d): upgrade forensics", applied, ms[len(ms)-1].version)
	}
	for _, m := range ms {
		if m.version <= applied {
			continue
		}
		if err := apply(ctx, pool, m, eng); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if eng == engineCitus {
		// A store whose database got Citus after its schema was made.
		return distributeAll(ctx, pool)
	}
	return nil
}

// The engines as migrations name them.
const (
	enginePostgres  = "postgresql"
	engineCitus     = "citus"
	engineCockroach = "cockroachdb"
	engineYugabyte  = "yugabytedb"
)

// engine names the server's engine: "cockroachdb", "yugabytedb", "citus"
// (PostgreSQL whose database has the Citus extension), else "postgresql".
// CockroachDB and YugabyteDB say so in version(): "CockroachDB CCL
// v23.1…", "PostgreSQL 11.2-YB-2.20…"; Citus is an extension of the
// database, not a server of its own.
func engine(ctx context.Context, q querier) (string, error) {
	var v string
	if err := q.QueryRow(ctx, `SELECT version()`).Scan(&v); err != nil {
		return "", err
	}
	switch {
	case strings.Contains(v, "CockroachDB"):
		return engineCockroach, nil
	case strings.Contains(v, "-YB-"):
		return engineYugabyte, nil
	}
	var citus bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&citus); err != nil {
		return "", err
	}
	if citus {
		return engineCitus, nil
	}
	return enginePostgres, nil
}

// runsOn reports whether a migration marked for engine marked runs on eng:
// Citus runs what PostgreSQL runs.
func runsOn(marked, eng string) bool {
	return marked == "" || marked == eng || marked == enginePostgres && eng == engineCitus
}

type querier interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}

// apply runs a migration, or, on an engine it is not for, only records
// its version.
func apply(ctx context.Context, pool *pgxpool.Pool, m migration, eng string) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if eng == engineCitus {
		// Before the version's row: distributing a table takes a lock that
		// a second client waiting on that row would hold against it.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(distributeLock)); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO forensics.schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
		if isUnique(err) {
			return nil // another client applied it
		}
		return err
	}
	if runsOn(m.engine, eng) {
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return err
		}
	}
	if eng == engineCitus {
		if err := distribute(ctx, tx); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// execRacing runs an idempotent statement (CREATE … IF NOT EXISTS) that
// PostgreSQL may still fail with a duplicate when another client runs it
// at the same moment; the object is then there, which is all it is for.
func execRacing(ctx context.Context, pool *pgxpool.Pool, stmt string) error {
	_, err := pool.Exec(ctx, stmt)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P06" || pe.Code == "42P07" || pe.Code == "42710") {
		return nil
	}
	return err
}

func appliedVersion(ctx context.Context, q querier) (int, error) {
	var v *int
	if err := q.QueryRow(ctx, `SELECT max(version) FROM forensics.schema_migrations`).Scan(&v); err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// checkVersion refuses a database that is not a forensics timeline, or
// whose schema this forensics does not read.
func checkVersion(ctx context.Context, pool *pgxpool.Pool) error {
	v, err := appliedVersion(ctx, pool)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000") {
		return errors.New("no forensics timeline in this database; run forensics analyze --store with it first")
	}
	if err != nil {
		return err
	}
	if want := latestVersion(); v != want {
		return fmt.Errorf("timeline schema version %d, this forensics reads version %d", v, want)
	}
	return nil
}

func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
