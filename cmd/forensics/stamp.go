package main

import (
	"time"

	"forensics"
)

// stamper formats the times of query rows, to the microsecond. A dump
// formats millions of them, mostly many to a second, and time.Format was a
// tenth of its work: the date, clock and zone are formatted once per second
// (and logged offset), and only the microseconds per row.
type stamper struct {
	loc *time.Location

	valid    bool
	sec      int64
	original bool  // the head is in the logged offset (--tz original)
	offset   int32 // that offset
	head     []byte
	zone     string
}

func (s *stamper) format(st forensics.Stamp) string {
	original := s.loc == tzOriginal && st.Zone == forensics.ZoneLogged
	if sec := st.Time.Unix(); !s.valid || sec != s.sec || original != s.original || original && st.Offset != s.offset {
		t, zone := st.Time.In(s.loc), "Z07:00"
		if original {
			// As logged: a node logging in +00:00 wrote +00:00, not Z.
			t, zone = st.Local(), "-07:00"
		}
		s.valid, s.sec, s.original, s.offset = true, sec, original, st.Offset
		s.head = t.AppendFormat(s.head[:0], "2006-01-02T15:04:05.")
		s.zone = t.Format(zone)
	}
	var b [48]byte
	out := append(b[:0], s.head...)
	us := st.Time.Nanosecond() / 1000
	for d := 100000; d > 0; d /= 10 {
		out = append(out, byte('0'+us/d%10))
	}
	return string(append(out, s.zone...))
}
