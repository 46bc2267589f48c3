// Package nsserver reads the logs of Couchbase's cluster manager, ns_server
// (7.x): its ale log files (ns_server.debug.log, info.log, babysitter.log,
// …), diag.log with the user-visible log and the event log, the event log
// as JSON lines on its own, master_events.log, and the reports it keeps of
// its last rebalances and failovers (rebalance_report_*.json).
//
// The events are the ones that tell when a node's memcached died, when a
// bucket became usable again (traffic enabled, not merely loaded), and when
// nodes were failed over and vbuckets moved. Every other line is a plain line.
package nsserver

import "forensics"

// Format reads ns_server's ale log files: ns_server.debug.log, info.log,
// error.log, babysitter.log and the other ns_server.*.log that ale writes.
// ns_server.indexer.log, projector.log, fts.log and the like are copies of
// service logs in their own grammars and are not this format.
var Format = forensics.Format{
	Name:      "nsserver",
	Component: "ns_server",
	Detect:    detectALE,
	New:       newALE,
	Kinds: append(docs(ServiceExited, PortExited, TrafficEnabling, BucketWarmed, TrafficEnableFailed,
		BucketReady, BucketUnready, BucketNotReady, BucketLoaded, FailoverStart, FailoverNode,
		FailoverFailed, FailoverEnd, AutoFailover, VBucketState, VBucketMap, CertUpdated), append(append(alertDocs(), rebalanceStepDocs...), compactionDocs...)...),
}

// DiagFormat reads diag.log: the user-visible log entries of all nodes
// (events carry via=diag) and the event log (via=event_log).
var DiagFormat = forensics.Format{
	Name:      "nsserver-diag",
	Component: "ns_server",
	Detect:    detectDiag,
	New:       newDiag,
	Kinds: append(docs(ServiceExited, BucketLoaded, BucketOnline, FailoverStart, FailoverNode,
		FailoverFailed, FailoverEnd, AutoFailover, LoggedEvent), alertDocs()...),
}

// EventLogFormat reads event log entries, one JSON object per line, outside
// diag.log (events carry via=event_log).
var EventLogFormat = forensics.Format{
	Name:      "nsserver-eventlog",
	Component: "ns_server",
	Detect:    detectEventLog,
	New:       newEventLog,
	Kinds:     append(docs(ServiceExited, BucketOnline, FailoverStart, FailoverFailed, FailoverEnd, LoggedEvent), alertDocs(RebalanceEnd, AutoFailoverRefused)...),
}

// MasterEventsFormat reads master_events.log (events carry via=master_events).
var MasterEventsFormat = forensics.Format{
	Name:      "nsserver-master-events",
	Component: "ns_server",
	Detect:    detectMaster,
	New:       newMaster,
	Kinds:     append(docs(VBucketState, VBucketMap, FailoverStart, FailoverEnd, BucketFailoverStart, BucketFailoverEnd), alertDocs(RebalanceStart, RebalanceEnd)...),
}
