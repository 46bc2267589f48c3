package parsers

import (
	"slices"

	"forensics"
	"forensics/parsers/cbstats"
	"forensics/parsers/crdb"
	"forensics/parsers/indexer"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/parsers/oslog"
	"forensics/parsers/projector"
	"forensics/parsers/vitess"
)

// Attrs returns, for every kind, the attribute keys its parsers may set:
// the union of the parser packages' Attrs. A kind two packages emit
// (nsserver's formats share theirs) carries the keys of both.
func Attrs() map[forensics.Kind][]string {
	out := map[forensics.Kind][]string{}
	for _, m := range []map[forensics.Kind][]string{cbstats.Attrs, crdb.Attrs, indexer.Attrs, memcached.Attrs,
		nsserver.Attrs, oslog.Attrs, projector.Attrs, vitess.Attrs} {
		for k, keys := range m {
			for _, key := range keys {
				if !slices.Contains(out[k], key) {
					out[k] = append(out[k], key)
				}
			}
		}
	}
	return out
}
