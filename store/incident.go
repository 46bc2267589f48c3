package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
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

// IncidentRun returns the latest run of the named incident, or of the
// latest incident when name is empty; 0 when there is none.
func IncidentRun(ctx context.Context, r Reader, name string) (int64, error) {
	incs, err := r.Incidents(ctx)
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

// IncidentRuns gathers the runs of a timeline, read in the order of their
// ids, into its incidents: what both backends' Incidents return.
type IncidentRuns struct {
	out   []Incident
	index map[string]int
}

// Add counts run, started at started with the inputs of its args (JSON),
// in its incident; name "" is the incident its inputs name (timelines from
// before incidents were named).
func (r *IncidentRuns) Add(run int64, name string, started time.Time, args string, sources, findings int) {
	var inputs []string
	json.Unmarshal([]byte(args), &inputs)
	if name == "" {
		name = IncidentName(inputs)
	}
	if r.index == nil {
		r.index = map[string]int{}
	}
	i, ok := r.index[name]
	if !ok {
		i = len(r.out)
		r.index[name] = i
		r.out = append(r.out, Incident{Name: name})
	}
	inc := &r.out[i]
	inc.Runs = append(inc.Runs, run)
	inc.Latest, inc.Inputs, inc.Sources, inc.Findings = run, inputs, sources, findings
	inc.Started = started.UTC()
}

// List returns the incidents, the one whose latest run is the newest last.
func (r *IncidentRuns) List() []Incident {
	sort.SliceStable(r.out, func(i, j int) bool { return r.out[i].Latest < r.out[j].Latest })
	return r.out
}
