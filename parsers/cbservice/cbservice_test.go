package cbservice_test

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers"
	"forensics/parsers/cbservice"
	"forensics/parsers/parsertest"
)

const rule = "=============================================================================="

func header(name string) string {
	return rule + "\ncouchbase logs (" + name + ")\ncbbrowse_logs " + name + "\n" + rule + "\n"
}

// Go services log in the indexer's grammar; before, an eventing or query
// log was labelled an indexer log.
const goService = "2025-06-11T10:15:02.112-07:00 [Info] eventing-producer [worker_orders_0:/tmp/127.0.0.1:8091_0_1982573305.sock:12934] Producer::handleV8Consumer Routine for worker started\n" +
	"2025-06-11T10:15:02.431-07:00 [Info] ServiceMgr::getNodeVersion Node version: 8.0.0\n"

// Every ns_server.<name>.log cbcollect_info writes (trinity, morpheus) is
// read, each by the format of its component, whatever it holds.
func TestEveryServiceLogHasItsComponent(t *testing.T) {
	tests := []struct {
		name, component, format string
		head                    string
	}{
		{"ns_server.debug.log", "ns_server", "nsserver", "[ns_server:debug,2025-06-11T10:15:02.112-07:00,ns_1@10.1.2.3:<0.1.0>:ns_doctor:x:1]x\n[ns_server:debug,2025-06-11T10:15:02.113-07:00,ns_1@10.1.2.3:<0.1.0>:ns_doctor:x:1]y\n"},
		{"ns_server.error.log", "ns_server", "nsserver", header("error.log")},
		{"ns_server.trace.log", "ns_server", "couchbase-ns-server-trace", header("trace.log")},
		{"ns_server.indexer.log", "indexer", "indexer", header("indexer.log") + "2025-06-11T10:15:02.112-07:00 [Info] Indexer::handleKVStreamRepair Initiate Stream Repair MAINT_STREAM KeyspaceId test3 StreamId 1\n"},
		{"ns_server.projector.log", "projector", "projector", header("projector.log")},
		{"ns_server.eventing.log", "eventing", "couchbase-eventing", header("eventing.log") + goService},
		{"ns_server.eventing.log", "eventing", "couchbase-eventing", header("eventing.log")},
		{"ns_server.query.log", "query", "couchbase-query", header("query.log") + "2025-06-11T10:15:02.112-07:00 [INFO] Query Configuration changed for node-quota\n"},
		{"ns_server.goxdcr.log", "xdcr", "couchbase-xdcr", header("goxdcr.log") + goService},
		{"ns_server.fts.log", "fts", "couchbase-fts", header("fts.log") + goService},
		{"ns_server.analytics_info.log", "analytics", "couchbase-analytics", header("analytics_info.log")},
		{"ns_server.analytics_trace.json", "analytics", "couchbase-analytics", header("analytics_trace.json")},
		{"ns_server.backup_service.log", "backup", "couchbase-backup", header("backup_service.log") + goService},
		{"ns_server.cont_backup.log", "backup", "couchbase-backup", header("cont_backup.log")},
		{"ns_server.prometheus.log", "prometheus", "couchbase-prometheus", header("prometheus.log") + "ts=2025-06-11T17:15:02.112Z caller=main.go:1234 level=info msg=\"Server is ready to receive web requests.\"\n"},
		{"ns_server.http_access.log", "http_access", "couchbase-http-access", header("http_access.log") + "10.1.2.9 - Administrator [11/Jun/2025:10:15:02 -0700] \"GET /pools/default HTTP/1.1\" 200 12830 - \"Go-http-client/1.1\" 4\n"},
		{"ns_server.indexer_stats.log", "indexer", "couchbase-indexer-stats", header("indexer_stats.log")},
		{"ns_server.projector_stats.log", "projector", "couchbase-projector-stats", header("projector_stats.log")},
		{"ns_server.sigar_port.log", "sigar", "couchbase-sigar", header("sigar_port.log")},
		{"ns_server.sigar_port.2.log", "sigar", "couchbase-sigar", header("sigar_port.2.log")},
		{"ns_server.key.log", "tls_key", "couchbase-tls-keylog", header("key.log")},
	}
	for _, tt := range tests {
		f, ok := detect(tt.name, []byte(tt.head))
		if !ok {
			t.Errorf("%s: not recognised", tt.name)
			continue
		}
		if f.Component != tt.component || f.Name != tt.format {
			t.Errorf("%s: read as %s (component %s), want %s (component %s)", tt.name, f.Name, f.Component, tt.format, tt.component)
		}
	}
}

// detect picks the format surest of a file, as ingest.Detect does (the
// ingest package is not imported: it brings SQLite into the fuzz binary).
func detect(name string, head []byte) (forensics.Format, bool) {
	best, score := forensics.Format{}, 0
	for _, f := range parsers.All {
		if s := f.Detect(name, head); s > score {
			best, score = f, s
		}
	}
	return best, score > 0
}

// The lines are kept with the times they start with.
func TestServiceLines(t *testing.T) {
	f := cbservice.Formats[0]
	in := header("query.log") + goService + "  continued\nts=2025-06-11T17:15:02.112Z caller=x\n"
	res := parsertest.Parse(f, forensics.Origin{Name: "ns_server.query.log"}, []byte(in))
	if len(res.Events) != 0 || len(res.Errors) != 0 {
		t.Fatalf("events %v errors %v, want none", res.Events, res.Errors)
	}
	stamped := 0
	for _, s := range res.Stamps {
		if !s.IsZero() {
			stamped++
		}
	}
	if stamped != 3 {
		t.Errorf("%d stamped lines, want 3", stamped)
	}
}

func TestNoAllocPlainLines(t *testing.T) {
	p := cbservice.Formats[0].New(forensics.Origin{})
	var ls [][]byte
	for _, l := range strings.Split(header("query.log")+goService+"ts=2025-06-11T17:15:02.112Z caller=x", "\n") {
		ls = append(ls, []byte(l))
	}
	allocs := testing.AllocsPerRun(50, func() {
		for i, l := range ls {
			p.Line(int64(i+1), l, nil)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass", allocs)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(header("eventing.log") + goService))
	f.Add([]byte("ts=2025-06-11T17:15:02.112Z\nts=\n2025-13-99T99:99:99Z\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsertest.Check(t, cbservice.Formats[0], forensics.Origin{Name: "ns_server.query.log"}, data)
	})
}

func BenchmarkParse(b *testing.B) {
	parsertest.Bench(b, cbservice.Formats[0], forensics.Origin{}, []byte(strings.Repeat(goService, 5000)))
}
