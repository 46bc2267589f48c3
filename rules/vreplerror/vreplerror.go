// Package vreplerror holds the rule vitess-vreplication-error: a
// VReplication stream that went into the error state and stays there.
package vreplerror

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"forensics"
	"forensics/names"
	"forensics/parsers/vitess"
	"forensics/rules/evidence"
	"forensics/shell"
)

// The details of a finding's subject (Rule.Details).
var (
	streamDetail = forensics.Detail{Key: "stream", Type: forensics.DetailInt, Doc: "the stream's id in _vt.vreplication"}
)

// Rule is vitess-vreplication-error.
var Rule = &forensics.Rule{
	Name: "vitess-vreplication-error",
	Doc: forensics.Doc{
		Title: "a VReplication stream stuck in the error state",
		Detects: "A VReplication stream whose state is Error: in Workflow show (state Error with the message), or in the " +
			"target primary's vttablet log (\"vreplication stream N going into error state due to …\") with no start of " +
			"the stream after it. One finding per workflow and stream, with the error, since when it fails (the first " +
			"\"error in stream N, retrying after …\" before it gave up), how often it was retried, and whether it is " +
			"retrying still. A stream that failed and is running again is not reported.",
		Why: "vttablet retries a failing stream until the error is one it knows needs a person (a duplicate key, a " +
			"missing column, binary logs that are gone) or it has failed for too long; then it sets the stream's state " +
			"to Error and stops it. Nothing is copied to the target any more: a MoveTables or Reshard cannot switch " +
			"traffic, and its lag grows, until someone fixes the cause and starts the workflow again.",
		Confirm: "vtctldclient Workflow --keyspace <target keyspace> show --workflow <workflow>: the stream's state and " +
			"message. In the target primary's vttablet log, search for \"going into error state\" and \"error in stream\".",
		Inputs: "Workflow show (or GetWorkflows) of the target keyspace, and ideally the vttablet logs (glog or the JSON " +
			"of v24) of the target primaries.",
		Fixes: "Show the workflow, fix the cause the message names (the finding says what for the usual ones), then " +
			"start the workflow. The finding lists the commands with the names filled in.",
	},
	Kinds:   []forensics.Kind{vitess.KindWorkflow, vitess.KindWorkflowStatus, vitess.KindVReplError, vitess.KindVReplRetry, vitess.KindVReplStart},
	Details: []forensics.Detail{streamDetail},
	Run:     run,
}

// stream is one VReplication stream as the evidence shows it.
type stream struct {
	workflow, keyspace, shard string
	id                        int64
	tablet                    string
	wf                        *vitess.Workflow
	doc                       *forensics.Event // the latest Workflow show that lists it
	state, message            string
	logs                      []forensics.Event // its vttablet lines, in time order
}

func run(pass *forensics.Pass) error {
	evs, err := forensics.Collect(pass.Events(vitess.KindWorkflow, vitess.KindWorkflowStatus, vitess.KindVReplError, vitess.KindVReplRetry, vitess.KindVReplStart))
	if err != nil {
		return fmt.Errorf("read workflow and vttablet events: %w", err)
	}
	streams := map[string]*stream{} // keyspace/workflow/shard/id
	byID := map[int64][]*stream{}
	var logs []forensics.Event
	for i := range evs {
		e := evs[i]
		if e.Kind == vitess.KindWorkflowStatus {
			readStatus(&evs[i], streams, byID)
			continue
		}
		if e.Kind != vitess.KindWorkflow {
			logs = append(logs, e)
			continue
		}
		w, err := vitess.DecodeWorkflow(&e)
		if err != nil {
			continue // the parser has reported the file
		}
		for _, ws := range w.Shards {
			for _, st := range ws.Streams {
				shard := st.Shard
				if shard == "" {
					shard = ws.Shard
				}
				key := fmt.Sprintf("%s/%s/%s/%d", w.Target, w.Name, shard, st.ID)
				s := streams[key]
				if s == nil {
					s = &stream{workflow: w.Name, keyspace: w.Target, shard: shard, id: st.ID}
					streams[key] = s
					byID[st.ID] = append(byID[st.ID], s)
				}
				wcopy := w
				s.wf, s.doc = &wcopy, &evs[i]
				s.state, s.message, s.tablet = st.State, st.Message, st.Tablet
				if s.tablet == "" {
					s.tablet = ws.Tablet
				}
			}
		}
	}

	// Log lines name the stream by its id on the tablet; the player's start
	// line (v21+) names the workflow too.
	names := map[string]string{} // source/id → workflow
	groups := map[string][]forensics.Event{}
	var order []string
	for _, e := range logs {
		src := e.Path + "\x00" + e.Attr(vitess.AttrStream)
		if wf := e.Attr(vitess.AttrWorkflow); wf != "" && e.Kind == vitess.KindVReplStart {
			names[src] = wf
		}
		if groups[src] == nil {
			order = append(order, src)
		}
		groups[src] = append(groups[src], e)
	}
	logOnly := map[string]*stream{}
	for _, src := range order {
		g := groups[src]
		id, err := strconv.ParseInt(g[0].Attr(vitess.AttrStream), 10, 64)
		if err != nil {
			continue
		}
		shard := ""
		for _, e := range g {
			if e.Shard != "" {
				shard = e.Shard
			}
		}
		var cands, inErr []*stream
		docsLater := true
		for _, c := range byID[id] {
			if (names[src] == "" || c.workflow == names[src]) && (shard == "" || c.shard == shard) {
				cands = append(cands, c)
				if strings.EqualFold(c.state, "Error") {
					inErr = append(inErr, c)
				}
				if c.doc.Time.Before(g[len(g)-1].Time) {
					docsLater = false
				}
			}
		}
		switch {
		case len(cands) == 1:
			cands[0].logs = append(cands[0].logs, g...)
		case len(inErr) == 1:
			// A stream id is per tablet; a log that does not say which
			// tablet it is from belongs to the stream that is failing.
			inErr[0].logs = append(inErr[0].logs, g...)
		case len(cands) > 1 && len(inErr) == 0 && docsLater:
			// Every stream it could be runs in a later Workflow show.
		default:
			logOnly[src] = &stream{workflow: names[src], keyspace: g[0].Keyspace, shard: shard, id: id, logs: g}
		}
	}

	var all []*stream
	for _, s := range streams {
		all = append(all, s)
	}
	for _, s := range logOnly {
		all = append(all, s)
	}
	for _, s := range all {
		if f, ok := finding(s); ok {
			pass.Report(f)
		}
	}
	return nil
}

// readStatus reads the streams of a MoveTables or Workflow status output:
// "id=87 on -40/zone1-0000000300: Status: Error: task error: …" in the
// text (vitessio/vitess#15963), "status": "Error: …" in the JSON.
func readStatus(e *forensics.Event, streams map[string]*stream, byID map[int64][]*stream) {
	ws, err := vitess.DecodeWorkflowStatus(e)
	if err != nil || ws.Workflow == "" {
		return
	}
	for _, st := range ws.Streams {
		_, shard, _ := strings.Cut(st.Shard, "/")
		key := fmt.Sprintf("%s/%s/%s/%d", ws.Keyspace, ws.Workflow, shard, st.ID)
		s := streams[key]
		if s == nil {
			s = &stream{workflow: ws.Workflow, keyspace: ws.Keyspace, shard: shard, id: st.ID}
			streams[key] = s
			byID[st.ID] = append(byID[st.ID], s)
		}
		s.doc, s.tablet = e, st.Tablet
		state, msg, _ := strings.Cut(st.Status, ": ")
		s.state, s.message = state, msg
	}
}

// inError decides from the last word of the evidence: the later of the
// Workflow show and the stream's last vttablet line.
func (s *stream) inError() bool {
	var last *forensics.Event
	for i := range s.logs {
		if s.logs[i].Kind != vitess.KindVReplRetry {
			last = &s.logs[i]
		}
	}
	docError := s.doc != nil && strings.EqualFold(s.state, "Error")
	switch {
	case s.doc != nil && (last == nil || !last.Time.After(s.doc.Time)):
		return docError
	case last != nil:
		return last.Kind == vitess.KindVReplError
	}
	return false
}

func finding(s *stream) (forensics.Finding, bool) {
	if !s.inError() {
		return forensics.Finding{}, false
	}
	var errLine, firstRetry *forensics.Event
	retries := 0
	for i := range s.logs {
		e := &s.logs[i]
		switch e.Kind {
		case vitess.KindVReplStart:
			errLine, firstRetry, retries = nil, nil, 0 // an earlier run of the stream
		case vitess.KindVReplRetry:
			if errLine == nil {
				retries++
				if firstRetry == nil {
					firstRetry = e
				}
			}
		case vitess.KindVReplError:
			errLine = e
		}
	}
	msg := s.message
	if errLine != nil && (msg == "" || s.doc == nil || errLine.Time.After(s.doc.Time)) {
		msg = errLine.Attr(vitess.AttrError)
	}
	msg = strings.Join(strings.Fields(msg), " ")

	var ev []forensics.Evidence
	add := func(e *forensics.Event, note, text string, line int64) {
		quote := forensics.EvidenceOf(e, note)
		quote.Line, quote.Text = line, text
		ev = append(ev, quote)
	}
	if firstRetry != nil {
		add(firstRetry, "the stream fails and is retried", firstRetry.Text, firstRetry.Line)
	}
	if errLine != nil {
		add(errLine, "vttablet gives up: the stream goes into the error state", errLine.Text, errLine.Line)
	}
	if s.doc != nil {
		line, text := streamExcerpt(s.doc, s.id)
		add(s.doc, "Workflow show: the stream's state and message", text, line)
	}
	forensics.SortEvidence(ev)
	start, end := forensics.Span(ev)

	f := forensics.Finding{
		Severity: forensics.High,
		Title:    fmt.Sprintf("VReplication stream %d of %s is in the error state (%s)", s.id, cmp.Or(s.workflow, "an unknown workflow"), class(msg).words),
		Subject:  forensics.FindingSubject{Workflow: s.workflow, Keyspace: s.keyspace, Shard: s.shard, Details: forensics.Details{streamDetail.Int(s.id)}},
		Start:    start,
		End:      end,
		Evidence: ev,
	}
	f.Explanation = explain(s, msg, firstRetry, errLine, retries)
	f.Fixes = fixes(s, msg)
	return f, true
}

func explain(s *stream, msg string, firstRetry, errLine *forensics.Event, retries int) string {
	var b strings.Builder
	where := s.keyspace
	if s.shard != "" {
		where += "/" + s.shard
	}
	fmt.Fprintf(&b, "Stream %d of workflow %s", s.id, cmp.Or(s.workflow, "(not named in the evidence)"))
	if where != "" {
		fmt.Fprintf(&b, " on %s", where)
	}
	if s.tablet != "" {
		fmt.Fprintf(&b, " (tablet %s)", s.tablet)
	}
	b.WriteString(" is in the error state")
	if msg != "" {
		fmt.Fprintf(&b, ": \"%s\"", msg)
	}
	b.WriteString(".")
	switch {
	case firstRetry != nil && errLine != nil:
		fmt.Fprintf(&b, " It has failed since %s: vttablet retried it %d time%s (every %s) and gave up at %s.", evidence.Clock(firstRetry.Time), retries, evidence.Plural(retries, "", "s"), firstRetry.Attr(vitess.AttrRetry), evidence.Clock(errLine.Time))
	case errLine != nil:
		fmt.Fprintf(&b, " vttablet put it in the error state at %s without retrying: it takes this error for one that needs a person.", evidence.Clock(errLine.Time))
	case s.doc != nil:
		fmt.Fprintf(&b, " No vttablet log in the input shows when it started failing; it was in the error state by %s.", evidence.Stamp(s.doc.Time))
	}
	if s.doc != nil {
		fmt.Fprintf(&b, " Workflow show at %s reports state %s.", evidence.Stamp(s.doc.Time), s.state)
	}
	b.WriteString(" A stream in the error state is not retried: nothing is replicated to the target until the cause is fixed and the workflow started again. ")
	b.WriteString(class(msg).why)
	return strings.TrimSpace(b.String())
}

// errorClass is what an error message says is wrong, and what to do.
type errorClass struct {
	words, why, what string
}

// class reads the MySQL error the message carries (vreplication
// isUnrecoverableError: the errors vttablet does not retry).
func class(msg string) errorClass {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "duplicate entry"), strings.Contains(m, "errno 1062"):
		return errorClass{"duplicate key", "The target already has a row with the key the source's change writes: the target was written outside the workflow, or two workflows write the same table.",
			"Find the conflicting row on the target (the key is in the message) and remove it, or stop whatever writes the target directly."}
	case strings.Contains(m, "unknown column"), strings.Contains(m, "errno 1054"), strings.Contains(m, "doesn't exist"), strings.Contains(m, "errno 1146"):
		return errorClass{"schema mismatch", "The target's schema lacks a column or table the source has: a schema change reached the source but not the target.",
			"Apply the same schema change to the target keyspace (ApplySchema on it, or the Online DDL you ran on the source)."}
	case strings.Contains(m, "errno 1236"), strings.Contains(m, "purged"), strings.Contains(m, "could not find first log file"):
		return errorClass{"binary logs gone", "The source no longer has the binary logs the stream must read from its position: the stream cannot resume.",
			"Restarting does not help. Cancel the workflow and create it again, which copies the tables anew."}
	case strings.Contains(m, "access denied"), strings.Contains(m, "errno 1045"), strings.Contains(m, "errno 1142"):
		return errorClass{"access denied", "The VReplication user lacks a privilege on the target or the source.",
			"Grant the vt_filtered (or configured VReplication) user the privileges the message names."}
	}
	return errorClass{"error", "", "Read the message in the evidence and fix what it names."}
}

// fixes: show, fix the class, start. Syntax:
// go/cmd/vtctldclient/command/vreplication/workflow (show, start) and
// movetables (cancel, create).
func fixes(s *stream, msg string) []forensics.Fix {
	c := class(msg)
	if names.Keyspace(s.keyspace) != nil || names.Workflow(s.workflow) != nil {
		return []forensics.Fix{{Title: "Fix the stream by hand", Steps: []string{
			fmt.Sprintf("The workflow %q or keyspace %q is not known from the evidence or is not a Vitess name, so no command is given with it.", s.workflow, s.keyspace),
			c.what,
		}}}
	}
	show := shell.Vtctldclient("Workflow", "--keyspace", s.keyspace, "show", "--workflow", s.workflow)
	out := []forensics.Fix{
		{Title: fmt.Sprintf("Show workflow %s and stream %d's message", s.workflow, s.id), Commands: []string{show}},
	}
	cause := forensics.Fix{Title: "Fix the cause: " + c.words, Steps: []string{c.what}}
	if c.words == "binary logs gone" && s.wf != nil && s.wf.WorkflowType == "MoveTables" && s.wf.Source != "" && len(s.wf.Tables) > 0 && names.Keyspace(s.wf.Source) == nil && names.Each(names.Table, s.wf.Tables) == nil {
		cause.Steps = append(cause.Steps, "cancel drops the tables the workflow copied to the target; create copies them again from the source.")
		cause.Commands = []string{
			shell.Vtctldclient("MoveTables", "--target-keyspace", s.keyspace, "--workflow", s.workflow, "cancel"),
			shell.Vtctldclient("MoveTables", "--target-keyspace", s.keyspace, "--workflow", s.workflow, "create",
				"--source-keyspace", s.wf.Source, "--tables", strings.Join(s.wf.Tables, ",")),
		}
		return append(out, cause)
	}
	out = append(out, cause, forensics.Fix{
		Title:    fmt.Sprintf("Start workflow %s again and check it runs", s.workflow),
		Steps:    []string{"start clears the error state; if the cause is still there the stream goes back into it."},
		Commands: []string{shell.Vtctldclient("Workflow", "--keyspace", s.keyspace, "start", "--workflow", s.workflow), show},
	})
	return out
}

// streamExcerpt quotes the stream's state and message from the Workflow
// show document.
func streamExcerpt(e *forensics.Event, id int64) (int64, string) {
	lines := strings.Split(e.Text, "\n")
	idKey := fmt.Sprintf(`"id": "%d"`, id)
	idNum := fmt.Sprintf(`"id": %d`, id)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, idKey) && !strings.HasPrefix(t, idNum) {
			continue
		}
		var keep []string
		for j := i; j < len(lines) && j < i+200; j++ {
			tj := strings.TrimSpace(lines[j])
			if j > i && (strings.HasPrefix(tj, `"id": "`) || strings.HasPrefix(tj, `"id": `)) && strings.Count(lines[j], " ") == strings.Count(lines[i], " ") {
				break // the next stream
			}
			if strings.HasPrefix(tj, `"state"`) || strings.HasPrefix(tj, `"message"`) {
				keep = append(keep, tj)
			}
			if len(keep) == 2 {
				break
			}
		}
		return e.Line + int64(i), strings.Join(append([]string{t}, keep...), " … ")
	}
	return e.Line, lines[0]
}
