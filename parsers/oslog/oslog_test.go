package oslog

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

var origin = forensics.Origin{
	Path: "cbcollect_info_ns_1@10.20.0.12_20240311-142922/couchbase.log",
	Name: "couchbase.log",
	Node: "ns_1@10.20.0.12",
}

func header(desc, cmd string) string {
	sep := strings.Repeat("=", 78)
	return sep + "\n" + desc + "\n" + cmd + "\n" + sep + "\n"
}

// A couchbase.log as cbcollect_info 7.6 writes it: the date, uptime and
// both kernel sections, with other sections around them.
var cbLogInput = header("uname", "uname -a") +
	"Linux cb-02 5.15.0-1057-aws #63-Ubuntu SMP Mon Feb 26 16:34:38 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux\n" +
	header("time and TZ", "date; date -u") +
	"Mon Mar 11 07:29:22 PDT 2024\n" +
	"Mon Mar 11 14:29:22 UTC 2024\n" +
	header("Raw /proc/uptime", "cat /proc/uptime") +
	"864000.50 1700000.25\n" +
	header("Kernel log buffer", "dmesg -T || dmesg -H || dmesg") +
	"[Mon Mar 11 06:58:09 2024] memcached invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0\n" +
	"[Mon Mar 11 06:58:09 2024] Mem-Info:\n" +
	"[Mon Mar 11 06:58:10 2024] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/couchbase-server.service,task=memcached,pid=2817,uid=998\n" +
	"[Mon Mar 11 06:58:10 2024] Out of memory: Killed process 2817 (memcached) total-vm:17753888kB, anon-rss:15302524kB, file-rss:0kB, shmem-rss:0kB, UID:998 pgtables:31204kB oom_score_adj:0\n" +
	header("Collect dmesg from journalctl", "journalctl -ko short-monotonic --no-hostname") +
	"[862347.915224] kernel: Out of memory: Killed process 2817 (memcached) total-vm:17753888kB, anon-rss:15302524kB, file-rss:0kB, shmem-rss:0kB, UID:998 pgtables:31204kB oom_score_adj:0\n" +
	header("Filesystem", "df -ha") +
	"/dev/nvme1n1    492G  180G  312G  37% /data\n" +
	"[862347.915224] Out of memory: Killed process 1 (not-in-a-kernel-section)\n"

func TestCouchbaseLog(t *testing.T) {
	r := parsertest.Parse(CouchbaseLogFormat, origin, []byte(cbLogInput))
	if len(r.Errors) != 0 {
		t.Fatalf("errors: %v", r.Errors)
	}
	kills := r.OfKind(OOMKill)
	if len(kills) != 2 {
		t.Fatalf("got %d kills, want 2 (dmesg and journalctl; none from df): %v", len(kills), r.Events)
	}
	d := kills[0]
	if d.Attr("pid") != "2817" || d.Attr("process") != "memcached" || d.Attr("anon_rss_kb") != "15302524" || d.Attr("trigger") != "Out of memory" {
		t.Errorf("dmesg kill attrs: %v", d.Attrs)
	}
	// dmesg -T prints local time; the date section says PDT is UTC-7.
	if want := time.Date(2024, 3, 11, 13, 58, 10, 0, time.UTC); !d.Time.Equal(want) || d.Offset != -7*3600 || d.Zone != forensics.ZoneLogged {
		t.Errorf("dmesg -T time %v offset %d zone %v, want %v at -07:00", d.Time, d.Offset, d.Zone, want)
	}
	// journalctl -k: boot = 14:29:22 - 864000.5 s; + 862347.915224 s.
	j := kills[1]
	boot := time.Date(2024, 3, 11, 14, 29, 22, 0, time.UTC).Add(-864000500 * time.Millisecond)
	if want := boot.Add(862347915224 * time.Microsecond); !j.Time.Equal(want) || j.Attr("clock") != "since-boot" {
		t.Errorf("journal time %v (%s), want %v", j.Time, j.Attr("clock"), want)
	}
	if c := r.OfKind(OOMConstraint); len(c) != 1 || c[0].Attr("task_memcg") != "/system.slice/couchbase-server.service" || c[0].Attr("pid") != "2817" {
		t.Errorf("constraint: %v", c)
	}
	if inv := r.OfKind(OOMInvoked); len(inv) != 1 || inv[0].Attr("process") != "memcached" {
		t.Errorf("invoked: %v", inv)
	}
	parsertest.Check(t, CouchbaseLogFormat, origin, []byte(cbLogInput))
}

func TestDmesgWithoutUptime(t *testing.T) {
	in := header("Kernel log buffer", "dmesg -T || dmesg -H || dmesg") +
		"[  123.456789] Out of memory: Killed process 4242 (indexer) total-vm:1kB, anon-rss:2kB, file-rss:0kB, shmem-rss:0kB\n"
	r := parsertest.Parse(CouchbaseLogFormat, origin, []byte(in))
	if len(r.Events) != 0 || len(r.Errors) != 1 || r.Errors[0].Line != 5 {
		t.Fatalf("want one positioned error and no event, got %v / %v", r.Events, r.Errors)
	}
}

func TestOldKernel(t *testing.T) {
	in := header("time and TZ", "date; date -u") + "Thu Jul 21 17:50:01 UTC 2022\nThu Jul 21 17:50:01 UTC 2022\n" +
		header("Kernel log buffer", "dmesg -T || dmesg -H || dmesg") +
		"[Thu Jul 21 17:39:11 2022] Out of memory: Kill process 31337 (memcached) score 912 or sacrifice child\n" +
		"[Thu Jul 21 17:39:11 2022] Killed process 31337 (memcached) total-vm:9863044kB, anon-rss:7712300kB, file-rss:0kB, shmem-rss:0kB\n"
	r := parsertest.Parse(CouchbaseLogFormat, origin, []byte(in))
	k := r.OfKind(OOMKill)
	if len(k) != 1 || k[0].Attr("pid") != "31337" || k[0].Attr("trigger") != "" || k[0].Offset != 0 {
		t.Fatalf("kills: %v", r.Events)
	}
}

func TestSyslog(t *testing.T) {
	o := forensics.Origin{Path: "cbcollect_info_ns_1@10.20.0.12_20240311-142922/syslog.tar.gz!var/log/kern.log", Name: "kern.log", Node: "ns_1@10.20.0.12"}
	in := "Mar 11 06:58:09 cb-02 kernel: [862346.101010] eth0: link up\n" +
		"Mar 11 06:58:10 cb-02 kernel: [862347.915224] Out of memory: Killed process 2817 (memcached) total-vm:17753888kB, anon-rss:15302524kB, file-rss:0kB, shmem-rss:0kB, UID:998 pgtables:31204kB oom_score_adj:0\n" +
		"Mar 11 06:58:11 cb-02 systemd[1]: couchbase-server.service: A process of this unit has been killed by the OOM killer.\n" +
		"2024-03-11T06:58:12.000123-07:00 cb-02 kernel: oom_reaper: reaped process 2817 (memcached), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n"
	if s := detectSyslog(o.Name, []byte(in)); s < 80 {
		t.Errorf("detect %d", s)
	}
	r := parsertest.Parse(SyslogFormat, o, []byte(in))
	k := r.OfKind(OOMKill)
	if len(k) != 1 || k[0].Zone != forensics.ZoneAssumed || k[0].Time.Year() != 2024 || k[0].Attr("pid") != "2817" {
		t.Fatalf("kills: %v", r.Events)
	}
	if len(r.Events) != 1 {
		t.Errorf("oom_reaper and systemd lines are not kills: %v", r.Events)
	}
	parsertest.Check(t, SyslogFormat, o, []byte(in))
}

func TestPlainLinesDoNotAllocate(t *testing.T) {
	p := newCouchbaseLog(origin)
	var in []string
	for _, l := range strings.Split(cbLogInput, "\n") {
		in = append(in, l)
	}
	for i, l := range in { // read the headers once, so the buffers exist
		p.Line(int64(i+1), []byte(l), func(*forensics.Event) {})
	}
	line := []byte("[Mon Mar 11 06:58:09 2024] nvme nvme0: I/O 12 QID 3 timeout, completion polled")
	allocs := testing.AllocsPerRun(100, func() { p.Line(99, line, func(*forensics.Event) {}) })
	if allocs != 0 {
		t.Errorf("%v allocations per plain kernel line", allocs)
	}
}

func BenchmarkCouchbaseLog(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(cbLogInput)
	buf.WriteString(header("Kernel log buffer", "dmesg -T || dmesg -H || dmesg"))
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, "[Mon Mar 11 06:%02d:%02d 2024] EXT4-fs (nvme1n1): re-mounted. Opts: (null). Quota mode: none.\n", i/60%60, i%60)
	}
	parsertest.Bench(b, CouchbaseLogFormat, origin, buf.Bytes())
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(cbLogInput))
	f.Add([]byte("Mar 11 06:58:10 cb-02 kernel: Out of memory: Killed process 2817 (memcached)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsertest.Check(t, CouchbaseLogFormat, origin, data)
		parsertest.Check(t, SyslogFormat, forensics.Origin{Name: "syslog", Node: "n"}, data)
	})
}

func TestMemInfo(t *testing.T) {
	in := header("time and TZ", "date; date -u") + "Mon Mar 11 07:29:22 PDT 2024\nMon Mar 11 14:29:22 UTC 2024\n" +
		header("Raw /proc/meminfo", "cat /proc/meminfo") +
		"MemTotal:       32567812 kB\nMemFree:          412332 kB\nMemAvailable:    1203944 kB\nBuffers:           45120 kB\n" +
		header("Filesystem", "df -ha") + "/dev/nvme1n1    492G  180G  312G  37% /data\n"
	r := parsertest.Parse(CouchbaseLogFormat, origin, []byte(in))
	m := r.OfKind(MemInfo)
	if len(m) != 1 || m[0].Attr("mem_total_kb") != "32567812" || m[0].Attr("mem_available_kb") != "1203944" || m[0].Line != 11 ||
		!m[0].Time.Equal(time.Date(2024, 3, 11, 14, 29, 22, 0, time.UTC)) {
		t.Fatalf("got %v", r.Events)
	}
	// At the end of the file too.
	r = parsertest.Parse(CouchbaseLogFormat, origin, []byte(header("Raw /proc/meminfo", "cat /proc/meminfo")+"MemTotal:       32567812 kB\n"))
	if m := r.OfKind(MemInfo); len(m) != 1 {
		t.Fatalf("at the end: %v", r.Events)
	}
	parsertest.Check(t, CouchbaseLogFormat, origin, []byte(in))
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name string
		head string
		min  int
		max  int
	}{
		{"couchbase.log", strings.Repeat("=", 78) + "\n", 90, 100},
		{"kern.log", "Mar 11 06:58:09 cb-02 kernel: x\n", 80, 80},
		{"syslog.1", "2024-03-11T06:58:12.000123-07:00 cb-02 kernel: x\n", 80, 80},
		{"systemd_journal", "-- Logs begin at Fri 2024-03-01 07:29:21 PST, end at Mon 2024-03-11 07:29:23 PDT. --\n", 80, 80},
		{"messages-20240310", "", 40, 40},
		{"debug.log", "Mar 11 06:58:09 cb-02 kernel: x\n", 0, 0},
		{"memcached.log", "", 0, 0},
	} {
		s := max(CouchbaseLogFormat.Detect(c.name, []byte(c.head)), SyslogFormat.Detect(c.name, []byte(c.head)))
		if s < c.min || s > c.max {
			t.Errorf("%s: %d, want %d–%d", c.name, s, c.min, c.max)
		}
	}
}
