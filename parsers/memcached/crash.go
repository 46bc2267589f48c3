package memcached

import (
	"bytes"

	"forensics"
	"forensics/parsers/scan"
)

// crashReport is the copy of a crash report that a start of memcached
// writes into memcached.log (utilities/breakpad.cc logCrashData, 7.x–8.0):
//
//	CRITICAL Detected previous crash
//	CRITICAL Breakpad caught a crash (Couchbase version 7.6.4-5146). Writing crash dump to /opt/couchbase/var/lib/couchbase/crash/….dmp before terminating. Writing dump succeeded: yes
//	CRITICAL Stack backtrace of crashed thread:
//	CRITICAL    #0  /opt/couchbase/bin/../lib/libep.so() [0x7f3c9a200000+0x2e1a8c]
//
// The event is held until the first frame, which names where it crashed.
type crashReport struct {
	ev   forensics.Event
	open bool
}

var stackBacktrace = []byte("Stack backtrace of crashed thread:")

// crashLine reads a line of a crash report and reports whether it was one.
// A line that is not one ends an open report first.
func (p *parser) crashLine(l *line, lvl int, msg []byte, emit forensics.Emit) bool {
	c := &p.crash
	if c.open {
		if lvl == levelCritical {
			if bytes.Equal(msg, stackBacktrace) {
				return true
			}
			if frame, ok := backtraceFrame(msg); ok {
				c.ev.Set(AttrTopFrame, string(frame))
				p.flushCrash(emit)
				return true
			}
		}
		p.flushCrash(emit)
	}
	if lvl != levelCritical || len(msg) == 0 || (msg[0] != 'B' && msg[0] != 'D') {
		return false
	}
	if string(msg) == "Detected previous crash" {
		return true
	}
	r, ok := scan.Cut(msg, "Breakpad caught a crash (Couchbase version ")
	if !ok {
		return false
	}
	e := &c.ev
	e.Reset()
	e.Kind, e.Line, e.Stamp, e.Text = BreakpadCrash, l.n, l.st, string(l.text)
	readBreakpadBanner(r, e)
	c.open = true
	return true
}

func (p *parser) flushCrash(emit forensics.Emit) {
	if p.crash.open {
		p.crash.open = false
		emit(&p.crash.ev)
	}
}
