// Package pgtest gives tests a PostgreSQL database of their own. The server
// is named by FORENSICS_TEST_POSTGRES (a DSN whose role may create
// databases); without it, a server on localhost's default port is tried.
// When none answers, tests skip and say so, unless
// FORENSICS_REQUIRE_POSTGRES=1, where they fail: CI sets it.
//
// A Citus cluster is named by FORENSICS_TEST_CITUS, the DSN of a database
// on its coordinator whose metadata lists the workers (bench/citus.sh
// starts one); without it the Citus tests skip, and say how to run them,
// unless FORENSICS_REQUIRE_CITUS=1.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the variables tests read.
const (
	EnvDSN          = "FORENSICS_TEST_POSTGRES"
	EnvRequire      = "FORENSICS_REQUIRE_POSTGRES"
	EnvCitus        = "FORENSICS_TEST_CITUS"
	EnvRequireCitus = "FORENSICS_REQUIRE_CITUS"
)

// An Engine gives tests a new, empty database of one kind of server.
type Engine struct {
	Name     string                    // "postgresql", "citus": a subtest's name
	Database func(t testing.TB) string // the new database's DSN
}

// Engines are the servers the shared store is tested on: plain PostgreSQL,
// and Citus when FORENSICS_TEST_CITUS names a cluster.
var Engines = []Engine{{"postgresql", Database}, {"citus", Citus}}

const fallback = "postgres://postgres@localhost:5432/postgres?sslmode=disable"

// Server returns the DSN of the test server, or skips (fails when required).
func Server(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		dsn = fallback
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		msg := "no PostgreSQL server reachable (set " + EnvDSN + "=postgres://…): " + err.Error()
		if os.Getenv(EnvRequire) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	conn.Close(ctx)
	return dsn
}

// Database creates an empty database for the test, dropped when it ends,
// and returns its DSN.
func Database(t testing.TB) string {
	t.Helper()
	server := Server(t)
	name := newName()
	create(t, server, name, "")
	return WithDatabase(t, server, name)
}

func newName() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "forensics_test_" + hex.EncodeToString(b)
}

// create creates database name on the server, a copy of template if one
// is named, and drops it when the test ends.
func create(t testing.TB, server, name, template string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	stmt := `CREATE DATABASE ` + name
	if template != "" {
		stmt += ` TEMPLATE ` + template
	}
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, server)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
}

// Citus creates an empty database with the Citus extension on the
// coordinator and every worker of the cluster FORENSICS_TEST_CITUS names,
// adds the workers to its metadata, and returns its DSN. Citus 12.1 does
// not propagate CREATE DATABASE, and its metadata is per database, so
// each test database is made on every node by hand, as an administrator
// would. The workers are reached as the coordinator's metadata names them,
// with the DSN's user and options.
func Citus(t testing.TB) string {
	t.Helper()
	server := os.Getenv(EnvCitus)
	if server == "" {
		msg := EnvCitus + " is not set: the Citus tests are skipped (bench/citus.sh SRC builds Citus, starts a cluster and runs them)"
		if os.Getenv(EnvRequireCitus) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("%s: %v", EnvCitus, err)
	}
	defer conn.Close(ctx)
	type node struct {
		host string
		port int
	}
	var coordinator node
	if err := conn.QueryRow(ctx, `SELECT nodename, nodeport FROM pg_dist_node WHERE groupid = 0`).Scan(&coordinator.host, &coordinator.port); err != nil {
		t.Fatalf("%s names no Citus coordinator (citus_set_coordinator_host): %v", EnvCitus, err)
	}
	rows, err := conn.Query(ctx, `SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive ORDER BY nodeid`)
	if err != nil {
		t.Fatal(err)
	}
	workers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (node, error) {
		var n node
		return n, r.Scan(&n.host, &n.port)
	})
	if err != nil || len(workers) == 0 {
		t.Fatalf("%s: no active worker in the cluster's metadata (citus_add_node): %v", EnvCitus, err)
	}
	name := newName()
	// Made on the workers first and dropped from them last (cleanups run
	// in reverse): the coordinator holds connections to the workers'
	// databases until its own is dropped.
	var nodes []string
	for _, w := range workers {
		nodes = append(nodes, withHost(t, server, w.host, w.port))
	}
	for _, n := range append(nodes, server) {
		create(t, n, name, citusTemplate(t, ctx, n))
	}
	dsn := WithDatabase(t, server, name)
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	// Few shards make a test database quick to distribute; the bench
	// (bench/citus.sh) keeps the cluster's own count.
	if _, err := db.Exec(ctx, `ALTER DATABASE `+name+` SET citus.shard_count = 4`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `SELECT citus_set_coordinator_host($1, $2)`, coordinator.host, coordinator.port); err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		if _, err := db.Exec(ctx, `SELECT citus_add_node($1, $2)`, w.host, w.port); err != nil {
			t.Fatalf("citus_add_node %s:%d: %v", w.host, w.port, err)
		}
	}
	return dsn
}

// citusTemplate returns a database of the node with nothing but the Citus
// extension, made once per version of the extension, for tests to copy:
// creating the extension takes seconds, copying a database a fraction of
// one. Nobody may connect to it (a session in a template stops its copy),
// and it is named only once whole, so clients racing to make it never
// copy half of it.
func citusTemplate(t testing.TB, ctx context.Context, node string) string {
	t.Helper()
	conn, err := pgx.Connect(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var version string
	if err := conn.QueryRow(ctx, `SELECT default_version FROM pg_available_extensions WHERE name = 'citus'`).Scan(&version); err != nil {
		t.Fatalf("%s: no Citus extension on %s: %v", EnvCitus, node, err)
	}
	name := "forensics_test_citus_" + strings.NewReplacer(".", "_", "-", "_").Replace(version)
	exists := func() bool {
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if exists() {
		return name
	}
	tmp := newName()
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+tmp); err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(ctx, WithDatabase(t, node, tmp))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(ctx, `CREATE EXTENSION citus`)
	db.Close(ctx)
	for _, stmt := range []string{
		`ALTER DATABASE ` + tmp + ` WITH ALLOW_CONNECTIONS false`,
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '` + tmp + `'`, // Citus' maintenance daemon
		`ALTER DATABASE ` + tmp + ` RENAME TO ` + name,
	} {
		if err != nil {
			break
		}
		_, err = conn.Exec(ctx, stmt)
	}
	if err != nil {
		conn.Exec(ctx, `DROP DATABASE `+tmp+` WITH (FORCE)`)
		if exists() {
			return name // another test made it first
		}
		t.Fatalf("%s: make the template database of Citus on %s: %v", EnvCitus, node, err)
	}
	return name
}

// withHost returns dsn naming the server at host:port instead.
func withHost(t testing.TB, dsn, host string, port int) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("%s must be a postgres:// URL", EnvCitus)
	}
	u.Host = net.JoinHostPort(host, strconv.Itoa(port))
	return u.String()
}

// WithDatabase returns dsn naming database db instead.
func WithDatabase(t testing.TB, dsn, db string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("%s must be a postgres:// URL", EnvDSN)
	}
	u.Path = "/" + db
	return u.String()
}

// WithUser returns dsn connecting as user with password.
func WithUser(t testing.TB, dsn, user, password string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}
