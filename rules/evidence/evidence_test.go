package evidence

import (
	"testing"
	"time"

	"forensics"
)

// A set quotes a line once; with Copies, a line that says the same as one
// already quoted (diag.log's copy of a user log entry) is not quoted
// again, and only its first line is.
func TestSet(t *testing.T) {
	t0 := time.Date(2022, 7, 22, 0, 39, 12, 120e6, time.UTC)
	info := &forensics.Event{Stamp: forensics.Stamp{Time: t0}, Node: "n1", Path: "n1/info.log", Line: 7, Kind: "ns.exit", Text: "exited\n  with details"}
	diag := *info
	diag.Path, diag.Line = "n2/diag.log", 40
	later := *info
	later.Path, later.Line, later.Time = "n1/info.log", 9, t0.Add(time.Second)

	var plain Set
	for _, e := range []*forensics.Event{&later, info, info, &diag, nil} {
		plain.Add(e, "note")
	}
	got := plain.Sorted()
	if len(got) != 3 || got[0].Path != "n1/info.log" || got[0].Line != 7 || got[1].Path != "n2/diag.log" || got[2].Line != 9 {
		t.Fatalf("plain set: %+v", got)
	}
	if got[0].Text != info.Text {
		t.Errorf("plain set quotes %q, want the whole entry", got[0].Text)
	}

	copies := Set{Copies: true}
	if !copies.Add(info, "exit") || copies.Add(&diag, "the same exit in diag.log") || !copies.Add(&later, "") {
		t.Error("Copies: a copy was added, or a new line refused")
	}
	if got := copies.Sorted(); len(got) != 2 || got[0].Text != "exited" || got[0].Note != "exit" {
		t.Errorf("Copies set: %+v", got)
	}
	if copies.Len() != 2 {
		t.Errorf("Len = %d", copies.Len())
	}
}

func TestDedupe(t *testing.T) {
	t0 := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	ev := func(node string, sec int) *forensics.Event {
		return &forensics.Event{Stamp: forensics.Stamp{Time: t0.Add(time.Duration(sec) * time.Second)}, Node: node}
	}
	in := []*forensics.Event{ev("a", 0), ev("b", 1), ev("a", 2), ev("a", 10), ev("a", 8)}
	out := Dedupe(in, 3*time.Second, func(e *forensics.Event) string { return e.Node })
	if len(out) != 3 || out[0] != in[0] || out[1] != in[1] || out[2] != in[3] {
		t.Errorf("Dedupe kept %v", out)
	}
}

func TestClock(t *testing.T) {
	for in, want := range map[time.Time]string{
		time.Date(2022, 7, 22, 0, 39, 12, 120e6, time.UTC):                    "00:39:12.120Z",
		time.Date(2022, 7, 22, 0, 39, 17, 706652e3, time.UTC):                 "00:39:17.706652Z",
		time.Date(2022, 7, 21, 17, 39, 12, 0, time.FixedZone("PDT", -7*3600)): "00:39:12.000Z",
	} {
		if got := Clock(in); got != want {
			t.Errorf("Clock(%s) = %s, want %s", in, got, want)
		}
	}
	if got := Day(time.Date(2022, 7, 21, 17, 39, 12, 0, time.FixedZone("PDT", -7*3600))); got != "2022-07-22" {
		t.Errorf("Day = %s", got)
	}
}

func TestByKind(t *testing.T) {
	evs := []forensics.Event{{Kind: "a", Line: 1}, {Kind: "b", Line: 2}, {Kind: "a", Line: 3}}
	by := ByKind(evs)
	if len(by["a"]) != 2 || by["a"][0] != &evs[0] || by["a"][1] != &evs[2] || len(by["b"]) != 1 || by["b"][0].Line != 2 {
		t.Errorf("ByKind = %v", by)
	}
}
