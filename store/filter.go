package store

// EventConds adds the conditions of f on the events (alias e) that both
// backends word alike: kinds, nodes, window, bucket, vbucket, range,
// keyspace and table. add appends a condition whose ? are bound to args; in
// appends "col is one of vals", and nothing when there are none. The
// sources' conditions and the text's, which each backend words in its own
// SQL, are the backend's.
func EventConds(add func(cond string, args ...any), in func(col string, vals []string), f EventFilter) {
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		in("e.kind", kinds)
	}
	in("e.node", f.Nodes)
	if !f.Since.IsZero() {
		add("e.t >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("e.t < ?", f.Until.UnixNano())
	}
	if f.Bucket != "" {
		add("e.bucket = ?", f.Bucket)
	}
	if f.VB != nil {
		add("e.vb = ?", int32(*f.VB))
	}
	if f.Range != 0 {
		add("e.range_id = ?", f.Range)
	}
	if f.Keyspace != "" {
		add("e.keyspace = ?", f.Keyspace)
	}
	if f.Table != "" {
		add("e.tbl = ?", f.Table)
	}
}
