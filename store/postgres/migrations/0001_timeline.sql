-- The timeline, shared by every analyst of a team. Times are unix
-- nanoseconds, UTC. Every row carries its incident, and the incident id
-- leads every primary key and index, so that each table can be distributed
-- by it (Citus create_distributed_table(..., 'incident_id'); CockroachDB
-- and YugabyteDB split ranges on the leading key column). There are no
-- foreign keys: the writer removes what it abandons itself, and COPY does
-- not pay for checks on every row.

CREATE SEQUENCE IF NOT EXISTS forensics.ids;

-- An incident is the evidence of one incident, analysed once or more. Its
-- id is derived from its name (store/postgres incidentID), so two clients
-- naming the same incident agree on the id without asking the server.
CREATE TABLE IF NOT EXISTS forensics.incidents (
	incident_id    BIGINT NOT NULL,
	name           TEXT NOT NULL,
	max_block_span BIGINT NOT NULL DEFAULT 0, -- longest time span of a line block, for window queries
	PRIMARY KEY (incident_id)
);

CREATE TABLE IF NOT EXISTS forensics.runs (
	incident_id BIGINT NOT NULL,
	id          BIGINT NOT NULL,
	started     TIMESTAMPTZ NOT NULL,
	args        TEXT NOT NULL,             -- JSON array of the inputs
	signature   TEXT NOT NULL DEFAULT '',  -- the content read and the rules run
	heartbeat   TIMESTAMPTZ NOT NULL,      -- last commit of a writer still loading; see removeStale
	PRIMARY KEY (incident_id, id)
);

CREATE TABLE IF NOT EXISTS forensics.sources (
	incident_id BIGINT NOT NULL,
	id          BIGINT NOT NULL,
	run_id      BIGINT NOT NULL,           -- the run that read it
	key         TEXT NOT NULL,             -- content identity, as in the SQLite backend
	path        TEXT NOT NULL,
	node        TEXT NOT NULL,
	format      TEXT NOT NULL,
	component   TEXT NOT NULL,
	release     TEXT NOT NULL DEFAULT '',
	bytes       BIGINT NOT NULL DEFAULT 0,
	lines       BIGINT NOT NULL DEFAULT 0,
	events      BIGINT NOT NULL DEFAULT 0,
	plain       BIGINT NOT NULL DEFAULT 0,
	skipped     BIGINT NOT NULL DEFAULT 0,
	errors      BIGINT NOT NULL DEFAULT 0,
	first_ns    BIGINT,
	last_ns     BIGINT,
	problems    TEXT NOT NULL DEFAULT '[]', -- JSON array of {path, line, reason, lost}
	complete    BOOLEAN NOT NULL DEFAULT false, -- readers see only complete sources
	loaded_at   TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (incident_id, id)
);
-- One complete copy of each content per incident; copies being loaded
-- side by side race to completion, and the loser is removed.
CREATE UNIQUE INDEX IF NOT EXISTS sources_key ON forensics.sources (incident_id, key) WHERE complete;

CREATE TABLE IF NOT EXISTS forensics.events (
	incident_id BIGINT NOT NULL,
	source_id   BIGINT NOT NULL,
	seq         BIGINT NOT NULL, -- order of the event in its source
	line        BIGINT NOT NULL,
	t           BIGINT NOT NULL,
	tz          INTEGER NOT NULL,
	zone        SMALLINT NOT NULL, -- 0 logged, 1 utc, 2 assumed utc, 3 inherited
	node        TEXT NOT NULL,
	kind        TEXT NOT NULL,
	bucket      TEXT,
	vb          INTEGER,
	range_id    BIGINT,
	keyspace    TEXT,
	shard       TEXT,
	tbl         TEXT,
	attrs       TEXT NOT NULL, -- JSON object of strings, in the order logged
	text        TEXT NOT NULL,
	PRIMARY KEY (incident_id, source_id, seq)
);
CREATE INDEX IF NOT EXISTS events_kind_t ON forensics.events (incident_id, kind, t);
CREATE INDEX IF NOT EXISTS events_t ON forensics.events (incident_id, t);
CREATE INDEX IF NOT EXISTS events_line ON forensics.events (incident_id, source_id, line);

-- Lines in blocks encoded and compressed by store/block, with their time
-- bounds, so a query filters blocks by incident and time before decoding any.
CREATE TABLE IF NOT EXISTS forensics.blocks (
	incident_id BIGINT NOT NULL,
	source_id   BIGINT NOT NULL,
	seq         BIGINT NOT NULL,
	first_line  BIGINT NOT NULL,
	lines       BIGINT NOT NULL,
	t_min       BIGINT NOT NULL,
	t_max       BIGINT NOT NULL,
	data        BYTEA NOT NULL,
	PRIMARY KEY (incident_id, source_id, seq)
);
CREATE INDEX IF NOT EXISTS blocks_t ON forensics.blocks (incident_id, t_min, t_max);

CREATE TABLE IF NOT EXISTS forensics.run_sources (
	incident_id BIGINT NOT NULL,
	run_id      BIGINT NOT NULL,
	source_id   BIGINT NOT NULL,
	PRIMARY KEY (incident_id, run_id, source_id)
);

CREATE TABLE IF NOT EXISTS forensics.findings (
	incident_id BIGINT NOT NULL,
	run_id      BIGINT NOT NULL,
	id          TEXT NOT NULL,  -- the finding's fingerprint
	rule        TEXT NOT NULL,
	severity    TEXT NOT NULL,
	rank        SMALLINT NOT NULL, -- forensics.Severity.Rank, for thresholds
	node        TEXT NOT NULL,  -- subject.node
	shape       TEXT NOT NULL,  -- the subject's fields that are set, for fleet similar
	start_ns    BIGINT NOT NULL,
	end_ns      BIGINT NOT NULL,
	title       TEXT NOT NULL,
	body        TEXT NOT NULL,  -- the finding as JSON, as printed by --format json
	PRIMARY KEY (incident_id, run_id, id)
);
CREATE INDEX IF NOT EXISTS findings_rule ON forensics.findings (incident_id, rule, shape);
