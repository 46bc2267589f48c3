package main

import (
	"testing"
	"time"

	"forensics"
)

// One stamper formats a run of stamps as time.Format does each: its cache of
// the second must not leak into the next stamp when the second, the logged
// offset or the zone's offset (a DST change) differs.
func TestStamper(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	dst := time.Date(2022, 3, 13, 6, 59, 59, 999_999_999, time.UTC) // 01:59:59 EST, then 03:00 EDT
	at := func(t time.Time, off int32, z forensics.Zone) forensics.Stamp {
		return forensics.Stamp{Time: t, Offset: off, Zone: z}
	}
	stamps := []forensics.Stamp{
		at(dst, 0, forensics.ZoneUTC),
		at(dst.Add(1), 0, forensics.ZoneUTC),
		at(dst.Add(2_000), 0, forensics.ZoneUTC),
		at(dst.Add(2_000), -7*3600, forensics.ZoneLogged),
		at(dst.Add(3_000), 0, forensics.ZoneLogged), // logged +00:00, same second
		at(dst.Add(4_000), 5*3600+1800, forensics.ZoneLogged),
		at(dst.Add(5_000), 0, forensics.ZoneAssumed),
		at(time.Date(1969, 12, 31, 23, 59, 59, 500_000_000, time.UTC), 0, forensics.ZoneUTC),
		at(time.Date(1969, 12, 31, 23, 59, 59, 600_000_000, time.UTC), 3600, forensics.ZoneLogged),
		at(time.Date(10000, 1, 1, 0, 0, 0, 123_456_789, time.UTC), 0, forensics.ZoneUTC),
	}
	for _, loc := range []*time.Location{time.UTC, ny, tzOriginal} {
		s := stamper{loc: loc}
		for _, st := range stamps {
			want := st.Time.In(loc).Format("2006-01-02T15:04:05.000000Z07:00")
			if loc == tzOriginal && st.Zone == forensics.ZoneLogged {
				want = st.Local().Format("2006-01-02T15:04:05.000000-07:00")
			}
			if got := s.format(st); got != want {
				t.Errorf("in %s, %v (offset %d, zone %v) = %s, want %s", loc, st.Time, st.Offset, st.Zone, got, want)
			}
		}
	}
}
