// Package oomkill holds the rule cb-oom-kill: a Couchbase process killed by
// the Linux OOM killer, as the kernel tells it (dmesg and journalctl -k in
// couchbase.log, syslog.tar.gz, systemd_journal.gz) and as ns_server saw
// the service exit.
package oomkill

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/cbstats"
	"forensics/parsers/nsserver"
	"forensics/parsers/oslog"
	"forensics/rules/evidence"
	"forensics/shell"
)

const (
	oomKill       = oslog.OOMKill
	oomConstraint = oslog.OOMConstraint
	oomInvoked    = oslog.OOMInvoked

	nsExited        = nsserver.ServiceExited
	nsPortExited    = nsserver.PortExited
	nsFailoverStart = nsserver.FailoverStart
	nsAutoFailover  = nsserver.AutoFailover

	memInfo     = oslog.MemInfo
	bucketQuota = cbstats.BucketQuota
)

// The details of a finding's subject (Rule.Details).
var (
	pidDetail = forensics.Detail{Key: "pid", Type: forensics.DetailInt, Doc: "the process the kernel killed"}
)

// Rule flags OOM kills of Couchbase's processes.
var Rule = &forensics.Rule{
	Name: "cb-oom-kill",
	Doc: forensics.Doc{
		Title: "a Couchbase process killed by the Linux OOM killer",
		Detects: "The kernel's OOM killer killed one of Couchbase's processes (memcached, indexer, cbq-engine, " +
			"projector, goxdcr, cbft, eventing, cbas, ns_server's beam.smp, …) on a node: \"Out of memory: Killed " +
			"process PID (NAME) …\" or \"oom-kill:constraint=…,task=NAME,pid=PID\" in the kernel's log. One finding " +
			"per node, process and pid, with the memory the kernel reports for it, the service exit ns_server logged " +
			"(\"Service 'memcached' exited with status 137\"), and whether the node was failed over after it. " +
			"Severity high; critical when the node was then failed over. A status 137 with no OOM-kill record " +
			"(killed by a person or a script) is not flagged, nor is an OOM kill of a process that is not Couchbase's.",
		Why: "A killed memcached drops every connection and warms its buckets up again from disk; a killed indexer " +
			"rebuilds its in-memory state and restarts its streams; both can lead to an auto-failover. The kernel " +
			"kills the process that uses most memory, so the kill says the node's memory is overcommitted: quotas " +
			"too close to the RAM, another process on the host, or a memory leak. Restarting does not fix it; it " +
			"will happen again under the same load.",
		Confirm: "In couchbase.log, in the \"Kernel log buffer\" section (dmesg -T) or \"Collect dmesg from " +
			"journalctl\" (journalctl -k), find \"Out of memory: Killed process\" with the process name; the " +
			"anon-rss figure is what it used. In ns_server.babysitter.log / ns_server.info.log / diag.log find " +
			"\"Service 'NAME' exited with status 137\" (128 + SIGKILL) at about the same time. dmesg -T prints " +
			"local time computed from the boot time and drifts by the time the machine was suspended; raw dmesg " +
			"and journalctl -k print seconds since boot, which forensics places using the \"time and TZ\" and " +
			"\"Raw /proc/uptime\" sections. Try: forensics timeline query --kind kernel.oom_kill.",
		Inputs: "couchbase.log of the node (its dmesg sections, date and /proc/uptime), or syslog.tar.gz / " +
			"systemd_journal.gz; ns_server.babysitter.log or ns_server.info.log or diag.log for the exit; diag.log " +
			"or the event log for a failover after it.",
		Fixes: "Find what used the memory (the kill's RSS figures; other processes in the OOM report), then bring " +
			"the node's quotas (data, index, search, analytics, eventing) plus the OS and other processes under " +
			"its RAM, or add RAM or nodes. For memcached, lower the bucket quotas or the cluster data quota; for " +
			"the indexer, the index service quota; do not run other memory-hungry processes on Couchbase nodes.",
	},
	Kinds: []forensics.Kind{oomKill, oomConstraint, oomInvoked, nsExited, nsPortExited, nsFailoverStart, nsAutoFailover,
		memInfo, bucketQuota},
	Details: []forensics.Detail{pidDetail},
	Run:     run,
}

// services maps a process name as the kernel prints it (task comm, at most
// 15 characters) to the name ns_server's babysitter gives the service.
var services = map[string]string{
	"memcached": "memcached", "indexer": "indexer", "projector": "projector", "cbq-engine": "cbq-engine",
	"goxdcr": "goxdcr", "cbft": "fts", "eventing-produc": "eventing", "eventing-consum": "eventing",
	"cbas": "cbas", "beam.smp": "ns_server", "prometheus": "prometheus", "saslauthd-port": "saslauthd_port",
	"backup": "backup", "goport": "goport",
}

// couchbaseProcess reports whether a kill is of Couchbase's: by name, or by
// the memory cgroup of Couchbase's systemd unit.
func couchbaseProcess(kill, constraint *forensics.Event) bool {
	if _, ok := services[kill.Attr(oslog.AttrProcess)]; ok {
		return true
	}
	return constraint != nil && strings.Contains(constraint.Attr(oslog.AttrTaskMemcg), "couchbase")
}

// exitWindow is how far from the kill the service exit may be logged: the
// babysitter notices at once, but the kill's time is only as exact as its
// clock (uncertainty_s), and a syslog time without zone may be off by the
// node's UTC offset.
const exitWindow = 2 * time.Minute

func run(p *forensics.Pass) error {
	evs, err := forensics.Collect(p.Events(p.Rule.Kinds...))
	if err != nil {
		return err
	}
	by := evidence.ByKind(evs)
	type key struct{ node, pid, process string }
	seen := map[key]bool{}
	kills := by[oomKill]
	// The best-placed copy of each kill first: dmesg -T with a known offset,
	// then since-boot, then a syslog time without zone.
	sort.SliceStable(kills, func(i, j int) bool { return placement(kills[i]) < placement(kills[j]) })
	for _, k := range kills {
		id := key{k.Node, k.Attr(oslog.AttrPID), k.Attr(oslog.AttrProcess)}
		if seen[id] {
			continue
		}
		seen[id] = true
		var constraint, invoked *forensics.Event
		for _, c := range by[oomConstraint] {
			if c.Node == k.Node && c.Attr(oslog.AttrPID) == id.pid && near(c.Time, k.Time, time.Minute) {
				constraint = c
				break
			}
		}
		if !couchbaseProcess(k, constraint) {
			continue
		}
		for _, c := range by[oomInvoked] {
			if c.Node == k.Node && !c.Time.After(k.Time) && k.Time.Sub(c.Time) < time.Minute {
				invoked = c
			}
		}
		p.Report(finding(k, constraint, invoked, by))
	}
	return nil
}

func placement(e *forensics.Event) int {
	switch {
	case e.Zone == forensics.ZoneLogged:
		return 0
	case e.Attr(oslog.AttrClock) == "since-boot":
		return 1
	case e.Zone == forensics.ZoneUTC:
		return 2
	}
	return 3
}

func near(a, b time.Time, d time.Duration) bool {
	x := a.Sub(b)
	return x <= d && x >= -d
}

// uncertainty is how far the kill's time may be from the truth.
func uncertainty(k *forensics.Event) time.Duration {
	if s, err := strconv.Atoi(k.Attr(oslog.AttrUncertaintyS)); err == nil {
		return time.Duration(s) * time.Second
	}
	return 0
}

// matchesExit reports whether an exit at t can be the kill's: within the
// window, or, for a syslog time whose zone is not logged, within the window
// of the kill shifted by a whole number of quarter hours (a UTC offset).
func matchesExit(k *forensics.Event, t time.Time) bool {
	w := exitWindow + uncertainty(k)
	if near(t, k.Time, w) {
		return true
	}
	if k.Zone != forensics.ZoneAssumed {
		return false
	}
	d := t.Sub(k.Time)
	q := d.Round(15 * time.Minute)
	return q != 0 && q >= -14*time.Hour && q <= 14*time.Hour && near(t, k.Time.Add(q), w)
}

func finding(k, constraint, invoked *forensics.Event, by map[forensics.Kind][]*forensics.Event) forensics.Finding {
	node, process := k.Node, k.Attr(oslog.AttrProcess)
	service := services[process]
	if service == "" {
		service = process
	}
	pid, _ := strconv.ParseInt(k.Attr(oslog.AttrPID), 10, 64)
	ev := evidence.Set{Copies: true}
	if invoked != nil {
		ev.Add(invoked, "an allocation by "+invoked.Attr(oslog.AttrProcess)+" made the kernel run the OOM killer")
	}
	if constraint != nil {
		ev.Add(constraint, fmt.Sprintf("the OOM killer picks %s (pid %s), %s", process, k.Attr(oslog.AttrPID), constraintWords(constraint)))
	}
	ev.Add(k, fmt.Sprintf("the kernel kills %s (pid %s)%s", process, k.Attr(oslog.AttrPID), rssWords(k)))

	var exit *forensics.Event
	for _, kind := range []forensics.Kind{nsExited, nsPortExited} {
		for _, e := range by[kind] {
			if e.Node == node && e.Attr(nsserver.AttrService) == service && matchesExit(k, e.Time) && (exit == nil || e.Attr(nsserver.AttrVia) == "" && exit.Attr(nsserver.AttrVia) != "") {
				exit = e
			}
		}
		if exit != nil {
			break
		}
	}
	if exit != nil {
		st := exit.Attr(nsserver.AttrStatus)
		ev.Add(exit, "ns_server sees "+service+" exit"+map[bool]string{true: " with status " + st, false: ""}[st != ""]+" and restarts it")
	}
	anchor := k.Time
	if exit != nil {
		anchor = exit.Time
	}
	var fo *forensics.Event
	for _, kind := range []forensics.Kind{nsAutoFailover, nsFailoverStart} {
		for _, e := range by[kind] {
			if nsserver.HasNode(e.Attr(nsserver.AttrNodes), node) && !e.Time.Before(anchor.Add(-time.Minute)) && e.Time.Sub(anchor) < 2*time.Hour {
				if fo == nil || e.Time.Before(fo.Time) {
					fo = e
				}
			}
		}
	}
	if fo != nil {
		ev.Add(fo, "then the node is failed over")
	}

	f := forensics.Finding{
		Severity: forensics.High,
		Subject:  forensics.FindingSubject{Node: node, Service: service, Details: forensics.Details{pidDetail.Int(pid)}},
		Start:    k.Time,
		Evidence: ev.Sorted(),
	}
	if fo != nil {
		f.Severity = forensics.Critical
	}
	f.End = f.Evidence[len(f.Evidence)-1].Time
	if f.End.Before(f.Start) {
		f.End = f.Start
	}
	f.Title = fmt.Sprintf("the Linux OOM killer killed %s (pid %s) on %s", process, k.Attr(oslog.AttrPID), node)
	if fo != nil {
		f.Title += ", and the node was then failed over"
	}
	f.Explanation = explain(k, constraint, exit, fo, service, memoryWords(node, by))
	f.Fixes = fixes(node, service)
	return f
}

func constraintWords(c *forensics.Event) string {
	var parts []string
	if v := c.Attr(oslog.AttrConstraint); v != "" {
		parts = append(parts, "constraint "+v)
	}
	if v := c.Attr(oslog.AttrTaskMemcg); v != "" {
		parts = append(parts, "memory cgroup "+v)
	}
	return strings.Join(parts, ", ")
}

func rssWords(k *forensics.Event) string {
	if v := k.Attr(oslog.AttrAnonRSSKB); v != "" {
		return ", which had " + kb(v) + " of anonymous memory resident"
	}
	return ""
}

// kb prints a kB figure from the kernel in GiB or MiB.
func kb(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return v + " kB"
	}
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<10))
}

func placedWords(k *forensics.Event) string {
	switch {
	case k.Attr(oslog.AttrClock) == "since-boot":
		return fmt.Sprintf("The kernel logged it %s s after boot; forensics places that at %s UTC from the bundle's own clock (the \"time and TZ\" and \"Raw /proc/uptime\" sections of couchbase.log), to within about %s s: those tasks run tens of seconds apart and the kernel's clock stops while the machine is suspended.",
			k.Attr(oslog.AttrSinceBootS), evidence.Clock(k.Time), k.Attr(oslog.AttrUncertaintyS))
	case k.Attr(oslog.AttrClock) == "dmesg -T" && k.Zone == forensics.ZoneLogged:
		return "dmesg -T printed it in the node's local time (whole seconds; the UTC offset comes from couchbase.log's \"time and TZ\" section); dmesg -T derives it from the boot time, so it is late by any time the machine spent suspended."
	case k.Zone == forensics.ZoneAssumed:
		return "The kernel's line carries a local time without its UTC offset; it is read as UTC here, so it may be off by the node's offset."
	}
	return ""
}

// memoryWords says what the bundle tells of the node's memory: its RAM
// (couchbase.log's /proc/meminfo) and its buckets' quotas (stats.log's
// ep_max_size), both as of the collection.
func memoryWords(node string, by map[forensics.Kind][]*forensics.Event) string {
	var ram int64
	for _, e := range by[memInfo] {
		if e.Node == node {
			ram, _ = strconv.ParseInt(e.Attr(oslog.AttrMemTotalKB), 10, 64)
		}
	}
	var total int64
	var parts []string
	seen := map[string]bool{}
	for _, e := range by[bucketQuota] {
		if e.Node != node || seen[e.Bucket] {
			continue
		}
		seen[e.Bucket] = true
		n, err := strconv.ParseInt(e.Attr(cbstats.AttrMaxSize), 10, 64)
		if err != nil {
			continue
		}
		total += n
		parts = append(parts, e.Bucket+" "+kb(strconv.FormatInt(n/1024, 10)))
	}
	sort.Strings(parts)
	var b strings.Builder
	if ram > 0 {
		fmt.Fprintf(&b, "The node has %s of RAM (MemTotal in couchbase.log).", kb(strconv.FormatInt(ram, 10)))
	}
	if total > 0 {
		fmt.Fprintf(&b, " Its buckets' memory quotas at collection time (ep_max_size in stats.log) add up to %s: %s.", kb(strconv.FormatInt(total/1024, 10)), strings.Join(parts, ", "))
		if ram > 0 {
			fmt.Fprintf(&b, " That is %.0f%% of the RAM for the data service alone, before the index, search, query and analytics services, the OS and the page cache.", 100*float64(total/1024)/float64(ram))
		}
	}
	if b.Len() == 0 {
		return "The memory quotas of the node are not in the files read here: compare the data, index, search, analytics and eventing quotas of /pools/default with the node's RAM (couchbase.log's \"Raw /proc/meminfo\" section)."
	}
	if total == 0 {
		b.WriteString(" The buckets' quotas are not in the files read here (stats.log has them as ep_max_size).")
	}
	return strings.TrimSpace(b.String())
}

func explain(k, constraint, exit, fo *forensics.Event, service, memory string) string {
	var paras []string
	var b strings.Builder
	fmt.Fprintf(&b, "On %s at %s (UTC) the Linux OOM killer on %s killed %s, pid %s", evidence.Day(k.Time), evidence.Clock(k.Time), k.Node, k.Attr(oslog.AttrProcess), k.Attr(oslog.AttrPID))
	if t := k.Attr(oslog.AttrTrigger); t != "" {
		fmt.Fprintf(&b, " (\"%s\")", t)
	}
	b.WriteString(".")
	if v := k.Attr(oslog.AttrAnonRSSKB); v != "" {
		fmt.Fprintf(&b, " At the kill it had %s of anonymous memory resident (anon-rss), %s of file pages (file-rss), and %s of address space (total-vm): that is the memory the kernel took back.",
			kb(v), kb(orZero(k.Attr(oslog.AttrFileRSSKB))), kb(orZero(k.Attr(oslog.AttrTotalVMKB))))
	}
	if constraint != nil {
		if constraint.Attr(oslog.AttrConstraint) == "CONSTRAINT_MEMCG" || constraint.Attr(oslog.AttrOomMemcg) != "" {
			fmt.Fprintf(&b, " The limit hit was a memory cgroup's (%s), not the machine's RAM.", constraintWords(constraint))
		} else if c := constraint.Attr(oslog.AttrConstraint); c != "" {
			fmt.Fprintf(&b, " The kernel ran out of memory for the whole machine (%s).", c)
		}
	}
	if s := placedWords(k); s != "" {
		b.WriteString(" " + s)
	}
	paras = append(paras, b.String())
	b.Reset()
	if exit != nil {
		fmt.Fprintf(&b, "At %s ns_server saw %s exit", evidence.Clock(exit.Time), service)
		if st := exit.Attr(nsserver.AttrStatus); st != "" {
			fmt.Fprintf(&b, " with status %s", st)
			if st == "137" {
				b.WriteString(" (128 + 9: killed by SIGKILL, which is what the OOM killer sends)")
			}
		}
		b.WriteString(" and restarted it.")
	} else {
		fmt.Fprintf(&b, "The logs read here do not show ns_server noticing %s's exit (ns_server.babysitter.log or diag.log may be missing from the bundle).", service)
	}
	if service == "memcached" {
		b.WriteString(" A restarted memcached warms every bucket up again from disk; clients get temporary failures until traffic is enabled.")
	}
	paras = append(paras, b.String())
	if fo != nil {
		paras = append(paras, fmt.Sprintf("At %s the node was failed over (%s).", evidence.Clock(fo.Time), evidence.FirstLine(fo.Text)))
	}
	paras = append(paras, memory)
	return strings.Join(paras, "\n\n")
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func fixes(node, service string) []forensics.Fix {
	h := names.HostOr(nsserver.Host(node))
	quotas := shell.Command("curl", "-s", "-u", "Administrator:PASSWORD", "http://"+h+":8091/pools/default") +
		" | jq '{memoryQuota, indexMemoryQuota, ftsMemoryQuota, cbasMemoryQuota, eventingMemoryQuota, ram: .storageTotals.ram}'"
	fs := []forensics.Fix{{
		Title: "Check the node's memory quotas against its RAM",
		Steps: []string{
			"The quotas of every service on " + h + ", plus the operating system and anything else running there, must fit in its RAM with a margin (Couchbase recommends leaving at least 20% to the OS).",
			"Compare the OOM report's RSS figures with the quota of the service that was killed; a process far above its quota points at a leak or a known issue of its release.",
		},
		Commands: []string{quotas},
	}}
	switch service {
	case "memcached":
		fs = append(fs, forensics.Fix{
			Title: "Lower the data service's memory use on " + h,
			Steps: []string{"Lower the bucket quotas (or the cluster's data quota) so that memcached's resident memory stays under the RAM left by the other services, or add RAM or data nodes."},
			Commands: []string{
				shell.Command("cbstats", h+":11210", "-u", "Administrator", "-p", "PASSWORD", "-a", "memory"),
				shell.Command("couchbase-cli", "setting-cluster", "-c", h+":8091", "-u", "Administrator", "-p", "PASSWORD", "--cluster-ramsize", "QUOTA_MB"),
			},
		})
	case "indexer", "projector":
		fs = append(fs, forensics.Fix{
			Title:    "Lower the index service's memory use on " + h,
			Steps:    []string{"Lower the index service quota, or move indexes to other index nodes; with the memory-optimised storage an index that does not fit makes the indexer grow without bound."},
			Commands: []string{shell.Command("couchbase-cli", "setting-cluster", "-c", h+":8091", "-u", "Administrator", "-p", "PASSWORD", "--cluster-index-ramsize", "QUOTA_MB")},
		})
	}
	return fs
}
