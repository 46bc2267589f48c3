// Package export writes a plain copy of a timeline that any tool reads: the
// documented views (store.Views) as tables of a SQLite file, with the same
// names and columns, or as JSON lines. A timeline keeps its events and lines
// in compressed blocks that only forensics decodes, so the sqlite3 shell,
// DuckDB, Datasette or pandas see them only in such a copy.
package export

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/mattn/go-sqlite3" // the SQLite file written

	"forensics/store"
)

// Formats are the formats Write writes.
var Formats = []string{"sqlite", "jsonl"}

// FormatOf guesses the format from a file name: .jsonl and .ndjson are
// JSON lines, anything else SQLite.
func FormatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return "jsonl"
	}
	return "sqlite"
}

// Counts are the rows written, by view.
type Counts map[string]int64

// Write writes every row of every view of the timeline to path, in format,
// and returns how many rows of each view it wrote. It refuses a path that
// exists: a copy never replaces a file, least of all the timeline. The file
// appears whole or not at all.
func Write(ctx context.Context, r store.Reader, path, format string) (Counts, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%s exists: export writes a new file (remove it, or name another)", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	var counts Counts
	switch format {
	case "sqlite":
		counts, err = writeSQLite(ctx, r, tmp.Name())
	case "jsonl":
		counts, err = writeJSONL(ctx, r, tmp.Name())
	default:
		err = fmt.Errorf("export: no format %q (want %s)", format, strings.Join(Formats, " or "))
	}
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	// Link, not rename: a file created at path meanwhile is not replaced.
	if err := os.Link(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return counts, nil
}

// eachRow calls fn with the documented columns of every row of the view.
// Lines are read through the timeline's cursor, which every backend serves
// (a shared store has no lines view).
func eachRow(ctx context.Context, r store.Reader, v store.View, fn func(vals []any) error) error {
	if v.Name == "lines" {
		vals := make([]any, len(v.Columns))
		for l, err := range r.Lines(ctx, store.LineFilter{NoKinds: true}) {
			if err != nil {
				return err
			}
			ns := l.Time.UnixNano()
			copy(vals, []any{l.SourceID, l.Path, l.Node, l.N, store.TimeText(ns), ns, int64(l.Offset), l.Flags.Zone.String(), l.Text})
			if err := fn(vals); err != nil {
				return err
			}
		}
		return nil
	}
	names := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		names[i] = `"` + c.Name + `"`
	}
	return r.QuerySQL(ctx, "SELECT "+strings.Join(names, ", ")+" FROM "+v.Name, nil, func(_ []string, vals []any) error {
		return fn(vals)
	})
}

func writeSQLite(ctx context.Context, r store.Reader, path string) (Counts, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=OFF&_synchronous=OFF")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer tx.Rollback()
	counts := Counts{}
	for _, v := range store.Views {
		var cols, marks []string
		for _, c := range v.Columns {
			cols = append(cols, `"`+c.Name+`" `+string(c.Type))
			marks = append(marks, "?")
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", v.Name, strings.Join(cols, ", "))); err != nil {
			return nil, fmt.Errorf("export %s: %w", v.Name, err)
		}
		ins, err := tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%s)", v.Name, strings.Join(marks, ", ")))
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", v.Name, err)
		}
		err = eachRow(ctx, r, v, func(vals []any) error {
			counts[v.Name]++
			_, err := ins.ExecContext(ctx, vals...)
			return err
		})
		ins.Close()
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", v.Name, err)
		}
	}
	// What queries of a timeline filter and join on.
	for _, ix := range []string{
		"CREATE INDEX events_t ON events(t)", "CREATE INDEX events_kind ON events(kind, t)",
		"CREATE INDEX lines_t ON lines(t)", "CREATE INDEX lines_source ON lines(source_id, line)",
		"CREATE INDEX findings_start ON findings(start_ns, end_ns)",
	} {
		if _, err := tx.ExecContext(ctx, ix); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return counts, db.Close()
}

// writeJSONL writes one JSON object per row, the view it is a row of under
// "view" and each column under its name.
func writeJSONL(ctx context.Context, r store.Reader, path string) (Counts, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 256<<10)
	counts := Counts{}
	for _, v := range store.Views {
		err := eachRow(ctx, r, v, func(vals []any) error {
			counts[v.Name]++
			return writeObject(w, v, vals)
		})
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", v.Name, err)
		}
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return counts, errors.Join(f.Sync(), f.Close())
}

func writeObject(w io.Writer, v store.View, vals []any) error {
	var b strings.Builder
	b.WriteString(`{"view":"` + v.Name + `"`)
	for i, c := range v.Columns {
		val, err := json.Marshal(vals[i])
		if err != nil {
			return err
		}
		b.WriteString(`,"` + c.Name + `":`)
		b.Write(val)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
