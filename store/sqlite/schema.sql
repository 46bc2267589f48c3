-- The timeline. Times are unix nanoseconds, UTC. Tables are the storage;
-- the documented interface for queries is the set of views created by the
-- query connection (see forensics timeline schema).

CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS sources (
	id        INTEGER PRIMARY KEY,
	key       TEXT NOT NULL UNIQUE,   -- content identity; the same key is not read twice
	path      TEXT NOT NULL,
	node      TEXT NOT NULL,
	format    TEXT NOT NULL,
	component TEXT NOT NULL,
	release   TEXT NOT NULL DEFAULT '', -- the release that wrote it, as the file says; added after schema 1 (see store.go addRelease)
	bytes     INTEGER NOT NULL DEFAULT 0,
	lines     INTEGER NOT NULL DEFAULT 0,
	events    INTEGER NOT NULL DEFAULT 0,
	plain     INTEGER NOT NULL DEFAULT 0,
	skipped   INTEGER NOT NULL DEFAULT 0,
	errors    INTEGER NOT NULL DEFAULT 0,
	first_ns  INTEGER,
	last_ns   INTEGER,
	problems  TEXT NOT NULL DEFAULT '[]', -- JSON array of {path, line, reason, lost}
	complete  INTEGER NOT NULL DEFAULT 0, -- 1 once every line is stored; readers see only complete sources
	loaded_at TEXT NOT NULL
);

-- events holds the events of timelines of schema 1 and 2, a row each;
-- schema 3 keeps them in event_blocks, and this table stays empty.
CREATE TABLE IF NOT EXISTS events (
	id        INTEGER PRIMARY KEY,
	source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	line      INTEGER NOT NULL,
	t         INTEGER NOT NULL,
	tz        INTEGER NOT NULL, -- UTC offset in seconds as logged
	zone      INTEGER NOT NULL, -- 0 logged, 1 utc, 2 assumed utc, 3 inherited
	node      TEXT NOT NULL,
	kind      TEXT NOT NULL,
	bucket    TEXT,
	vb        INTEGER,
	range_id  INTEGER,
	keyspace  TEXT,
	shard     TEXT,
	tbl       TEXT,
	attrs     TEXT NOT NULL, -- packed keys and values (attrs.go); JSON in timelines of schema 1; the events view shows JSON
	text      TEXT           -- NULL: the whole text of the line, kept once, in its block
);
CREATE INDEX IF NOT EXISTS events_t ON events(t);
CREATE INDEX IF NOT EXISTS events_kind_t ON events(kind, t);
CREATE INDEX IF NOT EXISTS events_source_line ON events(source_id, line);

-- Events of schema 3: up to 512 events of a source a block, in the order
-- the parser emitted them (store/block/events.go for the record layout),
-- and which kinds each block holds, and when, to find the blocks of a kind.
CREATE TABLE IF NOT EXISTS event_blocks (
	id        INTEGER PRIMARY KEY,
	source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	min_line  INTEGER NOT NULL,
	max_line  INTEGER NOT NULL,
	t_min     INTEGER NOT NULL,
	t_max     INTEGER NOT NULL,
	events    INTEGER NOT NULL,
	data      BLOB NOT NULL -- S2
);
-- The indexes hold the columns the blocks are chosen by, so that SQLite
-- reads a block's row, blob and all, only when it is one of those chosen:
-- with t_min alone, a window query read every block that started within
-- the longest span before it (diag.log's one block spans the whole
-- collection). A timeline written before gets them at its first writing
-- open (rebuildIndexes, store.go).
CREATE INDEX IF NOT EXISTS event_blocks_t ON event_blocks(t_min, t_max);
CREATE INDEX IF NOT EXISTS event_blocks_source ON event_blocks(source_id, min_line, max_line);

CREATE TABLE IF NOT EXISTS event_kinds (
	kind     TEXT NOT NULL,
	t_min    INTEGER NOT NULL,
	t_max    INTEGER NOT NULL,
	block_id INTEGER NOT NULL REFERENCES event_blocks(id) ON DELETE CASCADE,
	events   INTEGER NOT NULL,
	PRIMARY KEY (kind, t_min, block_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS event_kinds_block ON event_kinds(block_id);

CREATE TABLE IF NOT EXISTS blocks (
	id         INTEGER PRIMARY KEY,
	source_id  INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	first_line INTEGER NOT NULL,
	lines      INTEGER NOT NULL,
	t_min      INTEGER NOT NULL,
	t_max      INTEGER NOT NULL,
	data       BLOB NOT NULL -- S2, or a deflate span; see store/block/block.go for the layouts
);
-- Both hold every column a window query chooses blocks by (event_blocks'
-- indexes say why): it reads the blocks it chose, by id, and no others.
CREATE INDEX IF NOT EXISTS blocks_t ON blocks(t_min, t_max, source_id, first_line);
CREATE INDEX IF NOT EXISTS blocks_source ON blocks(source_id, first_line, t_min, t_max);

-- The index of blocks of lines (store/block/grams.go): the 4-grams of the
-- lines of up to 64 blocks written together, a segment, slot by slot, in
-- parts of 256 slots; and for each block indexed, its segment and its
-- place, its bit in the segment's words. A block with no row was written
-- before the timeline had the index, and every search reads it
-- (forensics timeline reindex indexes it).
CREATE TABLE IF NOT EXISTS gram_segments (
	id      INTEGER PRIMARY KEY,
	version INTEGER NOT NULL, -- block.GramsVersion of the sketches
	blocks  INTEGER NOT NULL  -- how many blocks it holds
);
CREATE TABLE IF NOT EXISTS gram_parts (
	segment INTEGER NOT NULL REFERENCES gram_segments(id) ON DELETE CASCADE,
	part    INTEGER NOT NULL,
	data    BLOB NOT NULL, -- S2 of 256 words, one a slot: bit i set when the segment's block i has it
	PRIMARY KEY (segment, part)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS block_grams (
	block_id INTEGER PRIMARY KEY REFERENCES blocks(id) ON DELETE CASCADE,
	segment  INTEGER NOT NULL,
	place    INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS runs (
	id        INTEGER PRIMARY KEY,
	started   TEXT NOT NULL,
	args      TEXT NOT NULL,          -- JSON array of the inputs
	signature TEXT NOT NULL DEFAULT '' -- the content read and the rules run: the same signature gives the same findings
);

CREATE TABLE IF NOT EXISTS run_sources (
	run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	PRIMARY KEY (run_id, source_id)
);

CREATE TABLE IF NOT EXISTS findings (
	run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	id       TEXT NOT NULL,   -- the finding's fingerprint
	rule     TEXT NOT NULL,
	severity TEXT NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns   INTEGER NOT NULL,
	body     TEXT NOT NULL,   -- the finding as JSON, as printed by --format json
	PRIMARY KEY (run_id, id)
);

-- The incident each run analysed: its inputs' name, or analyze --incident.
-- Runs of the same incident share the name; queries default to the latest.
CREATE TABLE IF NOT EXISTS run_incidents (
	run_id   INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	incident TEXT NOT NULL
);

-- Runs still being written. A run is an analysis once its findings are
-- saved: until then it is listed here, and readers take each incident's
-- latest run among the others, so a re-analysis that is killed leaves the
-- previous one's findings in view. A writing open removes the runs left
-- here by a writer that died (only one writes at a time).
CREATE TABLE IF NOT EXISTS loading_runs (
	run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE
);
