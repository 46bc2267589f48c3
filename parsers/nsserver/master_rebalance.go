package nsserver

import (
	"encoding/json"
	"strings"

	"forensics"
)

// Kinds of the rebalance records of master_events.log. Rebalances move
// vbuckets, as failovers do, and an incident's window often holds one; 8.0
// bundles have them where older ones had failovers only.
const (
	MasterRebalanceStart forensics.Kind = "nsserver.rebalance_start"
	MasterRebalanceEnd   forensics.Kind = "nsserver.rebalance_end"
)

var rebalanceDocs = []forensics.KindDoc{
	{Kind: MasterRebalanceStart, Doc: "a rebalance began on the orchestrator, with the nodes kept, ejected, failed and delta-recovered (master events rebalanceStart)"},
	{Kind: MasterRebalanceEnd, Doc: "a rebalance ended; result ok when its process exited normally, else the reason (master events rebalanceEnd)"},
}

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
		ev.Set("pid", m.Pid)
	}
	if kind == MasterRebalanceEnd {
		if m.Reason == "normal" {
			ev.Set("result", "ok")
		} else {
			ev.Set("result", "failed")
			ev.Set("reason", m.Reason)
		}
		return true, nil
	}
	for _, f := range []struct {
		key   string
		hosts []string
	}{{"keep_nodes", m.KeepNodes}, {"eject_nodes", m.EjectNodes}, {"failed_nodes", m.FailedNodes}, {"delta_nodes", m.DeltaNodes}} {
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
