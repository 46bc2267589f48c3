// Package rules holds the list of rules and runs them over a timeline.
// Each rule lives in its own folder below this one, named after it: a Go
// package, or a rule file (NAME.yaml, read by package rulefile) embedded
// in the binary.
package rules

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"sync"

	"forensics"
	"forensics/rules/autofailover"
	"forensics/rules/clockoffset"
	"forensics/rules/clockskew"
	"forensics/rules/deniedtables"
	"forensics/rules/diskstall"
	"forensics/rules/kvstream"
	"forensics/rules/livenesslost"
	"forensics/rules/nlhepingpong"
	"forensics/rules/oomkill"
	"forensics/rules/orphancontrols"
	"forensics/rules/rangeunavailable"
	"forensics/rules/rebalance"
	"forensics/rules/reparent"
	"forensics/rules/rollbackzero"
	"forensics/rules/rulefile"
	"forensics/rules/vreplerror"
)

// All is every rule forensics runs, in the order `rules list` shows them:
// the Go rules and the built-in rule files.
var All = []*forensics.Rule{kvstream.Rule, nlhepingpong.Rule, deniedtables.Rule,
	oomkill.Rule, autofailover.Rule, rebalance.Rule, rollbackzero.Rule, Builtin.rule("cb-disk-full"), clockskew.Rule,
	clockoffset.Rule, diskstall.Rule, livenesslost.Rule, rangeunavailable.Rule,
	reparent.Rule, vreplerror.Rule, orphancontrols.Rule}

// Files are the built-in rule files, each in the folder of its rule.
//
//go:embed */*.yaml
var Files embed.FS

// Builtin is the built-in rule files, read once. They are checked against
// the parsers' vocabulary by this package's tests (the list of parsers is
// not this package's to import); a user's files are checked when loaded.
var Builtin = readBuiltin()

// builtinFiles are the built-in rule files read, by rule name.
type builtinFiles map[string]*rulefile.File

func readBuiltin() builtinFiles {
	out := builtinFiles{}
	err := fs.WalkDir(Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".yaml" {
			return err
		}
		data, err := Files.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := rulefile.Parse("rules/"+p, data, nil)
		if err != nil {
			return err
		}
		out[f.Rule.Name] = f
		return nil
	})
	if err != nil {
		panic("built-in rule files: " + err.Error()) // a build that cannot read its own files
	}
	return out
}

func (b builtinFiles) rule(name string) *forensics.Rule {
	f, ok := b[name]
	if !ok {
		panic("no built-in rule file for " + name)
	}
	return f.Rule
}

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
