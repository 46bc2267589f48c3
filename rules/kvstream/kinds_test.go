package kvstream

import (
	"testing"

	"forensics"
	"forensics/parsers/indexer"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/parsers/projector"
)

// The rule names kinds as strings; each must be one a Couchbase parser
// declares, or the rule would silently read nothing.
func TestKindsAreDeclaredByTheParsers(t *testing.T) {
	declared := map[forensics.Kind]bool{}
	for _, f := range []forensics.Format{memcached.Format, nsserver.Format, nsserver.DiagFormat,
		nsserver.EventLogFormat, nsserver.MasterEventsFormat, indexer.Format, projector.Format} {
		for _, k := range f.Kinds {
			declared[k.Kind] = true
		}
	}
	for _, k := range Rule.Kinds {
		if !declared[k] {
			t.Errorf("rule reads %s, which no Couchbase parser declares", k)
		}
	}
}
