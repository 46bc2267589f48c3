package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

// Rows go to the server with COPY in batches of these sizes: large enough
// that a round trip carries megabytes, small enough to bound the memory
// held. A transaction spans several batches.
const (
	copyBytes    = 4 << 20
	copyEvents   = 10000
	commitBytes  = 64 << 20
	commitEvents = 200000
)

// staleAfter is how long an incomplete source outlives the last commit of
// the run loading it before another run removes it: the writer commits
// every few seconds while it loads, so a run silent that long has died.
const staleAfter = "30 minutes"

// Writer writes one run. It holds one connection, and a transaction that is
// committed every commitBytes and whenever a source is complete, so a
// source becomes visible as soon as it is whole, and the unique key that
// settles a race between two clients loading the same content is held
// only for a moment.
type Writer struct {
	db       *DB
	ctx      context.Context
	conn     *pgxpool.Conn
	tx       pgx.Tx
	run      int64
	inputs   []string
	incident int64
	recorded bool // the run's row is written

	cur      batch       // rows being added
	spare    batch       // the other batch's memory, once its COPY is done
	returned batch       // set by the COPY goroutine before it reports on inflight
	inflight chan copied // the COPY under way (flush), nil when none
	pending  int64       // bytes waiting for COPY
	written  int64       // bytes written in this transaction
	counted  int         // events written in this transaction
	maxSpan  int64
	seq      map[int64]int64 // next event and block number, per source
	seg      segmentWriter   // the index of the blocks written
}

type eventRow struct {
	source, seq, line, t int64
	tz                   int32
	zone                 int16
	node, kind           string
	bucket               *string
	vb                   *int32
	rng                  *int64
	keyspace, shard, tbl *string
	attrs, text          string
}

// blockRow is a block waiting for COPY. Its compressed lines are copied
// into the writer's data and the block released at once: a block's buffer
// is sized for the worst case (several times the usual compressed size),
// so holding megabytes of blocks would hold several times that in buffers.
type blockRow struct {
	source, seq                  int64
	firstLine, lines, tMin, tMax int64
	off, end                     int
	segment                      *int64 // its segment of the index of blocks, and its place in it
	place                        *int16
}

// gramRow is a part of a segment of the index of blocks waiting for COPY:
// its data is in the batch's data, after the blocks'.
type gramRow struct {
	segment  int64
	part     int32
	off, end int
}

// segmentRow is a segment of the index of blocks waiting for COPY.
type segmentRow struct {
	id     int64
	blocks int16
}

// NewRun starts a run over the given inputs. Its row is written when the
// run learns its incident (SetIncident), which leads the row's key.
func (db *DB) NewRun(ctx context.Context, inputs []string) (store.Writer, error) {
	if db.readOnly {
		return nil, errors.New("the timeline is open read-only")
	}
	var id int64
	if err := db.pool.QueryRow(ctx, `SELECT nextval('forensics.ids')`).Scan(&id); err != nil {
		return nil, db.fail("record run", err)
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, db.fail("record run", err)
	}
	w := &Writer{db: db, ctx: ctx, conn: conn, run: id, inputs: inputs, seq: map[int64]int64{}}
	db.mu.Lock()
	if db.writers == nil {
		db.writers = map[*Writer]bool{}
	}
	db.writers[w] = true
	db.mu.Unlock()
	return w, nil
}

// Run returns the id of the run the writer records.
func (w *Writer) Run() int64 { return w.run }

// incidentID derives an incident's id from its name: clients on different
// machines naming the same incident agree on it without a round trip, and
// two of them creating it at once write the same row.
func incidentID(name string) int64 {
	h := sha256.Sum256([]byte(name))
	return int64(binary.BigEndian.Uint64(h[:8]) &^ (1 << 63))
}

// SetIncident names the incident the run analyses and records the run.
func (w *Writer) SetIncident(name string) error {
	if w.recorded {
		return fmt.Errorf("run %d already belongs to an incident", w.run)
	}
	id := incidentID(name)
	c := w.conn
	if _, err := c.Exec(w.ctx, `INSERT INTO forensics.incidents (incident_id, name) VALUES ($1, $2) ON CONFLICT (incident_id) DO NOTHING`, id, pgText(name)); err != nil {
		return w.db.fail("record incident", err)
	}
	var stored string
	if err := c.QueryRow(w.ctx, `SELECT name FROM forensics.incidents WHERE incident_id = $1`, id).Scan(&stored); err != nil {
		return w.db.fail("record incident", err)
	}
	if stored = fromPG(stored); stored != name {
		return fmt.Errorf("incidents %q and %q have the same id; name this one differently with --incident", name, stored)
	}
	args, _ := json.Marshal(w.inputs)
	// The run and its mark as loading in one statement: readers never see
	// it without the mark, killed at any point.
	if _, err := c.Exec(w.ctx, `WITH run AS (INSERT INTO forensics.runs (incident_id, id, started, args, heartbeat) VALUES ($1, $2, now(), $3, now()) RETURNING incident_id, id)
		INSERT INTO forensics.loading_runs (incident_id, run_id) SELECT incident_id, id FROM run`, id, w.run, pgText(string(args))); err != nil {
		return w.db.fail("record run", err)
	}
	w.incident, w.recorded = id, true
	w.db.mu.Lock()
	w.db.incident = id
	w.db.runs[w.run] = id
	w.db.mu.Unlock()
	return w.removeStale()
}

// removeStale removes the sources of the incident left incomplete by runs
// that stopped committing long ago (interrupted, or killed): readers never
// saw them, and the next analysis of the same content reads it again.
// Sources being loaded by another client right now are left alone.
func (w *Writer) removeStale() error {
	rows, err := w.conn.Query(w.ctx, `SELECT s.id FROM forensics.sources s JOIN forensics.runs r ON r.incident_id = s.incident_id AND r.id = s.run_id
		WHERE s.incident_id = $1 AND NOT s.complete AND r.heartbeat < now() - interval '`+staleAfter+`'`, w.incident)
	if err != nil {
		return w.db.fail("remove incomplete sources", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return w.db.fail("remove incomplete sources", err)
	}
	for _, id := range ids {
		if err := w.AbortSource(id); err != nil {
			return err
		}
	}
	return w.Commit()
}

func (w *Writer) ensureRun() error {
	if !w.recorded {
		return w.SetIncident(store.IncidentName(w.inputs))
	}
	return nil
}

func (w *Writer) begin() error {
	if err := w.ensureRun(); err != nil {
		return err
	}
	if w.tx != nil {
		return nil
	}
	tx, err := w.conn.Begin(w.ctx)
	if err != nil {
		return w.db.fail("begin", err)
	}
	w.tx = tx
	return nil
}

// exec runs a statement in the writer's transaction.
func (w *Writer) exec(doing, sql string, args ...any) error {
	if err := w.begin(); err != nil {
		return err
	}
	if err := w.sync(); err != nil {
		return err
	}
	if _, err := w.tx.Exec(w.ctx, sql, args...); err != nil {
		return w.db.fail(doing, err)
	}
	return nil
}

// Commit sends what is pending and commits.
func (w *Writer) Commit() error {
	if w.tx == nil {
		return nil
	}
	// The index of the blocks written goes with them.
	w.seg.flush(&w.cur)
	if err := w.flushAll(); err != nil {
		w.Rollback()
		return err
	}
	if _, err := w.tx.Exec(w.ctx, `UPDATE forensics.runs SET heartbeat = now() WHERE incident_id = $1 AND id = $2`, w.incident, w.run); err != nil {
		w.Rollback()
		return w.db.fail("commit", err)
	}
	if w.maxSpan > 0 {
		if _, err := w.tx.Exec(w.ctx, `UPDATE forensics.incidents SET max_block_span = greatest(max_block_span, $2) WHERE incident_id = $1`, w.incident, w.maxSpan); err != nil {
			w.Rollback()
			return w.db.fail("commit", err)
		}
	}
	err := w.tx.Commit(w.ctx)
	w.tx, w.written, w.counted = nil, 0, 0
	if err != nil {
		return w.db.fail("commit", err)
	}
	return nil
}

func (w *Writer) commitIfFull() error {
	if w.pending >= copyBytes || len(w.cur.events) >= copyEvents {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if w.written >= commitBytes || w.counted >= commitEvents {
		return w.Commit()
	}
	return nil
}

// batch is rows on their way to the server: the writer fills one while
// the COPY of the other runs.
type batch struct {
	events   []eventRow
	blocks   []blockRow
	grams    []gramRow
	segments []segmentRow
	data     []byte // the compressed lines of blocks and the parts of the index, back to back; their rows' off index it
}

type copied struct {
	events int64
	err    error
}

// flush starts the COPY of the pending events and blocks and returns: the
// rows go to the server on another goroutine while the writer fills the
// other batch, so parsing does not stop while the server stores a batch.
// Only that goroutine uses the transaction until sync returns; every
// other use of w.tx comes after sync. A failed COPY is reported by the
// sync that follows it (the next flush, or any other call).
func (w *Writer) flush() error {
	if err := w.sync(); err != nil {
		return err
	}
	if len(w.cur.events) == 0 && len(w.cur.blocks) == 0 && len(w.cur.grams) == 0 {
		return nil
	}
	b := w.cur
	w.cur, w.spare = w.spare, batch{}
	w.written += w.pending
	w.pending = 0
	done := make(chan copied, 1)
	w.inflight = done
	tx, ctx, inc := w.tx, w.ctx, w.incident
	go func() {
		var c copied
		if len(b.events) > 0 {
			c.events, c.err = tx.CopyFrom(ctx, pgx.Identifier{"forensics", "events"},
				[]string{"incident_id", "source_id", "seq", "line", "t", "tz", "zone", "node", "kind", "bucket", "vb", "range_id", "keyspace", "shard", "tbl", "attrs", "text"},
				&eventSource{rows: b.events, incident: inc, pos: -1})
			if c.err != nil {
				c.err = w.db.fail("store events", c.err)
			}
		}
		if len(b.blocks) > 0 && c.err == nil {
			_, c.err = tx.CopyFrom(ctx, pgx.Identifier{"forensics", "blocks"},
				[]string{"incident_id", "source_id", "seq", "first_line", "lines", "t_min", "t_max", "data", "gram_segment", "gram_place"},
				&blockSource{rows: b.blocks, data: b.data, incident: inc, pos: -1})
			if c.err != nil {
				c.err = w.db.fail("store lines", c.err)
			}
		}
		if len(b.grams) > 0 && c.err == nil {
			_, c.err = tx.CopyFrom(ctx, pgx.Identifier{"forensics", "gram_parts"}, []string{"incident_id", "segment", "part", "data"},
				pgx.CopyFromSlice(len(b.grams), func(i int) ([]any, error) {
					g := &b.grams[i]
					return []any{inc, g.segment, g.part, b.data[g.off:g.end]}, nil
				}))
			if c.err != nil {
				c.err = w.db.fail("index lines", c.err)
			}
		}
		if len(b.segments) > 0 && c.err == nil {
			_, c.err = tx.CopyFrom(ctx, pgx.Identifier{"forensics", "gram_segments"}, []string{"incident_id", "id", "version", "blocks"},
				pgx.CopyFromSlice(len(b.segments), func(i int) ([]any, error) {
					return []any{inc, b.segments[i].id, int16(block.GramsVersion), b.segments[i].blocks}, nil
				}))
			if c.err != nil {
				c.err = w.db.fail("index lines", c.err)
			}
		}
		w.returned = batch{b.events[:0], b.blocks[:0], b.grams[:0], b.segments[:0], b.data[:0]}
		done <- c
	}()
	return nil
}

// sync waits for the COPY under way, if any, and reports how it went.
func (w *Writer) sync() error {
	if w.inflight == nil {
		return nil
	}
	c := <-w.inflight
	w.inflight = nil
	w.spare, w.returned = w.returned, batch{}
	w.counted += int(c.events)
	w.db.mu.Lock()
	w.db.loaded += c.events
	w.db.mu.Unlock()
	return c.err
}

// flushAll sends everything pending and waits until the server has it.
func (w *Writer) flushAll() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.sync()
}

// eventSource feeds COPY from the pending events, one reused row at a time.
type eventSource struct {
	rows     []eventRow
	incident int64
	pos      int
	vals     [17]any
}

func (s *eventSource) Next() bool { s.pos++; return s.pos < len(s.rows) }
func (s *eventSource) Err() error { return nil }
func (s *eventSource) Values() ([]any, error) {
	e := &s.rows[s.pos]
	s.vals = [17]any{s.incident, e.source, e.seq, e.line, e.t, e.tz, e.zone, e.node, e.kind, e.bucket, e.vb, e.rng, e.keyspace, e.shard, e.tbl, e.attrs, e.text}
	return s.vals[:], nil
}

type blockSource struct {
	rows     []blockRow
	data     []byte
	incident int64
	pos      int
	vals     [10]any
}

func (s *blockSource) Next() bool { s.pos++; return s.pos < len(s.rows) }
func (s *blockSource) Err() error { return nil }
func (s *blockSource) Values() ([]any, error) {
	b := &s.rows[s.pos]
	s.vals = [10]any{s.incident, b.source, b.seq, b.firstLine, b.lines, b.tMin, b.tMax, s.data[b.off:b.end], b.segment, b.place}
	return s.vals[:], nil
}

// Rollback abandons what was written since the last commit.
func (w *Writer) Rollback() {
	w.sync() // the transaction is abandoned: how its last COPY went no longer matters
	w.cur = batch{w.cur.events[:0], w.cur.blocks[:0], w.cur.grams[:0], w.cur.segments[:0], w.cur.data[:0]}
	w.seg.abandon()
	w.pending = 0
	if w.tx != nil {
		w.tx.Rollback(context.WithoutCancel(w.ctx))
		w.tx = nil
	}
}

// Close ends the run: it is an analysis from now on, with its findings,
// in the same transaction as they. It lets the connection go.
func (w *Writer) Close() error {
	err := w.exec("end run", `DELETE FROM forensics.loading_runs WHERE incident_id = $1 AND run_id = $2`, w.incident, w.run)
	if err == nil {
		err = w.Commit()
	}
	w.release()
	return err
}

func (w *Writer) release() {
	w.db.mu.Lock()
	delete(w.db.writers, w)
	w.db.mu.Unlock()
	if w.conn != nil {
		w.conn.Release()
		w.conn = nil
	}
}

const sourceColumns = `id, key, path, node, format, component, release, bytes, lines, events, plain, skipped, errors, first_ns, last_ns, problems`

// Loaded looks up a complete source of the incident by its key and adds it to the run.
func (w *Writer) Loaded(key string) (forensics.Source, bool, error) {
	if err := w.begin(); err != nil {
		return forensics.Source{}, false, err
	}
	if err := w.sync(); err != nil {
		return forensics.Source{}, false, err
	}
	rows, err := w.tx.Query(w.ctx, `SELECT `+sourceColumns+` FROM forensics.sources WHERE incident_id = $1 AND key = $2 AND complete`, w.incident, pgText(key))
	if err != nil {
		return forensics.Source{}, false, w.db.fail("look up source", err)
	}
	srcs, err := scanSources(rows)
	if err != nil || len(srcs) == 0 {
		return forensics.Source{}, false, err
	}
	err = w.exec("record source", `INSERT INTO forensics.run_sources (incident_id, run_id, source_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, w.incident, w.run, srcs[0].ID)
	return srcs[0], err == nil, err
}

// BeginSource records a source about to be read and sets its ID.
func (w *Writer) BeginSource(src *forensics.Source) error {
	if err := w.begin(); err != nil {
		return err
	}
	if err := w.sync(); err != nil {
		return err
	}
	if src.Key != "" {
		var one int
		err := w.tx.QueryRow(w.ctx, `SELECT 1 FROM forensics.sources WHERE incident_id = $1 AND key = $2 AND complete`, w.incident, pgText(src.Key)).Scan(&one)
		if err == nil {
			return store.ErrLoaded
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return w.db.fail("record source "+src.Path, err)
		}
	}
	var id int64
	if err := w.tx.QueryRow(w.ctx, `SELECT nextval('forensics.ids')`).Scan(&id); err != nil {
		return w.db.fail("record source "+src.Path, err)
	}
	key := src.Key
	if key == "" {
		key = fmt.Sprintf("pending:%d", id) // the real key is set when the source is complete
	}
	if err := w.exec("record source "+src.Path, `INSERT INTO forensics.sources (incident_id, id, run_id, key, path, node, format, component, loaded_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())`, w.incident, id, w.run, pgText(key), pgText(src.Path), pgText(src.Node), pgText(src.Format), pgText(src.Component)); err != nil {
		return err
	}
	src.ID = id
	return nil
}

// LineBuffer returns a buffer that encodes and compresses lines into
// blocks on the goroutine that fills it, as the SQLite backend does.
func (w *Writer) LineBuffer() store.LineBuffer { return block.NewLineBuffer(true, true) }

// AddLines queues a block of lines of a source for COPY.
func (w *Writer) AddLines(src int64, lb store.LineBatch) error {
	b := lb.(*block.Batch).Block
	if err := w.begin(); err != nil {
		b.Release()
		return err
	}
	c := &w.cur
	off := len(c.data)
	c.data = append(c.data, b.Data...)
	row := blockRow{source: src, seq: w.next(src), firstLine: b.FirstLine, lines: b.Lines, tMin: b.TMin, tMax: b.TMax, off: off, end: len(c.data)}
	if b.Sketch != nil {
		seg, place, err := w.seg.add(w, b.Sketch)
		if err != nil {
			b.Release()
			return err
		}
		row.segment, row.place = &seg, &place
	}
	c.blocks = append(c.blocks, row)
	w.pending += int64(len(b.Data))
	w.maxSpan = max(w.maxSpan, b.TMax-b.TMin)
	b.Release()
	return w.commitIfFull()
}

func (w *Writer) next(src int64) int64 {
	n := w.seq[src]
	w.seq[src] = n + 1
	return n
}

// AddEvents queues events of a source for COPY.
func (w *Writer) AddEvents(src int64, evs []forensics.Event) error {
	if err := w.begin(); err != nil {
		return err
	}
	var attrs strings.Builder
	for i := range evs {
		e := &evs[i]
		attrs.Reset()
		store.AppendAttrsJSON(&attrs, pgAttrs(e.Attrs))
		r := eventRow{
			source: src, seq: w.next(src), line: e.Line, t: e.Time.UnixNano(), tz: e.Offset, zone: int16(e.Zone),
			node: pgText(e.Node), kind: pgText(string(e.Kind)), bucket: pgTextPtr(nullString(e.Bucket)), rng: nullInt(e.Range),
			keyspace: pgTextPtr(nullString(e.Keyspace)), shard: pgTextPtr(nullString(e.Shard)), tbl: pgTextPtr(nullString(e.Table)),
			attrs: attrs.String(), text: pgText(e.Text),
		}
		if e.VB != forensics.NoVB {
			vb := int32(e.VB)
			r.vb = &vb
		}
		w.cur.events = append(w.cur.events, r)
		w.pending += int64(len(e.Text) + attrs.Len() + 64)
	}
	return w.commitIfFull()
}

// EndSource records a source's accounting, makes it visible and commits.
// When another client completed the same content first, this copy is
// removed and store.ErrLoaded returned.
func (w *Writer) EndSource(src *forensics.Source) error {
	if err := w.begin(); err != nil {
		return err
	}
	if err := w.flushAll(); err != nil {
		return err
	}
	problems := store.ProblemsJSON(src.Problems)
	var first, last *int64
	if !src.First.IsZero() {
		f, l := src.First.UnixNano(), src.Last.UnixNano()
		first, last = &f, &l
	}
	sp, err := w.tx.Begin(w.ctx) // a savepoint: a lost race must not abort the transaction
	if err != nil {
		return w.db.fail("record source "+src.Path, err)
	}
	_, err = sp.Exec(w.ctx, `UPDATE forensics.sources SET key = $3, node = $4, release = $5, bytes = $6, lines = $7, events = $8, plain = $9, skipped = $10, errors = $11,
		first_ns = $12, last_ns = $13, problems = $14, complete = true WHERE incident_id = $1 AND id = $2`,
		w.incident, src.ID, pgText(src.Key), pgText(src.Node), pgText(src.Release), src.Bytes, src.Lines, src.Events, src.Plain, src.Skipped, src.Errors, first, last, pgText(string(problems)))
	if isUnique(err) {
		sp.Rollback(w.ctx)
		if err := w.AbortSource(src.ID); err != nil {
			return err
		}
		if err := w.Commit(); err != nil {
			return err
		}
		return store.ErrLoaded
	}
	if err != nil {
		sp.Rollback(w.ctx)
		return w.db.fail("record source "+src.Path, err)
	}
	if err := sp.Commit(w.ctx); err != nil {
		return w.db.fail("record source "+src.Path, err)
	}
	if err := w.exec("record source "+src.Path, `INSERT INTO forensics.run_sources (incident_id, run_id, source_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, w.incident, w.run, src.ID); err != nil {
		return err
	}
	delete(w.seq, src.ID)
	return w.Commit()
}

// AbortSource removes a source and everything stored of it.
func (w *Writer) AbortSource(src int64) error {
	if err := w.begin(); err != nil {
		return err
	}
	if err := w.flushAll(); err != nil {
		return err
	}
	for _, table := range []string{"events", "blocks"} {
		if err := w.exec("remove source", `DELETE FROM forensics.`+table+` WHERE incident_id = $1 AND source_id = $2`, w.incident, src); err != nil {
			return err
		}
	}
	if err := w.exec("remove source", `DELETE FROM forensics.run_sources WHERE incident_id = $1 AND source_id = $2`, w.incident, src); err != nil {
		return err
	}
	// Segments of the index whose every block went with the source.
	for _, table := range []string{"gram_parts", "gram_segments"} {
		col := map[string]string{"gram_parts": "segment", "gram_segments": "id"}[table]
		if err := w.exec("remove source", `DELETE FROM forensics.`+table+` WHERE incident_id = $1 AND `+col+` NOT IN
			(SELECT gram_segment FROM forensics.blocks WHERE incident_id = $1 AND gram_segment IS NOT NULL)`, w.incident); err != nil {
			return err
		}
	}
	delete(w.seq, src)
	return w.exec("remove source", `DELETE FROM forensics.sources WHERE incident_id = $1 AND id = $2`, w.incident, src)
}

// SaveFindings stores the findings of the run, replacing any saved before for it.
func (w *Writer) SaveFindings(fs []forensics.Finding) error {
	if err := w.exec("store findings", `DELETE FROM forensics.findings WHERE incident_id = $1 AND run_id = $2`, w.incident, w.run); err != nil {
		return err
	}
	rows := make([][]any, 0, len(fs))
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.ID] {
			continue // as SQLite's INSERT OR REPLACE: one row per id
		}
		seen[f.ID] = true
		body, err := json.Marshal(f)
		if err != nil {
			return err
		}
		rows = append(rows, []any{w.incident, w.run, f.ID, pgText(f.Rule), f.Severity.String(), int16(f.Severity.Rank()), pgText(f.Subject.Node), pgText(store.SubjectShape(f.Subject)),
			f.Start.UnixNano(), f.End.UnixNano(), pgText(f.Title), pgText(f.Explanation), string(body)})
	}
	_, err := w.tx.CopyFrom(w.ctx, pgx.Identifier{"forensics", "findings"},
		[]string{"incident_id", "run_id", "id", "rule", "severity", "rank", "node", "shape", "start_ns", "end_ns", "title", "explanation", "body"}, pgx.CopyFromRows(rows))
	if err != nil {
		return w.db.fail("store findings", err)
	}
	return nil
}

// SetSignature records the run's signature, once its findings are saved.
func (w *Writer) SetSignature(signature string) error {
	return w.exec("record run", `UPDATE forensics.runs SET signature = $3 WHERE incident_id = $1 AND id = $2`, w.incident, w.run, signature)
}

// Discard removes the run, for a run that read nothing.
func (w *Writer) Discard() error {
	w.Rollback()
	defer w.release()
	if !w.recorded {
		return nil
	}
	for _, q := range []string{
		`DELETE FROM forensics.run_sources WHERE incident_id = $1 AND run_id = $2`,
		`DELETE FROM forensics.findings WHERE incident_id = $1 AND run_id = $2`,
		`DELETE FROM forensics.runs WHERE incident_id = $1 AND id = $2`,
	} {
		if _, err := w.conn.Exec(w.ctx, q, w.incident, w.run); err != nil {
			return w.db.fail("discard run", err)
		}
	}
	return nil
}

// Keys returns the keys of the complete sources of the incident being
// written (of every incident before a run names one).
func (db *DB) Keys(ctx context.Context) (map[string]bool, error) {
	db.mu.Lock()
	inc := db.incident
	db.mu.Unlock()
	q, args := `SELECT key FROM forensics.sources WHERE complete`, []any{}
	if inc != 0 {
		q, args = `SELECT key FROM forensics.sources WHERE incident_id = $1 AND complete`, []any{inc}
	}
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, db.fail("read", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, db.fail("read", err)
	}
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[fromPG(k)] = true
	}
	return out, nil
}

// Signature identifies what the run's findings depend on: the content of
// its sources and the rules, computed as the SQLite backend does.
func (db *DB) Signature(ctx context.Context, run int64, rulesID string) (string, error) {
	inc, err := db.incidentOf(ctx, run)
	if err != nil {
		return "", err
	}
	rows, err := db.pool.Query(ctx, `SELECT s.key FROM forensics.run_sources r JOIN forensics.sources s ON s.incident_id = r.incident_id AND s.id = r.source_id
		WHERE r.incident_id = $1 AND r.run_id = $2 ORDER BY s.key`, inc, run)
	if err != nil {
		return "", db.fail("read", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", db.fail("read", err)
	}
	// The keys as read, in byte order, as SQLite's ORDER BY gives them:
	// the signature is the same function in both stores.
	for i := range keys {
		keys[i] = fromPG(keys[i])
	}
	slices.Sort(keys)
	h := sha256.New()
	io.WriteString(h, rulesID)
	for _, k := range keys {
		io.WriteString(h, "\x00"+k)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// PriorFindings returns the findings of the latest earlier run of the same
// incident with the same signature.
func (db *DB) PriorFindings(ctx context.Context, run int64, signature string) ([]forensics.Finding, bool, error) {
	inc, err := db.incidentOf(ctx, run)
	if err != nil {
		return nil, false, err
	}
	var prior *int64
	if err := db.pool.QueryRow(ctx, `SELECT max(r.id) FROM forensics.runs r WHERE r.incident_id = $1 AND r.signature = $2 AND r.id <> $3 AND `+doneRun, inc, signature, run).Scan(&prior); err != nil {
		return nil, false, db.fail("read", err)
	}
	if prior == nil {
		return nil, false, nil
	}
	return store.ReusedFindings(func(fn func(store.StoredFinding) error) error {
		return db.eachFinding(ctx, `WHERE f.incident_id = $1 AND f.run_id = $2 ORDER BY f.start_ns, f.rule, f.id`, []any{inc, *prior}, fn)
	})
}

// RunSignature returns the signature recorded for a run ("" when none was).
func (db *DB) RunSignature(ctx context.Context, run int64) (string, error) {
	inc, err := db.incidentOf(ctx, run)
	if err != nil {
		return "", err
	}
	var sig string
	if err := db.pool.QueryRow(ctx, `SELECT signature FROM forensics.runs WHERE incident_id = $1 AND id = $2`, inc, run).Scan(&sig); err != nil {
		return "", db.fail("read", err)
	}
	return sig, nil
}

// LockIncident holds the incident for this client until unlock, with an
// advisory lock on its id (fleet.IncidentLocker): two pushes of one
// incident at once would both find it absent and both copy it; the second
// now waits, then finds the first's copy. An engine without advisory
// locks (CockroachDB) pushes without it.
func (db *DB) LockIncident(ctx context.Context, name string) (func(), error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, db.fail("lock incident", err)
	}
	id := incidentID(name)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, id); err != nil {
		conn.Release()
		if db.engine != "postgresql" {
			return func() {}, nil
		}
		return nil, db.fail("lock incident", err)
	}
	return func() {
		conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, id)
		conn.Release()
	}, nil
}
