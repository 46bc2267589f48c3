package nsserver

import (
	"bytes"
	"encoding/json"
	"strings"

	"forensics"
	"forensics/parsers/jsonrec"
)

// The event log (event_log.erl, ns_server 7.1+) holds one JSON object per
// event: "timestamp" (UTC, ms), "event_id", "component", "description",
// "severity", "node" (host), "otp_node", "uuid" and, when there are any,
// "extra_attributes". diag.log prints it between "Event Logs:" and dashes;
// the same lines can come as a file of their own.

// eventLog is the part of an event log object that is read.
type eventLog struct {
	Timestamp   string      `json:"timestamp"`
	EventID     json.Number `json:"event_id"`
	Component   string      `json:"component"`
	Description string      `json:"description"`
	Severity    string      `json:"severity"`
	OTPNode     string      `json:"otp_node"`
	Extra       extraAttrs  `json:"extra_attributes"`
}

// extraAttrs are the extra_attributes read, as the callers of
// event_log:add_log/2 write them: ns_log consume_log/1 (service_crashed),
// ns_memcached (bucket_online), ns_orchestrator handle_start_failover and
// ns_rebalance_observer (failovers), ns_node_disco (node_down).
type extraAttrs struct {
	Name              json.RawMessage `json:"name"`
	ExitStatus        json.RawMessage `json:"exit_status"`
	OSPid             json.RawMessage `json:"os_pid"`
	Bucket            json.RawMessage `json:"bucket"`
	BucketUUID        json.RawMessage `json:"bucket_uuid"`
	WarmupTime        json.RawMessage `json:"warmup_time"`
	OperationID       json.RawMessage `json:"operation_id"`
	AllowUnsafe       json.RawMessage `json:"allow_unsafe"`
	TimeTaken         json.RawMessage `json:"time_taken"`
	CompletionMessage json.RawMessage `json:"completion_message"`
	FailoverReason    json.RawMessage `json:"failover_reason"`
	Node              json.RawMessage `json:"node"`
	DownNode          json.RawMessage `json:"down_node"`
	Reason            json.RawMessage `json:"reason"`
	Nodes             json.RawMessage `json:"nodes"` // auto failover warning
	NodesInfo         struct {
		FailoverNodes []string `json:"failover_nodes"`
		MasterNode    string   `json:"master_node"`
	} `json:"nodes_info"`
}

// eventLogs names event log lines in the errors of their lines.
var eventLogs = jsonrec.New("event log line", "event_id")

func (e *eventLog) Stamp() string       { return e.Timestamp }
func (e *eventLog) Number() json.Number { return e.EventID }

// eventKinds maps event ids (event_log:event_details/1) to kinds that mean
// the same as a logged message.
var eventKinds = map[int]forensics.Kind{
	6:    FailoverStart,  // Graceful failover initiated
	7:    FailoverEnd,    // Graceful failover completed
	8:    FailoverFailed, // Graceful failover failed
	9:    FailoverFailed, // Graceful failover interrupted
	10:   FailoverStart,  // Hard failover initiated
	11:   FailoverEnd,    // Hard failover completed
	12:   FailoverFailed, // Hard failover failed
	13:   FailoverFailed, // Hard failover interrupted
	14:   FailoverStart,  // Auto failover initiated
	15:   FailoverEnd,    // Auto failover completed
	16:   FailoverFailed, // Auto failover failed
	19:   ServiceExited,  // Service crashed (ns_log consume_log/1)
	8199: BucketOnline,   // Bucket online (ns_memcached mark_warmed)
}

// eventLogReader reads event log lines.
type eventLogReader struct {
	ev forensics.Event
}

func (r *eventLogReader) line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	obj, ok := jsonrec.Object(text)
	if !ok {
		return forensics.Stamp{}, nil
	}
	var e eventLog
	st, id, err := eventLogs.Read(obj, &e)
	if err != nil {
		return st, err
	}
	ev := &r.ev
	ev.Reset()
	ev.Stamp = st
	ev.Line = n
	ev.Node = e.OTPNode
	ev.Text = string(text)
	ev.Kind = eventKinds[id]
	if ev.Kind == "" && !eventAlert(id, &e.Extra, ev) {
		ev.Kind = LoggedEvent
	}
	ev.Set(AttrEventID, e.EventID.String())
	ev.Set(AttrDescription, e.Description)
	if e.Component != "" {
		ev.Set(AttrComponent, e.Component)
	}
	if e.Severity != "" {
		ev.Set(AttrSeverity, e.Severity)
	}
	x := &e.Extra
	if b := jsonText(x.Bucket); b != "" {
		ev.Bucket = b
	}
	switch ev.Kind {
	case ServiceExited:
		setText(ev, AttrService, x.Name)
		setText(ev, AttrStatus, x.ExitStatus)
		setText(ev, AttrName, x.Name)
		setText(ev, AttrExitStatus, x.ExitStatus)
		setText(ev, AttrOsPID, x.OSPid)
	case BucketOnline:
		setText(ev, AttrBucketUUID, x.BucketUUID)
		setText(ev, AttrWarmupTime, x.WarmupTime)
	case FailoverStart, FailoverEnd, FailoverFailed:
		if len(x.NodesInfo.FailoverNodes) > 0 {
			ev.Set(AttrNodes, strings.Join(x.NodesInfo.FailoverNodes, ","))
		}
		if x.NodesInfo.MasterNode != "" {
			ev.Set(AttrMasterNode, x.NodesInfo.MasterNode)
		}
		if id >= 6 && id <= 9 {
			ev.Set(AttrGraceful, "true")
		}
		if id >= 14 && id <= 16 {
			ev.Set(AttrAuto, "true")
		}
		setText(ev, AttrOperationID, x.OperationID)
		setText(ev, AttrAllowUnsafe, x.AllowUnsafe)
		setText(ev, AttrTimeTaken, x.TimeTaken)
		setText(ev, AttrCompletionMessage, x.CompletionMessage)
		setText(ev, AttrFailoverReason, x.FailoverReason)
	default:
		setText(ev, AttrName, x.Name)
		setText(ev, AttrNode, x.Node)
		setText(ev, AttrDownNode, x.DownNode)
		setText(ev, AttrReason, x.Reason)
	}
	ev.Set(AttrVia, "event_log")
	emit(ev)
	return st, nil
}

func setText(ev *forensics.Event, key forensics.AttrKey, raw json.RawMessage) {
	if v := jsonText(raw); v != "" {
		ev.Set(key, v)
	}
}

// jsonText returns a JSON value as text: a string without its quotes,
// anything else as compact JSON.
func jsonText(raw json.RawMessage) string {
	raw = json.RawMessage(trimSpace(raw))
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

type eventLogParser struct {
	r eventLogReader
}

func newEventLog(forensics.Origin) forensics.Parser { return &eventLogParser{} }

func (p *eventLogParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	return p.r.line(n, text, emit)
}

func (p *eventLogParser) End(forensics.Emit) error { return nil }

func detectEventLog(name string, head []byte) int {
	objects, events := 0, 0
	for len(head) > 0 && objects < 5 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else if bytes.HasSuffix(trimSpace(head), []byte("}")) {
			head = nil
		} else {
			break // a line cut at the end of head
		}
		line = trimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			return 0
		}
		objects++
		if bytes.Contains(line, []byte(`"event_id"`)) && bytes.Contains(line, []byte(`"timestamp"`)) {
			events++
		}
	}
	if objects == 0 || events < objects {
		return 0
	}
	return 80
}
