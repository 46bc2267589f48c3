// Package rules holds the list of rules and runs them over a timeline.
// Each rule lives in its own package below this one, named after it.
package rules

import (
	"context"
	"fmt"
	"sort"

	"forensics"
	"forensics/rules/deniedtables"
	"forensics/rules/kvstream"
	"forensics/rules/nlhepingpong"
)

// All is every rule forensics runs, in the order `rules list` shows them.
var All = []*forensics.Rule{kvstream.Rule, nlhepingpong.Rule, deniedtables.Rule}

// Lookup returns the rule with the given name.
func Lookup(name string) (*forensics.Rule, bool) {
	for _, r := range All {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// Run runs rules over a timeline and returns their findings, ordered by
// start time, then rule, then id. A rule that fails does not stop the
// others; its error is returned with the findings of the rest.
func Run(ctx context.Context, tl forensics.Timeline, rules []*forensics.Rule) ([]forensics.Finding, []error) {
	var findings []forensics.Finding
	var errs []error
	for _, r := range rules {
		pass := &forensics.Pass{
			Context:  ctx,
			Rule:     r,
			Timeline: tl,
			Report: func(f forensics.Finding) {
				f.Rule = r.Name
				f.ID = f.Fingerprint()
				findings = append(findings, f)
			},
		}
		if err := r.Run(pass); err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", r.Name, err))
		}
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.ID < b.ID
	})
	return findings, errs
}
