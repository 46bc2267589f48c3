// Package backends lists the timeline backends forensics can use and opens
// a timeline by its location (--db): a plain path or "sqlite:PATH" is a
// SQLite file. Adding a backend is one package under store and one entry in All.
package backends

import (
	"forensics/store"
	"forensics/store/postgres"
	"forensics/store/sqlite"
)

// All are the backends, by scheme.
var All = append([]store.Driver{
	sqlite.Driver,
}, postgres.Drivers...)

// Open opens the timeline at dsn for reading and writing, creating it if needed.
func Open(dsn string) (store.Backend, error) {
	d, loc, err := store.Pick(All, dsn)
	if err != nil {
		return nil, err
	}
	return d.Open(loc)
}

// OpenReader opens the existing timeline at dsn so that nothing can change it.
func OpenReader(dsn string) (store.Reader, error) {
	d, loc, err := store.Pick(All, dsn)
	if err != nil {
		return nil, err
	}
	return d.OpenReader(loc)
}

// Versions names the storage engines built in, for `forensics version`.
func Versions() map[string]string {
	out := map[string]string{}
	for _, d := range All {
		out[d.Scheme] = d.Version()
	}
	return out
}

// Password returns the password the location holds, or "".
func Password(dsn string) string {
	d, loc, err := store.Pick(All, dsn)
	if err != nil || d.Password == nil {
		return ""
	}
	return d.Password(loc)
}
