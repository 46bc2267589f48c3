// Package oslog reads what cbcollect_info collects from the operating system
// of a Couchbase node: couchbase.log, the file its OS tasks write (each
// task's output after a header block), and the system logs it copies
// (syslog.tar.gz: /var/log/syslog*, messages*, kern.log*; systemd_journal.gz).
//
// The events are the Linux OOM killer's: which process it killed, with what
// memory, under which constraint. In couchbase.log only the sections that
// hold kernel messages (dmesg, journalctl -k) are read for them, and the
// sections that place dmesg's times on the timeline (date, /proc/uptime);
// every other section stays plain lines.
package oslog

import (
	"bytes"
	"strings"

	"forensics"
)

// Kinds of events the kernel logs when it runs out of memory
// (mm/oom_kill.c; the templates are quoted in kernel.go).
const (
	OOMInvoked    forensics.Kind = "kernel.oom_invoked"
	OOMConstraint forensics.Kind = "kernel.oom_constraint"
	OOMKill       forensics.Kind = "kernel.oom_kill"
	// MemInfo is the machine's memory when cbcollect_info ran (/proc/meminfo).
	MemInfo forensics.Kind = "kernel.meminfo"
)

var kinds = []forensics.KindDoc{
	{Kind: OOMInvoked, Category: forensics.CategoryOther, Label: "oom invoked", Doc: "a process's allocation made the kernel run the OOM killer (… invoked oom-killer: gfp_mask=…); process is the one that asked, not the victim", Attrs: attrs.Of(AttrClock, AttrProcess, AttrSection, AttrSinceBootS, AttrUncertaintyS)},
	{Kind: OOMConstraint, Category: forensics.CategoryOther, Label: "oom constraint", Doc: "the OOM killer chose its victim (oom-kill:constraint=…,task=…,pid=…): constraint, memory cgroup, process and pid", Attrs: attrs.Of(AttrClock, AttrConstraint, AttrOomMemcg, AttrPID, AttrProcess, AttrSection, AttrSinceBootS, AttrTaskMemcg, AttrUID, AttrUncertaintyS)},
	{Kind: MemInfo, Category: forensics.CategoryOther, Label: "meminfo", Doc: "the node's memory when cbcollect_info ran (couchbase.log's Raw /proc/meminfo: mem_total_kb, mem_available_kb); stamped with the collection time", Attrs: attrs.Of(AttrMemAvailableKB, AttrMemTotalKB)},
	{Kind: OOMKill, Category: forensics.CategoryOther, Label: "oom kill", Doc: "the OOM killer killed a process (Out of memory: Killed process PID (NAME) …), with its memory (total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb); clock says how its time was placed", Attrs: attrs.Of(AttrAnonRSSKB, AttrClock, AttrFileRSSKB, AttrPID, AttrProcess, AttrSection, AttrShmemRSSKB, AttrSinceBootS, AttrTotalVMKB, AttrTrigger, AttrUncertaintyS)},
}

// CouchbaseLogFormat reads couchbase.log.
var CouchbaseLogFormat = forensics.Format{
	Name:      "couchbase-log",
	Component: "kernel",
	Detect:    detectCouchbaseLog,
	New:       newCouchbaseLog,
	Kinds:     kinds,
}

// SyslogFormat reads the system logs in syslog.tar.gz and the journal in
// systemd_journal.gz (journalctl's default "short" output).
var SyslogFormat = forensics.Format{
	Name:      "syslog",
	Component: "kernel",
	Detect:    detectSyslog,
	New:       newSyslog,
	Kinds:     kinds,
}

// separator is the line cbcollect_info writes above and below a task's
// description and command (TaskRunner.header: "=" * 78).
var separator = bytes.Repeat([]byte("="), 78)

func detectCouchbaseLog(name string, head []byte) int {
	if name != "couchbase.log" {
		return 0
	}
	if len(head) == 0 || bytes.HasPrefix(head, separator) {
		return 95
	}
	return 60
}

// detectSyslog recognises the files cbcollect_info's "All logs" task tars
// and its journal dump by name; their lines have no header of their own.
func detectSyslog(name string, head []byte) int {
	base := name
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	// cbcollect_info also tars /var/log/debug*, but "debug.log" is too common a
	// name for other programs' logs, and the kernel's OOM lines go to kern.log,
	// syslog and messages.
	for _, p := range []string{"syslog", "messages", "kern.log", "systemd_journal", "daemon.log"} {
		if base == p || strings.HasPrefix(base, p+".") || strings.HasPrefix(base, p+"-") {
			if syslogStamped(head) {
				return 80
			}
			return 40
		}
	}
	return 0
}

// syslogStamped reports whether the first line starts like a syslog or
// journal line ("Mar 11 06:58:10 ", or an RFC 3339 time).
func syslogStamped(head []byte) bool {
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	if bytes.HasPrefix(head, []byte("-- ")) { // journalctl's "-- Logs begin at …"
		return true
	}
	_, _, ok := bsdStamp(head)
	if ok {
		return true
	}
	_, _, ok = rfc3339Stamp(head)
	return ok
}
