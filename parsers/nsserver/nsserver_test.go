package nsserver

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// want is an expected event. Attributes listed with an empty value must be
// absent; attributes not listed are not checked.
type want struct {
	kind   forensics.Kind
	line   int64
	node   string
	bucket string
	vb     *int
	time   string // UTC, RFC 3339; "" when not checked
	attrs  map[string]string
	text   string // the event's text; "" when not checked
}

func vb(n int) *int { return &n }

type a = map[string]string

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// check parses input with f and compares the events with wants, in order.
func check(t *testing.T, f forensics.Format, origin forensics.Origin, input string, wants []want) parsertest.Result {
	t.Helper()
	res := parsertest.Parse(f, origin, []byte(input))
	if len(res.Errors) > 0 {
		t.Errorf("unexpected errors: %v", res.Errors)
	}
	if len(res.Events) != len(wants) {
		for _, e := range res.Events {
			t.Logf("got %s line %d node %q bucket %q vb %d attrs %v", e.Kind, e.Line, e.Node, e.Bucket, e.VB, e.Attrs)
		}
		t.Fatalf("got %d events, want %d", len(res.Events), len(wants))
	}
	for i, w := range wants {
		e := res.Events[i]
		if e.Kind != w.kind || e.Line != w.line || e.Node != w.node || e.Bucket != w.bucket {
			t.Errorf("event %d: got %s line %d node %q bucket %q; want %s line %d node %q bucket %q",
				i, e.Kind, e.Line, e.Node, e.Bucket, w.kind, w.line, w.node, w.bucket)
		}
		wvb := forensics.NoVB
		if w.vb != nil {
			wvb = *w.vb
		}
		if e.VB != wvb {
			t.Errorf("event %d (%s): vb %d, want %d", i, e.Kind, e.VB, wvb)
		}
		if w.time != "" {
			if got := e.Time.Format(time.RFC3339Nano); got != w.time {
				t.Errorf("event %d (%s): time %s, want %s", i, e.Kind, got, w.time)
			}
		}
		if e.Time.IsZero() {
			t.Errorf("event %d (%s): no time", i, e.Kind)
		}
		for k, v := range w.attrs {
			got := e.Attr(forensics.AttrKey(k))
			if v == "" {
				for _, at := range e.Attrs {
					if at.Key == k {
						t.Errorf("event %d (%s): attr %s = %q, want none", i, e.Kind, k, at.Value)
					}
				}
				continue
			}
			if got != v {
				t.Errorf("event %d (%s): attr %s = %q, want %q", i, e.Kind, k, got, v)
			}
		}
		if w.text != "" && e.Text != w.text {
			t.Errorf("event %d (%s): text\n%q\nwant\n%q", i, e.Kind, e.Text, w.text)
		}
	}
	return res
}

func TestHostNode(t *testing.T) {
	for in, out := range map[string]string{
		"172.23.100.16:11210":   "ns_1@172.23.100.16",
		"[fd63::1]:11210":       "ns_1@fd63::1",
		"cb1.example.com:11210": "ns_1@cb1.example.com",
		"ns_1@10.0.0.1":         "ns_1@10.0.0.1",
		"":                      "",
	} {
		if got := hostNode(in); got != out {
			t.Errorf("hostNode(%q) = %q, want %q", in, got, out)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		in, joined string
		n          int
		rest       string
	}{
		{`['ns_1@172.23.100.15']: ok`, "ns_1@172.23.100.15", 1, ": ok"},
		{"['ns_1@172.23.100.15',\n                   'ns_1@172.23.100.16'] rest", "ns_1@172.23.100.15,ns_1@172.23.100.16", 2, " rest"},
		{`["beer-sample","default"]`, "beer-sample,default", 2, ""},
		{`[]`, "", 0, ""},
		{`["a\"b"]`, `a"b`, 1, ""},
	}
	for _, tt := range tests {
		joined, n, rest, ok := list([]byte(tt.in))
		if !ok || joined != tt.joined || n != tt.n || string(rest) != tt.rest {
			t.Errorf("list(%q) = %q %d %q %v; want %q %d %q", tt.in, joined, n, rest, ok, tt.joined, tt.n, tt.rest)
		}
	}
	for _, bad := range []string{``, `[`, `['a'`, `['a' 'b']`, `[{a,b}]`, `"x"`} {
		if _, _, _, ok := list([]byte(bad)); ok {
			t.Errorf("list(%q) succeeded", bad)
		}
	}
	skips := []struct{ in, rest string }{
		{`{141,active,{[{topology,[[<<"ns_1@a">>,null]]}]}}, {142`, `, {142`},
		{`{7,replica,undefined}]`, `]`},
		{`<0.97.0>, x`, `, x`},
		{`"a]b", x`, `, x`},
		{`137}`, `}`},
	}
	for _, s := range skips {
		rest, ok := skipTerm([]byte(s.in))
		if !ok || string(rest) != s.rest {
			t.Errorf("skipTerm(%q) = %q %v; want %q", s.in, rest, ok, s.rest)
		}
	}
	for _, bad := range []string{`{1,"abc`, `{1,<0.1`} {
		if _, ok := skipTerm([]byte(bad)); ok {
			t.Errorf("skipTerm(%q) succeeded", bad)
		}
	}
}
