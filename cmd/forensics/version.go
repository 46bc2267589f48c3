package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

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
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"commit_time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	SQLite   string `json:"sqlite"`
	Platform string `json:"platform"`
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
	return s.String()
}

func newVersionCmd() *cobra.Command {
	format := newFormatFlag("table")
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of forensics, its commit, Go and SQLite",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeVersion(cmd.OutOrStdout(), format.String())
		},
	}
	format.register(cmd)
	return cmd
}

func writeVersion(w io.Writer, format string) error {
	b := readBuildInfo()
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
