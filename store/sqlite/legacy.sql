-- The definitions earlier releases of forensics gave the objects of a
-- timeline, where they differ from schema.sql's (trust.go accepts a
-- timeline only when each object has one of these definitions or
-- schema.sql's). When schema.sql changes a definition, its old one moves
-- here: timelines written before keep it until a writing open replaces it.

-- Schema 1: events a row each, attributes as JSON.
CREATE TABLE IF NOT EXISTS events (
	id        INTEGER PRIMARY KEY,
	source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	line      INTEGER NOT NULL,
	t         INTEGER NOT NULL,
	tz        INTEGER NOT NULL,
	zone      INTEGER NOT NULL,
	node      TEXT NOT NULL,
	kind      TEXT NOT NULL,
	bucket    TEXT,
	vb        INTEGER,
	range_id  INTEGER,
	keyspace  TEXT,
	shard     TEXT,
	tbl       TEXT,
	attrs     TEXT NOT NULL,
	text      TEXT NOT NULL
);

-- Schemas 1 to 3, before the indexes of blocks held what blocks are chosen by.
CREATE TABLE IF NOT EXISTS blocks (
	id         INTEGER PRIMARY KEY,
	source_id  INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	first_line INTEGER NOT NULL,
	lines      INTEGER NOT NULL,
	t_min      INTEGER NOT NULL,
	t_max      INTEGER NOT NULL,
	data       BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS blocks_t ON blocks(t_min);
CREATE INDEX IF NOT EXISTS blocks_source ON blocks(source_id, first_line);
CREATE TABLE IF NOT EXISTS event_blocks (
	id        INTEGER PRIMARY KEY,
	source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	min_line  INTEGER NOT NULL,
	max_line  INTEGER NOT NULL,
	t_min     INTEGER NOT NULL,
	t_max     INTEGER NOT NULL,
	events    INTEGER NOT NULL,
	data      BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS event_blocks_t ON event_blocks(t_min);
CREATE INDEX IF NOT EXISTS event_blocks_source ON event_blocks(source_id, min_line);
