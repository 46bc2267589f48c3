package sqlite

import (
	"database/sql"
	"encoding/hex"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite known_objects.txt from the schemas")

// TestKnownObjects derives the digests of the schema objects forensics
// creates, as SQLite stores them, and checks known_objects.txt against
// them: a change of schema.sql or legacy.sql must come with the file
// (-update writes it).
func TestKnownObjects(t *testing.T) {
	known := map[[32]byte]bool{}
	exec := func(db *sql.DB, q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	collect := func(db *sql.DB) {
		t.Helper()
		rows, err := db.Query(`SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var typ, name, tbl, def string
			if err := rows.Scan(&typ, &name, &tbl, &def); err != nil {
				t.Fatal(err)
			}
			known[objectDigest(typ, name, tbl, def)] = true
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	add := func(script string, alter bool) {
		t.Helper()
		db, err := sql.Open("sqlite3", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1) // one in-memory database
		exec(db, script)
		exec(db, `ANALYZE`) // its tables, which the sqlite3 shell may have added
		collect(db)
		if alter {
			// A timeline whose sources table got its release column by
			// ALTER TABLE (addRelease) keeps the definition SQLite rewrote.
			exec(db, `ALTER TABLE sources ADD COLUMN release TEXT NOT NULL DEFAULT ''`)
			collect(db)
		}
	}
	add(schema, false)
	add(legacySchema, false)
	add(regexp.MustCompile(`(?m)^\s*release\s+TEXT[^\n]*\n`).ReplaceAllString(schema, ""), true)

	var lines []string
	for d := range known {
		lines = append(lines, hex.EncodeToString(d[:]))
	}
	slices.Sort(lines)
	want := "# The digests of the schema objects forensics creates (trust.go), from schema.sql and legacy.sql.\n" +
		"# Written by go test ./store/sqlite -run TestKnownObjects -update; do not edit.\n" + strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile("known_objects.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if knownObjectsFile != want {
		t.Errorf("known_objects.txt is not the digests of schema.sql and legacy.sql; run go test ./store/sqlite -run TestKnownObjects -update")
	}
	got, err := knownObjects()
	if err != nil || len(got) != len(known) {
		t.Errorf("knownObjects read %d digests (%v), want %d", len(got), err, len(known))
	}
}

// regexpSQL is normalSQL as regular expressions say it.
func regexpSQL(def string) string {
	def = regexp.MustCompile(`--[^\n]*|/\*(?s:.*?)\*/`).ReplaceAllString(def, " ")
	def = regexp.MustCompile(`\s+`).ReplaceAllString(def, " ")
	return regexp.MustCompile(`\s*([(),])\s*`).ReplaceAllString(def, "$1")
}

// TestNormalSQL checks normalSQL against the regular expressions that say
// what it does, on the schemas' definitions and on definitions made to
// trip it.
func TestNormalSQL(t *testing.T) {
	defs := strings.Split(schema+legacySchema, ";")
	defs = append(defs, "", " ", "--", "-- x\n", "/*", "/**/", "/*/", "/* a */ b /* c", "a-/*x*/-b", "a--b\nc",
		"(\t,\r\n)", " ( ( b ) ) ", "x /* -- */ y -- /* z */\nw", "a\fb\vc", "CREATE TABLE t (a,b , c)--end")
	for _, d := range defs {
		if got, want := normalSQL(d), regexpSQL(d); got != want {
			t.Errorf("normalSQL(%q) = %q, want %q", d, got, want)
		}
	}
}

func FuzzNormalSQL(f *testing.F) {
	for _, d := range []string{"CREATE TABLE t (a INT, -- x\n b /* y */ TEXT )", "/*/", "a--b", " ( , ) "} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, d string) {
		if got, want := normalSQL(d), regexpSQL(d); got != want {
			t.Errorf("normalSQL(%q) = %q, want %q", d, got, want)
		}
	})
}
