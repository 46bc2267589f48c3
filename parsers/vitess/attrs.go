package vitess

import "forensics"

// The attribute keys the vitess parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAction         = "action"
	AttrAttempt        = "attempt"
	AttrAttempts       = "attempts"
	AttrCaller         = "caller"
	AttrCells          = "cells"
	AttrCommand        = "command"
	AttrCurrentState   = "current_state"
	AttrCycles         = "cycles"
	AttrDoc            = "doc"
	AttrError          = "error"
	AttrKeyspace       = "keyspace"
	AttrKeyspaces      = "keyspaces"
	AttrLevel          = "level"
	AttrNewPrimary     = "new_primary"
	AttrOldPrimary     = "old_primary"
	AttrReason         = "reason"
	AttrRetry          = "retry"
	AttrShard          = "shard"
	AttrSnapshot       = "snapshot"
	AttrSourceKeyspace = "source_keyspace"
	AttrStartState     = "start_state"
	AttrStep           = "step"
	AttrStream         = "stream"
	AttrTables         = "tables"
	AttrTrafficState   = "traffic_state"
	AttrWorkflow       = "workflow"
	AttrWorkflows      = "workflows"
)

// Attrs lists, for each kind the vitess parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	KindCancelFailed:      {AttrCaller, AttrError, AttrLevel, AttrStep, AttrWorkflow},
	KindCancelStart:       {AttrCaller, AttrLevel, AttrStep, AttrWorkflow},
	KindCancelStep:        {AttrCaller, AttrLevel, AttrStep, AttrWorkflow},
	KindContextError:      {AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrStep},
	KindCreateJournal:     {AttrCaller, AttrLevel, AttrStep},
	KindCreateReverse:     {AttrCaller, AttrLevel, AttrStep},
	KindFreeze:            {AttrCaller, AttrLevel, AttrStep, AttrWorkflow},
	KindKeyspaces:         {AttrDoc, AttrKeyspaces, AttrSnapshot},
	KindLockTables:        {AttrCaller, AttrCycles, AttrLevel, AttrStep},
	KindLockTablesFailed:  {AttrAttempt, AttrAttempts, AttrCaller, AttrError, AttrLevel, AttrStep},
	KindReparentDone:      {AttrAction, AttrCaller, AttrKeyspace, AttrLevel, AttrShard, AttrStep},
	KindReparentFailed:    {AttrAction, AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrReason, AttrShard, AttrStep},
	KindReparentStart:     {AttrAction, AttrCaller, AttrKeyspace, AttrLevel, AttrNewPrimary, AttrShard, AttrStep},
	KindReparentStep:      {AttrCaller, AttrLevel, AttrOldPrimary, AttrStep},
	KindRoutingChanged:    {AttrCaller, AttrKeyspace, AttrLevel, AttrStep, AttrTables},
	KindRoutingRules:      {AttrDoc, AttrSnapshot},
	KindShard:             {AttrDoc, AttrKeyspace, AttrShard, AttrSnapshot},
	KindShardRoutingRules: {AttrDoc, AttrSnapshot},
	KindSrvKeyspace:       {AttrCells, AttrDoc, AttrKeyspace, AttrSnapshot},
	KindStopSourceWrites:  {AttrCaller, AttrLevel, AttrStep},
	KindStopStreams:       {AttrCaller, AttrLevel, AttrStep},
	KindSwitchFailed:      {AttrAction, AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrStep},
	KindSwitchResult:      {AttrCommand, AttrCurrentState, AttrDoc, AttrKeyspace, AttrSnapshot, AttrStartState, AttrWorkflow},
	KindSwitchStart:       {AttrAction, AttrCaller, AttrKeyspace, AttrLevel, AttrStep, AttrWorkflow},
	KindVReplError:        {AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrStream},
	KindVReplRetry:        {AttrCaller, AttrError, AttrLevel, AttrRetry, AttrStep, AttrStream},
	KindVReplStart:        {AttrCaller, AttrKeyspace, AttrLevel, AttrShard, AttrStep, AttrStream, AttrWorkflow},
	KindWaitCatchup:       {AttrCaller, AttrLevel, AttrStep},
	KindWorkflow:          {AttrDoc, AttrKeyspace, AttrSnapshot, AttrSourceKeyspace, AttrTables, AttrWorkflow},
	KindWorkflowList:      {AttrDoc, AttrKeyspace, AttrSnapshot, AttrWorkflows},
	KindWorkflowStatus:    {AttrDoc, AttrKeyspace, AttrSnapshot, AttrTrafficState, AttrWorkflow},
}
