package oslog

import "forensics"

// The attribute keys the oslog parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAnonRSSKB      forensics.AttrKey = "anon_rss_kb"
	AttrClock          forensics.AttrKey = "clock"
	AttrConstraint     forensics.AttrKey = "constraint"
	AttrFileRSSKB      forensics.AttrKey = "file_rss_kb"
	AttrMemAvailableKB forensics.AttrKey = "mem_available_kb"
	AttrMemTotalKB     forensics.AttrKey = "mem_total_kb"
	AttrOomMemcg       forensics.AttrKey = "oom_memcg"
	AttrPID            forensics.AttrKey = "pid"
	AttrProcess        forensics.AttrKey = "process"
	AttrSection        forensics.AttrKey = "section"
	AttrShmemRSSKB     forensics.AttrKey = "shmem_rss_kb"
	AttrSinceBootS     forensics.AttrKey = "since_boot_s"
	AttrTaskMemcg      forensics.AttrKey = "task_memcg"
	AttrTotalVMKB      forensics.AttrKey = "total_vm_kb"
	AttrTrigger        forensics.AttrKey = "trigger"
	AttrUID            forensics.AttrKey = "uid"
	AttrUncertaintyS   forensics.AttrKey = "uncertainty_s"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrAnonRSSKB, Type: forensics.AttrInt, Doc: "the killed process's anonymous resident memory, in kB"},
	{Key: AttrClock, Type: forensics.AttrText, Doc: "how the line's time was read: dmesg -T, since-boot, syslog"},
	{Key: AttrConstraint, Type: forensics.AttrText, Doc: "the OOM killer's constraint (CONSTRAINT_NONE, CONSTRAINT_MEMCG)"},
	{Key: AttrFileRSSKB, Type: forensics.AttrInt, Doc: "the killed process's file-backed resident memory, in kB"},
	{Key: AttrMemAvailableKB, Type: forensics.AttrInt, Doc: "MemAvailable of /proc/meminfo, in kB"},
	{Key: AttrMemTotalKB, Type: forensics.AttrInt, Doc: "MemTotal of /proc/meminfo, in kB"},
	{Key: AttrOomMemcg, Type: forensics.AttrText, Doc: "the memory cgroup that ran out of memory"},
	{Key: AttrPID, Type: forensics.AttrInt, Doc: "the process's pid"},
	{Key: AttrProcess, Type: forensics.AttrText, Doc: "the process's name"},
	{Key: AttrSection, Type: forensics.AttrText, Doc: "the section of couchbase.log the line is in"},
	{Key: AttrShmemRSSKB, Type: forensics.AttrInt, Doc: "the killed process's shared resident memory, in kB"},
	{Key: AttrSinceBootS, Type: forensics.AttrNumber, Doc: "the line's time in seconds since boot, as dmesg prints it"},
	{Key: AttrTaskMemcg, Type: forensics.AttrText, Doc: "the memory cgroup of the killed task"},
	{Key: AttrTotalVMKB, Type: forensics.AttrInt, Doc: "the killed process's virtual memory, in kB"},
	{Key: AttrTrigger, Type: forensics.AttrText, Doc: "what invoked the OOM killer: Out of memory, Memory cgroup out of memory"},
	{Key: AttrUID, Type: forensics.AttrInt, Doc: "the killed process's user id"},
	{Key: AttrUncertaintyS, Type: forensics.AttrInt, Doc: "how many seconds the line's time may be off"},
}
