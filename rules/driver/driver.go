// Package driver runs rules over a timeline: each rule on its own
// goroutine, each finding given its rule's name, its details in the
// declared order, its id and a window that spans its evidence. analysis
// runs it over a stored run, and rules/ruletest over the events of a test,
// so a rule's tests see its findings as a real run makes them.
package driver

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"sync"

	"forensics"
)

// Run runs rules over a timeline and returns their findings, ordered by
// start time, then rule, then id. Rules run at the same time, each reading
// the timeline on its own (tl must allow concurrent reads). A rule that fails
// does not stop the others; its error is returned with the findings of the
// rest, in the order of rules.
func Run(ctx context.Context, tl forensics.Timeline, rules []*forensics.Rule) ([]forensics.Finding, []error) {
	var (
		mu       sync.Mutex
		findings []forensics.Finding
		wg       sync.WaitGroup
	)
	errs := make([]error, len(rules))
	for i, r := range rules {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				own     []forensics.Finding
				badSubj error
			)
			pass := &forensics.Pass{
				Context:  ctx,
				Rule:     r,
				Timeline: tl,
				Report: func(f forensics.Finding) {
					f.Rule = r.Name
					// The details go in the order the rule declares, which
					// is the order of the JSON and so part of the id. A
					// finding with a detail the rule does not declare is
					// kept, and the rule's error says so.
					if err := f.Subject.Conform(r.Details); err != nil && badSubj == nil {
						badSubj = fmt.Errorf("finding %q: %w", f.Title, err)
					}
					// The id comes from the instant the rule reasons from
					// (a restart, an episode's first redirect), so widening
					// the window below keeps the id of every release.
					f.ID = f.Fingerprint()
					spanEvidence(&f)
					own = append(own, f)
				},
			}
			if err := cmp.Or(r.Run(pass), badSubj); err != nil {
				errs[i] = fmt.Errorf("rule %s: %w", r.Name, err)
			}
			mu.Lock()
			findings = append(findings, own...)
			mu.Unlock()
		}()
	}
	wg.Wait()
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
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	return findings, failed
}

// spanEvidence widens a finding's window to all its evidence: a stream end
// logged before the exit it follows, a trace that starts before the first
// redirect, are inside the window the finding names.
func spanEvidence(f *forensics.Finding) {
	first, last := forensics.Span(f.Evidence)
	if !first.IsZero() && first.Before(f.Start) {
		f.Start = first
	}
	if last.After(f.End) {
		f.End = last
	}
}
