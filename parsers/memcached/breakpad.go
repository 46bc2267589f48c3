package memcached

import (
	"bytes"
	"strings"

	"forensics"
)

// BreakpadCrash is a crash memcached's Breakpad handler reported.
const BreakpadCrash forensics.Kind = "memcached.breakpad_crash"

// BreakpadFormat reads memcached.log.breakpad.crash.txt, which memcached's
// Breakpad handler writes when the process crashes (kv_engine
// utilities/breakpad.cc dumpCallback, 7.x–8.0), and cbcollect_info collects
// because a process that did not restart never logged it ("Memcached
// breakpad output"):
//
//	Breakpad caught a crash (Couchbase version 7.6.4-5146). Writing crash dump to /opt/couchbase/var/lib/couchbase/crash/….dmp before terminating. Writing dump succeeded: yes
//	Stack backtrace of crashed thread:
//	   /opt/couchbase/bin/memcached() [0x400000+0x13a7e5]
//	   …
//
// It has no times: the crash is placed at the file's modification time,
// which the handler's write set. The next start of memcached copies the
// file into memcached.log (logCrashData: "Detected previous crash", then
// each line at CRITICAL) and removes it; crash.go reads that copy.
var BreakpadFormat = forensics.Format{
	Name:      "memcached-breakpad",
	Component: "memcached",
	Detect:    detectBreakpad,
	New:       func(forensics.Origin) forensics.Parser { return &breakpadParser{} },
	Kinds: []forensics.KindDoc{
		breakpadDoc,
	},
}

// breakpadDoc documents BreakpadCrash for both formats that emit it.
var breakpadDoc = forensics.KindDoc{Kind: BreakpadCrash, Category: forensics.CategoryOther, Label: "breakpad crash", Doc: "memcached crashed and Breakpad wrote a minidump: read from memcached.log.breakpad.crash.txt (timed by the file), or from memcached.log, where the next start copies it (Detected previous crash; timed by that start); version, dump, dump_written, top_frame", Attrs: attrs.Of(AttrDump, AttrDumpWritten, AttrTopFrame, AttrVersion)}

const breakpadName = "memcached.log.breakpad.crash.txt"

var breakpadBanner = []byte("Breakpad caught a crash (Couchbase version ")

func detectBreakpad(name string, head []byte) int {
	named := strings.TrimSuffix(name, ".gz") == breakpadName
	marked := bytes.HasPrefix(head, breakpadBanner) || bytes.Contains(head, append([]byte("\n"), breakpadBanner...))
	switch {
	case named:
		return 99 // memcached's detect also claims memcached.log.* names
	case marked:
		return 80
	}
	return 0
}

type breakpadParser struct {
	ev      forensics.Event
	release string
	open    bool // the crash's event waits for its top frame
}

func (p *breakpadParser) Release() string { return p.release }

func (p *breakpadParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if r, ok := bytes.CutPrefix(text, breakpadBanner); ok {
		p.flush(emit)
		e := &p.ev
		e.Reset()
		e.Kind, e.Line, e.Text = BreakpadCrash, n, string(text)
		p.release = readBreakpadBanner(r, e)
		p.open = true
		return forensics.Stamp{}, nil
	}
	// The first frame after "Stack backtrace of crashed thread:" is where it crashed.
	if p.open {
		if frame, ok := backtraceFrame(text); ok {
			p.ev.Set(AttrTopFrame, string(frame))
			p.flush(emit)
		}
	}
	return forensics.Stamp{}, nil
}

// readBreakpadBanner reads what follows "Breakpad caught a crash (Couchbase
// version " into e (version, dump, dump_written) and returns the version.
func readBreakpadBanner(r []byte, e *forensics.Event) (version string) {
	if i := bytes.IndexByte(r, ')'); i > 0 {
		version = string(r[:i])
		e.Set(AttrVersion, version)
		r = r[i+1:]
	}
	if r, ok := bytes.CutPrefix(r, []byte(". Writing crash dump to ")); ok {
		if i := bytes.Index(r, []byte(" before terminating.")); i > 0 {
			e.Set(AttrDump, string(r[:i]))
		}
	}
	if _, v, ok := bytes.Cut(r, []byte("Writing dump succeeded: ")); ok {
		e.Set(AttrDumpWritten, string(bytes.TrimSpace(v)))
	}
	return version
}

// backtraceFrame reads a frame of the crashed thread's backtrace, which
// breakpad.cc's write_to_logger indents by three spaces (the frame itself,
// from platform's print_backtrace, may start with its number: "#0  ").
func backtraceFrame(b []byte) ([]byte, bool) {
	if len(b) < 4 || !bytes.HasPrefix(b, []byte("   ")) {
		return nil, false
	}
	f := bytes.TrimSpace(b)
	return f, len(f) > 0
}

func (p *breakpadParser) flush(emit forensics.Emit) {
	if p.open {
		emit(&p.ev)
		p.open = false
	}
}

func (p *breakpadParser) End(emit forensics.Emit) error {
	p.flush(emit)
	return nil
}
