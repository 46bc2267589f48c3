package store

// View documents a view of the query interface.
type View struct {
	Name    string
	Doc     string
	Columns []Column
}

// Column documents one column of a view.
type Column struct {
	Name, Doc string
}

// Views are the documented query interface of `timeline query --sql`. Their
// names and columns are a contract with users' queries: every backend
// serves them to QuerySQL.
var Views = []View{
	{"sources", "every file read into the timeline (complete sources only)", []Column{
		{"id", "source id"},
		{"path", "display path: archive!member"},
		{"node", "node the file belongs to (cbcollect_info folder, debug/nodes/N, or the lines)"},
		{"format", "format the file was read as"},
		{"component", "component that wrote it: memcached, ns_server, indexer, projector, distsender, vtctld, topo, …"},
		{"release", "release that wrote it, as the file says (version banner, binary: header); empty when it does not"},
		{"bytes", "bytes read"},
		{"lines", "lines read = events + plain + skipped"},
		{"events", "lines that produced an event"},
		{"plain", "lines kept without an event"},
		{"skipped", "lines not kept"},
		{"errors", "lines that looked like the format but did not parse (kept)"},
		{"first", "time of the first line, RFC 3339 UTC"},
		{"last", "time of the last line, RFC 3339 UTC"},
	}},
	{"events", "recognised lines, with what they mean", []Column{
		{"id", "event id"},
		{"source_id", "sources.id"},
		{"source", "display path of the file"},
		{"line", "1-based line number in the file"},
		{"time", "time, RFC 3339 UTC"},
		{"t", "time, unix nanoseconds UTC (for comparisons and arithmetic)"},
		{"tz", "UTC offset in seconds as the node logged it (0 unless zone = 'logged')"},
		{"zone", "how the time was written: logged (with offset), utc (the format is UTC: CockroachDB, JSON epoch times), assumed-utc (no zone: glog, /debug/requests; read as UTC), inherited (no time: the previous line's)"},
		{"node", "node the line is about or was logged by"},
		{"kind", "what the event means (forensics timeline kinds)"},
		{"bucket", "Couchbase bucket"},
		{"vb", "Couchbase vbucket"},
		{"range_id", "CockroachDB range id"},
		{"keyspace", "Vitess keyspace"},
		{"shard", "Vitess shard"},
		{"tbl", "Vitess table"},
		{"attrs", "other values, as a JSON object of strings (json_extract(attrs, '$.rollback_seqno'))"},
		{"text", "the line as logged"},
	}},
	{"lines", "every line of every file, events or not (decoded from compressed blocks: filter on t to keep it fast)", []Column{
		{"source_id", "sources.id"},
		{"source", "display path of the file"},
		{"node", "node of the file"},
		{"line", "1-based line number"},
		{"time", "time, RFC 3339 UTC"},
		{"t", "time, unix nanoseconds UTC"},
		{"tz", "UTC offset in seconds as logged"},
		{"zone", "as in events"},
		{"text", "the line as logged"},
	}},
	{"findings", "findings of every analysis run", []Column{
		{"id", "finding id (stable across runs for the same incident and input)"},
		{"run_id", "analysis run"},
		{"rule", "rule name"},
		{"severity", "info, low, medium, warning, high, critical"},
		{"start", "start of the incident window, RFC 3339 UTC"},
		{"end", "end of the window, RFC 3339 UTC"},
		{"title", "one-line title"},
		{"body", "the whole finding as JSON, as printed by analyze --format json"},
	}},
}
