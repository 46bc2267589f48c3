package store

import (
	"database/sql"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// readOnlyDriver opens connections that cannot attach other files: with
// mode=ro and query_only the timeline itself cannot be changed, and with no
// ATTACH a query cannot create or write another database either.
const readOnlyDriver = "sqlite3-forensics-readonly"

var registerReadOnly = sync.OnceFunc(func() {
	sql.Register(readOnlyDriver, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
			return nil
		},
	})
})
