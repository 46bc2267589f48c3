// Package sqlite keeps the timeline in a SQLite file: the sources read, the
// events recognised, every line in compressed blocks (store/block), and the
// findings. It implements the interfaces of package store; nothing outside
// it knows the schema or the encoding of lines.
package sqlite

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"forensics/store"
)

//go:embed schema.sql
var schema string

// schemaVersion is bumped when schema.sql changes incompatibly: a program
// that reads an older version refuses the file with a message rather than
// misread it. Version 2 keeps attributes packed and the text of an event
// that is its whole line only in the line's block. Version 3 keeps events
// in blocks (event_blocks) instead of a row each. Version 4 keeps the lines
// of a zip's deflate member as the member's own compressed bytes (a block
// of store/block that older versions would report damaged). Timelines of
// older versions are still read, and written to as the version they are,
// so that the program that wrote them can go on reading them.
const schemaVersion = "4"

// readsVersions are the schema versions this program opens.
var readsVersions = map[string]int{"1": 1, "2": 2, "3": 3, "4": 4}

// Driver opens SQLite timelines: a plain path, or "sqlite:PATH".
var Driver = store.Driver{
	Scheme:     "sqlite",
	Paths:      true,
	Open:       func(dsn string) (store.Backend, error) { return Open(dsn) },
	OpenReader: func(dsn string) (store.Reader, error) { return OpenReadOnly(dsn) },
	Version:    Version,
}

// DB is an open timeline.
type DB struct {
	sql        *sql.DB
	user       *sql.DB // a read-only timeline's pool for the queries a user writes, with the views (readonly.go)
	path       string
	readOnly   bool
	release    func() // the writer lock, for a database open for writing
	hasRelease bool   // sources has the release column (timelines written before it do not)
	hasGrams   bool   // the timeline has the tables of the index of blocks (grams.go)
	schema     int    // the file's schema version

	sideOnce sync.Once // the read-only connection of a timeline open for writing (blockReader)
	side     *sql.DB
	sideErr  error
	created  bool // this open created the file
	discard  bool // the run read nothing: a file this open created is removed on Close
}

var (
	_ store.Backend        = (*DB)(nil)
	_ store.Writer         = (*Writer)(nil)
	_ store.LineTextWriter = (*Writer)(nil)
)

// Open opens the timeline at path for reading and writing, creating it if needed.
func Open(path string) (*DB, error) {
	// Another program's database is refused before anything writes to it.
	exists, err := identify(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	release, err := lockWriter(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	q := url.Values{}
	q.Set("_synchronous", "OFF") // the timeline is derived data: a killed process leaves it consistent; only a power loss could harm it
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	q.Set("_mutex", "no") // see noMutex
	registerWrite()
	db, err := sql.Open(writeDriver, "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		release()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// One connection: SQLite has one writer, and the ingest pipeline has one
	// writer goroutine feeding it.
	db.SetMaxOpenConns(1)
	s := &DB{sql: db, path: path, release: release, created: !exists}
	if err := s.migrate(); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

// OpenReadOnly opens an existing timeline so that nothing can change it:
// the connection is read-only at the SQLite level, not only by convention.
func OpenReadOnly(path string) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("open %s: no timeline there; run forensics analyze first, or pass --db", path)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if _, err := identify(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s, err := openReadOnly(path, false)
	if err != nil && onReadOnlyMedia(path) {
		// A WAL database needs its -shm file, which SQLite cannot create
		// where nothing can be written (a DVD, a read-only mount, an
		// archive share). With nothing able to write the file, reading it
		// as immutable is exact, provided no write-ahead log holds pages
		// not yet copied into it.
		if info, werr := os.Stat(path + "-wal"); werr == nil && info.Size() > 0 {
			return nil, fmt.Errorf("open %s: the timeline is on read-only media with an unfinished write-ahead log (%s-wal): copy both files to a writable folder and open the copy", path, path)
		}
		s, err = openReadOnly(path, true)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

func openReadOnly(path string, immutable bool) (*DB, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", "10000")
	q.Set("_mutex", "no") // see noMutex
	if immutable {
		q.Set("immutable", "1")
	}
	registerReadOnly()
	dsn := "file:" + escapePath(path) + "?" + q.Encode()
	db, err := sql.Open(readOnlyDriver, dsn)
	if err != nil {
		return nil, err
	}
	// Opening connects nothing: the pool of user's queries connects on
	// the first.
	user, err := sql.Open(sqlDriver, dsn)
	if err != nil {
		db.Close()
		return nil, err
	}
	s := &DB{sql: db, user: user, path: path, readOnly: true}
	if err := s.checkVersion(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// noMutex: connections are opened without SQLite's per-connection mutex
// (SQLITE_OPEN_NOMUTEX). database/sql hands a connection to one goroutine at
// a time, so the mutex guards nothing, and taking it around every call was a
// tenth of the time of inserting an event.

func escapePath(p string) string {
	// The DSN is a URI: '?' and '#' in a file name would end the path.
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
}

// Close closes the database.
func (db *DB) Close() error {
	if db.side != nil {
		db.side.Close()
	}
	if db.user != nil {
		db.user.Close()
	}
	err := db.sql.Close()
	if db.discard && db.created {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(db.path + suffix)
		}
	}
	if db.release != nil {
		db.release()
		db.release = nil
	}
	return err
}

// Name returns the file the timeline is in.
func (db *DB) Name() string { return db.path }

// OpenReader opens the same file read-only, for queries that run while
// the writer keeps its connection.
func (db *DB) OpenReader() (store.Reader, error) { return OpenReadOnly(db.path) }

func (db *DB) migrate() error {
	ctx := context.Background()
	// Blocks of lines are blobs of tens of KiB: with 64 KiB pages most fit in
	// one page instead of a chain of overflow pages, and a load writes a
	// sixteenth as many pages. Only a new, empty database takes the setting.
	if _, err := db.sql.ExecContext(ctx, `PRAGMA page_size = 65536`); err != nil {
		return err
	}
	// WAL: queries read while a load writes, and never block it. The mode
	// is kept in the file, so it is set after the page size.
	if _, err := db.sql.ExecContext(ctx, `PRAGMA journal_mode = WAL`); err != nil {
		return err
	}
	if _, err := db.sql.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if err := db.rebuildIndexes(ctx); err != nil {
		return fmt.Errorf("rebuild the indexes of an older timeline: %w", err)
	}
	if _, err := db.sql.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d`, applicationID)); err != nil {
		return err
	}
	// The id is in the file's header only once the WAL is copied back: a
	// run killed before that would leave a timeline that the next run
	// could not tell from another program's database.
	if _, err := db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return err
	}
	if err := db.addRelease(ctx); err != nil {
		return fmt.Errorf("add the release column: %w", err)
	}
	// schema.sql made the tables of the index of blocks, in a timeline
	// written before them too: the blocks written from now on are indexed.
	db.hasGrams = true
	var v string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM main.meta WHERE key = 'schema'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = db.sql.ExecContext(ctx, `INSERT INTO main.meta(key, value) VALUES ('schema', ?)`, schemaVersion)
		db.schema = readsVersions[schemaVersion]
		return err
	case err != nil:
		return err
	}
	db.schema = readsVersions[v]
	if db.schema == 0 {
		return fmt.Errorf("timeline schema version %s, this forensics reads versions 1 to %s: analyze into a new --db", v, schemaVersion)
	}
	return nil
}

// indexDef is an index of schema.sql: its name, and what it is on.
var indexDef = regexp.MustCompile(`(?m)^CREATE INDEX IF NOT EXISTS (\w+) ON (.+);`)

// rebuildIndexes makes again an index that a timeline written by an
// earlier forensics has on other columns than schema.sql now gives it (the
// indexes of blocks gained the columns blocks are chosen by). It reads the
// table once, at the first writing open; a read-only open keeps the old
// index, which gives the same answers more slowly.
func (db *DB) rebuildIndexes(ctx context.Context) error {
	for _, m := range indexDef.FindAllStringSubmatch(schema, -1) {
		name, on := m[1], m[2]
		var have string
		if err := db.sql.QueryRowContext(ctx, `SELECT sql FROM main.sqlite_master WHERE type = 'index' AND name = ?`, name).Scan(&have); err != nil {
			return fmt.Errorf("index %s: %w", name, err)
		}
		if _, had, _ := strings.Cut(have, " ON "); had == on {
			continue
		}
		tx, err := db.sql.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DROP INDEX main.`+name)
		if err == nil {
			_, err = tx.ExecContext(ctx, `CREATE INDEX main.`+name+` ON `+on)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			tx.Rollback()
		}
		if err != nil {
			return fmt.Errorf("index %s: %w", name, err)
		}
	}
	return nil
}

func (db *DB) checkVersion() error {
	var v string
	err := db.sql.QueryRow(`SELECT value FROM main.meta WHERE key = 'schema'`).Scan(&v)
	if err != nil {
		var se sqlite3.Error
		if errors.As(err, &se) || errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("not a forensics timeline (%v)", err)
		}
		return err
	}
	if db.schema = readsVersions[v]; db.schema == 0 {
		return fmt.Errorf("timeline schema version %s, this forensics reads versions 1 to %s", v, schemaVersion)
	}
	if db.hasRelease, err = hasReleaseColumn(db.sql.QueryContext); err != nil {
		return err
	}
	db.hasGrams, err = hasGramsTables(context.Background(), db.sql)
	return err
}

// addRelease adds sources.release to a timeline written before it existed:
// the column is additive, so the schema version stays and older timelines
// stay openable (read-only ones read "" for it).
func (db *DB) addRelease(ctx context.Context) error {
	has, err := hasReleaseColumn(db.sql.QueryContext)
	if err != nil || has {
		db.hasRelease = has
		return err
	}
	if _, err := db.sql.ExecContext(ctx, `ALTER TABLE main.sources ADD COLUMN release TEXT NOT NULL DEFAULT ''`); err != nil {
		return err
	}
	db.hasRelease = true
	return nil
}

// hasReleaseColumn reports whether main.sources has the release column.
func hasReleaseColumn(query func(context.Context, string, ...any) (*sql.Rows, error)) (bool, error) {
	rows, err := query(context.Background(), `SELECT name FROM pragma_table_info('sources', 'main') WHERE name = 'release'`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	has := rows.Next()
	return has, rows.Err()
}

// Version is the version of the SQLite library built into forensics.
func Version() string {
	v, _, _ := sqlite3.Version()
	return v
}
