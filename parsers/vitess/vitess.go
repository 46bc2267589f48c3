// Package vitess reads what operators save when a Vitess MoveTables goes
// wrong: the topology documents printed by vtctldclient (routing rules, shard
// records with their tablet controls, keyspaces, SrvKeyspaces, SrvVSchemas,
// workflows and their traffic state), and the glog logs of vtctld, where
// SwitchTraffic and ReverseTraffic log their steps (vttablet logs, in the same
// grammar, add the tablets' side of the denied tables).
//
// A topology document becomes one event whose attribute "doc" holds the
// document in a normalised JSON shape (see RoutingRules, Shard, Workflow, …);
// rules read it back with the Decode functions. Log lines become events for
// the traffic-switch steps, their failures and the cancel that follows.
package vitess

import "forensics"

// Kinds of the topology documents.
const (
	KindRoutingRules      forensics.Kind = "vitess.routing_rules"
	KindShardRoutingRules forensics.Kind = "vitess.shard_routing_rules"
	KindKeyspaces         forensics.Kind = "vitess.keyspaces"
	KindShard             forensics.Kind = "vitess.shard"
	KindSrvKeyspace       forensics.Kind = "vitess.srv_keyspace"
	KindSrvVSchema        forensics.Kind = "vitess.srv_vschema"
	KindWorkflow          forensics.Kind = "vitess.workflow"
	KindWorkflowStatus    forensics.Kind = "vitess.workflow_status"
	KindSwitchResult      forensics.Kind = "vitess.switch_result"
	KindWorkflowList      forensics.Kind = "vitess.workflow_list"
)

// Kinds of the vtctld (and vttablet) log.
const (
	KindSwitchStart      forensics.Kind = "vtctld.switch_start"
	KindStopStreams      forensics.Kind = "vtctld.stop_streams"
	KindStopSourceWrites forensics.Kind = "vtctld.stop_source_writes"
	KindLockTables       forensics.Kind = "vtctld.lock_tables"
	KindLockTablesFailed forensics.Kind = "vtctld.lock_tables_failed"
	KindWaitCatchup      forensics.Kind = "vtctld.wait_catchup"
	KindCreateReverse    forensics.Kind = "vtctld.create_reverse"
	KindCreateJournal    forensics.Kind = "vtctld.create_journal"
	KindRoutingChanged   forensics.Kind = "vtctld.routing_changed"
	KindFreeze           forensics.Kind = "vtctld.freeze"
	KindSwitchDone       forensics.Kind = "vtctld.switch_done"
	KindSwitchFailed     forensics.Kind = "vtctld.switch_failed"
	KindCancelStart      forensics.Kind = "vtctld.cancel_start"
	KindCancelStep       forensics.Kind = "vtctld.cancel_step"
	KindCancelDone       forensics.Kind = "vtctld.cancel_done"
	KindCancelFailed     forensics.Kind = "vtctld.cancel_failed"
	KindContextError     forensics.Kind = "vtctld.context_error"
	KindDeniedTables     forensics.Kind = "vtctld.denied_tables"
)

// SnapshotFormat reads the JSON documents vtctldclient prints (GetRoutingRules,
// GetShardRoutingRules, GetKeyspaces, GetKeyspace, GetShard,
// FindAllShardsInKeyspace, GetSrvKeyspaces, GetSrvVSchema(s), GetWorkflows,
// Workflow show, MoveTables status --format=json, SwitchTraffic
// --format=json) and the text that SwitchTraffic, ReverseTraffic and
// MoveTables status print, however the files are named. A file may hold
// several documents, and the command lines that printed them.
var SnapshotFormat = forensics.Format{
	Name:      "vitess-topo",
	Component: "topo",
	Detect:    detectSnapshot,
	New:       newSnapshot,
	Kinds: []forensics.KindDoc{
		{Kind: KindRoutingRules, Category: forensics.CategoryTopo, Label: "topology snapshot: routing rules", Doc: "the table routing rules (GetRoutingRules); doc is a vitess.RoutingRules", Attrs: attrs.Of(AttrDoc, AttrSnapshot)},
		{Kind: KindShardRoutingRules, Category: forensics.CategoryTopo, Label: "topology snapshot: shard routing rules", Doc: "the shard routing rules of partial MoveTables (GetShardRoutingRules); doc is a vitess.ShardRoutingRules", Attrs: attrs.Of(AttrDoc, AttrSnapshot)},
		{Kind: KindKeyspaces, Category: forensics.CategoryTopo, Label: "topology snapshot: keyspaces", Doc: "the keyspaces (GetKeyspaces, GetKeyspace); doc is a vitess.Keyspaces", Attrs: attrs.Of(AttrDoc, AttrKeyspaces, AttrSnapshot)},
		{Kind: KindShard, Category: forensics.CategoryTopo, Label: "topology snapshot: shard", Doc: "a shard record with its tablet controls and denied tables (GetShard); doc is a vitess.Shard", Attrs: attrs.Of(AttrDoc, AttrKeyspace, AttrShard, AttrSnapshot)},
		{Kind: KindSrvKeyspace, Category: forensics.CategoryTopo, Label: "topology snapshot: srv keyspace", Doc: "the serving graph of a keyspace per cell (GetSrvKeyspaces); doc is a vitess.SrvKeyspaces", Attrs: attrs.Of(AttrCells, AttrDoc, AttrKeyspace, AttrSnapshot)},
		{Kind: KindSrvVSchema, Category: forensics.CategoryTopo, Label: "topology snapshot: srv vschema", Doc: "the serving VSchema per cell, with the routing rules vtgate uses (GetSrvVSchema); doc is a vitess.SrvVSchemas", Attrs: attrs.Of(AttrCells, AttrDoc, AttrSnapshot)},
		{Kind: KindWorkflow, Category: forensics.CategoryTopo, Label: "topology snapshot: workflow", Doc: "a VReplication workflow with its streams and the target shards' tablet controls (Workflow show); doc is a vitess.Workflow", Attrs: attrs.Of(AttrDoc, AttrKeyspace, AttrSnapshot, AttrSourceKeyspace, AttrTables, AttrWorkflow)},
		{Kind: KindWorkflowStatus, Category: forensics.CategoryTopo, Label: "topology snapshot: workflow status", Doc: "a workflow's traffic state and streams (MoveTables status); doc is a vitess.WorkflowStatus", Attrs: attrs.Of(AttrDoc, AttrKeyspace, AttrSnapshot, AttrTrafficState, AttrWorkflow)},
		{Kind: KindSwitchResult, Category: forensics.CategoryTopo, Label: "topology snapshot: switch result", Doc: "the result SwitchTraffic or ReverseTraffic printed, with the start and current state; doc is a vitess.SwitchResult", Attrs: attrs.Of(AttrCommand, AttrCurrentState, AttrDoc, AttrKeyspace, AttrSnapshot, AttrStartState, AttrWorkflow)},
		{Kind: KindWorkflowList, Category: forensics.CategoryTopo, Label: "topology snapshot: workflow list", Doc: "the names of a keyspace's workflows (Workflow list, or GetWorkflows with none); doc is a vitess.WorkflowList", Attrs: attrs.Of(AttrDoc, AttrKeyspace, AttrSnapshot, AttrWorkflows)},
		tabletsDocs[0], tabletsDocs[1], schemaMigrationDoc, txPoolStatsDoc,
	},
}

// VtctldLogFormat reads the logs of vtctld: glog, or one JSON object per
// line from v24 on (see slog.go). Lines have no year and no zone: the year
// comes from the "Log file created at:" header, else from the file's
// modification time, else from the current date (a date that would lie more
// than two days after that time is taken to be from the year before); the
// time is read as UTC and marked as assumed.
var VtctldLogFormat = forensics.Format{
	Name:      "vtctld",
	Component: "vtctld",
	Detect:    detectRole(roleVtctld),
	New:       newVtctld,
	Kinds: append([]forensics.KindDoc{
		{Kind: KindSwitchStart, Category: forensics.CategoryStep, Label: "traffic switch began", Component: "vtctld", Doc: "a SwitchTraffic/ReverseTraffic step began: a keyspace or workflow lock for the switch, reads switching, or writes switching (journals checked)", Attrs: attrs.Of(AttrAction, AttrCaller, AttrKeyspace, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindStopStreams, Category: forensics.CategoryStep, Label: "streams stopped", Component: "vtctld", Doc: "writes switching: stopping the workflow streams", Attrs: attrs.Of(AttrCaller, AttrLevel, AttrStep)},
		{Kind: KindStopSourceWrites, Category: forensics.CategoryStep, Label: "source writes stopped", Component: "vtctld", Doc: "writes switching: stopping writes on the source (denied tables added on the source, removed on the target)", Attrs: attrs.Of(AttrCaller, AttrLevel, AttrStep)},
		{Kind: KindLockTables, Category: forensics.CategoryStep, Label: "LOCK TABLES", Component: "vtctld", Doc: "writes switching: LOCK TABLES on the source primaries", Attrs: attrs.Of(AttrCaller, AttrCycles, AttrKeyspace, AttrLevel, AttrStep, AttrTables)},
		{Kind: KindLockTablesFailed, Category: forensics.CategoryError, Label: "LOCK TABLES failed", Component: "vtctld", Doc: "writes switching: LOCK TABLES on the source failed; the switch is being cancelled", Attrs: attrs.Of(AttrAttempt, AttrAttempts, AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrTables)},
		{Kind: KindWaitCatchup, Category: forensics.CategoryStep, Label: "waiting for streams to catch up", Component: "vtctld", Doc: "writes switching: waiting for the streams to catch up, or for a target shard's streams to reach the source's position (step wait_position, then position_reached; keyspace and shard)", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrShard, AttrStep)},
		{Kind: KindCreateReverse, Category: forensics.CategoryStep, Label: "reverse streams created", Component: "vtctld", Doc: "writes switching: creating the reverse streams", Attrs: attrs.Of(AttrCaller, AttrLevel, AttrStep)},
		{Kind: KindCreateJournal, Category: forensics.CategoryStep, Label: "journal created", Component: "vtctld", Doc: "writes switching: creating the journal, the point of no return", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindRoutingChanged, Category: forensics.CategoryStep, Label: "routing rules changed", Component: "vtctld", Doc: "writes switching: routing rules changed to point at the new keyspace", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrTables, AttrWorkflow)},
		{Kind: KindFreeze, Category: forensics.CategoryStep, Label: "workflow frozen", Component: "vtctld", Doc: "writes switching: the workflow's streams marked FROZEN", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindSwitchDone, Category: forensics.CategoryStep, Label: "switch done", Component: "vtctld", Doc: "a switch of reads, writes or all traffic completed", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindSwitchFailed, Category: forensics.CategoryError, Label: "switch failed", Component: "vtctld", Doc: "a step of a traffic switch failed (error has the cause)", Attrs: attrs.Of(AttrAction, AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindCancelStart, Category: forensics.CategoryStep, Label: "cancel of the migration began", Component: "vtctld", Doc: "the cancel of a failed writes switch began", Attrs: attrs.Of(AttrCaller, AttrError, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindCancelStep, Category: forensics.CategoryStep, Label: "cancel step", Component: "vtctld", Doc: "a step of the cancel of a failed writes switch", Attrs: attrs.Of(AttrCaller, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindCancelDone, Category: forensics.CategoryStep, Label: "migration cancelled", Component: "vtctld", Doc: "the cancel of a failed writes switch finished", Attrs: attrs.Of(AttrCaller, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindCancelFailed, Category: forensics.CategoryError, Label: "cancel failed", Component: "vtctld", Doc: "a step of the cancel failed: denied tables or streams may be left as the failed switch set them", Attrs: attrs.Of(AttrCaller, AttrError, AttrLevel, AttrStep, AttrWorkflow)},
		{Kind: KindContextError, Category: forensics.CategoryError, Label: "context deadline exceeded or cancelled", Component: "vtctld", Doc: "a log entry carrying context deadline exceeded or context canceled", Attrs: attrs.Of(AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrWorkflow)},
		{Kind: KindDeniedTables, Category: forensics.CategoryStep, Label: "denied tables", Component: "vtctld", Doc: "a tablet applied or enforced denied tables, or changing them failed", Attrs: attrs.Of(AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrTables, AttrTabletType)},
	}, append(append(append(opKinds, healthDocs...), txPoolDocs...), onlineDDLDoc)...),
}

// VttabletLogFormat reads the logs of vttablet, glog or (v24) JSON: the
// denied tables a tablet applies and enforces, and its VReplication streams.
// It shares the vtctld format's grammar and kinds.
var VttabletLogFormat = forensics.Format{
	Name:      "vttablet",
	Component: "vttablet",
	Detect:    detectRole(roleVttablet),
	New:       newVtctld,
	Kinds:     VtctldLogFormat.Kinds,
}

// VtgateLogFormat reads the logs of vtgate, glog or JSON: the queries it
// failed for want of a healthy tablet, and its buffering during failovers.
// It shares the vtctld format's grammar and kinds.
var VtgateLogFormat = forensics.Format{
	Name:      "vtgate",
	Component: "vtgate",
	Detect:    detectRole(roleVtgate),
	New:       newVtctld,
	Kinds:     VtctldLogFormat.Kinds,
}

// VtorcLogFormat reads the logs of VTOrc, whose recoveries run
// EmergencyReparentShard under the shard lock as vtctld does.
var VtorcLogFormat = forensics.Format{
	Name:      "vtorc",
	Component: "vtorc",
	Detect:    detectRole(roleVtorc),
	New:       newVtctld,
	Kinds:     VtctldLogFormat.Kinds,
}
