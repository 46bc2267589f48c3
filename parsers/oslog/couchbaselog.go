package oslog

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"

	"forensics"
)

// section is the kind of task output a couchbase.log line belongs to.
type section uint8

const (
	secOther   section = iota
	secDate            // "time and TZ": date; date -u
	secUptime          // "Raw /proc/uptime": cat /proc/uptime
	secDmesg           // "Kernel log buffer": dmesg -T || dmesg -H || dmesg
	secJournal         // "Collect dmesg from journalctl": journalctl -ko short-monotonic --no-hostname
	secMemInfo         // "Raw /proc/meminfo": cat /proc/meminfo
)

// sectionOf names the sections the parser reads from their description
// and command as cbcollect_info writes them (make_os_tasks, 7.1–8.0).
func sectionOf(desc, cmd []byte) section {
	switch {
	case string(desc) == "time and TZ" || bytes.HasPrefix(cmd, []byte("date;")):
		return secDate
	case string(desc) == "Raw /proc/uptime" || string(cmd) == "cat /proc/uptime":
		return secUptime
	case string(desc) == "Raw /proc/meminfo" || string(cmd) == "cat /proc/meminfo":
		return secMemInfo
	case string(desc) == "Kernel log buffer" || bytes.HasPrefix(cmd, []byte("dmesg")):
		return secDmesg
	case string(desc) == "Collect dmesg from journalctl" || bytes.HasPrefix(cmd, []byte("journalctl -k")):
		return secJournal
	}
	return secOther
}

// couchbaseLog reads couchbase.log. The dmesg sections come after the
// date and /proc/uptime ones in every release's task list, so by then the
// parser knows when the node booted and its UTC offset.
type couchbaseLog struct {
	node string
	ev   forensics.Event

	hdr        int // 0 outside a header block, then 1, 2, 3 after the opening separator, description, command
	desc, cmd  []byte
	sec        section
	dateLines  int
	local, utc time.Time // the date section's two lines; utc is also the fallback collection time
	offset     int32
	offsetOK   bool
	uptime     float64 // seconds, from /proc/uptime; 0 when unknown
	memTotal   int64   // kB, from /proc/meminfo, until the section ends
	uptimeLine int64
	memLine    int64
	dateLine   int64
}

func newCouchbaseLog(o forensics.Origin) forensics.Parser {
	p := &couchbaseLog{node: o.Node}
	p.utc = collectedAt(o.Path)
	return p
}

// collectedAt is the UTC stamp of the path's cbcollect_info folder; zero
// when the path has none.
func collectedAt(path string) time.Time {
	t, _ := forensics.CollectedAt(path)
	return t
}

var errDmesgUnplaced = errors.New("dmesg time is seconds since boot and the file has no /proc/uptime section to place it: kept as a plain line")

func (p *couchbaseLog) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if len(text) == 78 && text[0] == '=' && bytes.Equal(text, separator) {
		if p.sec == secMemInfo && p.hdr == 0 {
			p.flushMemInfo(emit)
		}
		if p.hdr == 3 {
			p.hdr = 0
			p.sec = sectionOf(p.desc, p.cmd)
			p.dateLines = 0
		} else {
			p.hdr = 1
			p.sec = secOther
		}
		return forensics.Stamp{}, nil
	}
	switch p.hdr {
	case 1:
		p.desc = append(p.desc[:0], text...)
		p.hdr = 2
		return forensics.Stamp{}, nil
	case 2:
		p.cmd = append(p.cmd[:0], text...)
		p.hdr = 3
		return forensics.Stamp{}, nil
	case 3:
		p.hdr = 0 // not a header block after all
	}
	switch p.sec {
	case secDate:
		p.dateLine = n
		p.readDate(text)
	case secUptime:
		if f := bytes.Fields(text); len(f) > 0 && p.uptime == 0 {
			if v, err := strconv.ParseFloat(string(f[0]), 64); err == nil && v > 0 {
				p.uptime, p.uptimeLine = v, n
			}
		}
	case secDmesg, secJournal:
		return p.kernelLine(n, text, emit)
	case secMemInfo:
		return p.memInfoLine(n, text), nil
	}
	return forensics.Stamp{}, nil
}

// memInfoLine reads MemTotal and MemAvailable ("MemTotal:       32567812
// kB"); the event is emitted on MemAvailable, which follows MemTotal in
// every kernel since 3.14, or at the end of the section.
func (p *couchbaseLog) memInfoLine(n int64, text []byte) forensics.Stamp {
	key, rest, ok := bytes.Cut(text, []byte(":"))
	if !ok || p.utc.IsZero() {
		return forensics.Stamp{}
	}
	f := bytes.Fields(rest)
	if len(f) == 0 {
		return forensics.Stamp{}
	}
	v, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return forensics.Stamp{}
	}
	switch string(key) {
	case "MemTotal":
		p.memTotal, p.memLine = v, n
		p.ev.Reset()
		p.ev.Kind = MemInfo
		p.ev.Line = n
		p.ev.Text = string(text)
		p.ev.Set(AttrMemTotalKB, string(f[0]))
		return forensics.Stamp{Time: p.utc, Zone: forensics.ZoneUTC}
	case "MemAvailable":
		if p.memTotal > 0 {
			p.ev.Set(AttrMemAvailableKB, string(f[0]))
		}
	}
	return forensics.Stamp{}
}

// flushMemInfo emits the meminfo event read so far.
func (p *couchbaseLog) flushMemInfo(emit forensics.Emit) {
	if p.memTotal == 0 {
		return
	}
	p.ev.Stamp = forensics.Stamp{Time: p.utc, Zone: forensics.ZoneUTC}
	p.ev.Node = p.node
	emit(&p.ev)
	p.memTotal = 0
}

// readDate reads date's output, local then UTC ("Tue Mar 11 07:29:22 PDT
// 2024", "Tue Mar 11 14:29:22 UTC 2024"); the offset is their difference.
func (p *couchbaseLog) readDate(text []byte) {
	f := strings.Fields(string(text))
	if len(f) != 6 {
		return
	}
	t, err := time.Parse("Jan 2 15:04:05 2006", f[1]+" "+f[2]+" "+f[3]+" "+f[5])
	if err != nil {
		return
	}
	p.dateLines++
	switch p.dateLines {
	case 1:
		p.local = t
	case 2:
		p.utc = t
		d := p.local.Sub(t).Round(15 * time.Minute)
		if d > -15*time.Hour && d < 15*time.Hour {
			p.offset, p.offsetOK = int32(d/time.Second), true
		}
	}
}

// kernelLine reads a dmesg or journalctl -k line: "[Tue Mar 11 06:58:10
// 2024] msg" (dmesg -T, local time), "[ 1234.567890] msg" (seconds since
// boot; journalctl adds "kernel: ").
func (p *couchbaseLog) kernelLine(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if len(text) < 4 || text[0] != '[' {
		return forensics.Stamp{}, nil
	}
	end := bytes.IndexByte(text, ']')
	if end < 0 {
		return forensics.Stamp{}, nil
	}
	msg := bytes.TrimPrefix(bytes.TrimLeft(text[end+1:], " "), []byte("kernel: "))
	if !kernelCandidate(msg) {
		return forensics.Stamp{}, nil
	}
	ev := &p.ev
	ev.Reset()
	if !kernelEvent(msg, ev) {
		return forensics.Stamp{}, nil
	}
	inner := bytes.TrimSpace(text[1:end])
	var st forensics.Stamp
	if secs, err := strconv.ParseFloat(string(inner), 64); err == nil {
		if p.uptime == 0 || p.utc.IsZero() {
			return forensics.Stamp{}, errDmesgUnplaced
		}
		boot := p.utc.Add(-time.Duration(p.uptime * float64(time.Second)))
		st = forensics.Stamp{Time: boot.Add(time.Duration(secs * float64(time.Second))).Truncate(time.Microsecond), Zone: forensics.ZoneUTC}
		ev.Set(AttrClock, "since-boot")
		ev.Set(AttrSinceBootS, string(inner))
		// The date and /proc/uptime tasks run tens of seconds apart (sar,
		// vmstat and mpstat between them take 10 s each), and the kernel's
		// clock stops while the machine is suspended.
		ev.Set(AttrUncertaintyS, "60")
	} else {
		t, err := time.Parse("Mon Jan _2 15:04:05 2006", string(inner))
		if err != nil {
			return forensics.Stamp{}, nil // dmesg -H's relative times cannot be placed
		}
		st = forensics.Stamp{Time: t, Zone: forensics.ZoneAssumed}
		if p.offsetOK {
			st = forensics.Stamp{Time: t.Add(-time.Duration(p.offset) * time.Second), Offset: p.offset, Zone: forensics.ZoneLogged}
		}
		// dmesg -T adds the boot time to the kernel's clock, so it drifts
		// by the time spent suspended; it prints whole seconds.
		ev.Set(AttrClock, "dmesg -T")
		ev.Set(AttrUncertaintyS, "1")
	}
	ev.Stamp = st
	ev.Line = n
	ev.Node = p.node
	ev.Text = string(text)
	ev.Set(AttrSection, sectionName(p.sec))
	emit(ev)
	return st, nil
}

func sectionName(s section) string {
	if s == secJournal {
		return "journalctl -k"
	}
	return "dmesg"
}

func (p *couchbaseLog) End(emit forensics.Emit) error {
	p.flushMemInfo(emit)
	return nil
}
