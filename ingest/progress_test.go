package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"forensics"
	"forensics/input"
	"forensics/store/sqlite"
)

// The totals are known before reading starts (the survey reads the zip's
// central directory), and at the end the progress counted by the workers
// meets them: every byte read or skipped, every file done.
func TestProgressTotalsUpFront(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "collectinfo-2022-07-22T004733-"+node+".zip")
	members := map[string][]byte{
		folder + "test.log":      []byte(logA),
		folder + "core.bin":      {0x7f, 'E', 'L', 'F', 0, 0, 0, 1, 2, 3, 0, 0},
		folder + "couchbase.ini": []byte("[section]\nkey=value\n"),
	}
	var want int64
	for _, data := range members {
		want += int64(len(data))
	}
	writeZip(t, zipPath, members)
	files, bytes := input.Survey([]string{zipPath})
	if files != 3 || bytes != want {
		t.Fatalf("survey: %d files, %d bytes; want 3 and %d", files, bytes, want)
	}
	db, err := sqlite.Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for run := 1; run <= 2; run++ { // the second run recognises what is stored
		ctx := context.Background()
		w, err := db.NewRun(ctx, []string{zipPath})
		if err != nil {
			t.Fatal(err)
		}
		prog := &Progress{}
		if _, err := Run(ctx, db, w, []string{zipPath}, Options{Formats: []forensics.Format{testFormat}, Progress: prog}); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if prog.Files.Load() != 3 || prog.FilesDone.Load() != 3 || prog.Bytes.Load() != want || prog.BytesRead.Load() != want {
			t.Errorf("run %d: files %d/%d, bytes %d/%d; want 3/3 and %d/%d", run,
				prog.FilesDone.Load(), prog.Files.Load(), prog.BytesRead.Load(), prog.Bytes.Load(), want, want)
		}
	}
}
