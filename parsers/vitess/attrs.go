package vitess

import "forensics"

// The attribute keys the vitess parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAction          forensics.AttrKey = "action"
	AttrAttempt         forensics.AttrKey = "attempt"
	AttrAttempts        forensics.AttrKey = "attempts"
	AttrCaller          forensics.AttrKey = "caller"
	AttrCells           forensics.AttrKey = "cells"
	AttrCommand         forensics.AttrKey = "command"
	AttrCurrentState    forensics.AttrKey = "current_state"
	AttrCycles          forensics.AttrKey = "cycles"
	AttrDoc             forensics.AttrKey = "doc"
	AttrError           forensics.AttrKey = "error"
	AttrKeyspace        forensics.AttrKey = "keyspace"
	AttrKeyspaces       forensics.AttrKey = "keyspaces"
	AttrLevel           forensics.AttrKey = "level"
	AttrNewPrimary      forensics.AttrKey = "new_primary"
	AttrOldPrimary      forensics.AttrKey = "old_primary"
	AttrReason          forensics.AttrKey = "reason"
	AttrRetry           forensics.AttrKey = "retry"
	AttrShard           forensics.AttrKey = "shard"
	AttrSnapshot        forensics.AttrKey = "snapshot"
	AttrSourceKeyspace  forensics.AttrKey = "source_keyspace"
	AttrStartState      forensics.AttrKey = "start_state"
	AttrStep            forensics.AttrKey = "step"
	AttrStream          forensics.AttrKey = "stream"
	AttrTables          forensics.AttrKey = "tables"
	AttrTrafficState    forensics.AttrKey = "traffic_state"
	AttrWorkflow        forensics.AttrKey = "workflow"
	AttrWorkflows       forensics.AttrKey = "workflows"
	AttrTabletType      forensics.AttrKey = "tablet_type"
	AttrAnalysis        forensics.AttrKey = "analysis"
	AttrOutcome         forensics.AttrKey = "outcome"
	AttrRecovery        forensics.AttrKey = "recovery"
	AttrTablet          forensics.AttrKey = "tablet"
	AttrSemiSyncPrimary forensics.AttrKey = "semi_sync_primary"
	AttrSemiSyncReplica forensics.AttrKey = "semi_sync_replica"
)

// Keys of a tablet's health, its transaction pool, Online DDL and vtgate's
// view of the tablets (health.go, txpool.go, onlineddl.go, vtgate.go).
const (
	AttrBuffered   forensics.AttrKey = "buffered"
	AttrConclusion forensics.AttrKey = "conclusion"
	AttrHealth     forensics.AttrKey = "health"
	AttrLag        forensics.AttrKey = "lag"
	AttrQueries    forensics.AttrKey = "queries"
	AttrSeconds    forensics.AttrKey = "seconds"
	AttrServing    forensics.AttrKey = "serving"
	AttrSkipped    forensics.AttrKey = "skipped"
	AttrStage      forensics.AttrKey = "stage"
	AttrStatus     forensics.AttrKey = "status"
	AttrUser       forensics.AttrKey = "user"
	AttrUUID       forensics.AttrKey = "uuid"
	AttrWait       forensics.AttrKey = "wait"

	AttrCapacity    forensics.AttrKey = "capacity"
	AttrInUse       forensics.AttrKey = "in_use"
	AttrKilled      forensics.AttrKey = "killed"
	AttrRejected    forensics.AttrKey = "rejected"
	AttrWaits       forensics.AttrKey = "waits"
	AttrWaitSeconds forensics.AttrKey = "wait_seconds"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrAnalysis, Type: forensics.AttrText, Doc: "the problem VTOrc analysed, as its analysis code: DeadPrimary, ClusterHasNoPrimary, ReplicationStopped, …"},
	{Key: AttrOutcome, Type: forensics.AttrText, Doc: "how the VTOrc recovery step went: detected, started, lock, attempted, succeeded, failed, not_attempted, lock_failed, already_fixed"},
	{Key: AttrRecovery, Type: forensics.AttrText, Doc: "the recovery VTOrc runs for the analysis: RecoverDeadPrimary, ElectNewPrimary, …"},
	{Key: AttrTablet, Type: forensics.AttrText, Doc: "the tablet concerned, as cell-uid"},
	{Key: AttrSemiSyncPrimary, Type: forensics.AttrBool, Doc: "whether the tablet's MySQL waits for semi-sync ACKs (rpl_semi_sync_master_enabled)"},
	{Key: AttrSemiSyncReplica, Type: forensics.AttrBool, Doc: "whether the tablet's MySQL sends semi-sync ACKs (rpl_semi_sync_slave_enabled)"},
	{Key: AttrAction, Type: forensics.AttrText, Doc: "the operation the step belongs to: SwitchReads, SwitchWrites, PlannedReparentShard, EmergencyReparentShard"},
	{Key: AttrAttempt, Type: forensics.AttrInt, Doc: "which attempt at LOCK TABLES failed"},
	{Key: AttrAttempts, Type: forensics.AttrInt, Doc: "how many attempts at LOCK TABLES are allowed"},
	{Key: AttrCaller, Type: forensics.AttrText, Doc: "the file and line that logged the entry"},
	{Key: AttrCells, Type: forensics.AttrList, Doc: "the cells of the serving graph"},
	{Key: AttrCommand, Type: forensics.AttrText, Doc: "the command that printed the result: SwitchTraffic, ReverseTraffic"},
	{Key: AttrCurrentState, Type: forensics.AttrText, Doc: "the workflow's traffic state after the switch"},
	{Key: AttrCycles, Type: forensics.AttrInt, Doc: "how many LOCK TABLES cycles the switch runs"},
	{Key: AttrDoc, Type: forensics.AttrJSON, Doc: "the snapshot document, as JSON"},
	{Key: AttrError, Type: forensics.AttrText, Doc: "the error, as logged"},
	{Key: AttrKeyspace, Type: forensics.AttrText, Doc: "the keyspace concerned"},
	{Key: AttrKeyspaces, Type: forensics.AttrList, Doc: "the keyspaces of the snapshot"},
	{Key: AttrLevel, Type: forensics.AttrText, Doc: "the entry's log level: I, W, E, F"},
	{Key: AttrNewPrimary, Type: forensics.AttrText, Doc: "the tablet elected primary, as cell-uid"},
	{Key: AttrOldPrimary, Type: forensics.AttrText, Doc: "the primary being demoted, as cell-uid"},
	{Key: AttrReason, Type: forensics.AttrText, Doc: "why the reparent failed, as a word: replica_not_caught_up, lost_topology_lock, …"},
	{Key: AttrRetry, Type: forensics.AttrDuration, Doc: "how long the stream waits before it retries"},
	{Key: AttrShard, Type: forensics.AttrText, Doc: "the shard concerned"},
	{Key: AttrSnapshot, Type: forensics.AttrText, Doc: "the folder or file of the topology snapshot"},
	{Key: AttrSourceKeyspace, Type: forensics.AttrText, Doc: "the keyspace the workflow copies from"},
	{Key: AttrStartState, Type: forensics.AttrText, Doc: "the workflow's traffic state before the switch"},
	{Key: AttrStep, Type: forensics.AttrText, Doc: "the step of the operation, as a word: switch_writes, lock_tables, …"},
	{Key: AttrStream, Type: forensics.AttrInt, Doc: "the VReplication stream id"},
	{Key: AttrTables, Type: forensics.AttrList, Doc: "the tables concerned"},
	{Key: AttrTabletType, Type: forensics.AttrText, Doc: "a tablet type, as logged: the denied query's target (primary, replica, rdonly), the type a tablet changed to (PRIMARY, REPLICA, …)"},
	{Key: AttrTrafficState, Type: forensics.AttrText, Doc: "the workflow's traffic state"},
	{Key: AttrWorkflow, Type: forensics.AttrText, Doc: "the VReplication workflow"},
	{Key: AttrWorkflows, Type: forensics.AttrList, Doc: "the workflows of the keyspace"},

	{Key: AttrBuffered, Type: forensics.AttrInt, Doc: "how many requests vtgate held in its buffer when it stopped buffering"},
	{Key: AttrConclusion, Type: forensics.AttrText, Doc: "how the transaction ended: commit, rollback, kill, close, …"},
	{Key: AttrHealth, Type: forensics.AttrText, Doc: "the tablet's health as it logged it: replication_error, high_lag, healthy, serving, not_serving"},
	{Key: AttrLag, Type: forensics.AttrDuration, Doc: "the replication lag the tablet measured"},
	{Key: AttrQueries, Type: forensics.AttrText, Doc: "the statements of the transaction, joined by ;"},
	{Key: AttrSeconds, Type: forensics.AttrNumber, Doc: "how many seconds it lasted: the transaction, or vtgate's buffering"},
	{Key: AttrServing, Type: forensics.AttrBool, Doc: "whether the tablet serves queries after the transition"},
	{Key: AttrSkipped, Type: forensics.AttrInt, Doc: "how many messages the throttled logger left out since its last line (each one more of the same)"},
	{Key: AttrStage, Type: forensics.AttrText, Doc: "the Online DDL migration's stage: starting cut-over, waiting for post-lock pos: …, cut-over complete, …"},
	{Key: AttrStatus, Type: forensics.AttrText, Doc: "the Online DDL migration's status: queued, ready, running, complete, failed, cancelled"},
	{Key: AttrUser, Type: forensics.AttrText, Doc: "the transaction's caller: the effective principal, else the immediate user"},
	{Key: AttrUUID, Type: forensics.AttrText, Doc: "the Online DDL migration's UUID"},
	{Key: AttrWait, Type: forensics.AttrDuration, Doc: "how long the wait for a position lasted before it failed"},
	{Key: AttrCapacity, Type: forensics.AttrInt, Doc: "the transaction pool's size (TransactionPoolCapacity)"},
	{Key: AttrInUse, Type: forensics.AttrInt, Doc: "the transaction pool's connections in use when collected"},
	{Key: AttrKilled, Type: forensics.AttrInt, Doc: "transactions vttablet killed for running past the transaction timeout since it started (Kills.Transactions)"},
	{Key: AttrRejected, Type: forensics.AttrInt, Doc: "requests refused with RESOURCE_EXHAUSTED since the tablet started (Errors.RESOURCE_EXHAUSTED)"},
	{Key: AttrWaits, Type: forensics.AttrInt, Doc: "how many times a transaction waited for a pool connection since the tablet started (TransactionPoolWaitCount)"},
	{Key: AttrWaitSeconds, Type: forensics.AttrNumber, Doc: "the seconds transactions waited for a pool connection in all (TransactionPoolWaitTime)"},
}
