package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"forensics"
	"forensics/shell"
)

// A finding read back from a timeline was written by whoever had the file
// or the database: a colleague's timeline, a store a writer role can change.
// Both backends read every stored finding through DecodeFinding, so that
// what every output shows of it has been checked on the way out: its id
// and rule name have their grammar (they go into tables, Markdown code,
// links and suggested commands), and a fix command that is not one
// forensics writes (shell.Check) is not shown as a command.

// MaxFindingJSON bounds the stored JSON of one finding: a genuine one is
// kilobytes (evidence lines are cut by the rules that quote them), and a
// body of hundreds of megabytes would be held, decoded and printed whole.
const MaxFindingJSON = 16 << 20

// DecodeFinding decodes and checks a finding as a backend stored it.
func DecodeFinding(body []byte) (forensics.Finding, error) {
	var f forensics.Finding
	if len(body) > MaxFindingJSON {
		return f, fmt.Errorf("stored finding of %d bytes, more than a finding takes (%d): the timeline was changed by something else than forensics", len(body), MaxFindingJSON)
	}
	if err := json.Unmarshal(body, &f); err != nil {
		return f, fmt.Errorf("stored finding: %w", err)
	}
	_, err := VetFinding(&f)
	return f, err
}

// VetFinding checks a stored finding: an id or a rule name out of its
// grammar is an error; a fix command that is not one forensics writes is
// taken out of the fix, which says so in a step. It reports whether it
// changed the finding.
func VetFinding(f *forensics.Finding) (changed bool, err error) {
	if !forensics.ValidID(f.ID) {
		return false, fmt.Errorf("stored finding id %q is not a finding id (%d hex digits): the timeline was changed by something else than forensics", f.ID, forensics.IDLen)
	}
	if !forensics.ValidRuleName(f.Rule) {
		return false, fmt.Errorf("stored finding %s: rule %q is not a rule name: the timeline was changed by something else than forensics", f.ID, f.Rule)
	}
	for i := range f.Fixes {
		fix := &f.Fixes[i]
		kept := fix.Commands[:0]
		var refused []string
		for _, c := range fix.Commands {
			if err := shell.Check(c); err != nil {
				refused = append(refused, err.Error())
				continue
			}
			kept = append(kept, c)
		}
		fix.Commands = kept
		if len(refused) > 0 {
			changed = true
			fix.Steps = append(fix.Steps, fmt.Sprintf("%d command(s) stored with this fix are not shown: they are not commands forensics writes (%s); "+
				"the timeline was changed after the analysis. `forensics analyze --fresh` runs the rules again.", len(refused), refused[0]))
		}
	}
	return changed, nil
}

// IDPrefix checks a finding id or prefix as a user typed it (show,
// --around, extract, fleet similar) and returns it in lowercase: only hex
// digits reach a query or a message.
func IDPrefix(p string) (string, error) {
	if !forensics.ValidIDPrefix(p) {
		return "", fmt.Errorf("finding id %q: a finding id is %d hex digits, or the first of them; `forensics findings` lists them", p, forensics.IDLen)
	}
	return strings.ToLower(p), nil
}

// MaxFindings bounds the findings Findings and AllFindings return in one
// slice: a genuine analysis finds tens, and a timeline claiming hundreds
// of thousands would be held whole. Listings read through EachFinding,
// one at a time, and are not bounded.
const MaxFindings = 10000

// CollectFindings collects what each yields, up to MaxFindings: the
// backends' Findings and AllFindings.
func CollectFindings(each func(fn func(StoredFinding) error) error) ([]StoredFinding, error) {
	var out []StoredFinding
	err := each(func(f StoredFinding) error {
		if len(out) == MaxFindings {
			return fmt.Errorf("more than %d findings to read at once, more than an analysis finds: the timeline was changed by something else than forensics (forensics findings lists them one at a time)", MaxFindings)
		}
		out = append(out, f)
		return nil
	})
	return out, err
}

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

// Ambiguous says that a prefix is ambiguous when the ids a backend found
// for it (a few: it reads no more than ten) are more than one.
func Ambiguous(prefix string, ids []string) error {
	if len(ids) < 2 {
		return nil
	}
	slices.Sort(ids)
	for i := range ids {
		ids[i] = strconv.Quote(ids[i]) // read from the store, not yet checked
	}
	return fmt.Errorf("finding id %q is ambiguous: %s", prefix, strings.Join(ids, ", "))
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

// SelectFindings is the select list ScanFinding reads, for a table of
// findings aliased f: a body larger than a finding takes comes as NULL, so
// that it is not read, with its size.
var SelectFindings = fmt.Sprintf(`f.run_id, f.id, octet_length(f.body), CASE WHEN octet_length(f.body) <= %d THEN f.body END`, MaxFindingJSON)

// EachScanned calls fn with each finding of rows of SelectFindings, decoded
// and checked (DecodeFinding) one at a time.
func EachScanned(rows Rows, fn func(StoredFinding) error) error {
	for rows.Next() {
		var f StoredFinding
		var id string
		var size int64
		var body []byte
		if err := rows.Scan(&f.Run, &id, &size, &body); err != nil {
			return err
		}
		if body == nil {
			return fmt.Errorf("stored finding %q of run %d: %d bytes, more than a finding takes (%d): the timeline was changed by something else than forensics", id, f.Run, size, MaxFindingJSON)
		}
		var err error
		if f.Finding, err = DecodeFinding(body); err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ReusedFindings collects the findings of an earlier run of the same
// content and rules, for a new run to reuse: both backends' PriorFindings.
// A run holding more than MaxFindings was not written by an analysis (a
// timeline someone else changed): its findings are not reused, and the
// rules run again, instead of holding them all.
func ReusedFindings(each func(fn func(StoredFinding) error) error) ([]forensics.Finding, bool, error) {
	fs := []forensics.Finding{}
	tooMany := errors.New("too many findings")
	err := each(func(f StoredFinding) error {
		if len(fs) == MaxFindings {
			return tooMany
		}
		fs = append(fs, f.Finding)
		return nil
	})
	if errors.Is(err, tooMany) {
		return nil, false, nil
	}
	return fs, err == nil, err
}
