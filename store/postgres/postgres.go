// Package postgres keeps timelines in a PostgreSQL database shared by a
// team: many incidents side by side, analysed and read by several people
// at once. It implements the interfaces of package store, as the SQLite
// backend does, and stores lines in the same blocks (store/block).
//
// Every row carries its incident and the incident id leads every key, so
// the tables can be distributed by incident on the engines that speak
// PostgreSQL's protocol (docs/fleet.md says what was checked where). The
// connection is configured by the DSN alone (postgres://…, or the
// keyword=value form); passwords come from the DSN, PGPASSFILE or
// PGPASSWORD, and are never printed.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"forensics/store"
)

// Drivers open PostgreSQL timelines: "postgres://…" and "postgresql://…",
// and libpq's keyword form ("host=db dbname=forensics user=analyst").
var Drivers = []store.Driver{driver("postgres"), driver("postgresql")}

func driver(scheme string) store.Driver {
	return store.Driver{
		Scheme:     scheme,
		Open:       func(dsn string) (store.Backend, error) { return Open(context.Background(), dsn) },
		OpenReader: func(dsn string) (store.Reader, error) { return OpenReadOnly(context.Background(), dsn) },
		Version:    Version,
		Takes:      IsKeywordDSN,
		Password:   Password,
	}
}

// DB is a timeline in a PostgreSQL database.
type DB struct {
	pool     *pgxpool.Pool
	dsn      string // as given, for OpenReader; never printed
	name     string // the DSN without its password
	secret   string // the password, masked in every error
	readOnly bool
	engine   string // "postgresql", "citus", "cockroachdb" or "yugabytedb" (migrate.go engine); set by Open

	mu       sync.Mutex
	loaded   int64            // events the writers of this DB stored, for refreshStatistics
	incident int64            // the incident of the run being written: Keys are its keys
	runs     map[int64]int64  // run id → incident id, as looked up
	writers  map[*Writer]bool // open writers, whose connections Close gives back
}

var (
	_ store.Backend = (*DB)(nil)
	_ store.Writer  = (*Writer)(nil)
)

// Open connects to the database at dsn for reading and writing, creating
// or migrating the schema if needed.
func Open(ctx context.Context, dsn string) (*DB, error) {
	db, err := connect(ctx, dsn, false)
	if err != nil {
		return nil, err
	}
	if db.engine, err = engine(ctx, db.pool); err != nil {
		db.Close()
		return nil, db.fail("open", err)
	}
	if err := migrate(ctx, db.pool, db.engine); err != nil {
		db.Close()
		return nil, db.fail("migrate the schema", err)
	}
	return db, nil
}

// OpenReadOnly connects to an existing timeline to read it. It changes
// nothing, so a role that may only read can use it; raw queries run in
// read-only transactions.
func OpenReadOnly(ctx context.Context, dsn string) (*DB, error) {
	db, err := connect(ctx, dsn, true)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(ctx, db.pool); err != nil {
		db.Close()
		return nil, db.fail("open", err)
	}
	return db, nil
}

func connect(ctx context.Context, dsn string, readOnly bool) (*DB, error) {
	name, secret := redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, maskError(err, secret))
	}
	if secret != "" && cfg.ConnConfig.Password != secret {
		// The driver read another password than the address holds: an @,
		// /, ? or # in it, not %-escaped, ends it early for a URI parser.
		return nil, fmt.Errorf("open %s: the password holds a character an address cannot carry as it is (@ / ? # %%): %%-escape it, or leave it out and put it in ~/.pgpass or PGPASSWORD", name)
	}
	if cfg.ConnConfig.Password != "" {
		secret = cfg.ConnConfig.Password // from PGPASSWORD or the DSN
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "forensics"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, maskError(err, secret))
	}
	db := &DB{pool: pool, dsn: dsn, name: name, secret: secret, readOnly: readOnly, runs: map[int64]int64{}}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, db.fail("open", err)
	}
	return db, nil
}

// fail wraps err with what was being done and where, the password masked.
func (db *DB) fail(doing string, err error) error {
	return fmt.Errorf("%s %s: %w", doing, db.name, maskError(err, db.secret))
}

// Name returns the DSN without its password.
func (db *DB) Name() string { return db.name }

// Close closes the connections. A writer still open (a run that ended in
// an error without closing it) is rolled back first: the pool waits for
// every connection it lent.
func (db *DB) Close() error {
	db.mu.Lock()
	open := db.writers
	db.writers = nil
	db.mu.Unlock()
	for w := range open {
		w.Rollback()
		w.release()
	}
	db.pool.Close()
	return nil
}

// OpenReader opens a second pool on the same database for the rules. It
// knows the incidents of the runs this one made: the rules ask for their
// run's findings and sources at once, and on Citus each lookup of a run
// by its id alone goes to every shard of forensics.runs (16 of them at
// once cost 3 s of a 16 MiB analyze's 8 s on the bench).
func (db *DB) OpenReader() (store.Reader, error) {
	db.refreshStatistics(context.Background())
	r, err := OpenReadOnly(context.Background(), db.dsn)
	if err != nil {
		return nil, err
	}
	db.mu.Lock()
	maps.Copy(r.runs, db.runs)
	db.mu.Unlock()
	return r, nil
}

// refreshStatistics gives the planner statistics of the events just loaded
// before the rules query them. Into a new or small store a load is most of
// the table, and until autovacuum comes round (a minute or more later) the
// planner has no statistics, or those of a table a fraction of the size:
// it then walks every event of every source for each rule (30-50 ms a
// query on the 256 MiB bench bundle instead of under 1 ms). PostgreSQL's
// own threshold decides, as autovacuum's analyze would (50 rows + 10% of
// the table changed): in a large store one load rarely crosses it, so the
// cost (about 60 ms per 50 000 events, only the columns queries filter
// on) is paid where it saves most. A role that does not own the table gets
// a warning from the server and no statistics; the load stays correct.
func (db *DB) refreshStatistics(ctx context.Context) {
	db.mu.Lock()
	loaded := db.loaded
	db.loaded = 0
	db.mu.Unlock()
	if loaded == 0 || db.engine != enginePostgres && db.engine != engineCitus {
		return
	}
	var tuples float64
	q := `SELECT reltuples FROM pg_class WHERE oid = 'forensics.events'::regclass`
	if db.engine == engineCitus {
		// The coordinator's table holds no rows: its shards do
		// (events_<shard id> on each node), and ANALYZE on the
		// coordinator analyses each of them. One question per node, not
		// per shard: run_command_on_shards took 1.5 s for 32 shards.
		q = `SELECT coalesce(sum(result::float8), 0) FROM run_command_on_all_nodes($$SELECT coalesce(sum(greatest(reltuples, 0)), 0) FROM pg_class WHERE relnamespace = 'forensics'::regnamespace AND relname ~ '^events_[0-9]+$'$$) WHERE success`
	}
	if err := db.pool.QueryRow(ctx, q).Scan(&tuples); err != nil {
		return
	}
	if tuples >= 0 && float64(loaded) < 50+0.1*tuples {
		return
	}
	db.pool.Exec(ctx, `ANALYZE forensics.sources, forensics.run_sources, forensics.events (incident_id, source_id, kind, t, node, line)`)
}

// Version names the PostgreSQL client library built in.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/jackc/pgx/v5" {
				return "pgx " + m.Version
			}
		}
	}
	return "pgx v5"
}

// incidentOf returns the incident a run belongs to.
func (db *DB) incidentOf(ctx context.Context, run int64) (int64, error) {
	db.mu.Lock()
	id, ok := db.runs[run]
	db.mu.Unlock()
	if ok {
		return id, nil
	}
	err := db.pool.QueryRow(ctx, `SELECT incident_id FROM forensics.runs WHERE id = $1`, run).Scan(&id)
	if err != nil {
		if errors.Is(err, errNoRows) {
			return 0, fmt.Errorf("no run %d in %s", run, db.name)
		}
		return 0, db.fail("read", err)
	}
	db.mu.Lock()
	db.runs[run] = id
	db.mu.Unlock()
	return id, nil
}
