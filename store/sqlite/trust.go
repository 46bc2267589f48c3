package sqlite

import (
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"forensics/store"
)

// A timeline is often someone else's: a colleague's, a customer's, one
// attached to a ticket. A SQLite file carries more than rows: triggers run
// when a table is written, views run when they are read (a view named
// findings answers for the table, or never ends), and tables can hold
// generated columns and CHECK constraints that evaluate expressions. So a
// timeline is opened only when every object of its schema is one that
// forensics created, compared by a digest of its definition (comments and
// spacing aside) with the definitions of schema.sql and of the older
// schemas forensics wrote (legacy.sql); anything else is refused before a
// statement touches a table. Every connection also runs with
// trusted_schema off (no schema object may call forensics' own SQL
// functions), with cell_size_check on (a damaged page is an error, not a
// wild read), and under a limit of the memory SQLite may take and of the
// length of one value.

//go:embed legacy.sql
var legacySchema string

// heapLimit bounds what SQLite allocates in the whole process, and
// maxValue the length of one string or blob it makes (a query's result, a
// decoded block's JSON for the lines view): a timeline cannot make a
// command take gigabytes by storing, or computing, one huge value.
const (
	heapLimit = 192 << 20
	maxValue  = 128 << 20
)

// knownObjects are the digests of the schema objects forensics creates:
// those of schema.sql and legacy.sql as SQLite stores them, kept in
// known_objects.txt. Deriving them (three in-memory databases, each given
// a whole schema) took 7 ms of every command, a fifth of a rare search's
// time; TestKnownObjects derives them and checks the file, and its
// -update writes it.
var knownObjects = sync.OnceValues(func() (map[[32]byte]bool, error) {
	known := map[[32]byte]bool{}
	for _, line := range strings.Split(knownObjectsFile, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var d [32]byte
		if n, err := hex.Decode(d[:], []byte(line)); err != nil || n != len(d) {
			return nil, fmt.Errorf("known_objects.txt: %q is not a digest", line)
		}
		known[d] = true
	}
	return known, nil
})

//go:embed known_objects.txt
var knownObjectsFile string

// objectDigest identifies a schema object by its kind, names and
// definition, with comments and spacing left out.
func objectDigest(typ, name, tbl, def string) [32]byte {
	return sha256.Sum256([]byte(strings.ToLower(typ) + "\x00" + name + "\x00" + tbl + "\x00" + strings.TrimSpace(normalSQL(def))))
}

// normalSQL returns a definition with each comment (-- to the end of the
// line, /* to */) a space, each run of spaces one space, and no space
// next to a parenthesis or a comma. Every command opens a timeline, and
// digests its schema and forensics' own (a hundred definitions): with
// regular expressions that took a fast search a third of its time.
func normalSQL(def string) string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	isPunct := func(c byte) bool { return c == '(' || c == ')' || c == ',' }
	// Comments to a space.
	var b strings.Builder
	for i := 0; i < len(def); i++ {
		switch {
		case strings.HasPrefix(def[i:], "--"):
			end := strings.IndexByte(def[i:], '\n')
			if end < 0 {
				end = len(def) - i
			}
			b.WriteByte(' ')
			i += end - 1
			continue
		case strings.HasPrefix(def[i:], "/*"):
			if end := strings.Index(def[i+2:], "*/"); end >= 0 {
				b.WriteByte(' ')
				i += 2 + end + 1
				continue
			}
		}
		b.WriteByte(def[i])
	}
	// Runs of spaces to one.
	in := b.String()
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		if isSpace(in[i]) {
			for i+1 < len(in) && isSpace(in[i+1]) {
				i++
			}
			out = append(out, ' ')
			continue
		}
		out = append(out, in[i])
	}
	// No space next to a parenthesis or a comma.
	n := 0
	for i, c := range out {
		if c == ' ' && (i > 0 && isPunct(out[i-1]) || i+1 < len(out) && isPunct(out[i+1])) {
			continue
		}
		out[n] = c
		n++
	}
	return string(out[:n])
}

// UntrustedError says that a timeline holds a schema object forensics did
// not create.
type UntrustedError struct {
	Type, Name string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%v: it holds %s %s %q that forensics does not create, so it was changed by something else "+
		"(a shared timeline can carry code that runs when it is read or written); refused and left untouched: "+
		"analyze the evidence again into a new --db", store.ErrNotTimeline, article(e.Type), e.Type, e.Name)
}

func article(word string) string {
	if strings.IndexByte("aeiou", word[0]) >= 0 {
		return "an"
	}
	return "a"
}

func (e *UntrustedError) Unwrap() error { return store.ErrNotTimeline }

// schemaRows reads the schema of the main database of a connection.
type schemaRows func(query string) ([][4]string, error)

// checkSchema refuses a database holding a schema object that forensics
// does not create. It reads only the schema table, which runs nothing.
func checkSchema(read schemaRows) error {
	known, err := knownObjects()
	if err != nil {
		return err
	}
	rows, err := read(`SELECT type, name, tbl_name, coalesce(sql, '') FROM main.sqlite_schema`)
	if err != nil {
		return err
	}
	var worst *UntrustedError
	rank := func(typ string) int { return strings.Index("trigger view virtual table", typ) }
	for _, r := range rows {
		typ, name, tbl, def := r[0], r[1], r[2], r[3]
		if typ == "index" && def == "" && strings.HasPrefix(name, "sqlite_autoindex_"+tbl+"_") {
			continue // made by SQLite for a PRIMARY KEY or UNIQUE of a known table
		}
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(def)), "CREATE VIRTUAL") {
			typ = "virtual table"
		} else if known[objectDigest(typ, name, tbl, def)] {
			continue
		}
		if (typ == "table" || typ == "index") && forensicsCreates(name) {
			typ = "changed " + typ
		}
		// What runs code is named first: a trigger, a view, then the rest.
		if worst == nil || rank(typ) >= 0 && (rank(worst.Type) < 0 || rank(typ) < rank(worst.Type)) {
			worst = &UntrustedError{Type: typ, Name: name}
		}
	}
	if worst != nil {
		return worst
	}
	return nil
}

// forensicsCreates reports whether forensics creates an object named name,
// in some definition: a table of that name redefined is a "changed table".
func forensicsCreates(name string) bool {
	re := regexp.MustCompile(`(?i)CREATE (TABLE|INDEX) IF NOT EXISTS ` + regexp.QuoteMeta(name) + `\b`)
	return re.MatchString(schema) || re.MatchString(legacySchema)
}

// guardConn readies a new connection to a timeline: trusted_schema off,
// cell_size_check on, the limits on memory and value length, and the check
// of the schema. Every connection forensics opens to a timeline goes
// through it (the drivers below).
func guardConn(c *sqlite3.SQLiteConn) error {
	setHeapLimit(c)
	c.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, maxValue)
	for _, p := range []string{`PRAGMA trusted_schema = OFF`, `PRAGMA cell_size_check = ON`} {
		if _, err := c.Exec(p, nil); err != nil {
			return err
		}
	}
	return checkSchema(func(q string) ([][4]string, error) { return connRows(c, q) })
}

var heapOnce sync.Once

func setHeapLimit(c *sqlite3.SQLiteConn) {
	heapOnce.Do(func() {
		c.Exec(fmt.Sprintf(`PRAGMA hard_heap_limit = %d`, heapLimit), nil)
	})
}

// connRows runs a query of four text columns on a driver connection.
func connRows(c *sqlite3.SQLiteConn, q string) ([][4]string, error) {
	rows, err := c.Query(q, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][4]string
	vals := make([]driver.Value, 4)
	for {
		if err := rows.Next(vals); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		var r [4]string
		for i, v := range vals {
			switch v := v.(type) {
			case string:
				r[i] = v
			case []byte:
				r[i] = string(v)
			}
		}
		out = append(out, r)
	}
}

// dbRows is connRows on a pool.
func dbRows(db *sql.DB, q string) ([][4]string, error) {
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][4]string
	for rows.Next() {
		var r [4]string
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// writeDriver opens the connections that write a timeline, and the side
// connection of a writing open; readOnlyDriver and sqlDriver (readonly.go) those of queries.
const writeDriver = "sqlite3-forensics"

var registerWrite = sync.OnceFunc(func() {
	sql.Register(writeDriver, &sqlite3.SQLiteDriver{ConnectHook: guardConn})
})
