package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forensics/report"
)

// fieldFile is what forensics must make of one real file or excerpt under
// testdata/field: read in a format (with its node, release and events), or
// skipped with a reason.
type fieldFile struct {
	format  string
	node    string
	release string
	events  int64  // lines that gave an event; -1: do not check
	skipped string // a word of the skip reason, for a file that is not read
}

// fieldCases are the real files and excerpts that upstream projects and
// their users publish, each cited in the SOURCE.md of its folder. Each case
// is analysed as a folder of its own.
var fieldCases = []struct {
	dir      string
	files    map[string]fieldFile
	findings []string // rules, in order
}{
	{dir: "couchbase/fluent-bit-test-logs", files: map[string]fieldFile{
		"debug.log":                {format: "nsserver", node: "ns_1@cb-example-0000.cb-example.default.svc", events: -1},
		"metakv.log":               {format: "nsserver", node: "ns_1@cb-example-0000.cb-example.default.svc", events: -1},
		"mapreduce_errors.log":     {format: "nsserver", node: "ns_1@cb.local", events: -1},
		"ns_couchdb.log":           {format: "nsserver", node: "ns_1@cb.local", events: -1},
		"babysitter.log":           {format: "nsserver", node: "ns_1@cb.local", events: -1},
		"couchdb.log":              {format: "nsserver", node: "ns_1@cb.local", events: -1},
		"json_rpc.log":             {format: "nsserver", node: "ns_1@cb-example-0000.cb-example.default.svc", events: -1},
		"reports.log":              {format: "nsserver", node: "ns_1@cb.local", events: -1},
		"audit.log":                {format: "cbaudit", events: 3},
		"memcached.log.000000.txt": {format: "memcached", release: "6.6.0-7909", events: 9},
		"rebalance_report_2021-03-09T17:33:43Z.json": {format: "nsserver-rebalance-report", node: "ns_1@cb-example-0000.cb-example.default.svc", events: 1},
		"rebalance_report_2021-03-09T20:23:16Z.json": {format: "nsserver-rebalance-report", node: "ns_1@cb-example-0000.cb-example.default.svc", events: 1},
		// The services' own logs carry no node; each is plain under its component.
		"analytics_info.log":       {format: "couchbase-analytics", events: 0},
		"eventing.log":             {format: "couchbase-eventing", events: 0},
		"fts.log":                  {format: "couchbase-fts", events: 0},
		"goxdcr.log":               {format: "couchbase-xdcr", events: 0},
		"http_access_internal.log": {format: "couchbase-http-access", events: 0},
		"indexer.log":              {format: "indexer", events: 0},
		"projector.log":            {format: "projector", events: 0},
		"prometheus.log":           {format: "couchbase-prometheus", events: 0},
		"query.log":                {format: "couchbase-query", events: 0},
	}},
	{dir: "couchbase/cbmultimanager-rebalance", files: map[string]fieldFile{
		"ns_server.info.log": {format: "nsserver", node: "ns_1@10.144.210.101", events: 4},
	}},
	{dir: "crdb", files: map[string]fieldFile{
		"cockroach-136932-banner.txt":   {format: "crdb-log", node: "n1", release: "v24.3.0", events: 0},
		"cockroach-136932-one-line.txt": {format: "crdb-log", node: "n8", events: 0},
		"cockroach-124731-one-line.txt": {format: "crdb-log", node: "n2", events: 1},
	}, findings: []string{"crdb-disk-stall"}},
	{dir: "prefixes", files: map[string]fieldFile{
		"java-dcp-client-41-grep.txt": {format: "memcached", events: -1},
		"vitess-11868-docker.log":     {format: "vttablet", events: 3},
		"cockroach-20114-dcos.log":    {format: "crdb-log", release: "v1.0.6", events: 0},
	}},
	{dir: "vitess", files: map[string]fieldFile{
		"vtorc-17526-dead-primary.log":           {format: "vtorc", events: 4},
		"vtorc-17526-cluster-has-no-primary.log": {format: "vtorc", events: 2},
		"vtorc-15555-lock-exists.log":            {format: "vtorc", events: 3},
		"vtorc-12023-errant-gtid.log":            {format: "vtorc", events: 2},
		"vttablet-9272-reparented-replica.log":   {format: "vttablet", events: 2},
		"vtctld-6951-switch-writes-v8.log":       {format: "vtctld", events: 4},
	}},
	{dir: "vitess/move-tables-complete", files: map[string]fieldFile{
		"session.txt":                 {format: "vitess-topo", events: 3},
		"routing_rules.json":          {format: "vitess-topo", events: 1},
		"workflow_list_customer.json": {format: "vitess-topo", events: 1},
		"workflow_list_commerce.json": {format: "vitess-topo", events: 1},
	}},
	{dir: "vitess/tablets-and-vschema", files: map[string]fieldFile{
		"get_tablets.txt":           {format: "vitess-topo", events: 1},
		"get_tablets_grpc.json":     {format: "vitess-topo", events: 1},
		"lookup-vindex-session.txt": {format: "vitess-topo", events: 2},
	}},
	{dir: "notes", files: map[string]fieldFile{
		"sync_gateway-2514-comment.md": {skipped: "Markdown page"},
		"cockroach-136932-comment.md":  {skipped: "Markdown page"},
	}},
}

func TestFieldFiles(t *testing.T) {
	for _, c := range fieldCases {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join("../../testdata/field", c.dir)
			var inputs []string
			for name := range c.files {
				inputs = append(inputs, filepath.Join(dir, name))
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if _, ok := c.files[e.Name()]; !ok && e.Name() != "SOURCE.md" && !e.IsDir() {
					t.Errorf("%s has no expectation", e.Name())
				}
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"analyze", "--db", filepath.Join(t.TempDir(), "t.db"), "--format", "json"}, inputs...)
			code := run(args, &stdout, &stderr)
			if code == exitFailed {
				// Nothing read: the summary on stderr gives the reasons.
				for name, want := range c.files {
					if want.skipped == "" || !strings.Contains(stderr.String(), want.skipped) {
						t.Errorf("%s: nothing was read, want %+v\n%s", name, want, stderr.String())
					}
				}
				return
			}
			if code != exitOK {
				t.Fatalf("forensics %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
			}
			var rep report.Report
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			sources := map[string]report.Source{}
			for _, s := range rep.Sources {
				sources[filepath.Base(s.Path)] = s
				if s.Lines != s.Events+s.Plain+s.Skipped {
					t.Errorf("%s: lines %d != events %d + plain %d + skipped %d", s.Path, s.Lines, s.Events, s.Plain, s.Skipped)
				}
			}
			skipped := map[string]string{}
			for _, s := range rep.Skipped {
				skipped[filepath.Base(s.Path)] = s.Reason
			}
			for name, want := range c.files {
				if want.skipped != "" {
					if r, ok := skipped[name]; !ok || !strings.Contains(r, want.skipped) {
						t.Errorf("%s: skipped %q (%v), want a reason with %q", name, r, ok, want.skipped)
					}
					continue
				}
				s, ok := sources[name]
				if !ok {
					t.Errorf("%s not read (skipped: %q)", name, skipped[name])
					continue
				}
				if s.Format != want.format || s.Node != want.node || s.Release != want.release {
					t.Errorf("%s read as %s on %q, release %q; want %s on %q, release %q", name, s.Format, s.Node, s.Release, want.format, want.node, want.release)
				}
				if want.events >= 0 && s.Events != want.events {
					t.Errorf("%s: %d event lines, want %d", name, s.Events, want.events)
				}
			}
			var rules []string
			for _, f := range rep.Findings {
				rules = append(rules, f.Rule)
			}
			if strings.Join(rules, ",") != strings.Join(c.findings, ",") {
				t.Errorf("findings %v, want %v", rules, c.findings)
			}
		})
	}
}
