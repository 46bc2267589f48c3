-- The documented query interface of timeline query --sql (store.Views),
-- in a schema of its own: a query connection puts forensics_query first
-- on its search path, so "events" is the view, not the table. Times are
-- written as RFC 3339 UTC with nanoseconds, as the SQLite backend writes them.
--
-- A time is formatted in SQL that PostgreSQL, Citus, CockroachDB and
-- YugabyteDB all read alike: whole seconds as integers (an exact division
-- is written (x - x % d) / d, cast to INT8, since CockroachDB divides
-- integers into decimals), the date by extract from a timestamp without a
-- time zone, the time of day by integer arithmetic. CockroachDB documents
-- no to_char for times, and a timestamp's text depends on DateStyle. The
-- views were first written with to_char; their output is the same to the
-- byte (postgres_test.go, TestViewTimes), so stores made then keep them.
-- The lines view of the SQLite backend decodes compressed blocks in the
-- query; PostgreSQL cannot, so it is not served here (forensics timeline
-- lines and forensics fleet grep read lines).

CREATE SCHEMA IF NOT EXISTS forensics_query;

CREATE OR REPLACE VIEW forensics_query.sources AS
	SELECT id, path, node, format, component, release, bytes, lines, events, plain, skipped, errors,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((first_ns - first_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((first_ns - first_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((first_ns - first_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((first_ns % 1000000000)::text, 9, '0') || 'Z' AS first,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((last_ns - last_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((last_ns - last_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((last_ns - last_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((last_ns % 1000000000)::text, 9, '0') || 'Z' AS last,
		incident_id
	FROM forensics.sources WHERE complete;

CREATE OR REPLACE VIEW forensics_query.events AS
	SELECT e.seq AS id, e.source_id, s.path AS source, e.line,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((e.t - e.t % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((e.t - e.t % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((e.t - e.t % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((e.t - e.t % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((e.t - e.t % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((e.t - e.t % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((e.t - e.t % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((e.t - e.t % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((e.t % 1000000000)::text, 9, '0') || 'Z' AS time,
		e.t, e.tz,
		CASE e.zone WHEN 0 THEN 'logged' WHEN 1 THEN 'utc' WHEN 2 THEN 'assumed-utc' ELSE 'inherited' END AS zone,
		e.node, e.kind, e.bucket, e.vb, e.range_id, e.keyspace, e.shard, e.tbl, e.attrs, e.text,
		e.incident_id
	FROM forensics.events e JOIN forensics.sources s ON s.incident_id = e.incident_id AND s.id = e.source_id
	WHERE s.complete;

CREATE OR REPLACE VIEW forensics_query.findings AS
	SELECT id, run_id, rule,
		severity,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((start_ns - start_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((start_ns - start_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((start_ns - start_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((start_ns % 1000000000)::text, 9, '0') || 'Z' AS start,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((end_ns - end_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((end_ns - end_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((end_ns - end_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((end_ns % 1000000000)::text, 9, '0') || 'Z' AS "end",
		title, body, incident_id
	FROM forensics.findings;

CREATE OR REPLACE VIEW forensics_query.incidents AS
	SELECT incident_id, name FROM forensics.incidents;
