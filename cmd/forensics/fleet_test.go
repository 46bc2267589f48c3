package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"forensics/store/postgres/pgtest"
)

// runOK runs the CLI and returns its stdout, failing the test on a non-zero exit.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("forensics %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// storeIDs are the fields whose values are the store's own ids.
var storeIDs = regexp.MustCompile(`"(run|id|source_id)": \d+,?`)

// onEngines runs test on each server the shared store is tested on:
// PostgreSQL, and Citus when FORENSICS_TEST_CITUS names a cluster.
func onEngines(t *testing.T, test func(*testing.T, pgtest.Engine)) {
	for _, e := range pgtest.Engines {
		t.Run(e.Name, func(t *testing.T) { test(t, e) })
	}
}

// The bundled incidents analysed into a shared store (PostgreSQL, Citus)
// give the findings, and the report, that SQLite gives, byte for byte
// apart from the store's ids; pushed from SQLite, the same.
func TestStoreScenarios(t *testing.T) { onEngines(t, testStoreScenarios) }

func testStoreScenarios(t *testing.T, eng pgtest.Engine) {
	cases := []string{"../../testdata/couchbase/seed", "../../testdata/crdb/clock-offset", "../../testdata/vitess/both-deny"}
	pg := eng.Database(t)
	pushed := eng.Database(t)
	local := filepath.Join(t.TempDir(), "local.db")
	for _, c := range cases {
		want := runOK(t, "analyze", "--db", local, "--format", "json", c)
		got := runOK(t, "analyze", "--store", pg, "--format", "json", c)
		if storeIDs.ReplaceAllString(got, "") != storeIDs.ReplaceAllString(want, "") {
			t.Errorf("%s: analyze into %s differs from SQLite:\n%s\nwant\n%s", c, eng.Name, got, want)
		}
		name := filepath.Base(c)
		if a, b := runOK(t, "findings", "--db", pg, "--incident", name, "--format", "json"), runOK(t, "findings", "--db", local, "--incident", name, "--format", "json"); a != b {
			t.Errorf("%s: findings differ:\n%s\nwant\n%s", c, a, b)
		}
	}
	runOK(t, "push", local, "--to", pushed)
	if out := runOK(t, "push", local, "--to", pushed); !strings.HasPrefix(out, "0 runs copied") {
		t.Errorf("second push: %s", out)
	}
	for _, db := range []string{pg, pushed} {
		var fs []map[string]any
		if err := json.Unmarshal([]byte(runOK(t, "fleet", "findings", "--db", db, "--format", "json")), &fs); err != nil {
			t.Fatal(err)
		}
		incs := map[string]bool{}
		for _, f := range fs {
			incs[f["incident"].(string)] = true
		}
		if len(incs) != len(cases) {
			t.Errorf("fleet findings in %s: incidents %v, want %d", db, incs, len(cases))
		}
		if a, b := runOK(t, "fleet", "findings", "--db", db, "--format", "json"), runOK(t, "fleet", "findings", "--db", local, "--format", "json"); storeIDs.ReplaceAllString(a, "") != storeIDs.ReplaceAllString(b, "") {
			t.Errorf("fleet findings differ between %s and SQLite", db)
		}
	}
}

// Two analyses into one store at once, and a reader querying meanwhile:
// each incident gets all its sources and findings, once.
func TestStoreConcurrentAnalyses(t *testing.T) { onEngines(t, testStoreConcurrentAnalyses) }

func testStoreConcurrentAnalyses(t *testing.T, eng pgtest.Engine) {
	pg := eng.Database(t)
	runOK(t, "timeline", "schema") // nothing: loads the package's commands before the goroutines
	cases := []string{"../../testdata/couchbase/seed", "../../testdata/crdb/clock-offset"}
	local := filepath.Join(t.TempDir(), "local.db")
	for _, c := range cases {
		runOK(t, "analyze", "--db", local, "--format", "json", c)
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			if code := run([]string{"analyze", "--store", pg, "--format", "json", c}, &stdout, &stderr); code != exitOK {
				t.Errorf("%s: exit %d: %s", c, code, stderr.String())
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		var stdout, stderr bytes.Buffer
		run([]string{"timeline", "query", "--db", pg, "--sql", "select count(*) from sources"}, &stdout, &stderr)
	}
	a := runOK(t, "incidents", "--db", pg, "--format", "json")
	b := runOK(t, "incidents", "--db", local, "--format", "json")
	count := func(s string) (n int) {
		var incs []struct{ Sources, Findings int }
		json.Unmarshal([]byte(s), &incs)
		for _, i := range incs {
			n += i.Sources*1000 + i.Findings
		}
		return n
	}
	if count(a) != count(b) || count(a) == 0 {
		t.Fatalf("incidents analysed side by side:\n%s\nwant as analysed one by one:\n%s", a, b)
	}
}

// version --store says which engine holds a store and how it lies.
func TestVersionStore(t *testing.T) {
	local := filepath.Join(t.TempDir(), "local.db")
	runOK(t, "analyze", "--db", local, "-q", "../../testdata/couchbase/seed")
	if out := runOK(t, "version", "--store", local); !strings.Contains(out, "SQLite 3.") || !strings.Contains(out, "timeline schema ") {
		t.Errorf("version --store %s:\n%s", local, out)
	}
	onEngines(t, func(t *testing.T, eng pgtest.Engine) {
		dsn := eng.Database(t)
		runOK(t, "analyze", "--store", dsn, "-q", "../../testdata/couchbase/seed")
		var v struct {
			Version string
			Store   struct {
				Name, Engine, Version, Schema string
				Tables                        []struct{ Name, Kind, Column string }
				Nodes                         []struct{ Node, Role string }
			}
		}
		if err := json.Unmarshal([]byte(runOK(t, "version", "--db", dsn, "--format", "json")), &v); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]string{}
		for _, tb := range v.Store.Tables {
			kinds[tb.Name] = tb.Kind + " " + tb.Column
		}
		want := map[string]string{"postgresql": "local ", "citus": "distributed incident_id"}[eng.Name]
		if v.Version == "" || v.Store.Name == "" || v.Store.Schema == "" || len(kinds) != 11 || kinds["events"] != want || kinds["incidents"] != want || kinds["gram_parts"] != want || kinds["gram_segments"] != want || kinds["loading_runs"] != want {
			t.Errorf("version --store on %s: %+v", eng.Name, v)
		}
		if eng.Name == "citus" && (v.Store.Engine != "Citus" || kinds["schema_migrations"] != "reference " || len(v.Store.Nodes) < 3) {
			t.Errorf("version --store on Citus: %+v", v.Store)
		}
		out := runOK(t, "version", "--store", dsn)
		if !strings.Contains(out, v.Store.Engine+" "+v.Store.Version+", timeline schema "+v.Store.Schema) {
			t.Errorf("version --store:\n%s", out)
		}
	})
}
