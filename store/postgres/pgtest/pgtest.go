// Package pgtest gives tests a PostgreSQL database of their own. The server
// is named by FORENSICS_TEST_POSTGRES (a DSN whose role may create
// databases); without it, a server on localhost's default port is tried.
// When none answers, tests skip and say so, unless
// FORENSICS_REQUIRE_POSTGRES=1, where they fail: CI sets it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the variables tests read.
const (
	EnvDSN     = "FORENSICS_TEST_POSTGRES"
	EnvRequire = "FORENSICS_REQUIRE_POSTGRES"
)

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
	b := make([]byte, 6)
	rand.Read(b)
	name := "forensics_test_" + hex.EncodeToString(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+name); err != nil {
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
	return WithDatabase(t, server, name)
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
