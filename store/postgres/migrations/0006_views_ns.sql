-- The sources and findings views carry their times in unix nanoseconds too
-- (first_ns, last_ns; start_ns, end_ns), as the events and lines views do
-- (t): a query that relates lines or events to findings compares numbers,
-- not texts. The columns follow the documented ones they go with, so the
-- views are made again rather than replaced. Times are written as in
-- migration 0002, in SQL every engine reads alike.

DROP VIEW IF EXISTS forensics_query.sources;
CREATE VIEW forensics_query.sources AS
	SELECT id, path, node, format, component, release, bytes, lines, events, plain, skipped, errors,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((first_ns - first_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((first_ns - first_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((first_ns - first_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((first_ns - first_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((first_ns % 1000000000)::text, 9, '0') || 'Z' AS first,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((last_ns - last_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((last_ns - last_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((last_ns - last_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((last_ns - last_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((last_ns % 1000000000)::text, 9, '0') || 'Z' AS last,
		first_ns, last_ns, incident_id
	FROM forensics.sources WHERE complete;

DROP VIEW IF EXISTS forensics_query.findings;
CREATE VIEW forensics_query.findings AS
	SELECT id, run_id, rule,
		severity,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((start_ns - start_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((start_ns - start_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((start_ns - start_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((start_ns - start_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((start_ns % 1000000000)::text, 9, '0') || 'Z' AS start,
		lpad(extract(year FROM (TIMESTAMP '1970-01-01 00:00:00' + ((end_ns - end_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 4, '0') || '-' || lpad(extract(month FROM (TIMESTAMP '1970-01-01 00:00:00' + ((end_ns - end_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0') || '-' || lpad(extract(day FROM (TIMESTAMP '1970-01-01 00:00:00' + ((end_ns - end_ns % 1000000000) / 1000000000)::INT8 * INTERVAL '1 second'))::INT8::text, 2, '0')
		|| 'T' || lpad(((((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) - ((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600) / 3600)::INT8::text, 2, '0') || ':' || lpad(((((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 3600 - ((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60) / 60)::INT8::text, 2, '0') || ':' || lpad((((((end_ns - end_ns % 1000000000) / 1000000000)::INT8 % 86400 + 86400) % 86400) % 60)::text, 2, '0')
		|| '.' || lpad((end_ns % 1000000000)::text, 9, '0') || 'Z' AS "end",
		start_ns, end_ns, title, body, incident_id
	FROM forensics.findings;
