// Package reparent holds the rule vitess-reparent-failed: a
// PlannedReparentShard or EmergencyReparentShard that failed, or left the
// shard without a serving primary (vitessio/vitess#13999, #17620).
package reparent

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/vitess"
	"forensics/rules/evidence"
	"forensics/shell"
)

// The details of a finding's subject (Rule.Details).
var (
	oldPrimaryDetail = forensics.Detail{Key: "old_primary", Type: forensics.DetailText, Doc: "the tablet alias of the primary before the reparent"}
	newPrimaryDetail = forensics.Detail{Key: "new_primary", Type: forensics.DetailText, Doc: "the tablet alias of the primary the reparent asked for"}
)

// Rule is vitess-reparent-failed.
var Rule = &forensics.Rule{
	Name: "vitess-reparent-failed",
	Doc: forensics.Doc{
		Title: "a shard reparent that failed",
		Detects: "A PlannedReparentShard or EmergencyReparentShard, run by vtctld (vtctldclient) or by VTOrc's recovery, " +
			"that released the shard lock with an error and was not followed by a reparent of the same shard that succeeded. " +
			"The finding gives the reason Vitess logged (no candidate in the cell, a replica that did not catch up, lost " +
			"topology lock, errant GTIDs, PopulateReparentJournal, the replicas failing to reparent, a timeout) and the " +
			"state the shard record was left in (GetShard's primary_alias and is_primary_serving). Critical when the shard " +
			"has no serving primary afterwards, high otherwise. A reparent that failed once and succeeded when retried is " +
			"not reported.",
		Why: "A reparent holds the shard lock while it demotes the old primary and promotes the new one. Cut off in " +
			"between, it can leave the old primary read-only and the new one not yet promoted, or the shard record naming " +
			"a primary that no longer serves: writes to the shard fail until a reparent completes. vtctldclient only " +
			"prints the error; the state the shard was left in is in the shard record.",
		Confirm: "In the vtctld (or VTOrc) log, search for \"Locking shard <keyspace>/<shard> for action PlannedReparentShard\" " +
			"(or EmergencyReparentShard) and the \"Unlocking shard … with error\" that follows. vtctldclient GetShard " +
			"<keyspace>/<shard>: primary_alias and is_primary_serving. vtctldclient GetTablets --keyspace <keyspace> " +
			"--shard <shard>: which tablet is PRIMARY now.",
		Inputs: "The vtctld log (glog or the JSON of v24) or VTOrc's log covering the reparent, or what vtctldclient " +
			"PlannedReparentShard / EmergencyReparentShard printed (with the command line); ideally GetShard of the " +
			"shard printed afterwards.",
		Fixes: "Check the shard and its tablets, remove the cause the error names, then run the reparent again with the " +
			"primary named (PlannedReparentShard --new-primary, or EmergencyReparentShard --new-primary when the shard has " +
			"no serving primary). The finding lists the commands with the names filled in.",
	},
	Kinds:   []forensics.Kind{vitess.KindReparentStart, vitess.KindReparentStep, vitess.KindReparentFailed, vitess.KindReparentDone, vitess.KindShard, vitess.KindRecovery},
	Details: []forensics.Detail{oldPrimaryDetail, newPrimaryDetail},
	Run:     run,
}

// attempt is one reparent of one shard, from its lock to its unlock.
type attempt struct {
	keyspace, shard string
	action          string
	oldPrimary      string
	newPrimary      string
	lines           []forensics.Event // start, steps, end
	failed          *forensics.Event
	done            bool
}

func run(pass *forensics.Pass) error {
	evs, err := forensics.Collect(pass.Events(pass.Rule.Kinds...))
	if err != nil {
		return fmt.Errorf("read reparent events: %w", err)
	}
	var attempts []*attempt
	open := map[string]*attempt{}   // keyspace/shard → the attempt holding the lock
	bySource := map[string]string{} // source → the shard its last open attempt is on
	pending := map[string][]forensics.Event{}
	shards := map[string][]shardDoc{}
	for i := range evs {
		e := evs[i]
		key := e.Keyspace + "/" + e.Shard
		switch e.Kind {
		case vitess.KindShard:
			s, err := vitess.DecodeShard(&e)
			if err != nil {
				continue // the parser has reported the file
			}
			k := s.Keyspace + "/" + s.Name
			shards[k] = append(shards[k], shardDoc{ev: e, shard: s})
		case vitess.KindReparentStart:
			a := open[key]
			if a == nil || e.Attr(vitess.AttrStep) == "lock_shard" {
				a = &attempt{keyspace: e.Keyspace, shard: e.Shard}
				attempts = append(attempts, a)
				open[key] = a
			}
			if a.action == "" {
				a.action = e.Attr(vitess.AttrAction)
			}
			if np := e.Attr(vitess.AttrNewPrimary); np != "" {
				a.newPrimary = np
			}
			a.lines = append(a.lines, e)
			bySource[e.Path] = key
		case vitess.KindReparentStep:
			a := open[bySource[e.Path]]
			if a == nil {
				// vtctldclient's output: the events come before the error
				// line that names the shard.
				pending[e.Path] = append(pending[e.Path], e)
				continue
			}
			if op := e.Attr(vitess.AttrOldPrimary); op != "" {
				a.oldPrimary = op
			}
			if np := e.Attr(vitess.AttrNewPrimary); np != "" && a.newPrimary == "" {
				a.newPrimary = np
			}
			a.lines = append(a.lines, e)
		case vitess.KindRecovery:
			// VTOrc's recoveries of a shard without a primary run a reparent;
			// the others fix one tablet and are not followed here.
			action := vitess.ReparentAnalysis(e.Attr(vitess.AttrAnalysis))
			if e.Keyspace == "" {
				key = bySource[e.Path]
			}
			a := open[key]
			switch e.Attr(vitess.AttrOutcome) {
			case vitess.OutcomeAttempted:
				if action == "" {
					continue
				}
				if a == nil {
					a = &attempt{keyspace: e.Keyspace, shard: e.Shard}
					attempts = append(attempts, a)
					open[key] = a
					bySource[e.Path] = key
				}
				a.action = action
				a.lines = append(a.lines, e)
			case vitess.OutcomeFailed:
				if a == nil {
					// "Error running ERS" then "Failed to recover" and the
					// unlock: one failure, said three times.
					if last := lastOf(attempts, key); last != nil && last.failed != nil && e.Time.Sub(last.failed.Time) < time.Minute {
						last.lines = append(last.lines, e)
						continue
					}
					if action == "" || e.Keyspace == "" {
						continue
					}
					a = &attempt{keyspace: e.Keyspace, shard: e.Shard, action: action}
					attempts = append(attempts, a)
				}
				delete(open, key)
				a.lines = append(a.lines, e)
				a.failed = &a.lines[len(a.lines)-1]
			case vitess.OutcomeSucceeded:
				if a != nil {
					delete(open, key)
					a.lines = append(a.lines, e)
					a.done = true
				}
			}
		case vitess.KindReparentFailed, vitess.KindReparentDone:
			a := open[key]
			if a == nil {
				a = &attempt{keyspace: e.Keyspace, shard: e.Shard, action: e.Attr(vitess.AttrAction), newPrimary: e.Attr(vitess.AttrNewPrimary)}
				for _, st := range pending[e.Path] {
					a.lines = append(a.lines, st)
					if op := st.Attr(vitess.AttrOldPrimary); op != "" {
						a.oldPrimary = op
					}
					if np := st.Attr(vitess.AttrNewPrimary); np != "" && a.newPrimary == "" {
						a.newPrimary = np
					}
				}
				delete(pending, e.Path)
				attempts = append(attempts, a)
			}
			delete(open, key)
			a.lines = append(a.lines, e)
			if e.Kind == vitess.KindReparentFailed {
				a.failed = &a.lines[len(a.lines)-1]
			} else {
				a.done = true
			}
		}
	}

	// One incident per shard: its failed reparents since the last one that
	// succeeded.
	byShard := map[string][]*attempt{}
	var keys []string
	for _, a := range attempts {
		k := a.keyspace + "/" + a.shard
		if byShard[k] == nil {
			keys = append(keys, k)
		}
		byShard[k] = append(byShard[k], a)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var failed []*attempt
		for _, a := range byShard[k] {
			switch {
			case a.done:
				failed = nil // a reparent that succeeded ends the incident
			case a.failed != nil:
				failed = append(failed, a)
			}
		}
		if len(failed) == 0 {
			continue
		}
		pass.Report(finding(failed, after(shards[k], failed[len(failed)-1].failed)))
	}
	return nil
}

// lastOf returns the last attempt on the shard, or nil.
func lastOf(attempts []*attempt, key string) *attempt {
	for i := len(attempts) - 1; i >= 0; i-- {
		if a := attempts[i]; a.keyspace+"/"+a.shard == key {
			return a
		}
	}
	return nil
}

type shardDoc struct {
	ev    forensics.Event
	shard vitess.Shard
}

// after returns the shard record printed last after the failure, or nil.
// A glog time has no zone and is read as UTC: a failure logged on local
// time may seem later than a record printed after it, so then the last
// record is taken.
func after(docs []shardDoc, failed *forensics.Event) *shardDoc {
	var out *shardDoc
	for i := range docs {
		if !docs[i].ev.Time.Before(failed.Time) {
			out = &docs[i]
		}
	}
	if out == nil && failed.Zone == forensics.ZoneAssumed && len(docs) > 0 {
		out = &docs[len(docs)-1]
	}
	return out
}

func finding(failed []*attempt, doc *shardDoc) forensics.Finding {
	last := failed[len(failed)-1]
	first := failed[0]
	ks, shard := last.keyspace, last.shard
	oldP, newP := last.oldPrimary, last.newPrimary
	for _, a := range failed {
		if oldP == "" {
			oldP = a.oldPrimary
		}
		if newP == "" {
			newP = a.newPrimary
		}
	}
	if oldP == "" && doc != nil && doc.shard.PrimaryAlias != newP {
		oldP = doc.shard.PrimaryAlias // the primary the record still names
	}
	// EmergencyReparentShard runs because the primary is gone: failed, it
	// leaves the shard without one whatever the record still names.
	ers := last.action == "EmergencyReparentShard"
	noPrimary := ers || doc != nil && (doc.shard.PrimaryAlias == "" || !doc.shard.PrimaryServing)
	sev := forensics.High
	if noPrimary {
		sev = forensics.Critical
	}
	reason := last.failed.Attr(vitess.AttrReason)
	action := last.action
	if action == "" {
		action = "reparent"
	}

	var ev []forensics.Evidence
	for _, a := range failed {
		for _, e := range a.lines {
			ev = append(ev, forensics.EvidenceOf(&e, note(&e)))
		}
	}
	end := last.failed.Time
	if doc != nil {
		line, text := serving(&doc.ev)
		quote := forensics.EvidenceOf(&doc.ev, "the shard record afterwards")
		quote.Line, quote.Text = line, text
		ev = append(ev, quote)
		if doc.ev.Time.After(end) {
			end = doc.ev.Time
		}
	}
	forensics.SortEvidence(ev)

	return forensics.Finding{
		Severity:    sev,
		Title:       fmt.Sprintf("%s of %s/%s failed (%s)", action, ks, shard, reasonWords(reason)),
		Subject:     forensics.FindingSubject{Keyspace: ks, Shard: shard, Details: forensics.Details{oldPrimaryDetail.Text(oldP), newPrimaryDetail.Text(newP)}},
		Start:       first.lines[0].Time,
		End:         end,
		Explanation: explain(failed, doc, oldP, newP),
		Evidence:    ev,
		Fixes:       fixes(last, ks, shard, newP, reason, noPrimary),
	}
}

func note(e *forensics.Event) string {
	switch e.Kind {
	case vitess.KindReparentStart:
		if e.Attr(vitess.AttrStep) == "initiate" {
			return "the emergency reparent begins"
		}
		return "the reparent takes the shard lock"
	case vitess.KindReparentStep:
		if e.Attr(vitess.AttrOldPrimary) != "" {
			return "the old primary is demoted"
		}
		return "the new primary is chosen"
	case vitess.KindReparentFailed:
		return "the reparent fails: " + reasonWords(e.Attr(vitess.AttrReason))
	case vitess.KindRecovery:
		switch e.Attr(vitess.AttrOutcome) {
		case vitess.OutcomeAttempted:
			return "VTOrc's recovery of " + e.Attr(vitess.AttrAnalysis) + " begins"
		case vitess.OutcomeFailed:
			return "VTOrc's recovery fails: " + reasonWords(e.Attr(vitess.AttrReason))
		case vitess.OutcomeSucceeded:
			return "VTOrc's recovery succeeds"
		}
	}
	return ""
}

// serving quotes the shard record's primary lines.
func serving(e *forensics.Event) (int64, string) {
	lines := strings.Split(e.Text, "\n")
	var keep []string
	at := int64(-1)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.Contains(l, `"is_primary_serving"`) || strings.Contains(l, `"isPrimaryServing"`) ||
			strings.Contains(l, `"primary_alias"`) || strings.Contains(l, `"primaryAlias"`) {
			if at < 0 {
				at = int64(i)
			}
			part := strings.TrimSpace(l)
			for strings.Count(part, "{") > strings.Count(part, "}") && i+1 < len(lines) {
				i++ // the alias printed over several lines: {"cell": …, "uid": …}
				part += " " + strings.TrimSpace(lines[i])
			}
			keep = append(keep, part)
		}
	}
	if at < 0 {
		return e.Line, lines[0]
	}
	return e.Line + at, strings.Join(keep, " … ")
}

func reasonWords(r string) string {
	switch r {
	case "lost_topology_lock":
		return "lost the topology lock"
	case "errant_gtid":
		return "errant GTIDs"
	case "reparent_journal":
		return "PopulateReparentJournal failed"
	case "no_candidate":
		return "no candidate for primary"
	case "replica_not_caught_up":
		return "the new primary did not catch up"
	case "replicas_failed":
		return "replicas failed to reparent"
	case "promotion_failed":
		return "demotion or promotion failed"
	case "timeout":
		return "timed out"
	}
	return "error"
}

func explain(failed []*attempt, doc *shardDoc, oldP, newP string) string {
	var b strings.Builder
	for i, a := range failed {
		start := a.lines[0]
		if i > 0 && same(a, failed[i-1]) {
			// VTOrc retries its recovery every few seconds: say it once.
			n := 1
			for n+i < len(failed) && same(failed[n+i], a) {
				n++
			}
			if n == len(failed)-i {
				fmt.Fprintf(&b, " It was run %d more time%s, the last at %s, and failed the same way each time.", n, evidence.Plural(n, "", "s"), evidence.Clock(failed[len(failed)-1].lines[0].Time))
				break
			}
		}
		if i > 0 {
			b.WriteString(" Then a")
		} else {
			b.WriteString("A")
		}
		fmt.Fprintf(&b, "t %s %s took the lock of %s/%s for %s", evidence.Clock(start.Time), who(&start), a.keyspace, a.shard, orReparent(a.action))
		if a.newPrimary != "" {
			fmt.Fprintf(&b, " to promote %s", a.newPrimary)
		}
		b.WriteString(".")
		if a.oldPrimary != "" {
			fmt.Fprintf(&b, " It demoted %s.", a.oldPrimary)
		}
		fmt.Fprintf(&b, " At %s it gave the lock up with an error (%s): \"%s\".", evidence.Clock(a.failed.Time), reasonWords(a.failed.Attr(vitess.AttrReason)), oneLine(a.failed.Attr(vitess.AttrError)))
	}
	if len(failed) > 1 {
		fmt.Fprintf(&b, " None of the %d attempts succeeded, and no reparent of the shard has succeeded since.", len(failed))
	} else {
		b.WriteString(" No reparent of the shard succeeded after it.")
	}
	switch {
	case doc == nil:
		b.WriteString(" No shard record printed after the failure is in the input, so the state the shard was left in is not known: check it with GetShard.")
	case doc.shard.PrimaryAlias == "":
		fmt.Fprintf(&b, " The shard record at %s names no primary: the shard takes no writes.", evidence.Stamp(doc.ev.Time))
	case !doc.shard.PrimaryServing:
		fmt.Fprintf(&b, " The shard record at %s names %s as primary but is_primary_serving is false: the shard takes no writes.", evidence.Stamp(doc.ev.Time), doc.shard.PrimaryAlias)
	case doc.shard.PrimaryAlias == newP && newP != "":
		fmt.Fprintf(&b, " The shard record at %s names %s, the new primary, and it serves: the promotion went through but the reparent did not finish (replicas may still point at %s).", evidence.Stamp(doc.ev.Time), newP, cmp.Or(oldP, "the old primary"))
	case failed[len(failed)-1].action == "EmergencyReparentShard":
		fmt.Fprintf(&b, " The shard record at %s still names %s, the primary the EmergencyReparentShard was run to replace: the shard has no primary that takes writes.", evidence.Stamp(doc.ev.Time), doc.shard.PrimaryAlias)
	default:
		fmt.Fprintf(&b, " The shard record at %s still names %s as the serving primary.", evidence.Stamp(doc.ev.Time), doc.shard.PrimaryAlias)
	}
	return b.String()
}

// same reports whether two attempts did and failed the same.
func same(a, b *attempt) bool {
	return a.action == b.action && a.newPrimary == b.newPrimary && a.oldPrimary == b.oldPrimary &&
		a.failed.Attr(vitess.AttrError) == b.failed.Attr(vitess.AttrError)
}

func who(e *forensics.Event) string {
	if strings.HasPrefix(strings.ToLower(e.Path[strings.LastIndexAny(e.Path, "/!\\")+1:]), "vtorc") {
		return "VTOrc"
	}
	return "vtctld"
}

func orReparent(a string) string {
	if a == "" {
		return "a reparent"
	}
	return a
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// fixes: check first, remove the cause, then reparent again with the
// primary named. Flags: go/cmd/vtctldclient/command/reparents.go and
// shards.go, tablets.go.
func fixes(a *attempt, ks, shard, newP, reason string, noPrimary bool) []forensics.Fix {
	if names.Keyspace(ks) != nil || names.Shard(shard) != nil {
		return []forensics.Fix{{
			Title: "Check the shard by hand",
			Steps: []string{fmt.Sprintf("The keyspace %q or shard %q from the log is not a Vitess name, so no command is given with it.", ks, shard)},
		}}
	}
	target := ks + "/" + shard
	check := forensics.Fix{
		Title: fmt.Sprintf("Check the state %s was left in", target),
		Steps: []string{"GetShard gives the primary the record names and whether it serves; GetTablets which tablet runs as PRIMARY; ShardReplicationPositions how far each replica got."},
		Commands: []string{
			shell.Vtctldclient("GetShard", target),
			shell.Vtctldclient("GetTablets", "--keyspace", ks, "--shard", shard),
			shell.Vtctldclient("ShardReplicationPositions", target),
		},
	}
	out := []forensics.Fix{check}
	cause := forensics.Fix{Title: "Remove the cause: " + reasonWords(reason)}
	switch reason {
	case "no_candidate":
		cause.Steps = []string{"PlannedReparentShard without --new-primary picks a REPLICA in the current primary's cell; there was none healthy. Name the tablet to promote, a healthy REPLICA, with --new-primary."}
	case "replica_not_caught_up", "timeout":
		cause.Steps = []string{"The primary-elect did not reach the old primary's position within --wait-replicas-timeout. Check its replication lag (ShardReplicationPositions) and give it more time, or choose a replica that is caught up."}
	case "lost_topology_lock":
		cause.Steps = []string{"The shard lock expired or was taken while the reparent ran (a slow topology server, or a second reparent from VTOrc or an operator). Make sure only one reparent runs; check the topology server's health."}
	case "errant_gtid":
		cause.Steps = []string{"A replica has transactions the primary never had. Find them (compare gtid_executed with the primary) and remove them, or rebuild that replica from a backup; Vitess will not promote it, nor reparent onto a shard that has it, until then."}
	case "reparent_journal":
		cause.Steps = []string{"The new primary could not write the reparent journal (its MySQL is read-only, full, or unreachable). Fix the primary-elect's MySQL, then reparent again: the replicas wait for the journal entry."}
	case "replicas_failed":
		cause.Steps = []string{"The primary was promoted but replicas failed to point at it. Check the replicas' MySQL and replication user; a PlannedReparentShard onto the same primary repoints them."}
	default:
		cause.Steps = []string{"Read the error in the evidence; fix what it names before running the reparent again."}
	}
	out = append(out, cause)

	again := forensics.Fix{}
	switch {
	case noPrimary || a.action == "EmergencyReparentShard":
		again.Title = fmt.Sprintf("Give %s a serving primary again", target)
		again.Steps = []string{"EmergencyReparentShard promotes the most advanced replica without the old primary; name the tablet to promote when you know it."}
		args := []string{"EmergencyReparentShard"}
		if newP != "" && names.TabletAlias(newP) == nil {
			args = append(args, "--new-primary", newP)
		}
		again.Commands = []string{shell.Vtctldclient(append(args, target)...)}
	default:
		again.Title = fmt.Sprintf("Run the PlannedReparentShard of %s again", target)
		args := []string{"PlannedReparentShard"}
		if newP != "" && names.TabletAlias(newP) == nil {
			args = append(args, "--new-primary", newP)
		}
		again.Commands = []string{shell.Vtctldclient(append(args, target)...)}
	}
	again.Commands = append(again.Commands, shell.Vtctldclient("GetShard", target))
	return append(out, again)
}
