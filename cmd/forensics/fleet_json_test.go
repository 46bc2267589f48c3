package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"forensics"
	"forensics/fleet"
)

// encoded is what fleet findings printed before it put its JSON together
// from the stored findings: the slice through json.Encoder.
func encoded(t testing.TB, fs []fleet.Finding) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if fs == nil {
		fs = []fleet.Finding{}
	}
	if err := enc.Encode(fs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func assembled(t testing.TB, fs []fleet.Finding) string {
	var b bytes.Buffer
	if err := writeFleetFindings(&b, "json", 0, func(fn func(*fleet.Summary, []byte) error) error { return fleet.Each(fs, fn) }); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func tricky(title string) fleet.Finding {
	at := time.Date(2026, 3, 1, 10, 0, 0, 5, time.FixedZone("", 3600))
	return fleet.Finding{Incident: `inc <"&">` + title, Run: 42, Finding: forensics.Finding{
		ID: "abc", Rule: "r", Severity: forensics.High, Title: title,
		Subject: forensics.FindingSubject{Node: "n1"}, Start: at, End: at.Add(time.Second),
		Explanation: `a \u003c b & c > d, "quoted" \ back` + "\u2028\x00\xff",
		Evidence:    []forensics.Evidence{{Path: "s", Line: 3, Text: `{"json":[1,{}],"in":"text"}`}},
	}}
}

// The JSON fleet findings assembles is the Encoder's, byte for byte: HTML
// characters as themselves, escapes that only look like HTML escapes kept,
// empty arrays and objects, nesting.
func TestFleetFindingsJSON(t *testing.T) {
	for _, fs := range [][]fleet.Finding{
		nil,
		{tricky("")},
		{tricky(`<b>&amp;</b>`), tricky(`\\u003c`), tricky("[]{}:,")},
	} {
		if got, want := assembled(t, fs), encoded(t, fs); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

func FuzzFleetFindingsJSON(f *testing.F) {
	f.Add(`<&>`, `\u0026`)
	f.Add(`"\`, "\u2028")
	f.Fuzz(func(t *testing.T, title, explanation string) {
		fi := tricky(title)
		fi.Explanation = explanation
		fi.Incident = explanation
		fs := []fleet.Finding{fi, tricky(explanation)}
		if got, want := assembled(t, fs), encoded(t, fs); got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	})
}
