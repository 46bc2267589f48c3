// Package logtime reads the timestamps that log lines start with, without
// allocating: parsers call it on every line.
package logtime

import (
	"time"

	"forensics"
)

// ISO reads an RFC 3339 timestamp at the start of b, as Couchbase writes it:
// "2022-07-21T17:39:17.706652-07:00" (memcached, µs), "…17.706-07:00"
// (ns_server, indexer, ms), "…17.706Z". A fraction of any length is accepted.
// It returns the stamp and the number of bytes read, or ok=false.
func ISO(b []byte) (st forensics.Stamp, n int, ok bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return st, 0, false
	}
	year, ok1 := Digits(b[0:4])
	month, ok2 := Digits(b[5:7])
	day, ok3 := Digits(b[8:10])
	hour, ok4 := Digits(b[11:13])
	min, ok5 := Digits(b[14:16])
	sec, ok6 := Digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60 {
		return st, 0, false
	}
	i := 19
	nsec := 0
	if b[i] == '.' || b[i] == ',' {
		i++
		scale := 100000000
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if scale > 0 {
				nsec += int(b[i]-'0') * scale
				scale /= 10
			}
			i++
		}
		if i == start {
			return st, 0, false
		}
	}
	if i >= len(b) {
		return st, 0, false
	}
	offset := 0
	switch b[i] {
	case 'Z':
		i++
	case '+', '-':
		if len(b) < i+6 || b[i+3] != ':' {
			return st, 0, false
		}
		oh, ok1 := Digits(b[i+1 : i+3])
		om, ok2 := Digits(b[i+4 : i+6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return st, 0, false
		}
		offset = oh*3600 + om*60
		if b[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return st, 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC).Add(-time.Duration(offset) * time.Second)
	return forensics.Stamp{Time: t, Offset: int32(offset), Zone: forensics.ZoneLogged}, i, true
}

// Digits reads a non-empty run of ASCII digits as a number.
func Digits(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
