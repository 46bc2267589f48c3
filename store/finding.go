package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// PickFinding is what FindingIn answers once a backend has read found, the
// stored findings of run (of every run when run is 0) whose id starts with
// prefix, the most recent run first: the finding the prefix names, or an
// error that says what to type instead. Both backends share it, so a user
// reads the same words whichever store the timeline is in.
func PickFinding(ctx context.Context, r Reader, run int64, prefix string, found []StoredFinding) (StoredFinding, error) {
	if len(found) == 0 {
		if run != 0 {
			if other, err := r.FindingIn(ctx, 0, prefix); err == nil {
				return StoredFinding{}, fmt.Errorf("finding %q is not in this incident but in %s: pick it with --incident, or --incident all", prefix, runPlace(ctx, r, other.Run))
			}
		}
		return StoredFinding{}, fmt.Errorf("no finding %q in %s; `forensics findings` lists them", prefix, r.Name())
	}
	seen := map[string]bool{}
	var ids []string
	for _, f := range found {
		if !seen[f.ID] {
			seen[f.ID] = true
			ids = append(ids, f.ID)
		}
	}
	if len(ids) > 1 {
		slices.Sort(ids)
		return StoredFinding{}, fmt.Errorf("finding id %q is ambiguous: %s", prefix, strings.Join(ids, ", "))
	}
	return found[0], nil
}

// runPlace names where a run is for a user: its incident, or the run.
func runPlace(ctx context.Context, r Reader, run int64) string {
	place := fmt.Sprintf("run %d", run)
	if incs, err := r.Incidents(ctx); err == nil {
		for _, inc := range incs {
			if slices.Contains(inc.Runs, run) {
				place = fmt.Sprintf("incident %q", inc.Name)
			}
		}
	}
	return place
}

// Rows is a query's rows as both backends' drivers give them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanFindings reads rows of (run id, finding as JSON), the form both
// backends keep findings in.
func ScanFindings(rows Rows) ([]StoredFinding, error) {
	var out []StoredFinding
	for rows.Next() {
		var f StoredFinding
		var body string
		if err := rows.Scan(&f.Run, &body); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(body), &f.Finding); err != nil {
			return nil, fmt.Errorf("stored finding: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
