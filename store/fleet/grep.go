package fleet

import (
	"context"
	"regexp"
	"time"

	"forensics/store"
)

// GrepFilter selects lines across incidents.
type GrepFilter struct {
	Regexp    *regexp.Regexp
	Since     time.Time
	Until     time.Time
	Incidents []string // incident names; all when empty
	Rules     []string // only incidents with a finding of one of these rules
}

// Grep calls fn with each line that matches, incident by incident (the
// latest last), each incident's lines in timeline order, until fn returns
// false. The incident, its latest run and the time window go to the
// backend as a line filter, so a backend chooses blocks by incident and
// time before it decodes any.
func Grep(ctx context.Context, r store.Reader, f GrepFilter, fn func(incident string, l *store.Line) bool) error {
	incs, err := incidents(ctx, r, f.Incidents)
	if err != nil {
		return err
	}
	if len(f.Rules) > 0 {
		fs, err := Findings(ctx, r, Filter{Incidents: f.Incidents, Rules: f.Rules})
		if err != nil {
			return err
		}
		with := map[string]bool{}
		for _, fi := range fs {
			with[fi.Incident] = true
		}
		kept := incs[:0]
		for _, inc := range incs {
			if with[inc.Name] {
				kept = append(kept, inc)
			}
		}
		incs = kept
	}
	for _, inc := range incs {
		lf := store.LineFilter{Run: inc.Latest, Since: f.Since, Until: f.Until, Regexp: f.Regexp}
		for l, err := range r.Lines(ctx, lf) {
			if err != nil {
				return err
			}
			if !fn(inc.Name, l) {
				return nil
			}
		}
	}
	return nil
}
