// Package diskstall holds the rule crdb-disk-stall: a CockroachDB node that
// stopped on a disk stall.
package diskstall

import (
	"fmt"
	"path"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/crdb"
	"forensics/rules/evidence"
	"forensics/shell"
)

// The details of a finding's subject (Rule.Details).
var (
	storeDetail = forensics.Detail{Key: "store", Type: forensics.DetailText, Doc: "the store that stalled: \"s1\", or its path when no tag names it"}
)

// Rule flags a disk stall.
var Rule = &forensics.Rule{
	Name: "crdb-disk-stall",
	Doc: forensics.Doc{
		Title: "a node stopped because a write to its disk did not finish in time",
		Detects: `A node that logged a disk stall: "disk stall detected: unable to write to <store> within 20s" (v1.1–v22.1),
"disk stall detected: pebble unable to write to <file> in N seconds" (v20.2–v22.1), "disk stall detected: unable to
sync log files within …", or "file write stall detected: disk slowness detected: <op> on file <file> has been ongoing
for Ns" (v22.2+), with the "disk slowness detected" warnings before it, how long the stall lasted and what else the
node logged while its writes were stuck (slow or failed liveness heartbeats, slow proposals, its liveness epoch
incremented by another node so its leases moved). One finding per node and stall. Severity critical.
Not flagged: "disk slowness detected" warnings that stop without a stall.`,
		Why: `Every write waits for the write-ahead log to reach the disk. When a sync hangs, the node can neither commit nor
heartbeat its liveness record, so its leases expire and its ranges stall until it stops; CockroachDB ends the process
on purpose after storage.max_sync_duration (20s by default) so that the other replicas take over. A disk that stalls
once usually stalls again: the node will crash-loop until the disk or its volume is fixed.`,
		Confirm: `On the node's host look for I/O errors and long waits: dmesg -T, iostat -x (await, %util), the cloud volume's
throughput and IOPS limits and burst credits. In the DB Console, the node's Disk graphs and storage.disk-stalled /
storage.write-stall-nanos show the stall.`,
		Inputs: `Node logs in any format, or a debug zip's debug/nodes/N/logs, including the STORAGE channel's cockroach-pebble.log
(cockroach-storage.log) where the slowness warnings go, and the main cockroach.log or stderr where the fatal line goes.`,
		Fixes: `Fix or replace the disk (or raise the volume's provisioned IOPS and throughput), then restart the node. Keep
storage.max_sync_duration.fatal.enabled on: a node on a stalled disk holds leases it cannot serve.`,
	},
	Kinds: []forensics.Kind{
		crdb.KindDiskStall, crdb.KindDiskSlow,
		crdb.KindHeartbeatSlow, crdb.KindHeartbeatFailed, crdb.KindEpochIncremented, crdb.KindProposalSlow,
	},
	Details: []forensics.Detail{storeDetail},
	Run:     run,
}

const (
	// before is how far back the warnings of a stall are read: the stall
	// is fatal after 20s by default, at most a few minutes when configured.
	before = 5 * time.Minute
	// after covers what others logged about the node once it stopped: its
	// liveness epoch incremented, its ranges' proposals.
	after = 2 * time.Minute
	// sameStall joins the stall lines of one stall: each store, the log
	// files and stderr may report it.
	sameStall = time.Minute
	// slowGap is the longest pause between slowness warnings of one stall:
	// pebble warns every few seconds while an operation hangs.
	slowGap = 30 * time.Second
	// heartbeatSlack is about two liveness heartbeat timeouts (4.5s each).
	heartbeatSlack = 10 * time.Second
)

var contextKinds = []forensics.Kind{crdb.KindDiskSlow, crdb.KindHeartbeatSlow, crdb.KindHeartbeatFailed, crdb.KindEpochIncremented, crdb.KindProposalSlow}

func run(pass *forensics.Pass) error {
	stalls, err := forensics.Collect(pass.Events(crdb.KindDiskStall))
	if err != nil {
		return fmt.Errorf("read disk stalls: %w", err)
	}
	if len(stalls) == 0 {
		return nil
	}
	around, err := forensics.Collect(pass.EventsNear(stalls, before, after, contextKinds...))
	if err != nil {
		return fmt.Errorf("read what the nodes logged around the stalls: %w", err)
	}
	for _, s := range group(stalls) {
		pass.Report(s.finding(around))
	}
	return nil
}

// stall is one node's disk stall.
type stall struct {
	node  string
	first *forensics.Event
	lines []*forensics.Event
}

func group(evs []forensics.Event) []*stall {
	var out []*stall
	last := map[string]*stall{}
	for i := range evs {
		e := &evs[i]
		if s := last[e.Node]; s != nil && e.Time.Sub(s.lines[len(s.lines)-1].Time) <= sameStall {
			s.lines = append(s.lines, e)
			continue
		}
		s := &stall{node: e.Node, first: e, lines: []*forensics.Event{e}}
		last[e.Node] = s
		out = append(out, s)
	}
	return out
}

func (s *stall) fatal() *forensics.Event {
	for _, l := range s.lines {
		if l.Attr(crdb.AttrFatal) == "true" {
			return l
		}
	}
	return nil
}

// store names the stalled store: the s tag, else the path of its files.
func (s *stall) store() string {
	for _, l := range s.lines {
		if st := l.Attr(crdb.AttrStore); st != "" {
			return st
		}
	}
	for _, l := range s.lines {
		if p := l.Attr(crdb.AttrPath); p != "" && p != "log files" {
			// An engine prints as "<attrs>=<dir>" (node.go's stall line).
			if i := strings.Index(p, "=/"); i >= 0 {
				p = p[i+1:]
			}
			if strings.HasSuffix(p, ".log") || strings.HasSuffix(p, ".sst") {
				p = path.Dir(p)
			}
			return p
		}
	}
	return ""
}

// story is what the node logged around the stall.
type story struct {
	slow       []*forensics.Event // slowness warnings that led to it
	heartbeats []*forensics.Event // slow or failed liveness heartbeats
	proposals  []*forensics.Event // slow proposals
	epochs     []*forensics.Event // its epoch incremented by another node
}

func (s *stall) story(around []forensics.Event) story {
	var st story
	at := s.first.Time
	around = forensics.Distinct(around)
	// The slowness warnings: the run that ends at the stall.
	var slow []*forensics.Event
	for i := range around {
		e := &around[i]
		switch {
		case e.Kind == crdb.KindDiskSlow && e.Node == s.node && !e.Time.After(at):
			slow = append(slow, e)
		case e.Kind == crdb.KindEpochIncremented && e.Attr(crdb.AttrTarget) == s.node:
			if !e.Time.Before(at.Add(-before)) && !e.Time.After(at.Add(after)) {
				st.epochs = append(st.epochs, e)
			}
		}
	}
	for i := len(slow) - 1; i >= 0; i-- {
		next := at
		if i+1 < len(slow) {
			next = slow[i+1].Time
		}
		if next.Sub(slow[i].Time) > slowGap+s.logged() {
			break
		}
		st.slow = append([]*forensics.Event{slow[i]}, st.slow...)
	}
	// The stall's start is a lower bound (the line gives how long the
	// write had waited when it was noticed), and a heartbeat is logged when
	// it returns: take those that ended shortly before it too.
	from := s.start(st).Add(-heartbeatSlack)
	for i := range around {
		e := &around[i]
		if e.Node != s.node || e.Time.Before(from) || e.Time.After(s.lines[len(s.lines)-1].Time) {
			continue
		}
		switch e.Kind {
		case crdb.KindHeartbeatSlow:
			if e.Attr(crdb.AttrError) == "<nil>" && !slowerThan(e, time.Second) {
				continue
			}
			st.heartbeats = append(st.heartbeats, e)
		case crdb.KindHeartbeatFailed:
			// The failure repeats the slow heartbeat line logged just before
			// for the same attempt (liveness.go): count the attempt once.
			if n := len(st.heartbeats); n > 0 && st.heartbeats[n-1].Kind == crdb.KindHeartbeatSlow && e.Time.Sub(st.heartbeats[n-1].Time) < time.Second {
				st.heartbeats[n-1] = e
				continue
			}
			st.heartbeats = append(st.heartbeats, e)
		case crdb.KindProposalSlow:
			st.proposals = append(st.proposals, e)
		}
	}
	return st
}

func slowerThan(e *forensics.Event, d time.Duration) bool {
	v, err := time.ParseDuration(e.Attr(crdb.AttrDuration))
	return err == nil && v > d
}

// logged is the duration the stall line itself gives.
func (s *stall) logged() time.Duration {
	var max time.Duration
	for _, l := range s.lines {
		if d, err := time.ParseDuration(l.Attr(crdb.AttrDuration)); err == nil && d > max {
			max = d
		}
	}
	return max
}

// start is when writes got stuck, as far as the logs tell: the stall line
// minus the time it says the write waited, or the first slowness warning
// minus its own wait, whichever is earlier.
func (s *stall) start(st story) time.Time {
	start := s.first.Time.Add(-s.logged())
	if len(st.slow) > 0 {
		w := st.slow[0]
		d, _ := time.ParseDuration(w.Attr(crdb.AttrDuration))
		if t := w.Time.Add(-d); t.Before(start) {
			start = t
		}
	}
	return start
}

func (s *stall) finding(around []forensics.Event) forensics.Finding {
	st := s.story(around)
	start := s.start(st)
	end := s.lines[len(s.lines)-1].Time
	verb := "stopped on"
	if s.fatal() == nil {
		verb = "logged"
	}
	store := s.store()
	title := fmt.Sprintf("%s %s a disk stall: writes stuck for at least %s", s.node, verb, evidence.Round(end.Sub(start)))
	if store != "" {
		title = fmt.Sprintf("%s %s a disk stall on %s: writes stuck for at least %s", s.node, verb, store, evidence.Round(end.Sub(start)))
	}
	f := forensics.Finding{
		Severity: forensics.Critical,
		Title:    title,
		Subject:  forensics.FindingSubject{Node: s.node, Details: forensics.Details{storeDetail.Text(store)}},
		Start:    start,
		End:      end,
	}
	f.Explanation = s.explain(st, start, end, store)
	f.Evidence = s.evidence(st)
	f.Fixes = s.fixes(store)
	return f
}

func (s *stall) explain(st story, start, end time.Time, store string) string {
	var b strings.Builder
	on := ""
	if store != "" {
		on = " on " + store
	}
	if len(st.slow) > 0 {
		w := st.slow[0]
		fmt.Fprintf(&b, "At %s %s warned of disk slowness%s: %s on %s had been running for %s. ",
			evidence.Stamp(w.Time), s.node, on, w.Attr(crdb.AttrOp), w.Attr(crdb.AttrPath), w.Attr(crdb.AttrDuration))
		switch n := len(st.slow) - 1; {
		case n == 1:
			fmt.Fprintf(&b, "Another warning followed at %s. ", evidence.Clock(st.slow[1].Time))
		case n > 1:
			fmt.Fprintf(&b, "%d more warnings followed, the last at %s. ", n, evidence.Clock(st.slow[n].Time))
		}
	}
	if len(st.heartbeats) > 0 {
		h := st.heartbeats[0]
		fmt.Fprintf(&b, "Around the stall %s's liveness heartbeats suffered (%d slow or failed, the first at %s: %s). ",
			s.node, len(st.heartbeats), evidence.Clock(h.Time), heartbeatWords(h))
	}
	if len(st.proposals) > 0 {
		var ranges []string
		seen := map[int64]bool{}
		for _, p := range st.proposals {
			if p.Range != 0 && !seen[p.Range] {
				seen[p.Range] = true
				ranges = append(ranges, fmt.Sprintf("r%d", p.Range))
			}
		}
		fmt.Fprintf(&b, "Proposals waited on %s (%d slow proposals). ", strings.Join(ranges, ", "), len(st.proposals))
	}
	first := s.first
	fmt.Fprintf(&b, "At %s %s logged \"%s\"", evidence.Stamp(first.Time), s.node, firstWords(first))
	if d := first.Attr(crdb.AttrDuration); d != "" {
		fmt.Fprintf(&b, " (a write waited %s)", d)
	}
	if f := s.fatal(); f != nil {
		fmt.Fprintf(&b, " and the process stopped at %s", evidence.Clock(f.Time))
	} else {
		b.WriteString("; the stall was not fatal (storage.max_sync_duration.fatal.enabled is off, or a warning only), so the node went on with a stuck disk")
	}
	fmt.Fprintf(&b, ". Writes were stuck from %s to %s (%s at least). ", evidence.Clock(start), evidence.Clock(end), evidence.Round(end.Sub(start)))
	if len(st.epochs) > 0 {
		e := st.epochs[0]
		fmt.Fprintf(&b, "At %s %s incremented %s's liveness epoch to %s, so %s's epoch leases ended and moved to other nodes. ",
			evidence.Clock(e.Time), e.Node, s.node, e.Attr(crdb.AttrEpoch), s.node)
	}
	b.WriteString("A disk that stalled once tends to stall again: the node will stop again until the disk is fixed.")
	return b.String()
}

func heartbeatWords(e *forensics.Event) string {
	if e.Kind == crdb.KindHeartbeatSlow {
		return "took " + e.Attr(crdb.AttrDuration) + ", err=" + e.Attr(crdb.AttrError)
	}
	return "failed: " + e.Attr(crdb.AttrError)
}

func firstWords(e *forensics.Event) string {
	r := e.Attr(crdb.AttrReason)
	if e.Attr(crdb.AttrOp) != "" && strings.HasPrefix(r, "disk slowness") {
		return "file write stall detected: " + r
	}
	return "disk stall detected: " + r
}

func (s *stall) evidence(st story) []forensics.Evidence {
	var quoted evidence.Set
	add := quoted.Add
	if len(st.slow) > 0 {
		add(st.slow[0], "first disk slowness warning")
		if len(st.slow) > 1 {
			add(st.slow[len(st.slow)-1], "last disk slowness warning before the stall")
		}
	}
	for i, h := range st.heartbeats {
		if i == 3 {
			break
		}
		add(h, "a liveness heartbeat fails or crawls as writes hang")
	}
	if len(st.proposals) > 0 {
		add(st.proposals[0], "a proposal waits on the stuck disk")
	}
	for _, l := range s.lines {
		note := "disk stall"
		if l.Attr(crdb.AttrFatal) == "true" {
			note = "disk stall: the node stops"
		}
		add(l, note)
	}
	for _, e := range st.epochs {
		add(e, e.Node+" increments "+s.node+"'s liveness epoch: its leases move")
	}
	return quoted.Sorted()
}

func (s *stall) fixes(store string) []forensics.Fix {
	id := strings.TrimPrefix(s.node, "n")
	check := forensics.Fix{
		Title: "Find out why " + s.node + "'s disk stalled",
		Steps: []string{
			"On " + s.node + "'s host, look for I/O errors and hung tasks in the kernel log, and at the device's wait times.",
			"On a cloud volume, compare its throughput and IOPS with the volume's limits and burst credits at the time of the stall.",
		},
		Commands: []string{"dmesg -T", "iostat -x 1 10"},
	}
	if store != "" && strings.HasPrefix(store, "/") {
		check.Commands = append(check.Commands, shell.Command("df", "-h", store))
	}
	return []forensics.Fix{
		check,
		{
			Title: "Fix or replace the disk, then restart " + s.node,
			Steps: []string{
				"Replace a failing device or raise the volume's provisioned IOPS and throughput; a node restarted on the same disk stalls again.",
				"Keep storage.max_sync_duration.fatal.enabled on: a node on a stalled disk holds leases it cannot serve. Add your connection flags to the commands.",
			},
			Commands: []string{
				shell.Cockroach("node", "status", id),
				shell.CockroachSQL("SHOW CLUSTER SETTING storage.max_sync_duration"),
			},
		},
	}
}
