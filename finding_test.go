package forensics

import (
	"encoding/json"
	"testing"
	"time"
)

// Each severity has one value and one name, in rising order, and reads
// back from its name; "warning", which findings stored by earlier releases
// and --fail-on values carry, reads as medium.
func TestSeverityNames(t *testing.T) {
	for s := Info; s <= Critical; s++ {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s: marshalled %s, read back %v (%v)", s, b, back, err)
		}
	}
	want := map[string]Severity{"info": Info, "low": Low, "medium": Medium, "high": High, "critical": Critical, "warning": Medium, "WARNING": Medium}
	for name, sev := range want {
		got, err := ParseSeverity(name)
		if err != nil || got != sev {
			t.Errorf("ParseSeverity(%q) = %v, %v; want %v", name, got, err, sev)
		}
	}
	prev := Severity(-1)
	for _, name := range []string{"info", "low", "medium", "high", "critical"} {
		s, _ := ParseSeverity(name)
		if s <= prev {
			t.Errorf("%s does not rank above %s", s, prev)
		}
		prev = s
	}
	if got := Medium.String(); got != "medium" {
		t.Errorf("Medium is written %q", got)
	}
	if _, err := ParseSeverity("severe"); err == nil {
		t.Error("ParseSeverity accepted an unknown name")
	}
}

// Evidence quotes the event it comes from, where and when it was logged.
func TestEvidenceOf(t *testing.T) {
	e := &Event{Stamp: Stamp{Time: time.Date(2022, 7, 22, 0, 39, 12, 0, time.UTC)}, Node: "n1",
		Path: "a.zip!memcached.log", Line: 177, Kind: "memcached.start", Text: "line one\nline two"}
	got := EvidenceOf(e, "memcached started")
	want := Evidence{Path: "a.zip!memcached.log", Line: 177, Time: e.Time, Node: "n1", Note: "memcached started", Text: "line one\nline two"}
	if got != want {
		t.Errorf("EvidenceOf = %+v, want %+v", got, want)
	}
}

// A finding's evidence spans from its earliest to its latest timed line;
// a line without a time (a document of a snapshot without one) is left out.
func TestSpan(t *testing.T) {
	t0 := time.Date(2022, 7, 22, 0, 39, 12, 0, time.UTC)
	first, last := Span([]Evidence{{Time: t0.Add(time.Second)}, {}, {Time: t0}, {Time: t0.Add(3 * time.Second)}, {}})
	if !first.Equal(t0) || !last.Equal(t0.Add(3*time.Second)) {
		t.Errorf("Span = %s, %s", first, last)
	}
	if first, last := Span([]Evidence{{}, {}}); !first.IsZero() || !last.IsZero() {
		t.Errorf("Span of untimed lines = %s, %s", first, last)
	}
}
