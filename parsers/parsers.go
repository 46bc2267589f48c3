// Package parsers lists the input formats forensics reads. Each format lives
// in its own package below this one, named after the system that writes it.
//
// A parser package is also the vocabulary of what it reads: it exports each
// kind it emits as a typed constant (memcached.StreamRollback,
// crdb.KindNLHE) and documents it in its Format's Kinds; in its attrs.go it
// declares each attribute key it sets as a forensics.AttrKey constant
// (memcached.AttrRollbackSeqno) and says in an AttrDocs how its values are
// spelled and what it holds, and each KindDoc lists the keys the kind
// carries (Attrs: attrs.Of(…)). A parser writes attributes only through
// those constants (parsers/keys_test.go holds it to that), and exports a
// decoder where an attribute holds more than a word (vitess.DecodeShard,
// crdb.ParseNLHE). A rule imports the parser packages whose events it reads
// and names kinds and attribute keys only by those constants (a short local
// name, mcStart = memcached.Start, is fine); it never restates a kind's or
// a key's string, so one that is renamed or dropped breaks the build or
// rules/attrs_test.go, not the rule. Grammar that several parsers share lives in a package of its
// own (cbgo for Couchbase's Go services, scan for byte scanning), never in
// one parser that the others import.
package parsers

import (
	"forensics"
	"forensics/parsers/cbaudit"
	"forensics/parsers/cbservice"
	"forensics/parsers/cbstats"
	"forensics/parsers/crdb"
	"forensics/parsers/goxdcr"
	"forensics/parsers/indexer"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/parsers/oslog"
	"forensics/parsers/projector"
	"forensics/parsers/vitess"
)

// All is every format, in no particular order: detection picks the format
// that is surest about each file.
var All = append([]forensics.Format{
	memcached.Format, memcached.BreakpadFormat,
	nsserver.Format, nsserver.DiagFormat, nsserver.EventLogFormat, nsserver.MasterEventsFormat, nsserver.RebalanceReportFormat,
	indexer.Format,
	projector.Format,
	goxdcr.Format,
	oslog.CouchbaseLogFormat, oslog.SyslogFormat,
	cbstats.Format, cbaudit.Format,
	crdb.LogFormat, crdb.JSONLogFormat, crdb.RequestsFormat, crdb.TraceFormat,
	vitess.SnapshotFormat, vitess.VtctldLogFormat, vitess.VttabletLogFormat, vitess.VtorcLogFormat, vitess.VtgateLogFormat,
}, cbservice.Formats...)

// Kinds returns every event kind the formats emit, with its meaning. A
// kind's Component, when its doc leaves it out, is that of the format that
// declares it.
func Kinds() []forensics.KindDoc {
	var out []forensics.KindDoc
	seen := map[forensics.Kind]bool{}
	for _, f := range All {
		for _, k := range f.Kinds {
			if !seen[k.Kind] {
				seen[k.Kind] = true
				if k.Component == "" {
					k.Component = f.Component
				}
				out = append(out, k)
			}
		}
	}
	return out
}
