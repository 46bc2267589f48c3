// Package rules holds the list of rules. Each rule lives in its own folder
// below this one, named after it: a Go package, or a rule file (NAME.yaml,
// read by package rulefile) embedded in the binary. Beside them are the
// driver that runs rules over a timeline (rules/driver), what every rule
// uses to make a finding (rules/evidence), and the harness of the rules'
// tests (rules/ruletest).
package rules

import (
	"embed"
	"io/fs"
	"path"
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

// All returns every rule forensics runs, in the order `rules list` shows
// them: the Go rules and the built-in rule files. The files are read at
// the first call, not as the program starts: parsing them took every
// command tens of milliseconds, most of the time of a search.
var All = sync.OnceValue(func() []*forensics.Rule {
	return []*forensics.Rule{kvstream.Rule, nlhepingpong.Rule, deniedtables.Rule,
		oomkill.Rule, autofailover.Rule, rebalance.Rule, rollbackzero.Rule, Builtin.rule("cb-disk-full"), clockskew.Rule,
		Builtin.rule("cb-service-crash-loop"), Builtin.rule("cb-slow-ops-storm"),
		Builtin.rule("cb-xdcr-pipeline-restarts"), Builtin.rule("cb-connection-limit"),
		Builtin.rule("cb-indexer-memory-pressure"), Builtin.rule("cb-cert-expiry"),
		clockoffset.Rule, diskstall.Rule, livenesslost.Rule, rangeunavailable.Rule,
		reparent.Rule, vreplerror.Rule, orphancontrols.Rule,
		Builtin.rule("crdb-io-overload"), Builtin.rule("crdb-changefeed-retrying"),
		Builtin.rule("crdb-txn-contention"), Builtin.rule("crdb-decommission-stall"),
		Builtin.rule("vitess-no-healthy-tablet"), Builtin.rule("vitess-txpool-full"),
		Builtin.rule("vitess-online-ddl-cutover"), Builtin.rule("vitess-vtorc-recovery-loop")}
})

// Files are the built-in rule files, each in the folder of its rule.
//
//go:embed */*.yaml
var Files embed.FS

// Builtin is the built-in rule files, read once, at the first use. They
// are checked against the parsers' vocabulary by this package's tests (the
// list of parsers is not this package's to import); a user's files are
// checked when loaded.
var Builtin = &builtinFiles{}

// builtinFiles are the built-in rule files.
type builtinFiles struct {
	once  sync.Once
	files map[string]*rulefile.File
}

// Files returns the built-in rule files read, by rule name.
func (b *builtinFiles) Files() map[string]*rulefile.File {
	b.once.Do(func() { b.files = readBuiltin() })
	return b.files
}

func readBuiltin() map[string]*rulefile.File {
	out := map[string]*rulefile.File{}
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

func (b *builtinFiles) rule(name string) *forensics.Rule {
	f, ok := b.Files()[name]
	if !ok {
		panic("no built-in rule file for " + name)
	}
	return f.Rule
}

// Lookup returns the rule with the given name.
func Lookup(name string) (*forensics.Rule, bool) {
	for _, r := range All() {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}
