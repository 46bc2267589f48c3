package deniedtables

import (
	"time"

	"forensics"
	"forensics/parsers/vitess"
)

// logKinds are the vtctld log kinds the rule reads (parsers/vitess; the lines
// are logged by go/vt/vtctl/workflow server.go and traffic_switcher.go).
var logKinds = []forensics.Kind{
	vitess.KindSwitchStart, vitess.KindStopStreams, vitess.KindStopSourceWrites, vitess.KindLockTables, vitess.KindLockTablesFailed,
	vitess.KindWaitCatchup, vitess.KindCreateReverse, vitess.KindCreateJournal, vitess.KindRoutingChanged, vitess.KindFreeze,
	vitess.KindSwitchDone, vitess.KindSwitchFailed, vitess.KindCancelStart, vitess.KindCancelDone, vitess.KindCancelFailed, vitess.KindContextError,
}

// steps names what each step of a write switch does, in the order
// switchWrites runs them (FORMATS.md C6).
var steps = map[forensics.Kind]string{
	vitess.KindStopSourceWrites: "switching the denied tables (stopSourceWrites)",
	vitess.KindLockTables:       "LOCK TABLES on the source tables",
	vitess.KindWaitCatchup:      "waiting for the streams to catch up",
	vitess.KindCreateReverse:    "creating the reverse streams",
	vitess.KindCreateJournal:    "creating the journal",
	vitess.KindRoutingChanged:   "switching the routing rules",
	vitess.KindFreeze:           "freezing the workflow",
}

// attemptSpan bounds how long after its `Stopping source writes` a line can
// belong to the same write switch: the switch times out after --timeout
// (30s by default) and the cancel after 2 minutes at most; 10 minutes leaves
// room for slow topo calls without joining unrelated runs.
const attemptSpan = 10 * time.Minute

// attempt is one write switch (SwitchTraffic or ReverseTraffic) in a vtctld
// log, from its `Stopping source writes`: the step that changes the denied
// tables on both sides.
type attempt struct {
	workflow string // as logged: the reverse workflow's name for a ReverseTraffic
	keyspace string

	start        forensics.Event   // Stopping source writes
	steps        []forensics.Event // the steps it went through, in order
	failures     []forensics.Event // failed steps, context errors and cancel lines
	cancelFailed []forensics.Event
	cancelDone   bool
	done         bool // it reached Switch Writes done or froze the workflow
}

// failed reports whether the switch failed before it finished.
func (a *attempt) failed() bool { return len(a.failures) > 0 && !a.done }

// reverse reports whether the attempt was a ReverseTraffic: vtctld runs it
// on the reverse workflow.
func (a *attempt) reverse() bool { _, r := forwardName(a.workflow); return r }

// cut returns the step that was running when the switch failed, and the
// line that started it.
func (a *attempt) cut() (string, forensics.Event) {
	last := a.start
	if len(a.failures) > 0 {
		for _, s := range a.steps {
			if after(s, a.failures[0]) {
				break
			}
			last = s
		}
	} else if len(a.steps) > 0 {
		last = a.steps[len(a.steps)-1]
	}
	return steps[last.Kind], last
}

// cancelRevert returns the failed cancel line about the denied tables, the
// first thing a cancel reverts; else the first failed cancel line.
func (a *attempt) cancelRevert() forensics.Event {
	for _, e := range a.cancelFailed {
		if e.Attr(vitess.AttrStep) == "revert_denied_tables" {
			return e
		}
	}
	return a.cancelFailed[0]
}

// reached reports whether the attempt logged a step of the given kind.
func (a *attempt) reached(k forensics.Kind) bool {
	if a.start.Kind == k {
		return true
	}
	for _, s := range a.steps {
		if s.Kind == k {
			return true
		}
	}
	return false
}

// after reports whether a was logged after b.
func after(a, b forensics.Event) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	return a.Path == b.Path && a.Line > b.Line
}

// attempts splits the vtctld log events into write switches. Events arrive
// in time order; each log file is followed on its own, since two vtctlds
// (or two rotations) do not share a switch.
func attempts(events []forensics.Event) []*attempt {
	type state struct {
		cur                *attempt
		workflow, keyspace string // the last ones logged, to name an attempt whose own lines do not
	}
	bySource := map[string]*state{}
	var out []*attempt
	for _, e := range events {
		st := bySource[e.Path]
		if st == nil {
			st = &state{}
			bySource[e.Path] = st
		}
		if wf := e.Attr(vitess.AttrWorkflow); wf != "" {
			st.workflow = wf
		}
		if ks := e.Attr(vitess.AttrKeyspace); ks != "" {
			st.keyspace = ks
		} else if e.Keyspace != "" {
			st.keyspace = e.Keyspace
		}
		if e.Kind == vitess.KindStopSourceWrites {
			st.cur = &attempt{workflow: st.workflow, keyspace: st.keyspace, start: e}
			out = append(out, st.cur)
			continue
		}
		a := st.cur
		if a == nil || e.Time.Sub(a.start.Time) > attemptSpan {
			st.cur = nil
			continue
		}
		if a.workflow == "" {
			a.workflow = e.Attr(vitess.AttrWorkflow)
		}
		switch e.Kind {
		case vitess.KindSwitchStart, vitess.KindStopStreams:
			// A new switch begins; the current one is over.
			st.cur = nil
		case vitess.KindLockTablesFailed, vitess.KindSwitchFailed, vitess.KindContextError, vitess.KindCancelStart:
			a.failures = append(a.failures, e)
		case vitess.KindCancelFailed:
			a.failures = append(a.failures, e)
			a.cancelFailed = append(a.cancelFailed, e)
		case vitess.KindCancelDone:
			a.failures = append(a.failures, e)
			a.cancelDone = true
		case vitess.KindSwitchDone, vitess.KindFreeze:
			a.steps = append(a.steps, e)
			a.done = true
		default:
			if _, ok := steps[e.Kind]; ok {
				a.steps = append(a.steps, e)
			}
		}
	}
	return out
}

// lastAttempt returns the last write switch of the move that started
// before the snapshot, or nil. A log line has no time zone (glog): its time
// is read as UTC, and a vtctld running on local time lands off the window.
func lastAttempt(all []*attempt, m *move, written, other string, before time.Time) *attempt {
	var last *attempt
	for _, a := range all {
		if a.start.Time.After(before) {
			continue
		}
		switch {
		case a.workflow != "" && m.workflow != "":
			if name, _ := forwardName(a.workflow); name != m.workflow {
				continue
			}
		case a.keyspace != "":
			if a.keyspace != written && a.keyspace != other {
				continue
			}
		}
		last = a
	}
	return last
}
