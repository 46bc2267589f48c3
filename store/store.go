// Package store keeps the timeline in a SQLite file: the sources read, the
// events recognised, every line in compressed blocks, and the findings.
//
// Everything outside this package talks to the timeline through DB's methods
// and the forensics.Timeline interface, never through SQL of its own, so the
// storage can change without touching parsers, rules or commands.
package store

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"
)

//go:embed schema.sql
var schema string

// schemaVersion is bumped when schema.sql changes incompatibly; an older
// database is refused with a message rather than misread.
const schemaVersion = "1"

// DB is an open timeline.
type DB struct {
	sql      *sql.DB
	path     string
	readOnly bool
}

// Open opens the timeline at path for reading and writing, creating it if needed.
func Open(path string) (*DB, error) {
	q := url.Values{}
	q.Set("_synchronous", "OFF") // the timeline is derived data: a killed process leaves it consistent; only a power loss could harm it
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// One connection: SQLite has one writer, and the ingest pipeline has one
	// writer goroutine feeding it.
	db.SetMaxOpenConns(1)
	s := &DB{sql: db, path: path}
	if err := s.migrate(); err != nil {
		db.Close()
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
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", "10000")
	registerReadOnly()
	db, err := sql.Open(readOnlyDriver, "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &DB{sql: db, path: path, readOnly: true}
	if err := s.checkVersion(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

func escapePath(p string) string {
	// The DSN is a URI: '?' and '#' in a file name would end the path.
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
}

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// Path returns the file the timeline is in.
func (db *DB) Path() string { return db.path }

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
	var v string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM main.meta WHERE key = 'schema'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = db.sql.ExecContext(ctx, `INSERT INTO main.meta(key, value) VALUES ('schema', ?)`, schemaVersion)
		return err
	case err != nil:
		return err
	case v != schemaVersion:
		return fmt.Errorf("timeline schema version %s, this forensics reads version %s: analyze into a new --db", v, schemaVersion)
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
	if v != schemaVersion {
		return fmt.Errorf("timeline schema version %s, this forensics reads version %s", v, schemaVersion)
	}
	return nil
}

// SQLiteVersion is the version of the SQLite library built into forensics.
func SQLiteVersion() string {
	v, _, _ := sqlite3.Version()
	return v
}
