package vitess

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// maxEntry bounds the bytes of one log entry (a header line and its
// continuation lines) kept for an event; the lines stay on the timeline.
const maxEntry = 64 << 10

type vtctldParser struct {
	reparent *step // the reparent a vtctldclient command line in the file runs
	clock    yearClock
	ent      logEntry
	ev       forensics.Event
	sl       slogLine
	msg      []byte // a JSON line's message, unescaped
	release  string // the Vitess release the process logged at start
	tablet   tabletScope
}

// logEntry is the entry being read. Its buffer is reused from entry to
// entry, so a line that makes no event costs a copy and no allocation.
type logEntry struct {
	open   bool
	full   bool // a line did not fit: the entry's text ends before it
	n      int64
	stamp  forensics.Stamp
	level  byte
	caller [2]int // offsets of file:line in buf
	msg    int    // offset of the message in buf
	buf    []byte // the header line and the continuation lines, joined by '\n'
	// raw is a JSON line as logged, the entry's text; buf then holds
	// "file:line] message", as glog would have written it.
	raw   []byte
	attrs [3][2]int // keyspace, shard, workflow attributes of a JSON line: offsets in raw
}

func newVtctld(o forensics.Origin) forensics.Parser {
	return &vtctldParser{clock: yearClock{ref: o.ModTime.UTC()}}
}

func (p *vtctldParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if isSlog(text) {
		return p.jsonLine(n, text, emit)
	}
	h, st, err := parseGlog(text)
	switch st {
	case notHeader:
		if t, ok := parseCreated(text); ok {
			p.flush(emit)
			p.clock.created(t)
			return glogStamp(t), nil
		}
		p.reparentCommand(text)
		if e := &p.ent; e.open && !e.full {
			if len(e.buf)+len(text) < maxEntry {
				e.buf = append(e.buf, '\n')
				e.buf = append(e.buf, text...)
			} else {
				e.full = true
			}
		}
		return forensics.Stamp{}, nil
	case badHeader:
		p.flush(emit)
		return forensics.Stamp{}, err
	}
	p.flush(emit)
	p.noteRelease(text[h.msg:])
	stamp := glogStamp(p.clock.at(&h))
	if h.event {
		stamp.Zone = forensics.ZoneUTC
	}
	e := &p.ent
	e.open, e.full = true, false
	e.n = n
	e.stamp = stamp
	e.level = h.level
	e.raw = e.raw[:0]
	e.buf = append(e.buf[:0], text[:min(len(text), maxEntry)]...)
	e.caller = h.caller
	if e.caller[1] > len(e.buf) {
		e.caller = [2]int{}
	}
	e.msg = min(h.msg, len(e.buf))
	return stamp, nil
}

func (p *vtctldParser) End(emit forensics.Emit) error {
	p.flush(emit)
	return nil
}

// attr is an attribute a step adds to the event's own; one without a value
// is left out.
type attr struct {
	key   forensics.AttrKey
	value string
}

// step is what an entry says, once classified.
type step struct {
	kind     forensics.Kind
	name     string // the attr step
	keyspace string
	shard    string
	workflow string
	tables   []string
	err      string
	attrs    []attr
}

// flush turns the finished entry into its events.
func (p *vtctldParser) flush(emit forensics.Emit) {
	e := &p.ent
	if !e.open {
		return
	}
	e.open = false
	msg := e.buf[e.msg:]
	first := msg
	if i := bytes.IndexByte(msg, '\n'); i >= 0 {
		first = msg[:i]
	}
	var steps [3]step
	k := 0
	if s, ok := classify(first, msg, e.level); ok {
		p.tablet.fill(&s)
		steps[k] = s
		k++
	} else if s, ok := p.reparentError(first, msg, e); ok {
		steps[k] = s
		k++
	}
	if ctx := contextError(msg); ctx != "" {
		s := step{kind: KindContextError, err: ctx}
		if k > 0 {
			s.name = steps[0].name
			s.keyspace, s.shard, s.workflow = steps[0].keyspace, steps[0].shard, steps[0].workflow
		}
		steps[k] = s
		k++
	}
	if k < 3 && (k == 0 || steps[0].kind != KindDeniedTables) {
		if s, ok := deniedQuery(msg); ok {
			steps[k] = s
			k++
		}
	}
	if k == 0 {
		return
	}
	text := string(e.buf)
	if len(e.raw) > 0 {
		text = string(e.raw)
		for i := range steps[:k] {
			s := &steps[i]
			for j, f := range []*string{&s.keyspace, &s.shard, &s.workflow} {
				if a := e.attrs[j]; *f == "" && a[1] > a[0] {
					*f = string(e.raw[a[0]:a[1]])
				}
			}
		}
	}
	for _, s := range steps[:k] {
		ev := &p.ev
		ev.Reset()
		ev.Stamp = e.stamp
		ev.Line = e.n
		ev.Kind = s.kind
		ev.Text = text
		ev.Keyspace, ev.Shard = s.keyspace, s.shard
		if len(s.tables) == 1 {
			ev.Table = s.tables[0]
		}
		ev.Set(AttrLevel, string(e.level))
		set(ev, AttrCaller, string(e.buf[e.caller[0]:e.caller[1]]))
		set(ev, AttrStep, s.name)
		set(ev, AttrKeyspace, s.keyspace)
		set(ev, AttrShard, s.shard)
		set(ev, AttrWorkflow, s.workflow)
		set(ev, AttrTables, strings.Join(s.tables, ","))
		set(ev, AttrError, s.err)
		for _, a := range s.attrs {
			set(ev, a.key, a.value)
		}
		emit(ev)
	}
}

// classify reads the message of an entry: first is its first line, msg all
// of it. The reparent and VReplication lines are classifyOps'; the switch's
// are stepTemplates'. The wording is matched as every release from v18 to
// v23 logs it.
func classify(first, msg []byte, level byte) (step, bool) {
	if len(first) == 0 {
		return step{}, false
	}
	if s, ok := classifyHealth(first, msg); ok {
		return s, true
	}
	if s, ok := classifyOnlineDDL(first, msg); ok {
		return s, true
	}
	if analysis, ks, shard, rest, ok := recoveryPrefix(first); ok {
		if len(rest) == 0 {
			return step{}, false
		}
		return classifyRecovery(rest, msg, analysis, ks, shard)
	}
	if s, ok := classifyRecovery(first, msg, "", "", ""); ok {
		return s, true
	}
	if s, ok := classifyTablet(first); ok {
		return s, true
	}
	if s, ok := classifyOps(first, msg); ok {
		return s, true
	}
	for _, i := range stepsByByte[first[0]] {
		if t := &stepTemplates[i]; scan.HasPrefix(first, t.prefix) {
			// The first template a line starts with decides, even when
			// what follows is not the switch's (a lock for another action).
			return t.build(first[len(t.prefix):], first, msg)
		}
	}
	if level == 'E' || level == 'W' || level == 'F' {
		return switchError(msg)
	}
	return step{}, false
}

// A stepTemplate is one message vtctld or vttablet logs for a step of a
// traffic switch: the text its first line starts with, the upstream source
// that logs it, and how to read the step from the rest (rest follows the
// prefix in first; msg is the whole entry).
type stepTemplate struct {
	prefix string
	source string
	build  func(rest, first, msg []byte) (step, bool)
}

// stepTemplates are tried in order among those whose prefix starts with the
// line's first byte; a template that is a prefix of another comes after it.
var stepTemplates = [...]stepTemplate{
	{"Added routing: ", "traffic_switcher.go changeWriteRoute: Added routing: %v %v (table, source keyspace.table, both now routed to the target)",
		func(rest, _, _ []byte) (step, bool) {
			table, from, _ := strings.Cut(string(rest), " ")
			ks, _, _ := strings.Cut(from, ".")
			return step{kind: KindRoutingChanged, name: "added_routing", keyspace: ks, tables: list(table)}, true
		}},
	{"Added shard routing: ", "traffic_switcher.go changeWriteRoute, partial MoveTables: Added shard routing: %v:%v",
		func(rest, _, _ []byte) (step, bool) {
			ks, shard, _ := strings.Cut(string(rest), ":")
			return step{kind: KindRoutingChanged, name: "added_shard_routing", keyspace: ks, shard: shard}, true
		}},
	{"Blacklisting tables ", "vttablet tm_state.go applyDenyList, before Vitess 12: Blacklisting tables %v",
		func(rest, _, _ []byte) (step, bool) {
			return step{kind: KindDeniedTables, name: "deny", tables: splitTables(string(rest))}, true
		}},
	{"Cancel migration failed", "traffic_switcher.go cancelMigration, stream_migrator.go: Cancel migration failed…",
		func(_, first, msg []byte) (step, bool) { return cancelFailed(first, msg), true }},
	{"Creating reverse streams", "server.go switchWrites: Creating reverse streams",
		func(_, _, _ []byte) (step, bool) { return step{kind: KindCreateReverse, name: "create_reverse"}, true }},
	{"Creating journals for workflow ", "server.go v23: Creating journals for workflow %s.%s",
		func(rest, _, _ []byte) (step, bool) {
			ks, wf := ksDotName(string(rest))
			return step{kind: KindCreateJournal, name: "create_journal", keyspace: ks, workflow: wf}, true
		}},
	{"Creating journal ", "traffic_switcher.go createJournals, log.Infof of older releases: Creating journal %v",
		func(_, _, _ []byte) (step, bool) { return step{kind: KindCreateJournal, name: "create_journal"}, true }},
	{"Creating journal:", "traffic_switcher.go createJournals: Creating journal: %v",
		func(_, _, _ []byte) (step, bool) { return step{kind: KindCreateJournal, name: "create_journal"}, true }},
	{"Cannot update denied tables rule: ", "vttablet tm_state.go: Cannot update denied tables rule: %v",
		func(rest, _, msg []byte) (step, bool) {
			return step{kind: KindDeniedTables, name: "update_failed", err: string(rest) + continuation(msg)}, true
		}},
	{"Deleted routing: ", "traffic_switcher.go changeWriteRoute: Deleted routing: %s (target keyspace.table)",
		func(rest, _, _ []byte) (step, bool) {
			ks, table := ksDotName(string(rest))
			return step{kind: KindRoutingChanged, name: "deleted_routing", keyspace: ks, tables: list(table)}, true
		}},
	{"Deleted shard routing: ", "traffic_switcher.go changeWriteRoute: Deleted shard routing: %v:%v",
		func(rest, _, _ []byte) (step, bool) {
			ks, shard, _ := strings.Cut(string(rest), ":")
			return step{kind: KindRoutingChanged, name: "deleted_shard_routing", keyspace: ks, shard: shard}, true
		}},
	{"Denying tables ", "vttablet tm_state.go applyDenyList: Denying tables %v (joined by \", \")",
		func(rest, _, _ []byte) (step, bool) {
			return step{kind: KindDeniedTables, name: "deny", tables: splitTables(string(rest))}, true
		}},
	{"Executing LOCK TABLES on source tables ", "server.go switchWrites: Executing LOCK TABLES on source tables %d times",
		func(rest, _, _ []byte) (step, bool) {
			n, _, _ := strings.Cut(string(rest), " ")
			return step{kind: KindLockTables, name: "lock_tables", attrs: []attr{{AttrCycles, n}}}, true
		}},
	{"Error executing LOCK TABLES ", "traffic_switcher.go executeLockTablesOnSource: Error executing %s on source tablet %v: %v (the statement LOCK TABLES `t1` READ,…)",
		func(rest, _, msg []byte) (step, bool) {
			stmt, tail, _ := strings.Cut(string(rest), " on source tablet ")
			return step{kind: KindLockTablesFailed, name: "execute", tables: lockedTables(stmt),
				keyspace: protoField(tail, "keyspace"), shard: protoField(tail, "shard"), err: tabletError(tail) + continuation(msg)}, true
		}},
	{"Error stopping writes on migration sources: ", "traffic_switcher.go stopSourceWrites: Error stopping writes on migration sources: %v",
		func(rest, _, msg []byte) (step, bool) {
			return step{kind: KindSwitchFailed, name: "stop_source_writes", err: string(rest) + continuation(msg)}, true
		}},
	{"Error in switchDeniedTables: ", "traffic_switcher.go switchDeniedTables: Error in switchDeniedTables: %v",
		func(rest, _, msg []byte) (step, bool) {
			return step{kind: KindSwitchFailed, name: "switch_denied_tables", err: string(rest) + continuation(msg)}, true
		}},
	{"In Cancel migration: original context invalid: ", "traffic_switcher.go cancelMigration, Dec 2024 to Feb 2025 (#17340): In Cancel migration: original context invalid: %s",
		func(rest, _, _ []byte) (step, bool) {
			return step{kind: KindCancelStart, name: "context_invalid", err: string(rest)}, true
		}},
	{"Journals were found. Completing the left over steps.", "server.go switchWrites, resuming after the journal was written",
		func(_, _, _ []byte) (step, bool) { return step{kind: KindSwitchStart, name: "resume_writes"}, true }},
	{"Locking keyspace ", "topo/locks.go: Locking keyspace %v for action %v (≤ v19), Locking %s %s for action %s with options: %+v (v20+, type keyspace); the switch locks the keyspaces for SwitchReads/SwitchWrites",
		func(rest, first, _ []byte) (step, bool) {
			if !switchAction(first, "SwitchReads", "SwitchWrites") {
				return step{}, false
			}
			ks, action := lockTarget(string(rest))
			return step{kind: KindSwitchStart, name: "lock_keyspace", keyspace: ks, attrs: []attr{{AttrAction, action}}}, true
		}},
	{"Locking named ", "topo/locks.go v21+: Locking named <keyspace>/<workflow> for action WorkflowSwitchTraffic with options: %+v",
		func(rest, first, _ []byte) (step, bool) {
			if !switchAction(first, "WorkflowSwitchTraffic") {
				return step{}, false
			}
			name, action := lockTarget(string(rest))
			ks, wf, _ := strings.Cut(name, "/")
			return step{kind: KindSwitchStart, name: "lock_workflow", keyspace: ks, workflow: wf, attrs: []attr{{AttrAction, action}}}, true
		}},
	{"Locking (and then immediately unlocking) the following tables on source keyspace ", "traffic_switcher.go executeLockTablesOnSource: Locking (and then immediately unlocking) the following tables on source keyspace %v: %v",
		func(rest, _, _ []byte) (step, bool) {
			ks, tables, _ := strings.Cut(string(rest), ": ")
			return step{kind: KindLockTables, name: "execute", keyspace: ks, tables: splitTables(tables)}, true
		}},
	{"Marking target streams frozen for workflow ", "traffic_switcher.go freezeTargetVReplication: Marking target streams frozen for workflow %s db_name %s",
		func(rest, _, _ []byte) (step, bool) {
			wf, _, _ := strings.Cut(string(rest), " ")
			return step{kind: KindFreeze, name: "freeze", workflow: wf}, true
		}},
	{"Marking workflow frozen ", "server.go v23: Marking workflow frozen %s.%s",
		func(rest, _, _ []byte) (step, bool) {
			ks, wf := ksDotName(string(rest))
			return step{kind: KindFreeze, name: "freeze", keyspace: ks, workflow: wf}, true
		}},
	{"No previous journals were found. Proceeding normally.", "server.go switchWrites, first step of a writes switch",
		func(_, _, _ []byte) (step, bool) { return step{kind: KindSwitchStart, name: "switch_writes"}, true }},
	{"Pointing keyspace routing rules for primary to ", "traffic_switcher.go changeWriteRoute, multi-tenant MoveTables: Pointing keyspace routing rules for primary to %s for workflow %s",
		func(rest, _, _ []byte) (step, bool) {
			ks, wf, _ := strings.Cut(string(rest), " for workflow ")
			return step{kind: KindRoutingChanged, name: "keyspace_routing", keyspace: ks, workflow: strings.TrimSpace(wf)}, true
		}},
	switchDone("Switch Writes done for workflow ", "switch_writes", "server.go WorkflowSwitchTraffic: Switch Writes done for workflow %s.%s"),
	switchDone("Switch writes completed for workflow ", "switch_writes", "server.go v23 switchWrites: Switch writes completed for workflow %s.%s"),
	switchDone("Switch Reads done for workflow ", "switch_reads", "server.go WorkflowSwitchTraffic: Switch Reads done for workflow %s.%s"),
	switchDone("SwitchTraffic done for workflow ", "switch_traffic", "server.go WorkflowSwitchTraffic: %s done for workflow %s.%s[, returning response %v]"),
	switchDone("ReverseTraffic done for workflow ", "reverse_traffic", "server.go WorkflowSwitchTraffic: %s done for workflow %s.%s[, returning response %v]"),
	{"Switching reads: ", "server.go switchReads: Switching reads: %s.%s tablet types: …; wrangler: Switching reads: %s.%s tt %+v, …",
		func(rest, _, _ []byte) (step, bool) {
			ks, wf := ksDotName(string(rest))
			return step{kind: KindSwitchStart, name: "switch_reads", keyspace: ks, workflow: wf}, true
		}},
	{"Stopping source writes", "server.go switchWrites: Stopping source writes",
		func(_, _, _ []byte) (step, bool) {
			return step{kind: KindStopSourceWrites, name: "stop_source_writes"}, true
		}},
	{"Stopping streams", "server.go switchWrites: Stopping streams",
		func(_, _, _ []byte) (step, bool) { return step{kind: KindStopStreams, name: "stop_streams"}, true }},
	{"Updated routing rules for workflow ", "server.go v23: Updated routing rules for workflow %s.%s",
		func(rest, _, _ []byte) (step, bool) {
			ks, wf := ksDotName(string(rest))
			return step{kind: KindRoutingChanged, name: "routing_updated", keyspace: ks, workflow: wf}, true
		}},
	{"Unlocking keyspace ", "topo/locks.go: Unlocking keyspace %v for action %v with error %v (≤ v19), Unlocking %v %v for action %v with error %v",
		func(rest, first, msg []byte) (step, bool) {
			if !switchAction(first, "SwitchReads", "SwitchWrites") || !bytes.Contains(first, []byte(" with error ")) {
				return step{}, false
			}
			target, errText, _ := strings.Cut(string(rest), " with error ")
			ks, action := lockTarget(target)
			return step{kind: KindSwitchFailed, name: "unlock_keyspace", keyspace: ks, err: errText + continuation(msg),
				attrs: []attr{{AttrAction, action}}}, true
		}},
	{"Waiting for streams to catchup", "server.go switchWrites: Waiting for streams to catchup",
		func(_, _, _ []byte) (step, bool) { return step{kind: KindWaitCatchup, name: "wait_catchup"}, true }},
	catchup("waiting for keyspace:shard: ", "wait_position", "wrangler/traffic_switcher.go waitForCatchup, v8–v12: waiting for keyspace:shard: %v:%v, position %v"),
	catchup("Waiting for keyspace:shard: ", "wait_position", "stream_migrator.go: Waiting for keyspace:shard: %v:%v, position %v"),
	catchup("Before Catchup: waiting for keyspace:shard: ", "wait_position", "traffic_switcher.go waitForCatchup, v13+: Before Catchup: waiting for keyspace:shard: %v:%v to reach source position %v, uid %d"),
	catchup("position for keyspace:shard: ", "position_reached", "wrangler/traffic_switcher.go waitForCatchup, v8–v12: position for keyspace:shard: %v:%v reached"),
	catchup("Position for keyspace:shard: ", "position_reached", "stream_migrator.go: Position for keyspace:shard: %v:%v reached"),
	catchup("After catchup: position for keyspace:shard: ", "position_reached", "traffic_switcher.go waitForCatchup, v13+: After catchup: position for keyspace:shard: %v:%v reached, uid %d"),
	{"cancelMigration (", "traffic_switcher.go cancelMigration, v22+: cancelMigration (%v): …",
		func(rest, _, _ []byte) (step, bool) {
			wf, what, _ := strings.Cut(string(rest), "): ")
			switch {
			case what == "starting":
				return step{kind: KindCancelStart, name: "start", workflow: wf}, true
			case what == "completed":
				return step{kind: KindCancelDone, name: "done", workflow: wf}, true
			case strings.HasPrefix(what, "original context invalid: "):
				return step{kind: KindCancelStart, name: "context_invalid", workflow: wf, err: strings.TrimPrefix(what, "original context invalid: ")}, true
			}
			return step{kind: KindCancelStep, name: cancelStepName(what), workflow: wf}, true
		}},
}

// catchup is the template of a line of the wait for the target streams to
// reach the source's position: "<prefix><keyspace>:<shard>[, position …| to
// reach …| reached]".
func catchup(prefix, name, source string) stepTemplate {
	return stepTemplate{prefix, source, func(rest, _, _ []byte) (step, bool) {
		target, _, _ := strings.Cut(string(rest), " ")
		target = strings.TrimSuffix(target, ",")
		ks, shard, ok := strings.Cut(target, ":")
		if !ok {
			return step{}, false
		}
		return step{kind: KindWaitCatchup, name: name, keyspace: ks, shard: shard}, true
	}}
}

// switchDone is the template of a "… done for workflow <keyspace>.<workflow>" line.
func switchDone(prefix, name, source string) stepTemplate {
	return stepTemplate{prefix, source, func(rest, _, _ []byte) (step, bool) {
		ks, wf := ksDotName(string(rest))
		return step{kind: KindSwitchDone, name: name, keyspace: ks, workflow: wf}, true
	}}
}

// stepsByByte indexes stepTemplates by the first byte of their prefix.
var stepsByByte = func() (idx [256][]uint8) {
	for i, t := range stepTemplates {
		idx[t.prefix[0]] = append(idx[t.prefix[0]], uint8(i))
	}
	return idx
}()

// cancelStepName names the steps cancelMigration logs in v22+.
func cancelStepName(what string) string {
	switch {
	case strings.HasPrefix(what, "adding denied tables to target"):
		return "add_target_denied_tables"
	case strings.HasPrefix(what, "multi-tenant, not adding denied tables"):
		return "skip_target_denied_tables"
	case strings.HasPrefix(what, "allowing writes on source shards"):
		return "allow_source_writes"
	case strings.HasPrefix(what, "restarting vreplication workflows"):
		return "restart_workflows"
	case strings.HasPrefix(what, "deleting reverse vreplication workflows"):
		return "delete_reverse_workflows"
	}
	return "other"
}

// cancelFailed reads the "Cancel migration failed" lines of
// traffic_switcher.go cancelMigration and stream_migrator.go:
//
//	≤ v19:  Cancel migration failed:%!(EXTRA <type>=<error>)   (a format bug)
//	v20–21: Cancel migration failed: %v
//	        Cancel migration failed: could not <what>: %v
//	v22+:   Cancel migration failed (<workflow>): could not <what>: %v
//	        Cancel migration failed for <workflow>, manual cleanup work may be necessary: %v
//
// The first two forms are the failure to revert the denied tables (or shard
// access), the first thing a cancel does.
func cancelFailed(first, msg []byte) step {
	s := step{kind: KindCancelFailed}
	rest := string(first[len("Cancel migration failed"):])
	switch {
	case strings.HasPrefix(rest, " ("):
		s.workflow, rest, _ = strings.Cut(rest[2:], ")")
	case strings.HasPrefix(rest, " for "):
		s.workflow, rest, _ = strings.Cut(rest[5:], ",")
		rest = strings.TrimPrefix(rest, " manual cleanup work may be necessary")
		s.name = "manual_cleanup"
	}
	rest = strings.TrimPrefix(rest, ":")
	extra := false
	if v, ok := strings.CutPrefix(rest, "%!(EXTRA "); ok {
		// fmt's report of the argument the format did not use:
		// %!(EXTRA <type>=<value>), the value printed with %v, which for a
		// vterrors error spans lines.
		if _, after, ok := strings.Cut(v, "="); ok {
			v = after
		}
		rest, extra = v, true
	}
	rest = strings.TrimSpace(rest)
	if what, ok := strings.CutPrefix(rest, "could not "); ok && s.name == "" {
		what, rest, _ = strings.Cut(what, ": ")
		s.name = couldNot(what)
	} else if s.name == "" {
		s.name = "revert_denied_tables"
	}
	s.err = rest + continuation(msg)
	if extra {
		s.err = strings.TrimSpace(strings.TrimSuffix(s.err, ")"))
	}
	return s
}

func couldNot(what string) string {
	switch {
	case strings.HasPrefix(what, "revert denied tables"):
		return "revert_denied_tables"
	case strings.HasPrefix(what, "restart vreplication"):
		return "restart_workflows"
	case strings.HasPrefix(what, "delete revers"): // "revers vreplication entries" before v20
		return "delete_reverse_workflows"
	case strings.HasPrefix(what, "cancel stream migrations"):
		return "cancel_stream_migrations"
	case strings.HasPrefix(what, "restart source streams"):
		return "restart_source_streams"
	}
	return "other"
}

// switchErrors are the messages switchWrites logs when a step fails
// (server.go handleError). Where they stand in the entry depends on the
// release: ≤ v19 logs "Code: INTERNAL" and then "<message>: <cause>" on the
// next line; v20–v22 log the cause's lines and then "<message>" last;
// v23 logs "<message>: <cause>" on the header line.
var switchErrors = []struct{ prefix, step string }{
	{"failed to execute LOCK TABLES (attempt ", "lock_tables"},
	{"Failed to execute LOCK TABLES (attempt ", "lock_tables"},
	{"failed to stop writes in the ", "stop_source_writes"},
	{"failed to stop the workflow streams", "stop_streams"},
	{"failed to sync up replication between the source and target", "wait_catchup"},
	{"failed to migrate the workflow streams", "migrate_streams"},
	{"failed to reset the sequences", "reset_sequences"},
	{"failed to create the reverse vreplication streams", "create_reverse"},
	{"failed to initialize the sequences used in the ", "initialize_sequences"},
	{"failed to gather replication positions", "gather_positions"},
	{"failed to create the journal", "create_journal"},
	{"failed to allow writes in the ", "allow_target_writes"},
	{"failed to update the routing rules", "change_routing"},
	{"failed to finalize the traffic switch", "finalize"},
	{"failed to start the reverse workflow", "start_reverse"},
	{"failed to freeze the workflow in the ", "freeze"},
	// v22+ server.go WorkflowSwitchTraffic (and MoveTablesComplete, …) lock
	// the workflow by name: "failed to lock the %s workflow: %v" with
	// "<keyspace>/<workflow>" (server_test.go: "failed to lock the %s
	// workflow: deadline exceeded: internal/named_locks/%s").
	{"failed to lock the ", "lock_keyspace"},
	{"failed to read journal in the ", "read_journal"},
	{"failed to switch read traffic for the ", "switch_reads"},
	{"locks were lost", "locks_lost"},
}

// switchError finds a switchWrites failure in any line of an error entry.
func switchError(msg []byte) (step, bool) {
	rest := msg
	var before []byte // the lines before the message: the cause, in v20–v22
	for len(rest) > 0 {
		line := rest
		next := []byte(nil)
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, next = rest[:i], rest[i+1:]
		}
		if len(line) > 0 && (line[0] == 'f' || line[0] == 'F' || line[0] == 'l') {
			for _, se := range switchErrors {
				if !scan.HasPrefix(line, se.prefix) {
					continue
				}
				s := step{kind: KindSwitchFailed, name: se.step}
				text := string(line)
				head, cause, hasCause := strings.Cut(text, ": ")
				if name, ok := strings.CutSuffix(strings.TrimPrefix(head, "failed to lock the "), " workflow"); ok && se.step == "lock_keyspace" {
					s.name = "lock_workflow"
					s.keyspace, s.workflow, _ = strings.Cut(name, "/")
				}
				if se.step == "lock_tables" {
					s.kind = KindLockTablesFailed
					s.name = "attempt"
					attempt, attempts := lockAttempt(head)
					s.attrs = []attr{{AttrAttempt, attempt}, {AttrAttempts, attempts}}
				}
				switch {
				case hasCause:
					s.err = cause + trailing(next)
				default:
					s.err = strings.TrimSpace(string(dropCode(before)))
				}
				return s, true
			}
		}
		before = msg[:len(msg)-len(rest)+len(line)]
		rest = next
	}
	return step{}, false
}

// dropCode removes a "Code: X" line that vterrors prints before a message.
func dropCode(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, []byte("Code: ")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[i+1:]
		}
	}
	return b
}

// lockAttempt reads "failed to execute LOCK TABLES (attempt 1 of 2) on sources".
func lockAttempt(s string) (attempt, attempts string) {
	_, rest, _ := strings.Cut(s, "(attempt ")
	rest, _, _ = strings.Cut(rest, ")")
	attempt, attempts, _ = strings.Cut(rest, " of ")
	return attempt, attempts
}

// contextErrors are the texts of context.DeadlineExceeded and
// context.Canceled, as errors carry them into log lines.
var contextErrors = []string{"context deadline exceeded", "context canceled"}

func contextError(msg []byte) string {
	for off := 0; off < len(msg); {
		i := bytes.Index(msg[off:], []byte("context "))
		if i < 0 {
			return ""
		}
		at := msg[off+i:]
		for _, c := range contextErrors {
			if scan.HasPrefix(at, c) {
				return c
			}
		}
		off += i + len("context ")
	}
	return ""
}

// deniedQuery finds the error a tablet returns for a query on a denied
// table (vttablet query_executor.go: "disallowed due to rule: %s" with the
// rule "enforce denied tables", before Vitess 12 "enforce blacklisted
// tables"), as vtgate and vttablet log it. vtgate prefixes the shard:
// "target: <keyspace>.<shard>.<tablet type>" (tabletgateway.go).
func deniedQuery(msg []byte) (step, bool) {
	i := bytes.Index(msg, []byte("disallowed due to rule: enforce "))
	if i < 0 {
		return step{}, false
	}
	rule := msg[i+len("disallowed due to rule: enforce "):]
	if !bytes.HasPrefix(rule, []byte("denied tables")) && !bytes.HasPrefix(rule, []byte("blacklisted tables")) {
		return step{}, false
	}
	s := step{kind: KindDeniedTables, name: "query_denied"}
	if j := bytes.Index(msg[:i], []byte("target: ")); j >= 0 {
		t := msg[j+len("target: "):]
		if k := bytes.IndexAny(t, ": "); k >= 0 {
			t = t[:k]
		}
		parts := strings.Split(string(t), ".")
		if len(parts) == 3 {
			s.keyspace, s.shard = parts[0], parts[1]
			s.attrs = []attr{{AttrTabletType, parts[2]}}
		}
	}
	return s, true
}

// cut returns what follows prefix, as a string: only call it where a match
// makes an event.
func cut(b []byte, prefix string) (string, bool) {
	if !scan.HasPrefix(b, prefix) {
		return "", false
	}
	return string(b[len(prefix):]), true
}

// switchAction reports whether a lock line ("<resource> for action
// <action>…") is about a traffic switch, before anything is converted.
func switchAction(b []byte, actions ...string) bool {
	i := bytes.Index(b, []byte(" for action "))
	if i < 0 {
		return false
	}
	b = b[i+len(" for action "):]
	if j := bytes.IndexByte(b, ' '); j >= 0 {
		b = b[:j]
	}
	for _, a := range actions {
		if string(b) == a {
			return true
		}
	}
	return false
}

// ksDotName reads "<keyspace>.<name>" up to a space or comma.
func ksDotName(s string) (string, string) {
	if i := strings.IndexAny(s, " ,"); i >= 0 {
		s = s[:i]
	}
	ks, name, _ := strings.Cut(s, ".")
	return ks, name
}

// lockTarget reads "<resource> for action <action>[ with options: …]".
func lockTarget(s string) (resource, action string) {
	resource, rest, _ := strings.Cut(s, " for action ")
	action, _, _ = strings.Cut(rest, " ")
	return resource, action
}

func list(t string) []string {
	if t = strings.TrimSpace(t); t == "" {
		return nil
	}
	return []string{t}
}

// splitTables reads a list of tables as logged: "t1, t2" (strings.Join) or
// "[t1 t2]" (a Go slice printed with %v).
func splitTables(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	if len(f) == 0 {
		return nil
	}
	return f
}

// lockedTables reads the tables of "`t1` READ,`t2` READ".
func lockedTables(stmt string) []string {
	var out []string
	for _, part := range strings.Split(stmt, ",") {
		part = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(part), " READ"))
		part = strings.Trim(part, "`")
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// tabletError picks the error out of "<tablet proto>: <error>". The tablet
// is printed as a proto in text form, with colons of its own, so the error
// is taken from the first place that starts like one.
func tabletError(s string) string {
	for _, m := range []string{": rpc error: ", ": context ", ": Code: ", ": vttablet: ", ": TabletManager."} {
		if i := strings.Index(s, m); i >= 0 {
			return s[i+2:]
		}
	}
	return s
}

// protoField reads a string field of a proto printed in text form:
// keyspace:"dst" → dst.
func protoField(s, name string) string {
	i := strings.Index(s, " "+name+":\"")
	if i < 0 {
		return ""
	}
	v := s[i+len(name)+3:]
	v, _, _ = strings.Cut(v, "\"")
	return v
}

// continuation returns the lines of an entry after its first, as "\n…".
func continuation(msg []byte) string {
	if i := bytes.IndexByte(msg, '\n'); i >= 0 {
		return trailing(msg[i+1:])
	}
	return ""
}

func trailing(b []byte) string {
	b = bytes.TrimRight(b, " \t\n")
	if len(b) == 0 {
		return ""
	}
	return "\n" + string(b)
}
