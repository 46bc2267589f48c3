package nsserver

import (
	"bytes"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of ns_server's compaction daemon, which compacts each bucket's
// vbucket files on its own node, one bucket after another, when their
// fragmentation passes the auto-compaction threshold (or when a user asks):
// apps/ns_server/src/compaction_daemon.erl spawn_dbs_compactor (src/ in
// 7.x), the same templates from 7.0 to 8.0. memcached logs the end of each
// vbucket's compaction between the two (memcached.compaction_done).
const (
	CompactionStart forensics.Kind = "nsserver.compaction_start"
	CompactionEnd   forensics.Kind = "nsserver.compaction_end"
)

var compactionDocs = []forensics.KindDoc{
	{Kind: CompactionStart, Category: forensics.CategoryOther, Label: "bucket compaction began",
		Doc: "ns_server's compaction daemon began compacting a bucket's vbucket files on this node (compaction_daemon: Compacting databases for bucket …)"},
	{Kind: CompactionEnd, Category: forensics.CategoryOther, Label: "bucket compaction finished",
		Doc: "ns_server's compaction daemon finished compacting a bucket's vbucket files on this node (compaction_daemon: Finished compaction of databases for bucket …)"},
}

const (
	compactingPrefix = "Compacting databases for bucket "
	finishedPrefix   = "Finished compaction of databases for bucket "
)

// compaction reads the daemon's two lines, "Compacting databases for bucket
// ~s" and "Finished compaction of databases for bucket ~s", and reports
// whether msg was one of them.
func compaction(msg []byte, ev *forensics.Event, out found) bool {
	kind, rest := CompactionStart, []byte(nil)
	if r, ok := scan.Cut(msg, compactingPrefix); ok {
		rest = r
	} else if r, ok := scan.Cut(msg, finishedPrefix); ok {
		kind, rest = CompactionEnd, r
	} else {
		return false
	}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	rest = bytes.TrimRight(rest, " \r")
	if len(rest) == 0 || len(rest) > 100 {
		return true
	}
	for _, c := range rest {
		if !isAtomChar(c) && c != '%' {
			return true
		}
	}
	ev.Kind = kind
	ev.Bucket = string(rest)
	out(ev, nil)
	return true
}
