package sqlite

import (
	"bytes"
	"compress/flate"
	"context"
	"path/filepath"
	"testing"

	"forensics/zran"
)

// TestSpansOnlyInSchema4 checks that a timeline of schema 3, which the
// release that wrote it reads, gets no blocks of deflate spans, which that
// release would report damaged; a new timeline does.
func TestSpansOnlyInSchema4(t *testing.T) {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, 6)
	fw.Write([]byte("2022-07-21T17:39:12.120-07:00 INFO a line\n"))
	fw.Close()
	for version, want := range map[string]bool{"3": false, schemaVersion: true} {
		path := filepath.Join(t.TempDir(), "t.db")
		if version != schemaVersion {
			createOld(t, path, schema, version)
		}
		db, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := db.NewRun(context.Background(), []string{"x"})
		if err != nil {
			t.Fatal(err)
		}
		_, trail := zran.NewReader(bytes.NewReader(comp.Bytes()), 4096)
		if got := w.LineBuffer().Follow(trail); got != want {
			t.Errorf("schema %s: the line buffer keeps deflate spans: %v, want %v", version, got, want)
		}
		w.Rollback()
		db.Close()
	}
}
