package oslog

import (
	"bytes"
	"time"

	"forensics"
	"forensics/logtime"
)

// syslog reads a system log as rsyslog writes it by default (RFC 3164:
// "Mar 11 06:58:10 host kernel: msg", local time, no year, no zone), with
// high-precision timestamps ("2024-03-11T06:58:10.123456-07:00 host
// kernel: msg"), and journalctl's "short" output, which has the first shape.
type syslog struct {
	node string
	year int
	ref  time.Time // the file's time or the collection's: no line is later
	ev   forensics.Event
}

func newSyslog(o forensics.Origin) forensics.Parser {
	p := &syslog{node: o.Node, ref: o.ModTime}
	if c := collectedAt(o.Path); !c.IsZero() && (p.ref.IsZero() || c.Before(p.ref)) {
		p.ref = c
	}
	if p.ref.IsZero() {
		p.ref = time.Now()
	}
	p.year = p.ref.Year()
	return p
}

var kernelTag = []byte(" kernel: ")

func (p *syslog) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	k := bytes.Index(text, kernelTag)
	if k < 0 {
		return forensics.Stamp{}, nil
	}
	msg := text[k+len(kernelTag):]
	if len(msg) > 0 && msg[0] == '[' { // the kernel's own "[ 1234.567890] " when printk.time is on
		if e := bytes.IndexByte(msg, ']'); e > 0 {
			msg = bytes.TrimLeft(msg[e+1:], " ")
		}
	}
	if !kernelCandidate(msg) {
		return forensics.Stamp{}, nil
	}
	ev := &p.ev
	ev.Reset()
	if !kernelEvent(msg, ev) {
		return forensics.Stamp{}, nil
	}
	st, _, ok := rfc3339Stamp(text)
	if !ok {
		t, _, ok := bsdStamp(text)
		if !ok {
			return forensics.Stamp{}, nil
		}
		t = time.Date(p.year, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
		if t.After(p.ref.Add(48 * time.Hour)) { // a line of December in a file of January
			t = t.AddDate(-1, 0, 0)
		}
		st = forensics.Stamp{Time: t, Zone: forensics.ZoneAssumed}
		ev.Set(AttrClock, "syslog local time, zone not logged")
	} else {
		ev.Set(AttrClock, "syslog")
	}
	ev.Stamp = st
	ev.Line = n
	ev.Node = p.node
	ev.Text = string(text)
	emit(ev)
	return st, nil
}

func (p *syslog) End(forensics.Emit) error { return nil }

// bsdStamp reads "Mar 11 06:58:10" (the day may be space-padded) at the
// start of b; the year is 0.
func bsdStamp(b []byte) (time.Time, int, bool) {
	if len(b) < 16 || b[3] != ' ' || b[6] != ' ' || b[9] != ':' || b[12] != ':' || b[15] != ' ' {
		return time.Time{}, 0, false
	}
	t, err := time.Parse("Jan _2 15:04:05", string(b[:15]))
	if err != nil {
		return time.Time{}, 0, false
	}
	return t, 15, true
}

// rfc3339Stamp reads rsyslog's high-precision timestamp at the start of b.
func rfc3339Stamp(b []byte) (forensics.Stamp, int, bool) {
	if len(b) < 20 || b[4] != '-' || b[10] != 'T' {
		return forensics.Stamp{}, 0, false
	}
	return logtime.ISO(b)
}
