package store

import (
	"fmt"
	"strings"
)

// Driver opens one kind of backend. The drivers in use are an explicit list
// (store/backends.All); a backend is added by writing its package and
// adding its Driver there.
type Driver struct {
	// Scheme picks the driver for a location "scheme:…" or "scheme://…".
	Scheme string
	// Paths says the driver also takes a plain file path, with no scheme.
	Paths bool
	// Open opens the timeline at dsn for reading and writing, creating it if needed.
	Open func(dsn string) (Backend, error)
	// OpenReader opens an existing timeline so that nothing can change it.
	OpenReader func(dsn string) (Reader, error)
	// Version names the storage engine and its version, for `forensics version`.
	Version func() string
	// Takes, when set, reports that the driver takes a location without
	// its scheme (libpq's "host=… dbname=…"), which is then not a path.
	Takes func(dsn string) bool
	// Password, when set, returns the password a location holds ("" for none).
	Password func(dsn string) string
}

// Pick returns the driver for a location, and the location without the
// scheme when the driver takes paths ("sqlite:x.db" is the file x.db). A
// location whose prefix is not a known scheme is a path: "C:\x.db" and
// "a:b.db" are files; one a driver Takes is that driver's ("host=db
// dbname=x" is PostgreSQL's, "./host=db" a file).
func Pick(drivers []Driver, dsn string) (Driver, string, error) {
	for _, d := range drivers {
		if d.Takes != nil && d.Takes(dsn) {
			return d, dsn, nil
		}
	}
	if scheme, rest, ok := strings.Cut(dsn, ":"); ok {
		for _, d := range drivers {
			if strings.EqualFold(d.Scheme, scheme) {
				if d.Paths {
					return d, strings.TrimPrefix(rest, "//"), nil
				}
				return d, dsn, nil
			}
		}
	}
	for _, d := range drivers {
		if d.Paths {
			return d, dsn, nil
		}
	}
	return Driver{}, "", fmt.Errorf("open %s: no timeline backend takes this location", dsn)
}
