package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

// commitBytes and commitEvents bound a write transaction: large enough that
// commits are rare, small enough that the WAL stays small.
const (
	commitBytes  = 16 << 20
	commitEvents = 50000
)

// noCancel is the context of single-row inserts: with a context that can be
// cancelled, the driver starts a goroutine per statement to watch it, which
// costs more than storing the row. Cancellation is checked between batches.
var noCancel = context.Background()

// Writer adds sources to the timeline. It is used by one goroutine. A source
// becomes visible to readers only when EndSource marks it complete, so a run
// that is interrupted leaves no half-read source behind for queries, and the
// next run reads that source again.
type Writer struct {
	db        *DB
	ctx       context.Context
	conn      *sql.Conn // the connection of the transaction, held from begin to commit
	tx        *sql.Tx
	insEvent  driver.StmtQueryContext // on the driver's connection: see addEventRows
	insBlock  *sql.Stmt
	insEvBlk  *sql.Stmt // schema 3: a block of events
	insEvKind *sql.Stmt // schema 3: a kind of a block of events
	args      []driver.NamedValue
	evEnc     block.EventEncoder // schema 3
	isLate    []bool             // addEventBlocks: which events of a batch are late
	inTime    []forensics.Event  // and, when some are, the others
	inTimeOn  []bool
	late      []forensics.Event
	lateOn    []bool
	bytes     int64
	events    int
	run       int64
	maxSpan   int64 // longest block time span written, kept in meta for window queries
	maxEvSpan int64 // the same for blocks of events
	attrs     []byte
	grams     gramWriter // the index of the blocks written
}

// NewRun records an analysis run over the given inputs and returns a writer for it.
func (db *DB) NewRun(ctx context.Context, inputs []string) (store.Writer, error) {
	if db.readOnly {
		return nil, errors.New("the timeline is open read-only")
	}
	// Sources left incomplete by an interrupted run are removed; their
	// content is read again when the same input is analysed.
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM main.sources WHERE complete = 0`); err != nil {
		return nil, fmt.Errorf("remove incomplete sources: %w", err)
	}
	// Segments of the index whose every block went with them.
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM main.gram_segments WHERE id NOT IN (SELECT segment FROM main.block_grams)`); err != nil {
		return nil, fmt.Errorf("remove incomplete sources: %w", err)
	}
	id, err := db.startRun(ctx, inputs)
	if err != nil {
		return nil, fmt.Errorf("record run: %w", err)
	}
	return &Writer{db: db, ctx: ctx, run: id}, nil
}

// startRun records a run as loading (loading_runs), and removes the runs a
// writer that died left loading: this open holds the writer's lock.
func (db *DB) startRun(ctx context.Context, inputs []string) (int64, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM main.runs WHERE id IN (SELECT run_id FROM main.loading_runs)`); err != nil {
		return 0, err
	}
	args, _ := json.Marshal(inputs)
	res, err := tx.ExecContext(ctx, `INSERT INTO main.runs(started, args) VALUES (?, ?)`, time.Now().UTC().Format(time.RFC3339Nano), string(args))
	if err != nil {
		return 0, err
	}
	id, _ := res.LastInsertId()
	if _, err := tx.ExecContext(ctx, `INSERT INTO main.loading_runs(run_id) VALUES (?)`, id); err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// Run returns the id of the run the writer records.
func (w *Writer) Run() int64 { return w.run }

const insertEvent = `INSERT INTO main.events
	(source_id, line, t, tz, zone, node, kind, bucket, vb, range_id, keyspace, shard, tbl, attrs, text)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func (w *Writer) begin() error {
	if w.tx != nil {
		return nil
	}
	conn, err := w.db.sql.Conn(w.ctx)
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(w.ctx, nil)
	if err != nil {
		conn.Close()
		return err
	}
	w.conn, w.tx = conn, tx
	if w.db.schema >= 3 {
		w.insEvBlk, err = tx.PrepareContext(w.ctx, `INSERT INTO main.event_blocks (source_id, min_line, max_line, t_min, t_max, events, data) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err == nil {
			w.insEvKind, err = tx.PrepareContext(w.ctx, `INSERT INTO main.event_kinds (kind, t_min, t_max, block_id, events) VALUES (?, ?, ?, ?, ?)`)
		}
	} else {
		err = conn.Raw(func(dc any) error {
			st, err := dc.(*sqlite3.SQLiteConn).Prepare(insertEvent)
			if err == nil {
				w.insEvent = st.(driver.StmtQueryContext)
			}
			return err
		})
	}
	if err == nil {
		w.insBlock, err = tx.PrepareContext(w.ctx, `INSERT INTO main.blocks (source_id, first_line, lines, t_min, t_max, data) VALUES (?, ?, ?, ?, ?, ?)`)
	}
	if err != nil {
		// An interrupted run cancels the context between BeginTx and the
		// statements: the transaction ends here, with what was prepared.
		w.Rollback()
		return err
	}
	return nil
}

// closeStmts closes the statements of the transaction, those that were prepared.
func (w *Writer) closeStmts() {
	w.grams.end()
	for _, st := range []**sql.Stmt{&w.insBlock, &w.insEvBlk, &w.insEvKind} {
		if *st != nil {
			(*st).Close()
			*st = nil
		}
	}
	if w.insEvent != nil {
		w.conn.Raw(func(any) error { return w.insEvent.(driver.Stmt).Close() })
		w.insEvent = nil
	}
}

// endTx lets go of the connection once the transaction has ended.
func (w *Writer) endTx() {
	w.conn.Close()
	w.conn, w.tx, w.bytes, w.events = nil, nil, 0, 0
}

func (w *Writer) commitIfFull() error {
	if w.bytes < commitBytes && w.events < commitEvents {
		return nil
	}
	return w.Commit()
}

// Commit commits what was written so far.
func (w *Writer) Commit() error {
	if w.tx == nil {
		return nil
	}
	// The index of the blocks written goes with them.
	if err := w.grams.flush(w.ctx, w.tx); err != nil {
		w.Rollback()
		return fmt.Errorf("commit: index lines: %w", describe(err))
	}
	w.closeStmts()
	if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO main.meta(key, value) VALUES ('max_block_span', ?)
		ON CONFLICT(key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`, w.maxSpan); err != nil {
		w.Rollback()
		return fmt.Errorf("commit: %w", describe(err))
	}
	if w.maxEvSpan > 0 {
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO main.meta(key, value) VALUES ('max_event_block_span', ?)
			ON CONFLICT(key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`, w.maxEvSpan); err != nil {
			w.Rollback()
			return fmt.Errorf("commit: %w", describe(err))
		}
	}
	err := w.tx.Commit()
	w.endTx()
	if err != nil {
		return fmt.Errorf("commit: %w", describe(err))
	}
	return nil
}

// Close ends the run: it is an analysis from now on, with its findings,
// in the same transaction as they.
func (w *Writer) Close() error {
	if err := w.begin(); err != nil {
		return err
	}
	if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM main.loading_runs WHERE run_id = ?`, w.run); err != nil {
		w.Rollback()
		return fmt.Errorf("end run: %w", describe(err))
	}
	return w.Commit()
}

// Rollback abandons what was written since the last commit.
func (w *Writer) Rollback() {
	if w.tx != nil {
		w.closeStmts()
		w.tx.Rollback()
		w.endTx()
	}
}

// Loaded looks up a complete source by its key and adds it to the run.
func (w *Writer) Loaded(key string) (forensics.Source, bool, error) {
	if err := w.begin(); err != nil {
		return forensics.Source{}, false, err
	}
	rows, err := w.tx.QueryContext(w.ctx, w.db.sourceSelect()+` WHERE key = ? AND complete = 1`, key)
	if err != nil {
		return forensics.Source{}, false, err
	}
	srcs, err := scanSources(rows)
	if err != nil || len(srcs) == 0 {
		return forensics.Source{}, false, err
	}
	if _, err := w.tx.ExecContext(w.ctx, `INSERT OR IGNORE INTO main.run_sources(run_id, source_id) VALUES (?, ?)`, w.run, srcs[0].ID); err != nil {
		return forensics.Source{}, false, err
	}
	return srcs[0], true, nil
}

// BeginSource records a source about to be read and sets its ID. A source
// whose key is not known until it has been read gets a provisional key
// (EndSource sets the real one).
func (w *Writer) BeginSource(src *forensics.Source) error {
	if err := w.begin(); err != nil {
		return err
	}
	key := src.Key
	if key == "" {
		key = fmt.Sprintf("pending:%d:%s", time.Now().UnixNano(), src.Path)
	}
	res, err := w.insert(`INSERT INTO main.sources (key, path, node, format, component, loaded_at) VALUES (?, ?, ?, ?, ?, ?)`,
		key, src.Path, src.Node, src.Format, src.Component, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		if isUnique(err) {
			return store.ErrLoaded
		}
		return fmt.Errorf("record source %s: %w", src.Path, describe(err))
	}
	src.ID, _ = res.LastInsertId()
	return nil
}

func (w *Writer) insert(query string, args ...any) (sql.Result, error) {
	return w.tx.ExecContext(w.ctx, query, args...)
}

// LineBuffer returns a buffer that encodes and compresses lines into
// blocks on the goroutine that fills it.
func (w *Writer) LineBuffer() store.LineBuffer {
	return block.NewLineBuffer(w.db.schema >= 4, w.db.hasGrams)
}

// AddLines stores a block of lines of a source, and releases it.
func (w *Writer) AddLines(src int64, lb store.LineBatch) error {
	b := lb.(*block.Batch).Block
	defer b.Release() // SQLite has copied the data when Exec returns
	if err := w.begin(); err != nil {
		return err
	}
	res, err := w.insBlock.ExecContext(noCancel, src, b.FirstLine, b.Lines, b.TMin, b.TMax, b.Data)
	if err != nil {
		return fmt.Errorf("store lines: %w", describe(err))
	}
	if b.Sketch != nil {
		id, _ := res.LastInsertId()
		if err := w.grams.add(w.ctx, w.tx, id, b.Sketch); err != nil {
			return fmt.Errorf("index lines: %w", describe(err))
		}
	}
	w.bytes += int64(len(b.Data))
	w.maxSpan = max(w.maxSpan, b.TMax-b.TMin)
	return w.commitIfFull()
}

// AddEvents stores events of a source.
func (w *Writer) AddEvents(src int64, evs []forensics.Event) error {
	return w.AddEventsOnLines(src, evs, nil)
}

// AddEventsOnLines stores events of a source. The text of an event that is
// the whole text of its line (onLine) is not stored again (schema 2 and
// later): the line's block holds it, and readers take it from there.
func (w *Writer) AddEventsOnLines(src int64, evs []forensics.Event, onLine []bool) error {
	if err := w.begin(); err != nil {
		return err
	}
	w.events += len(evs)
	if w.db.schema >= 3 {
		if err := w.addEventBlocks(src, evs, onLine); err != nil {
			return err
		}
	} else if err := w.addEventRows(src, evs, onLine); err != nil {
		return err
	}
	return w.commitIfFull()
}

// lateBy is how much older than an event emitted before it an event must
// be to go to a block apart. Parsers emit some events late: memcached's DCP
// producer connections wait for their name, up to 512 of them, and one that
// never gets it goes out when 512 more have opened, most of an hour later
// in a busy log. Each late event stretched its block's span back that far,
// and a cursor holds a block open for all of its span: a few late events in
// every block kept ten blocks of a source open at once, not one or two.
const lateBy = int64(time.Minute)

// addEventBlocks stores a batch of a source's events, in the order they
// were emitted, as blocks of at most block.MaxEvents; the late ones go to
// blocks after the others, in their order.
func (w *Writer) addEventBlocks(src int64, evs []forensics.Event, onLine []bool) error {
	w.isLate = w.isLate[:0]
	var latest int64
	anyLate := false
	for i := range evs {
		t := evs[i].Time.UnixNano()
		late := i > 0 && t < latest-lateBy
		if !late && (i == 0 || t > latest) {
			latest = t
		}
		w.isLate = append(w.isLate, late)
		anyLate = anyLate || late
	}
	if !anyLate {
		return w.addEventChunks(src, evs, onLine)
	}
	w.late, w.lateOn = w.late[:0], w.lateOn[:0]
	w.inTime, w.inTimeOn = w.inTime[:0], w.inTimeOn[:0]
	for i := range evs {
		on := i < len(onLine) && onLine[i]
		if w.isLate[i] {
			w.late, w.lateOn = append(w.late, evs[i]), append(w.lateOn, on)
		} else {
			w.inTime, w.inTimeOn = append(w.inTime, evs[i]), append(w.inTimeOn, on)
		}
	}
	err := w.addEventChunks(src, w.inTime, w.inTimeOn)
	if err == nil {
		err = w.addEventChunks(src, w.late, w.lateOn)
	}
	clear(w.inTime) // the events' strings go with the batch
	clear(w.late)
	return err
}

// addEventChunks stores events as blocks of at most block.MaxEvents.
func (w *Writer) addEventChunks(src int64, evs []forensics.Event, onLine []bool) error {
	for len(evs) > 0 {
		n := min(len(evs), block.MaxEvents)
		if err := w.addEventBlock(src, evs[:n], onLine[:min(n, len(onLine))]); err != nil {
			return err
		}
		evs, onLine = evs[n:], onLine[min(n, len(onLine)):]
	}
	return nil
}

// addEventBlock stores at most block.MaxEvents events as one block, and a
// row for each kind in it.
func (w *Writer) addEventBlock(src int64, evs []forensics.Event, onLine []bool) error {
	b := w.evEnc.Encode(evs, onLine)
	defer b.Release()
	res, err := w.insEvBlk.ExecContext(noCancel, src, b.MinLine, b.MaxLine, b.TMin, b.TMax, b.Events, b.Data)
	if err != nil {
		return fmt.Errorf("store events: %w", describe(err))
	}
	id, _ := res.LastInsertId()
	for _, k := range b.Kinds {
		if _, err := w.insEvKind.ExecContext(noCancel, string(k.Kind), k.TMin, k.TMax, id, k.Events); err != nil {
			return fmt.Errorf("store events: %w", describe(err))
		}
	}
	w.bytes += int64(len(b.Data))
	w.maxEvSpan = max(w.maxEvSpan, b.TMax-b.TMin)
	return nil
}

// addEventRows stores events a row each, as timelines of schema 1 and 2 do.
//
// The rows go to the driver's statement, not through database/sql: binding
// fifteen values through it costs a conversion and an allocation each, and
// a crossing into C each; the driver's query path binds them and steps in
// one crossing. (The insert runs at its first step; the rows it returns are
// none.)
func (w *Writer) addEventRows(src int64, evs []forensics.Event, onLine []bool) error {
	packed := w.db.schema >= 2
	if w.args == nil {
		w.args = make([]driver.NamedValue, 15)
		for i := range w.args {
			w.args[i].Ordinal = i + 1
		}
	}
	a := w.args
	err := w.conn.Raw(func(any) error {
		for i := range evs {
			e := &evs[i]
			if packed {
				w.attrs = appendAttrs(w.attrs[:0], e.Attrs)
				a[13].Value = w.attrs // copied by the driver before the statement runs
			} else {
				var b strings.Builder
				store.AppendAttrsJSON(&b, e.Attrs)
				a[13].Value = b.String()
			}
			a[0].Value, a[1].Value, a[2].Value, a[3].Value, a[4].Value = src, e.Line, e.Time.UnixNano(), int64(e.Offset), int64(e.Zone)
			a[5].Value, a[6].Value = e.Node, string(e.Kind)
			a[7].Value, a[8].Value, a[9].Value = nullString(e.Bucket), nil, nullInt(e.Range)
			if e.VB != forensics.NoVB {
				a[8].Value = int64(e.VB)
			}
			a[10].Value, a[11].Value, a[12].Value = nullString(e.Keyspace), nullString(e.Shard), nullString(e.Table)
			a[14].Value = e.Text
			if packed && i < len(onLine) && onLine[i] {
				a[14].Value = nil
			}
			rows, err := w.insEvent.QueryContext(noCancel, a)
			if err != nil {
				return fmt.Errorf("store event: %w", describe(err))
			}
			rows.Close()
			w.bytes += int64(len(e.Text) + len(w.attrs) + 64)
		}
		return nil
	})
	for i := range a {
		a[i].Value = nil // the strings of the events go with them
	}
	return err
}

// EndSource records a source's accounting and makes it visible. If its key
// turns out to be one already loaded, the new copy is removed and store.ErrLoaded returned.
func (w *Writer) EndSource(src *forensics.Source) error {
	if err := w.begin(); err != nil {
		return err
	}
	problems := store.ProblemsJSON(src.Problems)
	var first, last any
	if !src.First.IsZero() {
		first, last = src.First.UnixNano(), src.Last.UnixNano()
	}
	_, err := w.tx.ExecContext(w.ctx, `UPDATE main.sources SET key = ?, node = ?, release = ?, bytes = ?, lines = ?, events = ?, plain = ?, skipped = ?, errors = ?,
		first_ns = ?, last_ns = ?, problems = ?, complete = 1 WHERE id = ?`,
		src.Key, src.Node, src.Release, src.Bytes, src.Lines, src.Events, src.Plain, src.Skipped, src.Errors, first, last, string(problems), src.ID)
	if err != nil {
		if isUnique(err) {
			if _, derr := w.tx.ExecContext(w.ctx, `DELETE FROM main.sources WHERE id = ?`, src.ID); derr != nil {
				return derr
			}
			return store.ErrLoaded
		}
		return fmt.Errorf("record source %s: %w", src.Path, describe(err))
	}
	if _, err := w.tx.ExecContext(w.ctx, `INSERT OR IGNORE INTO main.run_sources(run_id, source_id) VALUES (?, ?)`, w.run, src.ID); err != nil {
		return err
	}
	return nil
}

// AbortSource removes a source and everything stored of it.
func (w *Writer) AbortSource(src int64) error {
	if err := w.begin(); err != nil {
		return err
	}
	_, err := w.tx.ExecContext(w.ctx, `DELETE FROM main.sources WHERE id = ?`, src)
	return err
}

// SaveFindings stores the findings of the run, replacing any saved before for it.
func (w *Writer) SaveFindings(fs []forensics.Finding) error {
	if err := w.begin(); err != nil {
		return err
	}
	if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM main.findings WHERE run_id = ?`, w.run); err != nil {
		return err
	}
	for _, f := range fs {
		body, err := json.Marshal(f)
		if err != nil {
			return err
		}
		if _, err := w.tx.ExecContext(w.ctx, `INSERT OR REPLACE INTO main.findings(run_id, id, rule, severity, start_ns, end_ns, body) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			w.run, f.ID, f.Rule, f.Severity.String(), f.Start.UnixNano(), f.End.UnixNano(), string(body)); err != nil {
			return fmt.Errorf("store finding: %w", describe(err))
		}
	}
	return nil
}

// Signature identifies what the run's findings depend on: the content of
// its sources and the rules (rulesID names them and the program's build).
func (db *DB) Signature(ctx context.Context, run int64, rulesID string) (string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT s.key FROM main.run_sources r JOIN main.sources s ON s.id = r.source_id
		WHERE r.run_id = ? ORDER BY s.key`, run)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	h := sha256.New()
	io.WriteString(h, rulesID)
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return "", err
		}
		io.WriteString(h, "\x00"+key)
	}
	return hex.EncodeToString(h.Sum(nil)), rows.Err()
}

// PriorFindings returns the findings of the latest earlier run with the same
// signature: analyzing unchanged content again with the same rules need not
// run them again.
func (db *DB) PriorFindings(ctx context.Context, run int64, signature string) ([]forensics.Finding, bool, error) {
	var prior sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT max(id) FROM main.runs WHERE signature = ? AND id != ?`, signature, run).Scan(&prior)
	if err != nil || !prior.Valid {
		return nil, false, err
	}
	return store.ReusedFindings(func(fn func(store.StoredFinding) error) error {
		return db.eachFinding(ctx, `WHERE run_id = ? ORDER BY start_ns, rule, id`, []any{prior.Int64}, fn)
	})
}

// SetSignature records the run's signature, once its findings are saved.
func (w *Writer) SetSignature(signature string) error {
	if err := w.begin(); err != nil {
		return err
	}
	_, err := w.tx.ExecContext(w.ctx, `UPDATE main.runs SET signature = ? WHERE id = ?`, signature, w.run)
	return err
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

func isUnique(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique
}

// describe turns SQLite's storage errors into advice.
func describe(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrFull:
			return fmt.Errorf("the disk is full; free space or pass --db on another disk, then run again (the sources read so far are kept): %w", err)
		case sqlite3.ErrReadonly:
			return fmt.Errorf("the timeline file is read-only: %w", err)
		case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return fmt.Errorf("the timeline file is damaged; analyze into a new --db: %w", err)
		}
	}
	return err
}

// Discard removes the run, for a run that read nothing: the latest run
// stays the latest analysis, and a timeline file this open created is
// removed when the database is closed.
func (w *Writer) Discard() error {
	w.Rollback()
	w.db.discard = true
	_, err := w.db.sql.ExecContext(w.ctx, `DELETE FROM main.runs WHERE id = ?`, w.run)
	return err
}
