// Package diskfull holds the rule cb-disk-full: a node's data disk close to
// full (ns_server's alert) and writes the data service could not make for
// lack of space.
package diskfull

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules/evidence"
	"forensics/shell"
)

const (
	nsDiskAlert   = nsserver.DiskAlert
	nsWriteCommit = nsserver.WriteCommitFailed
	mcWriteFailed = memcached.WriteFailed
)

// The details of a finding's subject (Rule.Details).
var (
	pathDetail = forensics.Detail{Key: "path", Type: forensics.DetailText, Doc: "the disk's path, as ns_server names it"}
)

// Rule flags full disks.
var Rule = &forensics.Rule{
	Name: "cb-disk-full",
	Doc: forensics.Doc{
		Title: "a data disk full or nearly full, and writes that failed for it",
		Detects: "ns_server's \"Approaching full disk warning. Usage of disk \"PATH\" on node \"HOST\" is around N%.\" " +
			"alert, and writes that failed: memcached's flusher errors (\"CouchKVStore::saveDocs: couchstore_commit " +
			"error:… [No space left on device]\", \"saveDocs error\", \"KVBucket::commit: kvstore.commit failed\", " +
			"magma's \"MagmaKVStore::commit: saveDocs … errCode\") and ns_server's \"Write Commit Failure\" alert. " +
			"One finding per node and disk path, with the highest usage the alert gave and the buckets whose writes " +
			"failed. Severity high when writes failed; medium for the alert alone.",
		Why: "When the data disk fills, memcached cannot persist mutations: they stay in memory as dirty items, the " +
			"disk write queue grows, the bucket runs out of memory and rejects writes (TMPFAIL / ENOMEM), " +
			"compaction (which needs free space to rewrite files) cannot run to free any, and replicas and " +
			"indexes fall behind. A node whose writes fail may be auto-failed over (\"Disk reads and writes " +
			"failed on following buckets\").",
		Confirm: "In diag.log or ns_server.info.log find \"Approaching full disk warning\"; in memcached.log of the " +
			"node find \"No space left on device\" or \"couchstore_commit error\"; couchbase.log's \"Filesystem\" " +
			"section (df -ha) shows the usage at collection time. Try: forensics timeline query --kind " +
			"nsserver.disk_alert --kind memcached.write_failed.",
		Inputs: "diag.log or ns_server.info.log (the alerts are logged by the orchestrator for every node); " +
			"memcached.log of the node for the write errors.",
		Fixes: "Free space on the disk (delete old backups, logs or files not Couchbase's; never delete Couchbase's " +
			"data files), or grow the disk; then let compaction run; watch the disk write queue drain.",
	},
	Kinds:   []forensics.Kind{nsDiskAlert, nsWriteCommit, mcWriteFailed},
	Details: []forensics.Detail{pathDetail},
	Run:     run,
}

// place is one node's data path.
type place struct{ node, path string }

func run(p *forensics.Pass) error {
	evs, err := forensics.Collect(p.Events(p.Rule.Kinds...))
	if err != nil || len(evs) == 0 {
		return err
	}
	// Alerts are repeated in every node's diag.log.
	all := evidence.Dedupe(evidence.Ptrs(evs), time.Minute, func(e *forensics.Event) string {
		if e.Kind == mcWriteFailed {
			return e.Path + ":" + fmt.Sprint(e.Line)
		}
		return string(e.Kind) + "|" + e.Attr(nsserver.AttrAlertHost) + "|" + e.Attr(nsserver.AttrPath) + "|" + e.Attr(nsserver.AttrPercent) + "|" + e.Bucket
	})
	groups := map[place][]*forensics.Event{}
	var order []place
	add := func(pl place, e *forensics.Event) {
		if _, ok := groups[pl]; !ok {
			order = append(order, pl)
		}
		groups[pl] = append(groups[pl], e)
	}
	// The alert names the path; a write failure names only its node, and
	// belongs to the node's alerted path when there is exactly one.
	paths := map[string][]string{}
	for _, e := range all {
		if e.Kind == nsDiskAlert {
			n := nsserver.NodeName(e.Attr(nsserver.AttrAlertHost))
			if !slices.Contains(paths[n], e.Attr(nsserver.AttrPath)) {
				paths[n] = append(paths[n], e.Attr(nsserver.AttrPath))
			}
		}
	}
	for _, e := range all {
		switch e.Kind {
		case nsDiskAlert:
			add(place{nsserver.NodeName(e.Attr(nsserver.AttrAlertHost)), e.Attr(nsserver.AttrPath)}, e)
		case nsWriteCommit:
			n := nsserver.NodeName(e.Attr(nsserver.AttrAlertHost))
			add(place{n, single(paths[n])}, e)
		case mcWriteFailed:
			add(place{e.Node, single(paths[e.Node])}, e)
		}
	}
	for _, pl := range order {
		p.Report(finding(pl, groups[pl]))
	}
	return nil
}

func single(ps []string) string {
	if len(ps) == 1 {
		return ps[0]
	}
	return ""
}

func finding(pl place, evs []*forensics.Event) forensics.Finding {
	ev := evidence.Set{Copies: true}
	var alerts, fails, commits []*forensics.Event
	maxPct, maxAt := 0, -1
	buckets := map[string]bool{}
	systems := map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case nsDiskAlert:
			alerts = append(alerts, e)
			var n int
			fmt.Sscan(e.Attr(nsserver.AttrPercent), &n)
			if n > maxPct {
				maxPct, maxAt = n, len(alerts)-1
			}
		case mcWriteFailed:
			fails = append(fails, e)
			if e.Bucket != "" {
				buckets[e.Bucket] = true
			}
			if s := e.Attr(memcached.AttrSystem); s != "" {
				systems[s] = true
			}
		case nsWriteCommit:
			commits = append(commits, e)
			if e.Bucket != "" {
				buckets[e.Bucket] = true
			}
		}
	}
	if len(alerts) > 0 {
		ev.Add(alerts[0], "ns_server: the disk is "+alerts[0].Attr(nsserver.AttrPercent)+"% full")
		if maxAt > 0 {
			ev.Add(alerts[maxAt], "ns_server: the disk is "+alerts[maxAt].Attr(nsserver.AttrPercent)+"% full")
		}
	}
	for i, e := range fails {
		if i >= 4 {
			break
		}
		note := "memcached cannot write " + e.Bucket + "'s data to disk"
		if s := e.Attr(memcached.AttrSystem); s != "" {
			note += ": " + s
		}
		ev.Add(e, note)
	}
	if len(commits) > 0 {
		ev.Add(commits[0], "ns_server: disk writes fail for bucket "+commits[0].Bucket)
	}
	var bs []string
	for b := range buckets {
		bs = append(bs, b)
	}
	sort.Strings(bs)
	wrote := len(fails) > 0 || len(commits) > 0
	f := forensics.Finding{
		Severity: forensics.Medium,
		Subject:  forensics.FindingSubject{Node: pl.node, Details: forensics.Details{pathDetail.Text(pl.path)}},
		Evidence: ev.Sorted(),
	}
	if len(bs) == 1 {
		f.Subject.Bucket = bs[0]
	}
	if wrote {
		f.Severity = forensics.High
	}
	f.Start = f.Evidence[0].Time
	f.End = evs[len(evs)-1].Time
	if f.End.Before(f.Start) {
		f.End = f.Start
	}
	where := pl.path
	if where == "" {
		where = "its data disk"
	}
	switch {
	case wrote && len(alerts) > 0:
		f.Title = fmt.Sprintf("%s on %s is full (%d%%) and writes failed", where, pl.node, maxPct)
	case wrote:
		f.Title = fmt.Sprintf("writes to %s on %s failed", where, pl.node)
	default:
		f.Title = fmt.Sprintf("%s on %s is nearly full (%d%%)", where, pl.node, maxPct)
	}
	var paras []string
	if len(alerts) > 0 {
		paras = append(paras, fmt.Sprintf("On %s at %s (UTC) ns_server warned that disk %s on %s was about %s%% used; it raised the alert %d time(s), up to %d%%.",
			evidence.Day(alerts[0].Time), evidence.Clock(alerts[0].Time), pl.path, pl.node, alerts[0].Attr(nsserver.AttrPercent), len(alerts), maxPct))
	}
	if len(fails) > 0 {
		var ss []string
		for s := range systems {
			ss = append(ss, s)
		}
		sort.Strings(ss)
		s := fmt.Sprintf("From %s to %s memcached on %s logged %d failed disk write(s) (each failed flush logs its couchstore or magma error and the commit that failed), for %s", evidence.Clock(fails[0].Time), evidence.Clock(fails[len(fails)-1].Time), pl.node, len(fails), strings.Join(bs, ", "))
		if len(ss) > 0 {
			s += " (" + strings.Join(ss, "; ") + ")"
		}
		paras = append(paras, s+". The flusher retries; until space is freed the mutations stay in memory as dirty items, the disk write queue grows, and once the bucket's memory is full writes are rejected.")
	} else if len(commits) > 0 {
		paras = append(paras, fmt.Sprintf("At %s ns_server raised Write Commit Failure for %s on %s: items could not be persisted.", evidence.Clock(commits[0].Time), commits[0].Bucket, pl.node))
	}
	if !wrote {
		paras = append(paras, "No write failed in the logs read here; act before the disk fills.")
	}
	if pl.path == "" {
		paras = append(paras, "The logs do not say which disk path: see couchbase.log's \"Filesystem\" section (df -ha) for the node's data path.")
	}
	f.Explanation = strings.Join(paras, "\n\n")
	h := names.HostOr(nsserver.Host(pl.node))
	path := pl.path
	if path == "" {
		path = "/opt/couchbase/var/lib/couchbase/data"
	}
	cmds := []string{"ssh " + shell.Quote(h) + " " + shell.Quote(shell.Command("df", "-h", path))}
	for _, b := range bs {
		if names.Bucket(b) == nil {
			cmds = append(cmds, shell.Command("cbstats", h+":11210", "-u", "Administrator", "-p", "PASSWORD", "-b", b, "all")+" | grep -E 'ep_queue_size|ep_flusher_todo|ep_item_commit_failed'")
		}
	}
	f.Fixes = []forensics.Fix{{
		Title: "Free space on " + path + " on " + h + ", then let compaction and the flusher catch up",
		Steps: []string{
			"Delete what is not Couchbase's on that filesystem (old backups, core files, logs); never delete files under the data path by hand.",
			"Or grow the filesystem. Compaction needs free space about the size of the largest vbucket file to run.",
			"Then check that the disk write queue drains and ep_item_commit_failed stops growing.",
		},
		Commands: cmds,
	}}
	return f
}
