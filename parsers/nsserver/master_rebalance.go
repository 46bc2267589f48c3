package nsserver

import (
	"encoding/json"
	"strings"

	"forensics"
)

// The rebalance records of master_events.log give the same kinds as
// ns_orchestrator's lines (RebalanceStart, RebalanceEnd in alerts.go), with
// the same result words, so a rule reads a rebalance the same way from
// either file. Rebalances move vbuckets, as failovers do; 8.0 bundles have
// them where older ones had failovers only.

// masterRebalance is a rebalance record of master_activity_events:event_to_jsons/2
// (ns_server trinity src/, morpheus apps/ns_server/src/):
// {"type":"rebalanceStart","ts":…,"pid":"<0.N.0>","keepNodes":[host:port…],
// "ejectNodes":[…],"failedNodes":[…],"deltaNodes":[…]} and
// {"type":"rebalanceEnd","ts":…,"pid":…,"reason":"normal"|"<term>"}.
type masterRebalance struct {
	Pid         string   `json:"pid"`
	KeepNodes   []string `json:"keepNodes"`
	EjectNodes  []string `json:"ejectNodes"`
	FailedNodes []string `json:"failedNodes"`
	DeltaNodes  []string `json:"deltaNodes"`
	Reason      string   `json:"reason"`
}

// rebalance reads a rebalance record; ev is reset and stamped.
func (p *masterParser) rebalance(b []byte, kind forensics.Kind, ev *forensics.Event) (bool, error) {
	var m masterRebalance
	if err := json.Unmarshal(b, &m); err != nil {
		return false, errMasterJSON
	}
	ev.Kind = kind
	if m.Pid != "" {
		ev.Set(AttrPID, m.Pid)
	}
	if kind == RebalanceEnd {
		switch m.Reason {
		case "normal":
			ev.Set(AttrResult, "completed")
		case "{shutdown,stop}":
			// ns_orchestrator stops the rebalancer with {shutdown, stop}
			// when the user stops the rebalance, or to let an auto-failover
			// run (stop_rebalance/2, get_log_msg/3): not a failure.
			ev.Set(AttrResult, "stopped")
		default:
			ev.Set(AttrResult, "failed")
			setRebalanceReason(ev, []byte(m.Reason))
		}
		return true, nil
	}
	for _, f := range []struct {
		key   forensics.AttrKey
		hosts []string
	}{{AttrKeepNodes, m.KeepNodes}, {AttrEjectNodes, m.EjectNodes}, {AttrFailedNodes, m.FailedNodes}, {AttrDeltaNodes, m.DeltaNodes}} {
		if len(f.hosts) == 0 {
			continue
		}
		nodes := make([]string, len(f.hosts))
		for i, h := range f.hosts {
			nodes[i] = hostNode(h)
		}
		ev.Set(f.key, strings.Join(nodes, ","))
	}
	return true, nil
}
