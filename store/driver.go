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
}

// Pick returns the driver for a location, and the location without the
// scheme when the driver takes paths ("sqlite:x.db" is the file x.db). A
// location whose prefix is not a known scheme is a path: "C:\x.db" and
// "a:b.db" are files.
func Pick(drivers []Driver, dsn string) (Driver, string, error) {
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
