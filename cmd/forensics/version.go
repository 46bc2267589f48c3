package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

// Set at build time by a release build:
//
//	go build -ldflags "-X main.version=v1.2.0 -X main.commit=$(git rev-parse HEAD)" ./cmd/forensics
//
// Left empty, they are read from the build information the go command
// records (go install, go build in a clone), so every binary says what it is.
var (
	version string
	commit  string
)

// buildInfo says which forensics this is. Its JSON names are a contract.
type buildInfo struct {
	Version  string     `json:"version"`
	Commit   string     `json:"commit,omitempty"`
	Time     string     `json:"commit_time,omitempty"`
	Modified bool       `json:"modified,omitempty"`
	Go       string     `json:"go"`
	SQLite   string     `json:"sqlite"`
	Platform string     `json:"platform"`
	Store    *storeInfo `json:"store,omitempty"` // with --store
}

// storeInfo is the timeline store `version --store` describes: the engine
// found there and how the tables lie.
type storeInfo struct {
	Name string `json:"name"`
	store.Layout
}

func readBuildInfo() buildInfo {
	info, _ := debug.ReadBuildInfo()
	return buildInfoOf(info)
}

// buildInfoOf reads what the go command recorded in info (nil when it
// recorded nothing).
func buildInfoOf(info *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: version, Commit: commit, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	b.SQLite = backends.Versions()["sqlite"]
	if info != nil {
		if b.Version == "" && info.Main.Version != "" {
			// go install from a clone records a pseudo-version made of the
			// commit's time and hash; "(devel)" when there was no VCS.
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	// Go writes a build of a tree with uncommitted changes as
	// v0.0.0-…+dirty; Modified says so, in words.
	if b.Modified {
		b.Version = strings.TrimSuffix(b.Version, "+dirty")
	}
	return b
}

// unstamped is what a build says when the go command recorded neither a
// version nor a commit: go run, go build -buildvcs=false, or a copy of the
// sources outside a git clone.
const unstamped = `  (no version or commit recorded: built by go run, with -buildvcs=false or
  outside a git clone; go install or go build in a clone records the commit)
`

func (b buildInfo) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "forensics %s\n", b.Version)
	if b.Commit != "" {
		c := b.Commit
		if b.Time != "" {
			c += " (" + b.Time + ")"
		}
		if b.Modified {
			c += ", with uncommitted changes"
		}
		fmt.Fprintf(&s, "  commit  %s\n", c)
	} else if b.Version == "(devel)" {
		s.WriteString(unstamped)
	}
	fmt.Fprintf(&s, "  go      %s %s\n", b.Go, b.Platform)
	fmt.Fprintf(&s, "  sqlite  %s\n", b.SQLite)
	if st := b.Store; st != nil {
		fmt.Fprintf(&s, "  store   %s\n", report.Escape(st.Name))
		fmt.Fprintf(&s, "          %s %s, timeline schema %s\n", st.Engine, st.Version, st.Schema)
		for _, kind := range []string{"distributed", "reference", "local"} {
			var names []string
			column, shards := "", 0
			for _, t := range st.Tables {
				if t.Kind == kind {
					names = append(names, fmt.Sprintf("%s (%s)", t.Name, mib(t.Bytes)))
					column, shards = t.Column, t.Shards
				}
			}
			switch {
			case names == nil:
			case kind == "distributed":
				fmt.Fprintf(&s, "          distributed by %s, %d shards each, colocated: %s\n", column, shards, strings.Join(names, ", "))
			default:
				fmt.Fprintf(&s, "          %s: %s\n", kind, strings.Join(names, ", "))
			}
		}
		for _, n := range st.Nodes {
			fmt.Fprintf(&s, "          %s %s: %d shard(s), %s\n", n.Role, n.Node, n.Shards, mib(n.Bytes))
		}
	}
	return s.String()
}

func newVersionCmd() *cobra.Command {
	format := newFormatFlag("table")
	var location string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of forensics, its commit, Go and SQLite",
		Long: `version prints the version of forensics, its commit, Go and SQLite. With
--store it also opens that timeline store, read-only, and says which engine
it found there (PostgreSQL, Citus, SQLite, and their versions), the version
of the timeline schema, and how the tables lie: on Citus which are
distributed and by what, how many shards each has, and what each node holds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b := readBuildInfo()
			if location != "" {
				st, err := describeStore(cmd.Context(), location)
				if err != nil {
					return err
				}
				b.Store = st
			}
			return writeVersion(cmd.OutOrStdout(), b, format.String())
		},
	}
	format.register(cmd)
	// Not addDBFlag: version reads no store unless it is named, whatever
	// FORENSICS_STORE says.
	cmd.Flags().StringVar(&location, "store", "", "also describe the timeline `STORE` (postgres://…, or a SQLite file): engine, schema, distribution")
	cmd.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "db" {
			name = "store"
		}
		return pflag.NormalizedName(name)
	})
	return cmd
}

func describeStore(ctx context.Context, location string) (*storeInfo, error) {
	db, err := backends.OpenReader(location)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	d, ok := db.(store.Describer)
	if !ok {
		return nil, fmt.Errorf("%s: this kind of store cannot describe itself", db.Name())
	}
	l, err := d.Layout(ctx)
	if err != nil {
		return nil, err
	}
	return &storeInfo{Name: db.Name(), Layout: l}, nil
}

func writeVersion(w io.Writer, b buildInfo, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
