package nsserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"forensics"
	"forensics/logtime"
	"forensics/parsers/jsonrec"
	"forensics/parsers/scan"
)

// RebalanceReportFormat reads the reports ns_server keeps of its last
// rebalances and failovers (events carry via=rebalance_report). Each report
// is one JSON object in logs/rebalance/rebalance_report_<time>.json
// (ns_rebalance_report_manager record_rebalance_report/2, the name from
// misc:timestamp_utc_iso8601_basic, 2021-03-09T17:33:43Z before 7.6);
// cbcollect_info copies each under its name and saves the running one as
// rebalance_report_current.json. The report ends as ns_orchestrator's log
// does, with the same message (ns_rebalance_observer record_rebalance_report:
// "completionMessage", from log_rebalance_completion/2), so a rebalance reads
// the same from the report as from ns_server.info.log, even when the log has
// rotated away.
var RebalanceReportFormat = forensics.Format{
	Name:      "nsserver-rebalance-report",
	Component: "ns_server",
	Detect:    detectReport,
	New:       newReport,
	Kinds:     append(docs(FailoverEnd, FailoverFailed), alertDocs(RebalanceEnd)...),
}

// rebalanceReport is the part of a report that is read. startTime,
// completedTime and timeTaken are at the top from 7.0 on
// (rebalance_stage_info:binarify_timestamp/1, local time with its offset;
// false while unknown); 6.5 and 6.6 have them per stage only.
type rebalanceReport struct {
	RebalanceID       string                     `json:"rebalanceId"`
	MasterNode        string                     `json:"masterNode"`
	CompletionMessage string                     `json:"completionMessage"`
	CompletedTime     json.RawMessage            `json:"completedTime"`
	TimeTaken         json.RawMessage            `json:"timeTaken"`
	StageInfo         map[string]json.RawMessage `json:"stageInfo"`
}

var (
	errReportJSON = errors.New("rebalance report is not a valid JSON object")
	errReportTime = errors.New("rebalance report has no completion time, in its stages or its name")
)

// maxReport bounds what a report parser keeps: reports with the vbucket
// moves of a large cluster run to a few MiB.
const maxReport = 64 << 20

type reportParser struct {
	origin forensics.Origin
	buf    []byte
	big    bool
	ev     forensics.Event
}

func newReport(o forensics.Origin) forensics.Parser { return &reportParser{origin: o} }

// Line keeps the report: ns_server writes it on one line, but a report
// pretty-printed by jq is the same report.
func (p *reportParser) Line(n int64, text []byte, _ forensics.Emit) (forensics.Stamp, error) {
	if len(p.buf)+len(text) > maxReport {
		p.big = true
		return forensics.Stamp{}, nil
	}
	p.buf = append(p.buf, text...)
	p.buf = append(p.buf, '\n')
	return forensics.Stamp{}, nil
}

func (p *reportParser) End(emit forensics.Emit) error {
	if p.big {
		return errors.New("rebalance report is larger than 64 MiB; not read")
	}
	if len(bytes.TrimSpace(p.buf)) == 0 {
		return nil
	}
	var r rebalanceReport
	if jsonrec.Decode(p.buf, &r) != nil {
		return errReportJSON
	}
	if r.CompletionMessage == "" {
		return nil // the running rebalance's report: it has not ended
	}
	ev := &p.ev
	ev.Reset()
	ev.Stamp = reportTime(&r, p.origin.Name)
	if ev.Stamp.IsZero() {
		return errReportTime
	}
	ev.Line = 1
	ev.Node = r.MasterNode
	ev.Text = strings.TrimSpace(string(firstLineOf(p.buf)))
	if !reportEnd([]byte(r.CompletionMessage), ev) {
		return nil
	}
	if r.RebalanceID != "" {
		ev.Set(AttrOperationID, r.RebalanceID)
	}
	if r.MasterNode != "" {
		ev.Set(AttrMasterNode, r.MasterNode)
	}
	setText(ev, AttrTimeTaken, r.TimeTaken)
	ev.Set(AttrVia, "rebalance_report")
	emit(ev)
	return nil
}

// reportEnd reads a report's completion message: "Rebalance …" as
// ns_orchestrator logs it (rebalanceEnd), "Failover …" and "Graceful
// failover …" (rebalance_type2text/1) as the end of a failover.
func reportEnd(msg []byte, ev *forensics.Event) bool {
	if r, ok := bytes.CutPrefix(msg, []byte("Rebalance ")); ok {
		return rebalanceEnd(r, ev, func(*forensics.Event, []byte) {})
	}
	r, graceful := bytes.CutPrefix(msg, []byte("Graceful failover "))
	if !graceful {
		var ok bool
		if r, ok = bytes.CutPrefix(msg, []byte("Failover ")); !ok {
			return false
		}
	}
	if scan.HasPrefix(r, "completed successfully.") {
		ev.Kind = FailoverEnd
		ev.Set(AttrCompletionMessage, string(msg))
	} else {
		ev.Kind = FailoverFailed
		ev.Set(AttrError, compactTerm(trimSpace(r)))
	}
	if graceful {
		ev.Set(AttrGraceful, "true")
	}
	return true
}

// reportTime is when the operation ended: the report's completedTime (7.0+),
// else the last completedTime of its stages (6.5, 6.6), else the time in
// the report's name.
func reportTime(r *rebalanceReport, name string) forensics.Stamp {
	if st, ok := isoValue(r.CompletedTime); ok {
		return st
	}
	var last forensics.Stamp
	for _, raw := range r.StageInfo {
		var stage struct {
			CompletedTime json.RawMessage `json:"completedTime"`
		}
		if json.Unmarshal(raw, &stage) != nil {
			continue
		}
		if st, ok := isoValue(stage.CompletedTime); ok && st.Time.After(last.Time) {
			last = st
		}
	}
	if !last.IsZero() {
		return last
	}
	stamp, ok := strings.CutPrefix(strings.TrimSuffix(name, ".json"), "rebalance_report_")
	if !ok {
		return forensics.Stamp{}
	}
	for _, layout := range []string{"2006-01-02T15:04:05Z", "20060102T150405Z"} {
		if t, err := time.Parse(layout, stamp); err == nil {
			return forensics.Stamp{Time: t, Zone: forensics.ZoneUTC}
		}
	}
	return forensics.Stamp{}
}

// isoValue reads a JSON string holding an ISO 8601 time.
func isoValue(raw json.RawMessage) (forensics.Stamp, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return forensics.Stamp{}, false
	}
	st, _, ok := logtime.ISO([]byte(s))
	return st, ok
}

// detectReport claims a JSON object that opens as a report does, surest
// under the name ns_server and cbcollect_info give reports. The head may
// end inside a long report, so it is not decoded whole.
func detectReport(name string, head []byte) int {
	b := bytes.TrimSpace(head)
	if len(b) == 0 || b[0] != '{' {
		return 0
	}
	keys := 0
	for _, k := range []string{`"stageInfo"`, `"rebalanceId"`, `"nodesInfo"`, `"masterNode"`, `"completionMessage"`} {
		if bytes.Contains(b, []byte(k)) {
			keys++
		}
	}
	named := strings.HasPrefix(name, "rebalance_report_") && strings.HasSuffix(name, ".json")
	// A report opens with its stages, which hold every vbucket move: in a
	// long one the other keys are past the head.
	stages := bytes.HasPrefix(bytes.Join(bytes.Fields(b[:min(len(b), 64)]), nil), []byte(`{"stageInfo":{`))
	switch {
	case named && (keys >= 2 || stages):
		return 95
	case named && bytes.Contains(b, []byte(`"completionMessage"`)):
		return 90 // the janitor's report: {"completionMessage": "Rebalance stopped by janitor."}
	case stages && keys >= 3:
		return 80
	}
	return 0
}
