package vitess

import (
	"bytes"
	"errors"
	"time"

	"forensics"
	"forensics/logtime"
)

// The glog line header (github.com/golang/glog internal/logsink/logsink.go;
// Vitess logs through glog, go/vt/log):
//
//	Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
//
// L is I, W, E or F; the time is the process's local time with no year and
// no zone; threadid is the pid, padded to 7 columns. A message of several
// lines continues on lines without a header. A log file starts with four
// lines of its own (glog_file.go): "Log file created at: 2006/01/02
// 15:04:05", "Running on machine: …", "Binary: Built with …" and "Log line
// format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg".

type glogHeader struct {
	level                             byte
	event                             bool // no thread id: a logutil event, in UTC
	month, day, hour, min, sec, micro int
	caller                            [2]int // file:line, as offsets in the line
	msg                               int    // offset of the message
}

var (
	errGlogTime   = errors.New("glog header: unreadable time, want mmdd hh:mm:ss.uuuuuu")
	errGlogThread = errors.New("glog header: no thread id after the time")
	errGlogCaller = errors.New("glog header: no file:line] after the thread id")
)

// parseGlog reads a glog header. A line that starts with a level letter,
// four digits and a space is taken for a header; if the rest cannot be read
// the state is badHeader with an error.
func parseGlog(b []byte) (h glogHeader, st headerState, err error) {
	if len(b) < 6 || b[5] != ' ' || !isLevel(b[0]) || !digits(b[1:5]) {
		return h, notHeader, nil
	}
	if len(b) < 22 || b[8] != ':' || b[11] != ':' || b[14] != '.' || b[21] != ' ' ||
		!digits(b[6:8]) || !digits(b[9:11]) || !digits(b[12:14]) || !digits(b[15:21]) {
		return h, badHeader, errGlogTime
	}
	h.level = b[0]
	h.month = num(b[1:3])
	h.day = num(b[3:5])
	h.hour = num(b[6:8])
	h.min = num(b[9:11])
	h.sec = num(b[12:14])
	h.micro = num(b[15:21])
	if h.month < 1 || h.month > 12 || h.day < 1 || h.day > 31 || h.hour > 23 || h.min > 59 || h.sec > 60 {
		return h, badHeader, errGlogTime
	}
	i := 22
	for i < len(b) && b[i] == ' ' {
		i++
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	switch {
	case j == i && i == 22 && j < len(b) && b[j] != ' ':
		// go/vt/logutil/logger.go EventToBuffer, the lines vtctldclient
		// prints for the events a command streams back (PlannedReparentShard,
		// EmergencyReparentShard, …): "Lmmdd hh:mm:ss.uuuuuu file:line] msg",
		// no thread id, the time in UTC.
		h.event = true
	case j == i || j >= len(b) || b[j] != ' ':
		return h, badHeader, errGlogThread
	default:
		j++
	}
	end := bytes.IndexByte(b[j:], ']')
	if end < 0 {
		return h, badHeader, errGlogCaller
	}
	caller := b[j : j+end]
	c := bytes.LastIndexByte(caller, ':')
	if c <= 0 || c == len(caller)-1 || !digits(caller[c+1:]) || bytes.IndexByte(caller, ' ') >= 0 {
		return h, badHeader, errGlogCaller
	}
	h.caller = [2]int{j, j + end}
	h.msg = j + end + 1
	if h.msg < len(b) && b[h.msg] == ' ' {
		h.msg++
	}
	return h, goodHeader, nil
}

type headerState uint8

const (
	notHeader headerState = iota // a continuation line
	goodHeader
	badHeader // starts like a header but cannot be read
)

func isLevel(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'F' }

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func num(b []byte) int {
	n, _ := logtime.Digits(b)
	return n
}

var createdAt = []byte("Log file created at: ")

// parseCreated reads the "Log file created at: 2024/12/02 16:40:00" line.
func parseCreated(b []byte) (time.Time, bool) {
	rest, ok := bytes.CutPrefix(b, createdAt)
	if !ok || len(rest) < 19 || rest[4] != '/' || rest[7] != '/' || rest[10] != ' ' || rest[13] != ':' || rest[16] != ':' {
		return time.Time{}, false
	}
	if !digits(rest[0:4]) || !digits(rest[5:7]) || !digits(rest[8:10]) || !digits(rest[11:13]) || !digits(rest[14:16]) || !digits(rest[17:19]) {
		return time.Time{}, false
	}
	month, day := num(rest[5:7]), num(rest[8:10])
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return time.Time{}, false
	}
	t := time.Date(num(rest[0:4]), time.Month(month), day, num(rest[11:13]), num(rest[14:16]), num(rest[17:19]), 0, time.UTC)
	return t, true
}

// yearClock gives glog lines their year: from the file's header, else from
// a reference time (the file's modification time, else now), taking the
// latest year that does not put the line more than two days after the
// reference. Afterwards a month that jumps back by half a year or more
// (December to January) starts the next year.
type yearClock struct {
	ref   time.Time
	year  int
	month int
}

func (y *yearClock) created(t time.Time) {
	y.year, y.month = t.Year(), int(t.Month())
}

func (y *yearClock) at(h *glogHeader) time.Time {
	if y.year == 0 {
		ref := y.ref
		if ref.IsZero() {
			ref = time.Now().UTC()
		}
		y.year = ref.Year()
		if time.Date(y.year, time.Month(h.month), h.day, h.hour, h.min, 0, 0, time.UTC).After(ref.Add(48 * time.Hour)) {
			y.year--
		}
		y.month = h.month
	}
	year := y.year
	switch {
	case h.month <= y.month-6:
		y.year++
		year = y.year
		y.month = h.month
	case h.month >= y.month+6:
		year-- // a late line from the year before
	default:
		if h.month > y.month {
			y.month = h.month
		}
	}
	return time.Date(year, time.Month(h.month), h.day, h.hour, h.min, h.sec, h.micro*1000, time.UTC)
}

// vitessCallers are source files of vtctld, vttablet and vtgate that log
// early and often.
var vitessCallers = [][]byte{
	[]byte("traffic_switcher.go:"), []byte("server.go:"), []byte("locks.go:"), []byte("tm_state.go:"),
	[]byte("servenv.go:"), []byte("vtctld.go:"), []byte("tablet.go:"), []byte("tabletserver.go:"),
	[]byte("healthcheck.go:"), []byte("tm_init.go:"), []byte("keyspace_events.go:"), []byte("plugin_"),
	[]byte("replication.go:"), []byte("shard_sync.go:"), []byte("tablet_picker.go:"), []byte("engine.go:"),
	[]byte("planned_reparenter.go:"), []byte("emergency_reparenter.go:"), []byte("reparent_functions.go:"),
}

func isVitessCaller(c []byte) bool {
	for _, v := range vitessCallers {
		if bytes.HasPrefix(c, v) {
			return true
		}
	}
	return false
}

func glogStamp(t time.Time) forensics.Stamp {
	return forensics.Stamp{Time: t, Zone: forensics.ZoneAssumed}
}
