-- The sources and findings views carry their times in unix nanoseconds too
-- (first_ns, last_ns; start_ns, end_ns), as the events and lines views do
-- (t): a query that relates lines or events to findings compares numbers,
-- not texts. The columns follow the documented ones they go with, so the
-- views are made again rather than replaced.

DROP VIEW IF EXISTS forensics_query.sources;
CREATE VIEW forensics_query.sources AS
	SELECT id, path, node, format, component, release, bytes, lines, events, plain, skipped, errors,
		to_char(to_timestamp((first_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((first_ns % 1000000000)::text, 9, '0') || 'Z' AS first,
		to_char(to_timestamp((last_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((last_ns % 1000000000)::text, 9, '0') || 'Z' AS last,
		first_ns, last_ns, incident_id
	FROM forensics.sources WHERE complete;

DROP VIEW IF EXISTS forensics_query.findings;
CREATE VIEW forensics_query.findings AS
	SELECT id, run_id, rule,
		severity,
		to_char(to_timestamp((start_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((start_ns % 1000000000)::text, 9, '0') || 'Z' AS start,
		to_char(to_timestamp((end_ns / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((end_ns % 1000000000)::text, 9, '0') || 'Z' AS "end",
		start_ns, end_ns, title, body, incident_id
	FROM forensics.findings;
