package deniedtables

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"forensics"
	"forensics/parsers/vitess"
	"forensics/rules/evidence"
)

// episode is one incident followed across snapshots: the same thing wrong
// with the same workflow in consecutive snapshots is one finding, about the
// latest snapshot that shows it.
type episode struct {
	in       *incident // as the latest snapshot shows it
	first    *topo     // the first snapshot that shows it
	before   *topo     // the snapshot before first, which did not show it; nil if none
	resolved *topo     // the first later snapshot that no longer shows it; nil if none
}

// key identifies an incident across snapshots.
func (in *incident) key() string {
	return strings.Join([]string{
		in.move.workflow, in.move.source, in.move.target, in.written, in.other,
		in.severity.String(), in.headline(), strings.Join(in.tables, ","),
	}, "|")
}

// headline names the main thing wrong, for the title and the key.
func (in *incident) headline() string {
	switch {
	case in.bothDeny():
		return "both-deny"
	case len(in.writeDenied) > 0:
		return "written-denies"
	case len(in.readDenied) > 0:
		return "reads-denied"
	case in.switched && len(in.otherMissing) > 0:
		return "other-allows"
	case len(in.split) > 0:
		return "split"
	}
	return "cutover"
}

// finding turns an episode into the finding reported.
func (ep *episode) finding(all []*attempt) forensics.Finding {
	in, t := ep.in, ep.in.topo
	m := in.move
	a := lastAttempt(all, m, in.written, in.other, ep.first.time)
	if a != nil && !a.failed() {
		a = nil // the last switch before the snapshot went through: it is not what broke this
	}

	f := forensics.Finding{
		Severity: in.severity,
		Title:    in.title(),
		Subject:  in.subject(),
		Start:    ep.first.time,
		End:      t.time,
	}
	if a != nil && a.start.Time.Before(f.Start) {
		f.Start = a.start.Time
	}
	f.Explanation = ep.explain(a)
	f.Evidence = in.evidence(a)
	f.Fixes = in.fixes(a)
	return f
}

func (in *incident) title() string {
	tables := join(in.affected())
	switch in.headline() {
	case "both-deny":
		return fmt.Sprintf("%s and %s both deny %s to their primaries: writes to %s fail", in.written, in.other, tables, in.written)
	case "written-denies":
		return fmt.Sprintf("%s denies %s to the primaries that receive their writes", in.written, tables)
	case "reads-denied":
		r := in.readDenied[0]
		return fmt.Sprintf("%s denies %s to the %s tablets that serve their reads", r.keyspace, join(r.tables), r.tabletType)
	case "other-allows":
		return fmt.Sprintf("%s no longer denies %s although their writes were switched to %s", in.other, tables, in.written)
	case "split":
		return fmt.Sprintf("%s denies %s on some shards only", in.other, tables)
	}
	return fmt.Sprintf("workflow %s was stopped for cutover and never frozen", in.move.workflow)
}

func (in *incident) subject() forensics.FindingSubject {
	s := forensics.FindingSubject{Tables: in.affected(), Workflow: in.move.workflow}
	switch in.headline() {
	case "both-deny", "written-denies":
		s.Keyspace, s.Shards = in.written, slices.Sorted(maps.Keys(in.writeDenied))
	case "reads-denied":
		s.Keyspace = in.readDenied[0].keyspace
		for _, r := range in.readDenied {
			if r.keyspace == s.Keyspace {
				s.Shards = appendUnique(s.Shards, r.shard)
			}
		}
		sort.Strings(s.Shards)
	case "other-allows":
		s.Keyspace, s.Shards = in.other, slices.Sorted(maps.Keys(in.otherMissing))
	case "split":
		s.Keyspace, s.Shards = in.other, slices.Sorted(maps.Keys(in.splitMissing()))
	default:
		s.Keyspace = in.move.target
		for _, ks := range in.cutover {
			_, shard, _ := strings.Cut(ks, "/")
			s.Shards = appendUnique(s.Shards, shard)
		}
		sort.Strings(s.Shards)
	}
	return s
}

// explain says what happened, in order: the switch that broke it (when the
// vtctld log shows one), then what the snapshot shows and why it matters.
func (ep *episode) explain(a *attempt) string {
	in, t := ep.in, ep.in.topo
	m := in.move
	var b strings.Builder
	tables := join(in.tables)

	if a != nil {
		b.WriteString(attemptStory(a, m))
		b.WriteString(" ")
	}

	fmt.Fprintf(&b, "In snapshot %s (%s)", t.label(), evidence.Stamp(t.time))
	if ep.first != t {
		fmt.Fprintf(&b, ", as already in snapshot %s (%s)", ep.first.label(), evidence.Stamp(ep.first.time))
	}
	fmt.Fprintf(&b, ", the routing rules send the writes of %s to %s (%s)", tables, in.written, in.ruleText())
	if m.workflow != "" {
		fmt.Fprintf(&b, "; workflow %s moves %s from %s to %s", m.workflow, pronoun(in.tables), m.source, m.target)
	}
	b.WriteString(". ")

	if len(in.writeDenied) > 0 {
		denied := in.affected()
		fmt.Fprintf(&b, "Yet %s %s %s to PRIMARY tablets, so every write (and every read from a primary) of %s fails there: %s %s down for writes on %s. ",
			shardList(in.written, slices.Sorted(maps.Keys(in.writeDenied))), denyVerb(len(in.writeDenied)), join(denied), them(denied), they(denied), isAre(denied), evidence.Plural(len(in.writeDenied), "that shard", "those shards"))
		if n := len(in.topo.shards[in.written]); len(in.writeDenied) < n {
			fmt.Fprintf(&b, "The other shards of %s do not deny them: the denial was applied to part of the keyspace only. ", in.written)
		}
		switch {
		case in.bothDeny():
			fmt.Fprintf(&b, "%s %s them too: neither side would take their writes there. ", shardList(in.other, slices.Sorted(maps.Keys(in.otherDenied))), denyVerb(len(in.otherDenied)))
		case len(in.otherDenied) == 0 && len(in.topo.shards[in.other]) > 0:
			fmt.Fprintf(&b, "%s no longer %s them, so nothing stops writes that reach %s directly. ", shardList(in.other, in.topo.shardNames(in.other)), denyVerb(len(in.topo.shards[in.other])), in.other)
		}
	}
	for _, r := range in.readDenied {
		fmt.Fprintf(&b, "%s/%s denies %s to its %s tablets, where the routing rules send %s reads: those reads fail. ",
			r.keyspace, r.shard, join(r.tables), r.tabletType, strings.ToLower(r.tabletType))
	}
	if len(in.writeDenied) == 0 && in.switched && len(in.otherMissing) > 0 {
		fmt.Fprintf(&b, "Writes were switched to %s, but %s no longer %s %s: a vtgate with stale routing, or a client that targets %s directly, can still write there, behind the workflow's back. ",
			in.written, shardList(in.other, slices.Sorted(maps.Keys(in.otherMissing))), denyVerb(len(in.otherMissing)), tables, in.other)
	}
	if len(in.split) > 0 {
		lacking := slices.Sorted(maps.Keys(in.splitMissing()))
		var denying []string
		for _, sh := range in.topo.shardNames(in.other) {
			if !slices.Contains(lacking, sh) {
				denying = append(denying, sh)
			}
		}
		fmt.Fprintf(&b, "%s %s %s to PRIMARY tablets but %s %s not: a step that changes the denied tables was applied to part of the keyspace only. Writes do not go to %s now, so this fails nothing yet, but the next switch starts from an inconsistent state. ",
			shardList(in.other, denying), denyVerb(len(denying)), join(in.split), shardList(in.other, lacking), evidence.Plural(len(lacking), "does", "do"), in.other)
	}
	if len(in.cutover) > 0 {
		fmt.Fprintf(&b, "The streams of %s on %s are still stopped for cutover and not FROZEN: a write switch stopped them and neither finished nor restarted them, so %s is no longer kept up to date. ",
			m.workflow, join(in.cutover), m.target)
	}

	if st := in.state(); st != "" && len(in.writeDenied) > 0 {
		fmt.Fprintf(&b, "%s: it derives the state from the routing rules alone, which send the writes to %s; the denied tables there refuse them. ", st, in.written)
	}

	if ep.before != nil {
		fmt.Fprintf(&b, "The earlier snapshot %s (%s) did not show this. ", ep.before.label(), evidence.Stamp(ep.before.time))
	}
	if ep.resolved != nil {
		fmt.Fprintf(&b, "The later snapshot %s (%s) no longer shows it. ", ep.resolved.label(), evidence.Stamp(ep.resolved.time))
	}
	if !in.known && len(in.writeDenied) > 0 {
		b.WriteString("No workflow document says which keyspace is the source, so the workflow name and the commands to finish the switch are not known. ")
	}
	return strings.TrimSpace(b.String())
}

// attemptStory tells what the failed switch did, from its log lines.
func attemptStory(a *attempt, m *move) string {
	var b strings.Builder
	kind := "SwitchTraffic"
	if a.reverse() {
		kind = "ReverseTraffic"
	}
	name := m.workflow
	if name == "" {
		name, _ = forwardName(a.workflow)
	}
	fmt.Fprintf(&b, "At %s vtctld began switching the writes of a %s", evidence.Clock(a.start.Time), kind)
	if name != "" {
		fmt.Fprintf(&b, " of %s", name)
		if a.workflow != "" && a.workflow != name {
			fmt.Fprintf(&b, " (run on workflow %s)", a.workflow)
		}
	}
	switch {
	case m.target == "":
		b.WriteString(" with Stopping source writes, which denies the tables on the side that gives up the writes and allows them on the side that takes them.")
	case a.reverse():
		fmt.Fprintf(&b, " with Stopping source writes, which denies the tables on %s and allows them on %s.", m.target, m.source)
	default:
		fmt.Fprintf(&b, " with Stopping source writes, which denies the tables on %s and allows them on %s.", m.source, m.target)
	}
	step, line := a.cut()
	first := a.failures[0]
	if step != "" {
		fmt.Fprintf(&b, " It was cut off during %s, started at %s:", step, evidence.Clock(line.Time))
	} else {
		b.WriteString(" It failed:")
	}
	fmt.Fprintf(&b, " at %s the log reads \"%s\".", evidence.Clock(first.Time), message(first.Text))
	switch {
	case len(a.cancelFailed) > 0:
		c := a.cancelRevert()
		fmt.Fprintf(&b, " The cancel that should have put the denied tables back failed at %s (\"%s\"), so the denied tables stayed as the half-done switch left them", evidence.Clock(c.Time), message(c.Text))
	case a.cancelDone:
		b.WriteString(" Its cancel reported success, yet the snapshot below does not match the state before the switch")
	default:
		b.WriteString(" The log shows no cancel finishing")
	}
	if a.reached(vitess.KindRoutingChanged) {
		b.WriteString("; the routing rules had already been switched.")
	} else if a.reached(vitess.KindCreateJournal) {
		b.WriteString("; it had passed the journal, the point of no return, so running it again finishes it.")
	} else {
		b.WriteString("; the routing rules were never switched.")
	}
	if a.start.Zone == forensics.ZoneAssumed {
		b.WriteString(" (vtctld log times carry no zone and are read as UTC.)")
	}
	return b.String()
}

// ruleText quotes the routing rule that decides where the writes go.
func (in *incident) ruleText() string {
	t := in.tables[0]
	return fmt.Sprintf("rule %s → %s", t, in.topo.rules[t])
}

// state returns what vtctld reports about the workflow, as a sentence
// start, or "" when neither a status document nor the routing rules tell.
func (in *incident) state() string {
	m, t := in.move, in.topo
	for _, s := range t.states {
		if s.traffic == "" {
			continue
		}
		if (s.workflow == "" || s.workflow == m.workflow) && (s.keyspace == "" || s.keyspace == m.target) {
			return fmt.Sprintf("vtctld reports \"%s\" (MoveTables status)", s.traffic)
		}
	}
	if m.target == "" {
		return ""
	}
	return fmt.Sprintf("vtctld would report \"%s\"", t.trafficState(m))
}

// trafficState derives the state the way vtctld does (server.go
// getWorkflowState): writes are switched when the rule of any table points at
// the target; reads when the @replica and @rdonly rules do. vtctld reads the
// read rules from each cell's SrvVSchema; the global rules stand in for them.
func (t *topo) trafficState(m *move) string {
	at := func(from string) bool { return t.ruleKeyspace(from) == m.target }
	writes := false
	replica, rdonly := 0, 0
	for _, tb := range m.tables {
		writes = writes || at(tb)
		if at(tb + "@replica") {
			replica++
		}
		if at(tb + "@rdonly") {
			rdonly++
		}
	}
	reads := "Reads partially switched"
	switch n := len(m.tables); {
	case replica == n && rdonly == n:
		reads = "All Reads Switched"
	case replica == 0 && rdonly == 0:
		reads = "Reads Not Switched"
	}
	if writes {
		return reads + ". Writes Switched"
	}
	return reads + ". Writes Not Switched"
}

// evidence lists the log lines of the failed switch and the documents of
// the snapshot that show the incident, in time order.
func (in *incident) evidence(a *attempt) []forensics.Evidence {
	var out []forensics.Evidence
	addAt := func(e *forensics.Event, line int64, text, note string) {
		if e == nil {
			return
		}
		for _, x := range out {
			if x.Path == e.Path && x.Line == line {
				return
			}
		}
		ev := forensics.EvidenceOf(e, note)
		ev.Line, ev.Text = line, text
		out = append(out, ev)
	}
	add := func(e *forensics.Event, note string) {
		if e != nil {
			addAt(e, e.Line, e.Text, note)
		}
	}
	// doc quotes the part of a document that shows the point.
	doc := func(e *forensics.Event, keys []string, match string, whole bool, note string) {
		if e != nil {
			line, text := excerpt(e, keys, match, whole)
			addAt(e, line, text, note)
		}
	}
	controls := []string{"tablet_controls", "tabletControls"}

	if a != nil {
		add(&a.start, "the write switch begins: denied tables change on both sides")
		if step, line := a.cut(); step != "" && line.Line != a.start.Line {
			add(&line, "the step that was cut off: "+step)
		}
		add(&a.failures[0], "the switch fails")
		for i := range a.cancelFailed {
			add(&a.cancelFailed[i], cancelNote(a.cancelFailed[i].Attr(vitess.AttrStep)))
		}
	}
	t := in.topo
	doc(t.rulesEv, []string{"from_table", "fromTable"}, `"`+in.tables[0]+`"`, true,
		fmt.Sprintf("routing rule: writes of %s go to %s", in.tables[0], in.written))
	for _, s := range t.shards[in.written] {
		if entries, ok := in.writeDenied[s.name]; ok {
			doc(s.ev, controls, "", false, fmt.Sprintf("%s/%s denies %s to PRIMARY", s.keyspace, s.name, join(entries)))
		}
	}
	for _, s := range t.shards[in.other] {
		switch {
		case in.bothDeny() && len(in.otherDenied[s.name]) > 0:
			doc(s.ev, controls, "", false, fmt.Sprintf("%s/%s denies %s to PRIMARY too", s.keyspace, s.name, join(in.otherDenied[s.name])))
		case len(in.writeDenied) > 0 && len(in.otherDenied) == 0:
			doc(s.ev, controls, "", false, fmt.Sprintf("%s/%s does not deny them", s.keyspace, s.name))
		case in.switched && len(in.writeDenied) == 0 && len(in.otherMissing[s.name]) > 0:
			doc(s.ev, controls, "", false, fmt.Sprintf("%s/%s does not deny %s", s.keyspace, s.name, join(in.otherMissing[s.name])))
		case len(in.split) > 0:
			if m := in.splitMissing()[s.name]; len(m) > 0 {
				doc(s.ev, controls, "", false, fmt.Sprintf("%s/%s does not deny %s", s.keyspace, s.name, join(m)))
			} else {
				doc(s.ev, controls, "", false, fmt.Sprintf("%s/%s denies %s to PRIMARY", s.keyspace, s.name, join(in.split)))
			}
		}
	}
	for _, r := range in.readDenied {
		for _, s := range t.shards[r.keyspace] {
			if s.name == r.shard {
				doc(s.ev, controls, "", false, fmt.Sprintf("%s/%s denies %s to %s", r.keyspace, r.shard, join(r.entries), r.tabletType))
			}
		}
	}
	if len(in.writeDenied) > 0 {
		for _, s := range t.states {
			if s.traffic != "" {
				doc(s.ev, []string{"traffic_state", "trafficState", "Traffic State"}, "", false, "vtctld's traffic state, from the routing rules alone")
			}
		}
	}
	for _, f := range in.move.flows {
		if len(in.cutover) > 0 && f.target == in.move.target {
			doc(f.ev, []string{"message"}, "stopped for cutover", false, "streams stopped for cutover, not FROZEN")
		}
	}
	forensics.SortEvidence(out)
	return out
}

// join lists names in prose: "a", "a and b", "a, b and c".
func join(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// shardList names shards as keyspace/shard.
func shardList(keyspace string, shards []string) string {
	var out []string
	for _, s := range shards {
		out = append(out, keyspace+"/"+s)
	}
	return join(out)
}

func pronoun(xs []string) string { return evidence.Plural(len(xs), "it", "them") }
func them(xs []string) string    { return evidence.Plural(len(xs), "the table", "these tables") }
func they(xs []string) string    { return evidence.Plural(len(xs), "it", "they") }
func isAre(xs []string) string   { return evidence.Plural(len(xs), "is", "are") }
func denyVerb(n int) string      { return evidence.Plural(n, "denies", "deny") }

// message returns the message of a log entry without the glog header
// ("E1202 16:42:31.534219       1 file.go:123] ") or the JSON around it
// (v24), its lines joined: the cause of an error is often on the
// continuation lines.
func message(s string) string {
	return strings.Join(strings.Fields(vitess.Message(s)), " ")
}

// cancelNote says what a failed cancel step left undone, from the step the
// parser names.
func cancelNote(step string) string {
	switch step {
	case "revert_denied_tables":
		return "the cancel fails to put the denied tables back"
	case "restart_workflows":
		return "the cancel fails to restart the workflow's streams"
	case "delete_reverse_workflows":
		return "the cancel fails to delete the reverse streams"
	case "manual_cleanup":
		return "vtctld gives up the cancel: manual cleanup needed"
	}
	return "a step of the cancel fails"
}

// label names a snapshot in prose by its folder (or archive), not by the
// path it was read from on the machine that analysed it.
func (t *topo) label() string {
	name := strings.TrimRight(t.name, "/")
	return name[strings.LastIndexAny(name, "/!")+1:]
}
