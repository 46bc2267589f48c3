package fleet

import (
	"context"
	"regexp"
	"slices"
	"time"

	"forensics/store"
)

// GrepFilter selects lines across incidents.
type GrepFilter struct {
	Regexp    *regexp.Regexp
	Since     time.Time
	Until     time.Time
	Incidents []string // incident names; all when empty
	Rules     []string // only the windows of the findings of these rules
	// Stats, when set, adds up how the searches read the store: the
	// blocks of lines the index of blocks kept and those read.
	Stats *store.SearchStats
}

// Grep calls fn with each line that matches, incident by incident (the
// latest last), each incident's lines in timeline order, until fn returns
// false. The incident, its latest run and the time window go to the
// backend as a line filter, so a backend chooses blocks by incident and
// time before it decodes any. With Rules, only incidents with a finding of
// one of them are read, and of each only the windows of those findings
// (from start to end, both included; overlapping windows merged), within
// Since and Until.
func Grep(ctx context.Context, r store.Reader, f GrepFilter, fn func(incident string, l *store.Line) bool) error {
	incs, err := incidents(ctx, r, f.Incidents)
	if err != nil {
		return err
	}
	var windows map[string][]window
	if len(f.Rules) > 0 {
		fs, err := Findings(ctx, r, Filter{Incidents: f.Incidents, Rules: f.Rules, Since: f.Since, Until: f.Until})
		if err != nil {
			return err
		}
		windows = map[string][]window{}
		for _, fi := range fs {
			windows[fi.Incident] = append(windows[fi.Incident], window{fi.Start, fi.End.Add(time.Nanosecond)})
		}
		kept := incs[:0]
		for _, inc := range incs {
			if ws := windows[inc.Name]; len(ws) > 0 {
				windows[inc.Name] = merge(ws, f.Since, f.Until)
				kept = append(kept, inc)
			}
		}
		incs = kept
	}
	for _, inc := range incs {
		ws := []window{{f.Since, f.Until}}
		if windows != nil {
			ws = windows[inc.Name]
		}
		for _, w := range ws {
			lf := store.LineFilter{Run: inc.Latest, Since: w.since, Until: w.until, Regexp: f.Regexp, NoKinds: true}
			stopped := false
			res, err := r.Search(ctx, store.Search{LineFilter: lf}, func(l *store.Line) bool {
				stopped = !fn(inc.Name, l)
				return !stopped
			})
			if f.Stats != nil {
				f.Stats.Add(res.Stats)
			}
			if err != nil || stopped {
				return err
			}
		}
	}
	return nil
}

// window is a span of time, [since, until); a zero bound is open.
type window struct{ since, until time.Time }

// merge sorts the windows, joins those that overlap or touch, and clips
// them to [since, until), dropping what falls outside.
func merge(ws []window, since, until time.Time) []window {
	slices.SortFunc(ws, func(a, b window) int { return a.since.Compare(b.since) })
	var out []window
	for _, w := range ws {
		if !since.IsZero() && w.since.Before(since) {
			w.since = since
		}
		if !until.IsZero() && w.until.After(until) {
			w.until = until
		}
		if !w.since.Before(w.until) {
			continue
		}
		if n := len(out); n > 0 && !w.since.After(out[n-1].until) {
			if w.until.After(out[n-1].until) {
				out[n-1].until = w.until
			}
			continue
		}
		out = append(out, w)
	}
	return out
}
