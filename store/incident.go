package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Incident is the evidence of one incident, analysed once or more: the runs
// that share its name.
type Incident struct {
	Name     string    `json:"name"`
	Runs     []int64   `json:"runs"`   // oldest first
	Latest   int64     `json:"latest"` // the run queries read by default
	Started  time.Time `json:"started"`
	Inputs   []string  `json:"inputs"` // of the latest run
	Sources  int       `json:"sources"`
	Findings int       `json:"findings"`
}

// IncidentName names an incident after its inputs: their common folder
// when they share one (testdata/couchbase/seed), else the first input
// without its archive extension, and how many more there are.
func IncidentName(inputs []string) string {
	if len(inputs) == 0 {
		return "(no inputs)"
	}
	clean := make([]string, len(inputs))
	for i, p := range inputs {
		clean[i] = filepath.Clean(p)
	}
	if len(clean) > 1 {
		dir := filepath.Dir(clean[0])
		same := true
		for _, p := range clean[1:] {
			if filepath.Dir(p) != dir {
				same = false
				break
			}
		}
		if abs, err := filepath.Abs(dir); same && err == nil && filepath.Base(abs) != string(filepath.Separator) {
			return filepath.Base(abs)
		}
	}
	name := filepath.Base(clean[0])
	for _, ext := range []string{".zip", ".tar.gz", ".tgz", ".tar", ".gz"} {
		if strings.HasSuffix(name, ext) {
			name = strings.TrimSuffix(name, ext)
			break
		}
	}
	if len(clean) > 1 {
		name += fmt.Sprintf(" +%d", len(clean)-1)
	}
	return name
}

// SetIncident names the incident the run analyses.
func (w *Writer) SetIncident(name string) error {
	// Outside the writer's transaction, like the run itself: the store has
	// one connection, which the reads before the load need too.
	_, err := w.db.sql.ExecContext(w.ctx, `INSERT INTO main.run_incidents(run_id, incident) VALUES (?, ?)
		ON CONFLICT(run_id) DO UPDATE SET incident = excluded.incident`, w.run, name)
	return err
}

// Incidents lists the incidents of the timeline, the latest last. A run from
// before incidents were recorded is named after its inputs.
func (db *DB) Incidents(ctx context.Context) ([]Incident, error) {
	named, err := db.hasIncidents(ctx)
	if err != nil {
		return nil, err
	}
	q := `SELECT r.id, r.started, r.args, '',
		(SELECT count(*) FROM main.run_sources rs WHERE rs.run_id = r.id),
		(SELECT count(*) FROM main.findings f WHERE f.run_id = r.id)
		FROM main.runs r ORDER BY r.id`
	if named {
		q = strings.Replace(q, `''`, `coalesce((SELECT incident FROM main.run_incidents i WHERE i.run_id = r.id), '')`, 1)
	}
	rows, err := db.sql.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Incident
	index := map[string]int{}
	for rows.Next() {
		var id int64
		var started, args, name string
		var sources, findings int
		if err := rows.Scan(&id, &started, &args, &name, &sources, &findings); err != nil {
			return nil, err
		}
		var inputs []string
		json.Unmarshal([]byte(args), &inputs)
		if name == "" {
			name = IncidentName(inputs)
		}
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, Incident{Name: name})
		}
		inc := &out[i]
		inc.Runs = append(inc.Runs, id)
		inc.Latest, inc.Inputs, inc.Sources, inc.Findings = id, inputs, sources, findings
		inc.Started, _ = time.Parse(time.RFC3339Nano, started)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The latest incident is the one whose latest run is the newest.
	for i := 0; i < len(out); i++ {
		for j := i + 1; j < len(out); j++ {
			if out[j].Latest < out[i].Latest {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out, nil
}

// IncidentRun returns the latest run of the named incident, or of the
// latest incident when name is empty; 0 when there is none.
func (db *DB) IncidentRun(ctx context.Context, name string) (int64, error) {
	incs, err := db.Incidents(ctx)
	if err != nil || len(incs) == 0 {
		return 0, err
	}
	if name == "" {
		return incs[len(incs)-1].Latest, nil
	}
	for _, inc := range incs {
		if inc.Name == name {
			return inc.Latest, nil
		}
	}
	return 0, nil
}

// hasIncidents says whether the timeline records incident names: one
// written before they were is read as it is, its runs named after their
// inputs.
func (db *DB) hasIncidents(ctx context.Context) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'run_incidents'`).Scan(&n)
	return n > 0, err
}

// AllFindings returns the findings of every incident, each from the latest
// run that found it, in time order.
func (db *DB) AllFindings(ctx context.Context) ([]StoredFinding, error) {
	return db.queryFindings(ctx, `WHERE (run_id, id) IN (SELECT max(run_id), id FROM main.findings GROUP BY id) ORDER BY start_ns, rule, id`)
}
