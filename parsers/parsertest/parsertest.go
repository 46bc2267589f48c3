// Package parsertest runs a parser the way the ingest pipeline does, and
// checks the invariants every parser must keep. Parser packages use it in
// their table tests, fuzz targets and benchmarks.
package parsertest

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/lines"
)

// Result is what a parser made of an input.
type Result struct {
	Events []forensics.Event
	Stamps []forensics.Stamp // one per line; zero for lines without a time
	Errors []LineError
	Lines  int64
	EndErr error
}

// LineError is a parser error with the line it concerns.
type LineError struct {
	Line int64
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Parse feeds input to a new parser of format f, line by line, then calls End.
func Parse(f forensics.Format, origin forensics.Origin, input []byte) Result {
	return parse(f, origin, input, false)
}

// parse feeds the lines; with scribble, each line is given in a buffer that
// is overwritten once Line returns, as the pipeline's reader may do, so a
// parser that keeps a slice of a line gives different events.
func parse(f forensics.Format, origin forensics.Origin, input []byte, scribble bool) Result {
	p := f.New(origin)
	var scratch []byte
	var res Result
	emit := func(e *forensics.Event) {
		c := *e
		c.Attrs = append([]forensics.Attr(nil), e.Attrs...)
		res.Events = append(res.Events, c)
	}
	r := lines.NewReader(bytes.NewReader(input))
	for {
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err) // a bytes.Reader does not fail
		}
		res.Lines = l.N
		text := l.Text
		if scribble {
			scratch = append(scratch[:0], l.Text...)
			text = scratch
		}
		st, perr := p.Line(l.N, text, emit)
		if scribble {
			for i := range scratch {
				scratch[i] = 0xAA
			}
		}
		if int64(len(res.Stamps)) < l.N {
			res.Stamps = append(res.Stamps, st)
		}
		if perr != nil {
			res.Errors = append(res.Errors, LineError{l.N, perr})
		}
	}
	res.EndErr = p.End(emit)
	return res
}

// Kinds returns the kinds of the events, in order.
func (r Result) Kinds() []forensics.Kind {
	out := make([]forensics.Kind, len(r.Events))
	for i, e := range r.Events {
		out[i] = e.Kind
	}
	return out
}

// OfKind returns the events of one kind.
func (r Result) OfKind(k forensics.Kind) []forensics.Event {
	var out []forensics.Event
	for _, e := range r.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// Check verifies the invariants of parsing input with f: no panic, events
// only on lines that exist, only documented kinds, and the same events when
// the same input is parsed again. Fuzz targets call it on every input.
func Check(t testing.TB, f forensics.Format, origin forensics.Origin, input []byte) {
	t.Helper()
	kinds := map[forensics.Kind]bool{}
	for _, k := range f.Kinds {
		kinds[k.Kind] = true
	}
	a := Parse(f, origin, input)
	for _, e := range a.Events {
		if e.Line < 1 || e.Line > max(a.Lines, 1) {
			t.Fatalf("event %s on line %d; the input has %d lines", e.Kind, e.Line, a.Lines)
		}
		if !kinds[e.Kind] {
			t.Fatalf("event kind %q is not listed in %s.Kinds", e.Kind, f.Name)
		}
		if e.VB < forensics.NoVB {
			t.Fatalf("event %s has vb %d", e.Kind, e.VB)
		}
	}
	for _, st := range a.Stamps {
		if !st.IsZero() && st.Time.Location() != time.UTC {
			t.Fatalf("stamp %v is not in UTC", st.Time)
		}
	}
	b := Parse(f, origin, input)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("parsing the same input twice gave different results")
	}
	if c := parse(f, origin, input, true); !reflect.DeepEqual(a, c) {
		t.Fatalf("the parser keeps slices of lines after Line returns: overwriting a line's buffer changed the events")
	}
}

// Bench measures parsing input with f, reporting bytes per second and allocations.
func Bench(b *testing.B, f forensics.Format, origin forensics.Origin, input []byte) {
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	var events int
	emit := func(*forensics.Event) { events++ }
	for b.Loop() {
		p := f.New(origin)
		r := lines.NewReader(bytes.NewReader(input))
		for {
			l, err := r.Next()
			if err != nil {
				break
			}
			p.Line(l.N, l.Text, emit)
		}
		p.End(emit)
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// Plain keeps the lines of input that event does not pick out, for a
// benchmark of the lines a parser must pass over without allocating.
func Plain(input []byte, event func(line string) bool) []byte {
	var kept []string
	for _, l := range strings.Split(string(input), "\n") {
		if !event(l) {
			kept = append(kept, l)
		}
	}
	return []byte(strings.Join(kept, "\n"))
}

// Want is one expected event of a parser that leaves the node to the
// pipeline: its kind, line, vbucket and bucket, and the attrs that must be
// there with these values (others may be too; "" is the same as absent).
type Want struct {
	Kind   forensics.Kind
	Line   int64
	VB     int
	Bucket string
	Attrs  map[string]string
}

// Expect checks that res has no errors and exactly the events wants
// describes, in order, each with a time and text and no node.
func Expect(t testing.TB, res Result, wants []Want) {
	t.Helper()
	if len(res.Errors) > 0 {
		t.Errorf("errors: %v", res.Errors)
	}
	if len(res.Events) != len(wants) {
		for _, e := range res.Events {
			t.Logf("got %s line %d vb %d %v", e.Kind, e.Line, e.VB, e.Attrs)
		}
		t.Fatalf("got %d events, want %d", len(res.Events), len(wants))
	}
	for i, w := range wants {
		e := res.Events[i]
		if e.Kind != w.Kind || e.Line != w.Line || e.VB != w.VB || e.Bucket != w.Bucket {
			t.Errorf("event %d: got %s line %d vb %d bucket %q, want %s line %d vb %d bucket %q",
				i, e.Kind, e.Line, e.VB, e.Bucket, w.Kind, w.Line, w.VB, w.Bucket)
		}
		for k, v := range w.Attrs {
			if got := e.Attr(forensics.AttrKey(k)); got != v {
				t.Errorf("event %d (%s): attr %s = %q, want %q", i, e.Kind, k, got, v)
			}
		}
		if e.Node != "" {
			t.Errorf("event %d: node %q; the pipeline sets it from the file's origin", i, e.Node)
		}
		if e.Time.IsZero() || e.Text == "" {
			t.Errorf("event %d: no time or text", i)
		}
	}
}
