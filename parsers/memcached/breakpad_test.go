package memcached

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// memcached.log.breakpad.crash.txt as utilities/breakpad.cc writes it.
const breakpadReport = "Breakpad caught a crash (Couchbase version 7.6.4-5146). Writing crash dump to /opt/couchbase/var/lib/couchbase/crash/3d2a0b9e-7c55-4f0e-9d63-1a2b3c4d5e6f.dmp before terminating. Writing dump succeeded: yes\n" +
	"Stack backtrace of crashed thread:\n" +
	"   /opt/couchbase/bin/../lib/libep.so() [0x7f3c9a200000+0x2e1a8c]\n" +
	"   /opt/couchbase/bin/../lib/libep.so() [0x7f3c9a200000+0x2e2f10]\n" +
	"   /opt/couchbase/bin/memcached() [0x400000+0x13a7e5]\n" +
	"   /lib/x86_64-linux-gnu/libpthread.so.0() [0x7f3ca1e00000+0x8609]\n"

var breakpadOrigin = forensics.Origin{Path: "cbcollect_info_ns_1@10.1.2.3_20250319-004733/memcached.log.breakpad.crash.txt", Name: "memcached.log.breakpad.crash.txt", Node: "ns_1@10.1.2.3"}

// Before, the crash report was read as a memcached.log (the name says
// memcached.log.*) and gave nothing.
func TestBreakpadReport(t *testing.T) {
	if got, mc := BreakpadFormat.Detect(breakpadOrigin.Name, []byte(breakpadReport)), Format.Detect(breakpadOrigin.Name, []byte(breakpadReport)); got <= mc {
		t.Errorf("breakpad detect %d, memcached.log detect %d: the crash report must win", got, mc)
	}
	if got := BreakpadFormat.Detect("memcached.log", []byte("2025-03-18T17:39:12.120001-07:00 INFO Couchbase version 7.6.4-5146 starting.\n")); got != 0 {
		t.Errorf("breakpad detect on memcached.log = %d", got)
	}
	res := parsertest.Parse(BreakpadFormat, breakpadOrigin, []byte(breakpadReport))
	if len(res.Errors) != 0 || len(res.Events) != 1 {
		t.Fatalf("events %v errors %v, want one crash", res.Kinds(), res.Errors)
	}
	e := res.Events[0]
	checkAttrs(t, e, map[string]string{
		"version":      "7.6.4-5146",
		"dump":         "/opt/couchbase/var/lib/couchbase/crash/3d2a0b9e-7c55-4f0e-9d63-1a2b3c4d5e6f.dmp",
		"dump_written": "yes",
		"top_frame":    "/opt/couchbase/bin/../lib/libep.so() [0x7f3c9a200000+0x2e1a8c]",
	})
	if e.Line != 1 || e.Kind != BreakpadCrash {
		t.Errorf("event %s at line %d", e.Kind, e.Line)
	}
	p := BreakpadFormat.New(breakpadOrigin)
	p.Line(1, []byte(breakpadReport[:200]), func(*forensics.Event) {})
	if r := p.(forensics.Releaser).Release(); r != "7.6.4-5146" {
		t.Errorf("release %q", r)
	}
}

func FuzzBreakpad(f *testing.F) {
	f.Add([]byte(breakpadReport))
	f.Add([]byte("Breakpad caught a crash (Couchbase version \nBreakpad caught a crash (Couchbase version 1). Writing crash dump to x\n   y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsertest.Check(t, BreakpadFormat, breakpadOrigin, data)
	})
}

// The next start copies the report into memcached.log at CRITICAL
// (breakpad.cc logCrashData, 7.6 and 8.0 alike): the crash is on the
// timeline of the start that reported it, with its first frame; the
// lines after the report are read as usual.
func TestCrashReportInLog(t *testing.T) {
	res := parse(t,
		"2025-10-21T17:39:12.120001-07:00 INFO Couchbase version 7.6.4-5146 starting.",
		"2025-10-21T17:39:12.120201-07:00 CRITICAL Detected previous crash",
		"2025-10-21T17:39:12.120233-07:00 CRITICAL Breakpad caught a crash (Couchbase version 7.6.4-5146). Writing crash dump to /opt/couchbase/var/lib/couchbase/crash/0c8e12b4-2a6f-4d1e-b7a0-5d9e3f61c2aa.dmp before terminating. Writing dump succeeded: yes",
		"2025-10-21T17:39:12.120240-07:00 CRITICAL Stack backtrace of crashed thread:",
		"2025-10-21T17:39:12.120245-07:00 CRITICAL    #0  /opt/couchbase/bin/../lib/libep.so(_ZN9Checkpoint11queueDirtyERK12SingleThreadedRCPtrI4ItemS2_ESt14default_deleteIS2_EE+0x1a2) [0x7f3c9a200000+0x2e1a8c]",
		"2025-10-21T17:39:12.120249-07:00 CRITICAL    #1  /opt/couchbase/bin/memcached() [0x400000+0x13a7e5]",
		"2025-10-21T17:39:12.120301-07:00 CRITICAL Breakpad caught a crash (Couchbase version 7.6.4-5146). Writing crash dump to /opt/couchbase/var/lib/couchbase/crash/2.dmp before terminating. Writing dump succeeded: no",
		"2025-10-21T17:39:12.121000-07:00 INFO Process identifier: 23614",
		"2025-10-21T17:39:12.200000-07:00 WARNING Shutting down client as we're running out of connections: 60001 of 60000",
	)
	if k := res.Kinds(); len(k) != 4 || k[0] != Start || k[1] != BreakpadCrash || k[2] != BreakpadCrash || k[3] != ConnRejected {
		t.Fatalf("kinds %v", k)
	}
	c := res.Events[1]
	if c.Line != 3 {
		t.Errorf("crash on line %d", c.Line)
	}
	checkAttrs(t, c, map[string]string{"version": "7.6.4-5146", "dump_written": "yes",
		"dump":      "/opt/couchbase/var/lib/couchbase/crash/0c8e12b4-2a6f-4d1e-b7a0-5d9e3f61c2aa.dmp",
		"top_frame": "#0  /opt/couchbase/bin/../lib/libep.so(_ZN9Checkpoint11queueDirtyERK12SingleThreadedRCPtrI4ItemS2_ESt14default_deleteIS2_EE+0x1a2) [0x7f3c9a200000+0x2e1a8c]"})
	// A report with no backtrace ends at the next line.
	checkAttrs(t, res.Events[2], map[string]string{"dump_written": "no", "top_frame": ""})
}
