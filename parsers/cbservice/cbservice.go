// Package cbservice names the service logs a cbcollect_info zip holds that
// forensics reads no events from: ns_server.query.log, eventing.log,
// goxdcr.log, the analytics logs and the others that cbcollect_info copies
// as ns_server.<name>.log (ns_server cbcollect_info, "couchbase logs"
// tasks, 7.1 neo to 8.0 morpheus). Each is its own component, so a
// timeline says which service wrote a line, and their lines are kept, with
// their times where they start with one. Without it, a Go service's log
// (eventing, query) looks enough like the indexer's to be taken for it.
// goxdcr.log has a parser of its own (parsers/goxdcr).
package cbservice

import (
	"strings"

	"forensics"
	"forensics/logtime"
)

// service is one group of logs and the component that writes them.
type service struct {
	format    string
	component string
	names     []string // base names without "ns_server."; a trailing '*' matches a prefix
}

// services lists the ns_server.<name>.log files of cbcollect_info (trinity
// src and morpheus cbcollect_info.in) that are neither ns_server's own ale
// logs (parsers/nsserver) nor the indexer's, projector's and goxdcr's
// (parsers/indexer, parsers/projector, parsers/goxdcr). key.log is
// ns_server's TLS key log (ns_common.hrl TLS_KEY_LOG_FILENAME, 7.6) and
// trace.log its trace log (TRACE_LOG_FILENAME):
// ns_server writes both without ale's formatter (ns_server.erl
// ale_noop_formatter); sigar_port.log is sigar's (sigar.erl, 7.6);
// cont_backup.log and projector_stats.log are new in 8.0.
var services = []service{
	{"couchbase-query", "query", []string{"query.log"}},
	{"couchbase-fts", "fts", []string{"fts.log"}},
	{"couchbase-eventing", "eventing", []string{"eventing.log"}},
	{"couchbase-analytics", "analytics", []string{"analytics_*"}},
	{"couchbase-backup", "backup", []string{"backup_service.log", "cont_backup.log"}},
	{"couchbase-prometheus", "prometheus", []string{"prometheus.log"}},
	{"couchbase-http-access", "http_access", []string{"http_access.log", "http_access_internal.log"}},
	{"couchbase-indexer-stats", "indexer", []string{"indexer_stats.log"}},
	{"couchbase-projector-stats", "projector", []string{"projector_stats.log"}},
	{"couchbase-sigar", "sigar", []string{"sigar_port.log", "sigar_port.*"}},
	{"couchbase-tls-keylog", "tls_key", []string{"key.log"}},
	{"couchbase-ns-server-trace", "ns_server", []string{"trace.log"}},
}

// Formats are the service logs' formats, one a component.
var Formats = func() []forensics.Format {
	out := make([]forensics.Format, len(services))
	for i, s := range services {
		out[i] = forensics.Format{
			Name:      s.format,
			Component: s.component,
			Detect:    s.detect,
			New:       newParser,
		}
	}
	return out
}()

// detect goes by the name alone: cbcollect_info's copy (ns_server.<name>)
// is certain whatever it holds, header only included; the name on a node
// (logs/query.log) is a guess other formats can beat.
func (s service) detect(name string, _ []byte) int {
	base := strings.TrimSuffix(name, ".gz")
	copied := strings.HasPrefix(base, "ns_server.")
	base = strings.TrimPrefix(base, "ns_server.")
	for _, n := range s.names {
		if matches(base, n) {
			if copied {
				return 90
			}
			return 40
		}
	}
	return 0
}

// matches reports whether base is name, a rotation of it (query.log.3), or
// for a name ending in '*' has its prefix.
func matches(base, name string) bool {
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		return strings.HasPrefix(base, prefix)
	}
	if base == name {
		return true
	}
	rest, ok := strings.CutPrefix(base, name+".")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// parser keeps every line as a plain line, with the time a line starts
// with: "2025-06-11T10:15:02.112-07:00 [Info] …" (the Go services' logging
// packages), "2025-06-11T10:15:02.112-07:00 INFO …" (analytics), or
// logfmt's "ts=2025-06-11T17:15:02.112Z …" (prometheus).
type parser struct{}

func newParser(forensics.Origin) forensics.Parser { return parser{} }

func (parser) Line(_ int64, text []byte, _ forensics.Emit) (forensics.Stamp, error) {
	if len(text) > 3 && text[0] == 't' && text[1] == 's' && text[2] == '=' {
		text = text[3:]
	}
	if len(text) == 0 || text[0] < '0' || text[0] > '9' {
		return forensics.Stamp{}, nil
	}
	st, _, ok := logtime.ISO(text)
	if !ok {
		return forensics.Stamp{}, nil
	}
	return st, nil
}

func (parser) End(forensics.Emit) error { return nil }
