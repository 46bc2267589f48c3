package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"forensics"
)

// Every output the writers produce is recognised from its first bytes, cut
// anywhere past its opening, and nothing else is.
func TestRecogniseOwnOutputs(t *testing.T) {
	at := time.Date(2022, 7, 22, 0, 39, 12, 0, time.UTC)
	reports := map[string]*Report{
		"empty": {},
		"one finding": {
			Findings: []forensics.Finding{{ID: "849cb65fdd33", Rule: "kv-stream-before-traffic", Severity: forensics.Critical, Title: "t", Start: at, End: at}},
			Sources:  []Source{{Path: "memcached.log", Format: "memcached", Component: "memcached", Lines: 1, Events: 1}},
		},
	}
	writers := map[string]func(*bytes.Buffer, *Report) error{
		"markdown": func(b *bytes.Buffer, r *Report) error { return WriteMarkdown(b, r) },
		"json":     func(b *bytes.Buffer, r *Report) error { return WriteJSON(b, r) },
		"sarif":    func(b *bytes.Buffer, r *Report) error { return WriteSARIF(b, r, nil) },
		"html":     func(b *bytes.Buffer, r *Report) error { return WriteHTML(context.Background(), b, r, HTMLOptions{}) },
	}
	for rname, r := range reports {
		for wname, write := range writers {
			var b bytes.Buffer
			if err := write(&b, r); err != nil {
				t.Fatalf("%s %s: %v", rname, wname, err)
			}
			for _, n := range []int{b.Len(), min(b.Len(), 1024)} {
				if what, ok := Recognise(b.Bytes()[:n]); !ok || !strings.Contains(what, "forensics wrote") {
					t.Errorf("%s report as %s, first %d bytes: Recognise = %q, %v", rname, wname, n, what, ok)
				}
			}
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, reports["one finding"]); err != nil {
		t.Fatal(err)
	}
	// `forensics findings --format json` prints the findings alone.
	list := b.String()[strings.Index(b.String(), "["):]
	if what, ok := Recognise([]byte(list)); !ok {
		t.Errorf("a list of findings: Recognise = %q, %v", what, ok)
	}
}

func TestRecogniseOthers(t *testing.T) {
	for name, head := range map[string]string{
		"event log line":           `{"timestamp":"2024-11-07T03:14:09.220Z","component":"ns_server","severity":"info","event_id":0}` + "\n",
		"GetShard":                 "{\n  \"keyspace\": \"commerce\",\n  \"name\": \"0\",\n  \"shard\": {}\n}\n",
		"workflow list":            "[\n  \"commerce2customer\"\n]\n",
		"empty list":               "[]\n",
		"findings of another tool": `{"findings": [{"check": "x"}]}`,
		"markdown notes":           "# Call with the customer\n",
		"html page":                "<!DOCTYPE html>\n<html><head><title>x</title></head>",
		"crdb log":                 "I241209 08:03:21.105967 70 1@cli/start.go:1287 ⋮ [T1,Vsystem,n1] 89  node startup completed:\n",
	} {
		if what, ok := Recognise([]byte(head)); ok {
			t.Errorf("%s: recognised as %q", name, what)
		}
	}
	if what, ok := Recognise([]byte(`{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "CodeQL"}}}]}`)); !ok || strings.Contains(what, "forensics") {
		t.Errorf("another tool's SARIF: Recognise = %q, %v", what, ok)
	}
}
