package store

import "time"

// View documents a view of the query interface.
type View struct {
	Name    string
	Doc     string
	Columns []Column
}

// Column documents one column of a view.
type Column struct {
	Name, Doc string
	Type      ColumnType
}

// ColumnType is the SQL type of a column's values (NULL aside), as a plain
// copy of the views declares it (timeline export).
type ColumnType string

const (
	Integer ColumnType = "INTEGER"
	Text    ColumnType = "TEXT"
)

// Views are the documented query interface of `timeline query --sql`. Their
// names and columns are a contract with users' queries: every backend
// serves them to QuerySQL.
var Views = []View{
	{"sources", "every file read into the timeline (complete sources only)", []Column{
		{"id", "source id", Integer},
		{"path", "display path: archive!member", Text},
		{"node", "node the file belongs to (cbcollect_info folder, debug/nodes/N, or the lines)", Text},
		{"format", "format the file was read as", Text},
		{"component", "component that wrote it: memcached, ns_server, indexer, projector, distsender, vtctld, topo, …", Text},
		{"release", "release that wrote it, as the file says (version banner, binary: header); empty when it does not", Text},
		{"bytes", "bytes read", Integer},
		{"lines", "lines read = events + plain + skipped", Integer},
		{"events", "lines that produced an event", Integer},
		{"plain", "lines kept without an event", Integer},
		{"skipped", "lines not kept", Integer},
		{"errors", "lines that looked like the format but did not parse (kept)", Integer},
		{"first", "time of the first line, RFC 3339 UTC", Text},
		{"last", "time of the last line, RFC 3339 UTC", Text},
		{"first_ns", "time of the first line, unix nanoseconds UTC", Integer},
		{"last_ns", "time of the last line, unix nanoseconds UTC", Integer},
	}},
	{"events", "recognised lines, with what they mean", []Column{
		{"id", "event id", Integer},
		{"source_id", "sources.id", Integer},
		{"source", "display path of the file", Text},
		{"line", "1-based line number in the file", Integer},
		{"time", "time, RFC 3339 UTC", Text},
		{"t", "time, unix nanoseconds UTC (for comparisons and arithmetic)", Integer},
		{"tz", "UTC offset in seconds as the node logged it (0 unless zone = 'logged')", Integer},
		{"zone", "how the time was written: logged (with offset), utc (the format is UTC: CockroachDB, JSON epoch times), assumed-utc (no zone: glog, /debug/requests; read as UTC), inherited (no time: the previous line's)", Text},
		{"node", "node the line is about or was logged by", Text},
		{"kind", "what the event means (forensics timeline kinds)", Text},
		{"bucket", "Couchbase bucket", Text},
		{"vb", "Couchbase vbucket", Integer},
		{"range_id", "CockroachDB range id", Integer},
		{"keyspace", "Vitess keyspace", Text},
		{"shard", "Vitess shard", Text},
		{"tbl", "Vitess table", Text},
		{"attrs", "other values, as a JSON object of strings (json_extract(attrs, '$.rollback_seqno'))", Text},
		{"text", "the line as logged", Text},
	}},
	{"lines", "every line of every file, events or not (decoded from compressed blocks: filter on t to keep it fast)", []Column{
		{"source_id", "sources.id", Integer},
		{"source", "display path of the file", Text},
		{"node", "node of the file", Text},
		{"line", "1-based line number", Integer},
		{"time", "time, RFC 3339 UTC", Text},
		{"t", "time, unix nanoseconds UTC", Integer},
		{"tz", "UTC offset in seconds as logged", Integer},
		{"zone", "as in events", Text},
		{"text", "the line as logged", Text},
	}},
	{"findings", "findings of every analysis run", []Column{
		{"id", "finding id (stable across runs for the same incident and input)", Text},
		{"run_id", "analysis run", Integer},
		{"rule", "rule name", Text},
		{"severity", "info, low, medium, warning, high, critical", Text},
		{"start", "start of the incident window, RFC 3339 UTC", Text},
		{"end", "end of the window, RFC 3339 UTC", Text},
		{"start_ns", "start of the window, unix nanoseconds UTC (compare with t of events and lines)", Integer},
		{"end_ns", "end of the window, unix nanoseconds UTC", Integer},
		{"title", "one-line title", Text},
		{"body", "the whole finding as JSON, as printed by analyze --format json", Text},
	}},
}

// TimeText writes a time of a view's time, first, last, start or end
// column: RFC 3339 in UTC, to the nanosecond.
func TimeText(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000000Z")
}
