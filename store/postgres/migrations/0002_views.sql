-- The documented query interface of timeline query --sql (store.Views),
-- in a schema of its own: a query connection puts forensics_query first
-- on its search path, so "events" is the view, not the table. Times are
-- written as RFC 3339 UTC with nanoseconds, as the SQLite backend writes them.
-- The lines view of the SQLite backend decodes compressed blocks in the
-- query; PostgreSQL cannot, so it is not served here (forensics timeline
-- lines and forensics fleet grep read lines).

CREATE SCHEMA IF NOT EXISTS forensics_query;

CREATE OR REPLACE VIEW forensics_query.sources AS
	SELECT id, path, node, format, component, release, bytes, lines, events, plain, skipped, errors,
		to_char(to_timestamp((first_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((first_ns % 1000000000)::text, 9, '0') || 'Z' AS first,
		to_char(to_timestamp((last_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((last_ns % 1000000000)::text, 9, '0') || 'Z' AS last,
		incident_id
	FROM forensics.sources WHERE complete;

CREATE OR REPLACE VIEW forensics_query.events AS
	SELECT e.seq AS id, e.source_id, s.path AS source, e.line,
		to_char(to_timestamp((e.t / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((e.t % 1000000000)::text, 9, '0') || 'Z' AS time,
		e.t, e.tz,
		CASE e.zone WHEN 0 THEN 'logged' WHEN 1 THEN 'utc' WHEN 2 THEN 'assumed-utc' ELSE 'inherited' END AS zone,
		e.node, e.kind, e.bucket, e.vb, e.range_id, e.keyspace, e.shard, e.tbl, e.attrs, e.text,
		e.incident_id
	FROM forensics.events e JOIN forensics.sources s ON s.incident_id = e.incident_id AND s.id = e.source_id
	WHERE s.complete;

CREATE OR REPLACE VIEW forensics_query.findings AS
	SELECT id, run_id, rule,
		severity,
		to_char(to_timestamp((start_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((start_ns % 1000000000)::text, 9, '0') || 'Z' AS start,
		to_char(to_timestamp((end_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((end_ns % 1000000000)::text, 9, '0') || 'Z' AS "end",
		title, body, incident_id
	FROM forensics.findings;

CREATE OR REPLACE VIEW forensics_query.incidents AS
	SELECT incident_id, name FROM forensics.incidents;
