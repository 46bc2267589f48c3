package sqlite

import (
	"forensics/store"

	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// otherAppDB writes a SQLite database as another program would: its own
// meta table and data, in rollback-journal mode.
func otherAppDB(t *testing.T, path string, appID int) []byte {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)`,
		`INSERT INTO meta VALUES ('version', '7')`,
		`CREATE TABLE bookmarks (id INTEGER PRIMARY KEY, url TEXT)`,
		`INSERT INTO bookmarks(url) VALUES ('https://example.com')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if appID != 0 {
		if _, err := db.Exec(`PRAGMA application_id = 1179865939`); err != nil { // another program's id
			t.Fatal(err)
		}
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestOtherDatabasesAreRefusedUntouched(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(p string) []byte{
		"no application id": func(p string) []byte { return otherAppDB(t, p, 0) },
		"another id":        func(p string) []byte { return otherAppDB(t, p, 1) },
		"not sqlite": func(p string) []byte {
			data := []byte("name,value\na,1\n")
			os.WriteFile(p, data, 0o644)
			return data
		},
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".db")
			before := make(p)
			for _, open := range []func(string) (*DB, error){Open, OpenReadOnly} {
				db, err := open(p)
				if err == nil {
					db.Close()
					t.Fatal("opened another program's file as a timeline")
				}
				if !errors.Is(err, store.ErrNotTimeline) {
					t.Errorf("error does not say what the file is: %v", err)
				}
			}
			after, _ := os.ReadFile(p)
			if !bytes.Equal(before, after) {
				t.Error("the file was changed")
			}
			for _, suffix := range []string{"-wal", "-shm", "-journal", ".lock"} {
				if _, err := os.Stat(p + suffix); err == nil {
					t.Errorf("%s%s was created next to it", filepath.Base(p), suffix)
				}
			}
		})
	}
}

func TestTimelineHasApplicationID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := identify(p); err != nil {
		t.Fatal(err)
	}
	// An empty file (touch t.db) becomes a timeline too.
	empty := filepath.Join(t.TempDir(), "empty.db")
	os.WriteFile(empty, nil, 0o644)
	db, err = Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func TestOneWriterAtATime(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.db")
	first, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, first, "a.log", time.Unix(0, 0), 10)
	_, err = Open(p)
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() || !strings.Contains(err.Error(), "in use by pid") {
		t.Fatalf("second writer: %v", err)
	}
	// Readers are not held up.
	ro, err := OpenReadOnly(p)
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	first.Close()
	again, err := Open(p)
	if err != nil {
		t.Fatalf("after the first writer closed: %v", err)
	}
	again.Close()
}

func TestReadOnlyMedia(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.db")
	db, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, db, "a.log", time.Unix(0, 0), 10)
	db.Close()
	os.Remove(p + ".lock")
	// chattr +i makes the folder refuse new files even for root, as a
	// read-only mount does.
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("chattr: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	if !onReadOnlyMedia(p) {
		t.Fatal("the folder is writable")
	}
	ro, err := OpenReadOnly(p)
	if err != nil {
		t.Fatalf("a timeline on read-only media: %v", err)
	}
	defer ro.Close()
	n := 0
	if err := ro.QuerySQL(context.Background(), `SELECT count(*) FROM sources`, nil, func(_ []string, v []any) error {
		n = int(v[0].(int64))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("sources = %d, want 1", n)
	}
}

func TestSQLRefusesWritingPragmas(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, db, "a.log", time.Unix(0, 0), 10)
	db.Close()
	ro, err := OpenReadOnly(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ctx := context.Background()
	nop := func([]string, []any) error { return nil }
	for _, q := range []string{`PRAGMA journal_mode=DELETE`, `PRAGMA query_only = 0`, `PRAGMA wal_checkpoint`} {
		if err := ro.QuerySQL(ctx, q, nil, nop); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: %v", q, err)
		}
	}
	if err := ro.QuerySQL(ctx, `PRAGMA table_info(events)`, nil, nop); err != nil {
		t.Errorf("a reading pragma: %v", err)
	}
}

// A run killed mid-way leaves the timeline's last pages in its WAL: it must
// still be known as a timeline (copying the files open is what a kill -9
// leaves on disk).
func TestKilledRunIsStillATimeline(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fill(t, db, "a.log", time.Unix(0, 0), 10)
	dir := t.TempDir()
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(p + suffix)
		if err != nil {
			if suffix == "-wal" {
				continue
			}
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "t.db"+suffix), data, 0o644)
	}
	again, err := Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatalf("the timeline of a killed run: %v", err)
	}
	again.Close()
}
