package report

import (
	"math"
	"strings"
	"testing"
	"time"
)

// The sources table and the summary name the release each node's files
// said they were written by; a node that spans an upgrade lists both.
func TestSourcesRelease(t *testing.T) {
	srcs := []Source{
		{Path: "b/memcached.log", Node: "ns_1@10.1.2.4", Format: "memcached", Component: "memcached", Release: "8.0.0-3777"},
		{Path: "a/memcached.log", Node: "ns_1@10.1.2.3", Format: "memcached", Component: "memcached", Release: "7.6.4-5146"},
		{Path: "a/memcached.log.000001.txt", Node: "ns_1@10.1.2.3", Format: "memcached", Component: "memcached", Release: "7.6.4-5146"},
		{Path: "a/memcached.log.000002.txt", Node: "ns_1@10.1.2.3", Format: "memcached", Component: "memcached", Release: "8.0.0-3777"},
		{Path: "a/ns_server.debug.log", Node: "ns_1@10.1.2.3", Format: "nsserver", Component: "ns_server"},
	}
	got := NodeReleases(srcs)
	want := []NodeRelease{
		{"ns_1@10.1.2.3", "memcached", "7.6.4-5146"},
		{"ns_1@10.1.2.3", "memcached", "8.0.0-3777"},
		{"ns_1@10.1.2.4", "memcached", "8.0.0-3777"},
	}
	if len(got) != len(want) {
		t.Fatalf("NodeReleases = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("NodeReleases[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	r := &Report{Sources: srcs, Summary: Summary{Read: len(srcs), Releases: got, Empty: EmptySources(srcs)}}
	if r.Summary.Empty != len(srcs) {
		t.Errorf("EmptySources = %d for sources with no time and no event, want %d", r.Summary.Empty, len(srcs))
	}
	var b strings.Builder
	if err := WriteSources(&b, r, Layout{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"Release", "│ memcached │ 8.0.0-3777 │", "release: ns_1@10.1.2.3 memcached 7.6.4-5146\n", "release: ns_1@10.1.2.4 memcached 8.0.0-3777\n", "empty: 5 sources put nothing on the timeline"} {
		if !strings.Contains(out, s) {
			t.Errorf("sources output lacks %q:\n%s", s, out)
		}
	}
}

// The most negative duration is its own negation: a finding whose times
// were changed so that it ends an age before it starts is shown, not
// recursed on.
func TestDurationExtremes(t *testing.T) {
	for d, want := range map[time.Duration]string{
		math.MinInt64:            "-2562047h47m16.854775808s",
		math.MaxInt64:            "2562047h47m16.854775807s",
		-1500 * time.Millisecond: "-1.5s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%d) = %q, want %q", int64(d), got, want)
		}
	}
}
