package analysis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"forensics/expect"
	"forensics/input"
	"forensics/parsers"
	"forensics/report"
	"forensics/rules"
	"forensics/store"
	"forensics/store/sqlite"
)

func open(t *testing.T, path string) store.Backend {
	t.Helper()
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func config(db store.Backend, inputs ...string) Config {
	return Config{Store: db, Inputs: inputs, Formats: parsers.All, Rules: rules.All(), Limits: input.DefaultLimits, RulesID: "test"}
}

// The seed incident analysed without the command line: the findings are the
// case's, a second analysis of the same content reads nothing again and
// reuses them, and the report rebuilt from the timeline says the same.
func TestRunSeed(t *testing.T) {
	c, err := expect.Load("../testdata/couchbase/seed")
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := c.InputPaths()
	if err != nil {
		t.Fatal(err)
	}
	db := open(t, filepath.Join(t.TempDir(), "t.db"))
	defer db.Close()
	ctx := context.Background()
	first, err := Run(ctx, config(db, inputs...))
	if err != nil {
		t.Fatal(err)
	}
	if !first.Analysed() || first.Ingest.Read == 0 || len(first.RuleErrors) > 0 {
		t.Fatalf("first run: read %d, reused %d, rule errors %v", first.Ingest.Read, first.Ingest.Reused, first.RuleErrors)
	}
	for _, p := range c.Check(first.Report.Findings) {
		t.Error(p)
	}
	for _, s := range first.Report.Sources {
		if s.Lines != s.Events+s.Plain+s.Skipped {
			t.Errorf("%s: lines %d != events %d + plain %d + skipped %d", s.Path, s.Lines, s.Events, s.Plain, s.Skipped)
		}
	}

	second, err := Run(ctx, config(db, inputs...))
	if err != nil {
		t.Fatal(err)
	}
	if second.Ingest.Read != 0 || second.Ingest.Reused != first.Ingest.Read {
		t.Errorf("second run read %d and reused %d, want 0 and %d", second.Ingest.Read, second.Ingest.Reused, first.Ingest.Read)
	}
	if ids(second.Report) != ids(first.Report) {
		t.Errorf("second run found %s, first %s", ids(second.Report), ids(first.Report))
	}

	stored, run, err := Report(ctx, db, 0, rules.All())
	if err != nil {
		t.Fatal(err)
	}
	if run != second.Run {
		t.Errorf("stored report of run %d, want the latest, %d", run, second.Run)
	}
	if ids(stored) != ids(second.Report) || fmt.Sprint(stored.Sources) != fmt.Sprint(second.Report.Sources) {
		t.Errorf("stored report differs from the run's:\n%v\n%v", stored.Sources, second.Report.Sources)
	}
	if stored.Summary.Reused != len(stored.Sources) || fmt.Sprint(stored.Summary.Findings) != fmt.Sprint(second.Report.Summary.Findings) {
		t.Errorf("stored summary %+v, run's %+v", stored.Summary, second.Report.Summary)
	}
}

func ids(r *report.Report) string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.ID)
	}
	return fmt.Sprint(out)
}

// A run that reads nothing is not an analysis: it leaves no run behind,
// and a timeline it created is removed.
func TestRunNothingRead(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.log")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.db")
	db := open(t, path)
	res, err := Run(context.Background(), config(db, empty))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if res.Analysed() || len(res.Report.Skipped) != 1 {
		t.Errorf("analysed %v, skipped %v; want nothing analysed and the empty file skipped", res.Analysed(), res.Report.Skipped)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the timeline created for nothing is still there: %v", err)
	}
}
