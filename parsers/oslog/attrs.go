package oslog

import "forensics"

// The attribute keys the oslog parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAnonRSSKB      = "anon_rss_kb"
	AttrClock          = "clock"
	AttrConstraint     = "constraint"
	AttrFileRSSKB      = "file_rss_kb"
	AttrMemAvailableKB = "mem_available_kb"
	AttrMemTotalKB     = "mem_total_kb"
	AttrOomMemcg       = "oom_memcg"
	AttrPID            = "pid"
	AttrProcess        = "process"
	AttrSection        = "section"
	AttrShmemRSSKB     = "shmem_rss_kb"
	AttrSinceBootS     = "since_boot_s"
	AttrTaskMemcg      = "task_memcg"
	AttrTotalVMKB      = "total_vm_kb"
	AttrTrigger        = "trigger"
	AttrUID            = "uid"
	AttrUncertaintyS   = "uncertainty_s"
)

// Attrs lists, for each kind the oslog parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	MemInfo:       {AttrMemAvailableKB, AttrMemTotalKB},
	OOMConstraint: {AttrClock, AttrConstraint, AttrOomMemcg, AttrPID, AttrProcess, AttrSection, AttrSinceBootS, AttrTaskMemcg, AttrUID, AttrUncertaintyS},
	OOMInvoked:    {AttrClock, AttrProcess, AttrSection, AttrSinceBootS, AttrUncertaintyS},
	OOMKill:       {AttrAnonRSSKB, AttrClock, AttrFileRSSKB, AttrPID, AttrProcess, AttrSection, AttrShmemRSSKB, AttrSinceBootS, AttrTotalVMKB, AttrTrigger, AttrUncertaintyS},
}
