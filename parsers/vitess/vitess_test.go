package vitess

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
	kind     forensics.Kind
	line     int64
	time     string // UTC, RFC 3339; "" when not checked
	keyspace string
	shard    string
	table    string
	attrs    map[string]string
	text     string // "" when not checked
}

type a = map[string]string

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func check(t *testing.T, f forensics.Format, origin forensics.Origin, input string, wants []want) parsertest.Result {
	t.Helper()
	res := parsertest.Parse(f, origin, []byte(input))
	if len(res.Errors) > 0 || res.EndErr != nil {
		t.Errorf("unexpected errors: %v %v", res.Errors, res.EndErr)
	}
	if len(res.Events) != len(wants) {
		for _, e := range res.Events {
			t.Logf("got %s line %d ks %q shard %q attrs %v", e.Kind, e.Line, e.Keyspace, e.Shard, e.Attrs)
		}
		t.Fatalf("got %d events, want %d", len(res.Events), len(wants))
	}
	for i, w := range wants {
		e := res.Events[i]
		if e.Kind != w.kind || e.Line != w.line {
			t.Errorf("event %d: got %s on line %d, want %s on line %d", i, e.Kind, e.Line, w.kind, w.line)
		}
		if e.Keyspace != w.keyspace || e.Shard != w.shard || e.Table != w.table {
			t.Errorf("event %d (%s): subject %q/%q/%q, want %q/%q/%q", i, e.Kind, e.Keyspace, e.Shard, e.Table, w.keyspace, w.shard, w.table)
		}
		if e.VB != forensics.NoVB {
			t.Errorf("event %d (%s): vb %d", i, e.Kind, e.VB)
		}
		if w.time != "" {
			if got := e.Time.Format(time.RFC3339Nano); got != w.time {
				t.Errorf("event %d (%s): time %s, want %s", i, e.Kind, got, w.time)
			}
		}
		for k, v := range w.attrs {
			if v == "" {
				for _, at := range e.Attrs {
					if at.Key == k {
						t.Errorf("event %d (%s): attr %s = %q, want none", i, e.Kind, k, at.Value)
					}
				}
				continue
			}
			if got := e.Attr(forensics.AttrKey(k)); got != v {
				t.Errorf("event %d (%s): attr %s = %q, want %q", i, e.Kind, k, got, v)
			}
		}
		if w.text != "" && e.Text != w.text {
			t.Errorf("event %d (%s): text\n%q\nwant\n%q", i, e.Kind, e.Text, w.text)
		}
	}
	return res
}
