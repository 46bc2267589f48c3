package crdb

import (
	"bytes"
	"encoding/json"
	"strconv"

	"forensics"
	"forensics/parsers/scan"
)

// A decommission, as the nodes log it on the OPS channel (cockroach.log):
//
//   - the membership changes, as structured events (log.StructuredEvent in
//     pkg/server/decommission.go, Decommission; eventpb's
//     node_decommissioning, node_decommissioned, node_recommissioned): in
//     crdb-v2 an entry marked "=" holding the event's JSON,
//     I240612 10:05:02.211846 8812 1@util/log/event_log.go:39 ⋮ [T1,Vsystem,n1,client=…,user=root] 9 ={"Timestamp":1718186702211846000,"EventType":"node_decommissioning","RequestingNodeID":1,"TargetNodeID":4}
//     and in crdb-v1 the message "Structured entry: {…}"
//     (structuredEntryPrefix, pkg/util/log/structured.go, v21.1+).
//   - the stall: `cockroach node decommission` polls the node it connects
//     to (pkg/cli/node.go, runDecommissionNodeImpl, up to every 20s) and,
//     after 15 polls without any change, asks it to report the replicas
//     still on the node; that node then warns (pkg/server/admin.go,
//     DecommissionStatus, v22.1+) "possible decommission stall detected"
//     and "n%d still has replica id %d for range r%d" for up to 5 of them,
//     on every poll until the replica count changes.
//
// The CLI's table of replicas left is printed on the client's terminal,
// not logged by the nodes.
const (
	KindDecommissionStarted  forensics.Kind = "decommission.started"
	KindDecommissionDone     forensics.Kind = "decommission.done"
	KindRecommissioned       forensics.Kind = "decommission.recommissioned"
	KindDecommissionStall    forensics.Kind = "decommission.stall"
	KindDecommissionReplicas forensics.Kind = "decommission.replica_left"
)

var decommissionDocs = []forensics.KindDoc{
	{Kind: KindDecommissionStarted, Category: forensics.CategoryStep, Label: "decommission started", Component: "decommission",
		Doc:   "a node was marked decommissioning (the node_decommissioning event); target, requester",
		Attrs: attrs.Of(AttrRequester, AttrTarget)},
	{Kind: KindDecommissionDone, Category: forensics.CategoryStep, Label: "decommissioned", Component: "decommission",
		Doc:   "a node was marked decommissioned (the node_decommissioned event): its replicas had all moved; target, requester",
		Attrs: attrs.Of(AttrRequester, AttrTarget)},
	{Kind: KindRecommissioned, Category: forensics.CategoryStep, Label: "recommissioned", Component: "decommission",
		Doc:   "a decommissioning node was made active again (the node_recommissioned event); target, requester",
		Attrs: attrs.Of(AttrRequester, AttrTarget)},
	{Kind: KindDecommissionStall, Category: forensics.CategoryError, Label: "decommission stall", Component: "decommission",
		Doc: "the node serving `cockroach node decommission` saw no change for 15 polls (possible decommission stall detected)"},
	{Kind: KindDecommissionReplicas, Category: forensics.CategoryOther, Label: "replica left", Component: "decommission",
		Doc:   "a replica still on a decommissioning node, reported after a stall (n4 still has replica id 3 for range r7); target, replica_id, range",
		Attrs: attrs.Of(AttrReplicaID, AttrTarget)},
}

const (
	structuredEntryPrefix = "Structured entry: "
	preDecommissionStall  = "possible decommission stall detected"
	midStillHasReplica    = " still has replica id "
	midForRange           = " for range r"
)

// readDecommissionStall reads preDecommissionStall.
func readDecommissionStall(ev *forensics.Event, msg []byte, tg healthTags) bool {
	// The prefix is the whole message; the CLI's own log (v22.1, when it
	// ran with logging to a file) goes on "; reporting decommissioning
	// replicas".
	ev.Kind = KindDecommissionStall
	return true
}

// readReplicaLeft reads "n%d still has replica id %d for range r%d".
func readReplicaLeft(ev *forensics.Event, msg []byte, tg healthTags) bool {
	d := digits(msg[1:])
	if d == 0 || !scan.HasPrefix(msg[1+d:], midStillHasReplica) {
		return false
	}
	rest := msg[1+d+len(midStillHasReplica):]
	id := digits(rest)
	if id == 0 || !scan.HasPrefix(rest[id:], midForRange) {
		return false
	}
	r := rest[id+len(midForRange):]
	if digits(r) == 0 {
		return false
	}
	ev.Kind = KindDecommissionReplicas
	ev.Set(AttrTarget, string(msg[:1+d]))
	ev.Set(AttrReplicaID, string(rest[:id]))
	ev.Range = atoi(r)
	return true
}

// membershipEvent is what a decommission's structured event holds
// (eventpb.CommonNodeDecommissionDetails).
type membershipEvent struct {
	EventType        string `json:"EventType"`
	RequestingNodeID int64  `json:"RequestingNodeID"`
	TargetNodeID     int64  `json:"TargetNodeID"`
}

var membershipKinds = map[string]forensics.Kind{
	"node_decommissioning": KindDecommissionStarted,
	"node_decommissioned":  KindDecommissionDone,
	"node_recommissioned":  KindRecommissioned,
}

// structured reads a structured entry (the "=" entries of crdb-v1 and
// crdb-v2) and emits the decommission's membership changes; it reports
// whether it did. Other structured events are plain lines.
func (hl *health) structured(n int64, b []byte, h *logHeader, origin string, emit forensics.Emit) bool {
	msg := h.msg
	if len(msg) == 0 || msg[0] != '{' || !bytes.Contains(msg, []byte(`"EventType":"node_`)) {
		return false
	}
	var e membershipEvent
	if err := json.Unmarshal(stripMarkers(nil, msg), &e); err != nil {
		return false
	}
	kind, ok := membershipKinds[e.EventType]
	if !ok || e.TargetNodeID <= 0 {
		return false
	}
	ev := &hl.ev
	ev.Reset()
	ev.Kind = kind
	ev.Set(AttrTarget, "n"+strconv.FormatInt(e.TargetNodeID, 10))
	if e.RequestingNodeID > 0 {
		ev.Set(AttrRequester, "n"+strconv.FormatInt(e.RequestingNodeID, 10))
	}
	ev.Node = origin
	if tg := readHealthTags(h.tags); tg.node != nil {
		ev.Node = string(tg.node)
	}
	ev.Stamp = h.stamp
	ev.Line = n
	ev.Text = string(b)
	emit(ev)
	return true
}
