package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"forensics/store"
)

// What timeline schema says the sqlite3 shell sees is what the sqlite3
// shell, the real binary, sees: in the timeline, the storage tables (no
// events since schema 3, the findings' times in nanoseconds); in the copy
// timeline export writes, every view as a table with the documented
// columns and every row --sql gives, lines as readable text; and the
// example query of the schema gives the same answer in both.
func TestSQLiteShellReadsTheExport(t *testing.T) {
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		if os.Getenv("FORENSICS_REQUIRE_SQLITE3") != "" {
			t.Fatal("FORENSICS_REQUIRE_SQLITE3 is set and sqlite3 is not installed (.ci/run installs it)")
		}
		t.Skip("no sqlite3 binary")
	}
	shell := func(db, query string) string {
		t.Helper()
		out, err := exec.Command(sqlite3, "-batch", "-separator", "|", "-nullvalue", "NULL", db, query).CombinedOutput()
		if err != nil {
			t.Fatalf("sqlite3 %s %q: %v\n%s", filepath.Base(db), query, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	forensicsSQL := func(db, query string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run([]string{"timeline", "query", "--db", db, "--format", "raw", "--sql", query}, &out, &errb); code != exitOK {
			t.Fatalf("--sql %q: exit %d\n%s", query, code, errb.String())
		}
		return strings.TrimSpace(strings.ReplaceAll(out.String(), "\t", "|"))
	}
	for _, c := range []string{"couchbase/seed", "crdb/debug-zip", "vitess/both-deny"} {
		t.Run(c, func(t *testing.T) {
			abs, inputs := caseInputs(t, filepath.Join("../../testdata", c))
			t.Chdir(abs)
			dir := t.TempDir()
			db := filepath.Join(dir, "forensics.db")
			analyzeJSON(t, db, inputs...)

			// The timeline file itself, as the schema says.
			if got := shell(db, "SELECT count(*) FROM events"); got != "0" {
				t.Errorf("sqlite3 reads %s events in the timeline; the schema says the table is empty since schema 3", got)
			}
			if got, want := shell(db, "SELECT rule, start_ns, end_ns FROM findings ORDER BY start_ns"), forensicsSQL(db, "SELECT rule, start_ns, end_ns FROM findings ORDER BY start_ns"); got != want {
				t.Errorf("the findings table in the shell:\n%s\n--sql:\n%s", got, want)
			}

			export := filepath.Join(dir, "copy.db")
			var stderr bytes.Buffer
			if code := run([]string{"timeline", "export", "--db", db, export}, io.Discard, &stderr); code != exitOK {
				t.Fatalf("export: exit %d\n%s", code, stderr.String())
			}
			if !strings.HasPrefix(stderr.String(), "Wrote "+export+" (sqlite): ") {
				t.Errorf("export said %q", stderr.String())
			}
			for _, v := range store.Views {
				var doc []string
				for _, col := range v.Columns {
					doc = append(doc, col.Name+" "+string(col.Type))
				}
				if got := shell(export, "SELECT name || ' ' || type FROM pragma_table_info('"+v.Name+"')"); got != strings.Join(doc, "\n") {
					t.Errorf("table %s has columns\n%s\ndocumented\n%s", v.Name, got, strings.Join(doc, "\n"))
				}
				count := "SELECT count(*) FROM " + v.Name
				got, want := shell(export, count), forensicsSQL(db, count)
				if got != want || got == "0" && v.Name != "findings" {
					t.Errorf("%s: %s rows in the copy, %s through --sql", v.Name, got, want)
				}
			}
			// Every row as --sql gives it, events and findings included.
			for _, q := range []string{
				"SELECT id, source, line, time, t, zone, node, kind, bucket, vb, range_id, keyspace, shard, tbl, attrs, text FROM events ORDER BY t, source, line, id",
				"SELECT id, rule, severity, start, \"end\", start_ns, end_ns, title FROM findings ORDER BY start_ns, id",
				schemaExample + " ORDER BY 1, 2",
			} {
				if got, want := shell(export, q), forensicsSQL(db, q); got != want {
					t.Errorf("%s\nsqlite3 on the copy:\n%.600s\n--sql:\n%.600s", q, got, want)
				}
			}
			// A line as it was logged, in plain text.
			var ev struct {
				Findings []struct {
					Evidence []struct {
						Source string `json:"source"`
						Line   int64  `json:"line"`
						Text   string `json:"text"`
					} `json:"evidence"`
				} `json:"findings"`
			}
			if err := json.Unmarshal(analyzeJSON(t, db, inputs...), &ev); err != nil {
				t.Fatal(err)
			}
			if len(ev.Findings) == 0 || len(ev.Findings[0].Evidence) == 0 {
				t.Fatal("no evidence to look up")
			}
			e := ev.Findings[0].Evidence[0]
			got := shell(export, "SELECT text FROM lines WHERE source = '"+strings.ReplaceAll(e.Source, "'", "''")+"' AND line = "+strconv.FormatInt(e.Line, 10))
			if first, _, _ := strings.Cut(e.Text, "\n"); got != first {
				t.Errorf("line %s:%d in the copy is %q, the evidence %q", e.Source, e.Line, got, e.Text)
			}
		})
	}
}

// The JSON lines copy has the rows of every view, one object each.
func TestExportJSONLines(t *testing.T) {
	abs, inputs := caseInputs(t, "../../testdata/couchbase/seed")
	t.Chdir(abs)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	analyzeJSON(t, db, inputs...)
	out := filepath.Join(dir, "copy.jsonl")
	if code := run([]string{"timeline", "export", "--db", db, out}, io.Discard, io.Discard); code != exitOK {
		t.Fatalf("export: exit %d", code)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		views[row["view"].(string)]++
	}
	if views["events"] == 0 || views["lines"] == 0 || views["findings"] != 2 || views["sources"] == 0 {
		t.Errorf("rows by view: %v", views)
	}
	// A copy never replaces a file.
	if code := run([]string{"timeline", "export", "--db", db, out}, io.Discard, io.Discard); code != exitFailed {
		t.Errorf("export over an existing file: exit %d", code)
	}
	if code := run([]string{"timeline", "export", "--db", db, db}, io.Discard, io.Discard); code != exitFailed {
		t.Errorf("export over the timeline: exit %d", code)
	}
}
