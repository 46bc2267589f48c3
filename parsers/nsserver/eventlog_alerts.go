package nsserver

import (
	"encoding/json"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// eventAlert reads the event log entries whose kinds alerts.go defines
// (event_log.erl, ns_rebalance_observer add_event_log/3, auto_failover
// report_failover_error/4 and maybe_report_max_node_reached/4; 7.1–8.0):
//
//	3 Rebalance completed, 4 Rebalance failed, 5 Rebalance interrupted:
//	  extra_attributes.completion_message is ns_orchestrator's message
//	  ("Rebalance exited with reason {…}."), operation_id the rebalance's id
//	17 Auto failover warning: extra_attributes.reason and .nodes
//
// It reports whether the entry was one of them.
func eventAlert(id int, x *extraAttrs, ev *forensics.Event) bool {
	switch id {
	case 3, 4, 5:
		msg := []byte(jsonText(x.CompletionMessage))
		r, ok := scan.Cut(msg, "Rebalance ")
		if !ok || !rebalanceEnd(r, ev, func(*forensics.Event, []byte) {}) {
			return false
		}
		setText(ev, AttrOperationID, x.OperationID)
		return true
	case 17:
		var nodes []string
		if err := json.Unmarshal(x.Nodes, &nodes); err != nil || len(nodes) == 0 {
			return false
		}
		ev.Kind = AutoFailoverRefused
		ev.Set(AttrNodes, strings.Join(nodes, ","))
		setText(ev, AttrReason, x.Reason)
		return true
	}
	return false
}
