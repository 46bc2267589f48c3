package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// A build of a clone with uncommitted changes says so in words, once: Go's
// "+dirty" suffix does not reach the version.
func TestVersionOfModifiedBuild(t *testing.T) {
	b := buildInfoOf(&debug.BuildInfo{
		Main: debug.Module{Path: "forensics", Version: "v0.0.0-20261207081800-2a165aa1b2c3+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "2a165aa1b2c3d4e5f60718293a4b5c6d7e8f9012"},
			{Key: "vcs.time", Value: "2026-12-07T08:18:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	})
	out := b.String()
	if !strings.HasPrefix(out, "forensics v0.0.0-20261207081800-2a165aa1b2c3\n") {
		t.Errorf("version line:\n%s", out)
	}
	if !strings.Contains(out, "  commit  2a165aa1b2c3d4e5f60718293a4b5c6d7e8f9012 (2026-12-07T08:18:00Z), with uncommitted changes\n") {
		t.Errorf("commit line:\n%s", out)
	}
	if strings.Contains(out, "no version or commit recorded") {
		t.Errorf("a stamped build says it is not:\n%s", out)
	}
}
