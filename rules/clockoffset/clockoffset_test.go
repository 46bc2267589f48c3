package clockoffset

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/crdb"
	"forensics/rules/ruletest"
)

const (
	fatalN3     = "F240611 10:15:02.100200 412 1@rpc/peer.go:604 ⋮ [T1,Vsystem,n3,rnode=1,raddr=‹10.0.0.1:26257›,class=system,rpc] 11  clock synchronization error: this node is more than 400ms away from at least half of the known nodes (1 of 3 are within the offset)\n"
	uncertainN3 = "W240611 10:14:57.004400 412 2@rpc/clock_offset.go:328 ⋮ [T1,Vsystem,n3,rnode=2,raddr=‹10.0.0.2:26257›,class=system,rpc] 454  uncertain remote offset off=-391.203ms, err=14.1ms, at=2024-06-11 10:14:56.990400 +0000 UTC for maximum tolerated offset 400ms, treating as healthy\n" +
		"W240611 10:14:58.311120 412 2@rpc/clock_offset.go:328 ⋮ [T1,Vsystem,n3,rnode=1,raddr=‹10.0.0.1:26257›,class=system,rpc] 455  uncertain remote offset off=-392.770ms, err=13.0ms, at=2024-06-11 10:14:58.297120 +0000 UTC for maximum tolerated offset 400ms, treating as healthy\n"
	uncertainN1 = "W240611 10:14:40.552000 388 2@rpc/clock_offset.go:328 ⋮ [T1,Vsystem,n1,rnode=3,raddr=‹10.0.0.3:26257›,class=system,rpc] 460  uncertain remote offset off=394.018ms, err=11.7ms, at=2024-06-11 10:14:40.540100 +0000 UTC for maximum tolerated offset 400ms, treating as healthy\n"
	// A measurement of another pair, which is not n3's.
	uncertainN1N2 = "W240611 10:14:41.000000 388 2@rpc/clock_offset.go:328 ⋮ [T1,Vsystem,n1,rnode=2,raddr=‹10.0.0.2:26257›,class=system,rpc] 461  uncertain remote offset off=399.5ms, err=1ms, at=2024-06-11 10:14:40.990000 +0000 UTC for maximum tolerated offset 400ms, treating as healthy\n"
)

func src(path, text string) ruletest.Source {
	return ruletest.Source{Path: path, Text: text, Format: crdb.LogFormat}
}

func TestExitWithMeasurements(t *testing.T) {
	evs := ruletest.Parse(t,
		src("roach-3/cockroach-health.log", uncertainN3),
		src("roach-3/cockroach.log", fatalN3),
		src("roach-1/cockroach-health.log", uncertainN1+uncertainN1N2))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 {
		t.Fatalf("findings:%s\nwant one", ruletest.Describe(fs))
	}
	f := fs[0]
	if got, want := ruletest.Subject(f), `{"node":"n3","offset":"394.018ms","max_offset":"400ms"}`; got != want {
		t.Errorf("subject %s, want %s", got, want)
	}
	if f.Severity != forensics.Critical {
		t.Errorf("severity %s", f.Severity)
	}
	if !f.Start.Equal(evs[0].Time) || !f.End.Equal(evs[len(evs)-1].Time) {
		t.Errorf("window %s–%s", f.Start, f.End)
	}
	// Evidence: n1's measurement of n3, both of n3's, the exit; not n1's of n2.
	var lines []string
	for _, e := range f.Evidence {
		lines = append(lines, e.Path)
		if strings.Contains(e.Text, "rnode=2,raddr=‹10.0.0.2:26257›") && e.Node == "n1" {
			t.Errorf("evidence holds a measurement between other nodes: %s", e.Text)
		}
	}
	if len(f.Evidence) != 4 || f.Evidence[3].Path != "roach-3/cockroach.log" || f.Evidence[3].Line != 1 {
		t.Errorf("evidence %v", lines)
	}
	for _, s := range []string{"n1, n2", "1 of 3 were within the offset", "394.018ms, between n3 and n1", "n1 measured n3 at 394.018ms"} {
		if !strings.Contains(f.Explanation, s) {
			t.Errorf("explanation lacks %q:\n%s", s, f.Explanation)
		}
	}
	if got := f.Fixes[1].Commands[0]; got != "cockroach node status 3 --host=CRDB_HOST:26257 --certs-dir=CERTS_DIR" {
		t.Errorf("fix command %q", got)
	}
}

// The same exit in two files is one finding; two nodes' exits are two.
func TestExitsPerNode(t *testing.T) {
	fatalN1 := strings.NewReplacer("n3,", "n1,", "rnode=1", "rnode=2", "10:15:02.100200", "10:16:40.000000").Replace(fatalN3)
	evs := ruletest.Parse(t,
		src("roach-3/cockroach.log", fatalN3),
		src("roach-3/cockroach-stderr.log", fatalN3),
		src("roach-1/cockroach.log", fatalN1))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 2 || fs[0].Subject.Node != "n3" || fs[1].Subject.Node != "n1" {
		t.Fatalf("findings:%s\nwant n3 then n1", ruletest.Describe(fs))
	}
	if len(fs[0].Evidence) != 2 || !strings.Contains(fs[0].Explanation, "appears 2 times") {
		t.Errorf("n3: evidence %d, explanation %s", len(fs[0].Evidence), fs[0].Explanation)
	}
	// Without measurements the subject says what the fatal line says.
	if fs[1].Subject.Details.Text("offset") != "more than 400ms" || !strings.Contains(fs[1].Explanation, "No offset measurements") {
		t.Errorf("n1: %+v %s", fs[1].Subject, fs[1].Explanation)
	}
}

// Real v20.2 line (crdb-v1, legacy server.go): 500ms and 0 of 1.
func TestLegacyExit(t *testing.T) {
	evs := ruletest.Parse(t, src("cockroach.log",
		"F210415 00:13:41.913691 2763 server/server.go:276 ⋮ [n1] clock synchronization error: this node is more than 500ms away from at least half of the known nodes (0 of 1 are within the offset)\n"+
			"goroutine 2763 [running]:\n"))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 || fs[0].Subject.Node != "n1" || fs[0].Subject.Details.Text("max_offset") != "500ms" {
		t.Fatalf("findings:%s", ruletest.Describe(fs))
	}
}

// Near miss: offsets near the limit that go away, and no exit.
func TestWarningsOnly(t *testing.T) {
	evs := ruletest.Parse(t, src("roach-3/cockroach-health.log", uncertainN3), src("roach-1/cockroach-health.log", uncertainN1))
	if len(evs) != 3 {
		t.Fatalf("parsed %d events, want 3", len(evs))
	}
	if fs := ruletest.Run(t, Rule, evs); len(fs) != 0 {
		t.Fatalf("findings:%s\nwant none", ruletest.Describe(fs))
	}
}

// Measurements older than the look-back are not the exit's.
func TestOldMeasurements(t *testing.T) {
	old := strings.Replace(uncertainN3, "W240611 10:14:57", "W240611 09:14:57", 1)
	evs := ruletest.Parse(t, src("roach-3/cockroach-health.log", old), src("roach-3/cockroach.log", fatalN3))
	fs := ruletest.Run(t, Rule, evs)
	if len(fs) != 1 {
		t.Fatalf("findings:%s", ruletest.Describe(fs))
	}
	for _, e := range fs[0].Evidence {
		if strings.HasPrefix(e.Text, "W240611 09:14:57") {
			t.Errorf("evidence holds a measurement an hour before: %s", e.Text)
		}
	}
}
