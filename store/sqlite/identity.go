package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"forensics/store"
)

// applicationID marks a SQLite file as a forensics timeline (PRAGMA
// application_id, offset 68 of the database header): "FRNS".
const applicationID = 0x46524e53

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// identify says whether the file at path is a forensics timeline, may
// become one (missing or empty), or is something else, without changing
// it: the header is read as bytes, and only a database with no application
// id (a timeline from before the id, or another program's) is opened, read
// only and immutable, to look at its tables.
func identify(path string) (exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !info.Mode().IsRegular() {
		return true, fmt.Errorf("%w: it is not a regular file", store.ErrNotTimeline)
	}
	if info.Size() == 0 {
		return false, nil
	}
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return true, err
	}
	head = head[:n]
	if !bytes.HasPrefix(head, []byte(sqliteMagic)) {
		return true, fmt.Errorf("%w: it is not a SQLite database (it starts with %q); pass --db a new file name", store.ErrNotTimeline, printable(head[:min(len(head), 16)]))
	}
	if len(head) < 72 {
		return true, fmt.Errorf("%w: its SQLite header is cut short", store.ErrNotTimeline)
	}
	switch id := binary.BigEndian.Uint32(head[68:]); id {
	case applicationID:
		return true, nil
	case 0:
		return true, legacyTimeline(path)
	default:
		return true, fmt.Errorf("%w: it is the SQLite database of another application (application_id 0x%08x), left untouched; pass --db a new file name", store.ErrNotTimeline, id)
	}
}

// legacyTimeline accepts a timeline written before the application id, and
// refuses any other database, naming a few of its tables.
func legacyTimeline(path string) error {
	// Immutable reads the file alone, without creating anything next to
	// it; a database with a write-ahead log is read with the log, or its
	// latest pages would be missed.
	dsn := "file:" + escapePath(path) + "?mode=ro&immutable=1"
	if info, err := os.Stat(path + "-wal"); err == nil && info.Size() > 0 {
		dsn = "file:" + escapePath(path) + "?mode=ro"
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return fmt.Errorf("%w: it cannot be read as SQLite (%v), left untouched", store.ErrNotTimeline, err)
	}
	defer rows.Close()
	var tables []string
	has := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		tables = append(tables, name)
		has[name] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(tables) == 0 {
		return nil // an empty database: nothing to protect
	}
	if has["sources"] || has["blocks"] || has["findings"] {
		// A view or a trigger would run on the read of meta below.
		if err := checkSchema(func(q string) ([][4]string, error) { return dbRows(db, q) }); err != nil {
			return err
		}
	}
	if has["meta"] && has["sources"] && has["events"] && has["blocks"] {
		var v string
		if db.QueryRow(`SELECT value FROM meta WHERE key = 'schema'`).Scan(&v) == nil {
			return nil
		}
	}
	shown := tables
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("… %d in all", len(tables)))
	}
	return fmt.Errorf("%w: it is a SQLite database of another application (tables %s), left untouched; pass --db a new file name", store.ErrNotTimeline, strings.Join(shown, ", "))
}

func printable(b []byte) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f {
			return '.'
		}
		return r
	}, string(b))
}

// InUseError says that another process is writing the timeline.
type InUseError struct {
	Path string
	PID  int
}

func (e *InUseError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("pid %d", e.PID)
	}
	return fmt.Sprintf("timeline %s in use by %s (an analyze is writing it): wait for it to end, or pass another --db", e.Path, who)
}
