package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// An incident is buried by merging the lines of a committed test case into
// the generated noise. The lines are copied as logged except for their
// times, which move by whole seconds so that the fractions, the offsets and
// every gap between two lines stay exactly as they were.

// shift moves the times of a case: those before cut by early, the others by
// late. The Couchbase seed has two parts: the cluster starting (moved to
// the start of the generated logs) and, half an hour later, the incident
// (moved to their middle).
type shift struct {
	cut         time.Time
	early, late time.Duration
}

func (s shift) of(t time.Time) time.Duration {
	if t.Before(s.cut) {
		return s.early
	}
	return s.late
}

// startsEntry reports whether a line of a log starts a new entry; the other
// lines continue the entry before them.
type startsEntry func(line []byte) bool

// isoStart: memcached, indexer and projector lines start with their time.
func isoStart(line []byte) bool {
	_, _, _, ok := isoAt(line, 0)
	return ok
}

// aleStart: ns_server lines start with "[logger:level,".
func aleStart(line []byte) bool {
	return len(line) > 1 && line[0] == '[' && line[1] >= 'a' && line[1] <= 'z'
}

// readCase reads a log of a test case as entries with shifted times,
// leaving out cbcollect_info's header block (the generated file has its
// own) and anything before the first entry.
func readCase(path string, starts startsEntry, sh shift) ([]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := shiftTimes(nil, sc.Bytes(), sh)
		line = append(line, '\n')
		if starts(line) {
			t, ok := firstTime(line)
			if !ok {
				return nil, fmt.Errorf("%s: entry without a time: %.60q", path, line)
			}
			out = append(out, entry{t: t, text: line})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].text = append(out[len(out)-1].text, line...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// readShifted reads a whole file with its times shifted (diag.log, which
// is copied as is rather than merged).
func readShifted(path string, sh shift) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []byte
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		out = shiftTimes(out, line, sh)
	}
	return out, nil
}

// firstTime returns the first ISO 8601 time in line.
func firstTime(line []byte) (time.Time, bool) {
	for i := 0; i+19 < len(line); i++ {
		if t, _, _, ok := isoAt(line, i); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// shiftTimes appends line to dst with every ISO 8601 time in it
// ("2022-07-21T17:39:12.120-07:00", "2022-07-22T00:39:12.121Z") moved by
// sh. Only the date and the clock change.
func shiftTimes(dst, line []byte, sh shift) []byte {
	done := 0
	for i := 0; i+19 < len(line); i++ {
		if line[i] != '2' {
			continue
		}
		t, zone, end, ok := isoAt(line, i)
		if !ok {
			continue
		}
		moved := t.Add(sh.of(t)).In(zone)
		dst = append(dst, line[done:i]...)
		dst = moved.AppendFormat(dst, "2006-01-02T15:04:05")
		dst = append(dst, line[i+19:end]...) // fraction and offset as logged
		done, i = end, end-1
	}
	return append(dst, line[done:]...)
}

// isoAt reads "YYYY-MM-DDThh:mm:ss[.fff…](Z|±hh:mm)" at line[i:], returning
// the instant, the zone it was written in and where it ends.
func isoAt(line []byte, i int) (time.Time, *time.Location, int, bool) {
	b := line[i:]
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, nil, 0, false
	}
	num := func(s []byte) int {
		n, err := strconv.Atoi(string(s))
		if err != nil {
			return -1
		}
		return n
	}
	y, mo, d, h, mi, s := num(b[0:4]), num(b[5:7]), num(b[8:10]), num(b[11:13]), num(b[14:16]), num(b[17:19])
	if y < 0 || mo < 1 || d < 1 || h < 0 || mi < 0 || s < 0 {
		return time.Time{}, nil, 0, false
	}
	j := 19
	ns := 0
	if j < len(b) && b[j] == '.' {
		j++
		digits := 0
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			if digits < 9 {
				ns = ns*10 + int(b[j]-'0')
				digits++
			}
			j++
		}
		for ; digits < 9; digits++ {
			ns *= 10
		}
	}
	var zone *time.Location
	switch {
	case j < len(b) && b[j] == 'Z':
		zone = time.UTC
		j++
	case j+6 <= len(b) && (b[j] == '+' || b[j] == '-') && b[j+3] == ':':
		oh, om := num(b[j+1:j+3]), num(b[j+4:j+6])
		if oh < 0 || om < 0 {
			return time.Time{}, nil, 0, false
		}
		off := (oh*60 + om) * 60
		if b[j] == '-' {
			off = -off
		}
		zone = time.FixedZone("", off)
		j += 6
	default:
		return time.Time{}, nil, 0, false
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, ns, zone), zone, i + j, true
}
