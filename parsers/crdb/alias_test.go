package crdb

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"forensics"
	"forensics/lines"
)

// The parser must not keep a slice of a line after Line returns: the line
// reader reuses its buffer, and a kept slice written to later would corrupt
// lines not yet read.
func TestLinesAreNotAliased(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/crdb/*/*.log")
	if len(files) == 0 {
		t.Skip("no crdb logs in testdata")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := LogFormat.New(forensics.Origin{Path: f, Name: filepath.Base(f)})
		r := lines.NewReader(bytes.NewReader(data))
		want := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		for {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			if !bytes.Equal(bytes.TrimSuffix(want[l.N-1], []byte("\r")), l.Text) {
				t.Fatalf("%s:%d read back as %q, want %q", f, l.N, l.Text, want[l.N-1])
			}
			p.Line(l.N, l.Text, func(*forensics.Event) {})
		}
	}
}
