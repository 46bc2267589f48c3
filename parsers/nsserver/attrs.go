package nsserver

import "forensics"

// The attribute keys the nsserver parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAlertHost         forensics.AttrKey = "alert_host"
	AttrAlertNode         forensics.AttrKey = "alert_node"
	AttrAllowUnsafe       forensics.AttrKey = "allow_unsafe"
	AttrAuto              forensics.AttrKey = "auto"
	AttrBucketUUID        forensics.AttrKey = "bucket_uuid"
	AttrBuckets           forensics.AttrKey = "buckets"
	AttrCompletionMessage forensics.AttrKey = "completion_message"
	AttrComponent         forensics.AttrKey = "component"
	AttrDescription       forensics.AttrKey = "description"
	AttrEjectNodes        forensics.AttrKey = "eject_nodes"
	AttrError             forensics.AttrKey = "error"
	AttrEventID           forensics.AttrKey = "event_id"
	AttrExitStatus        forensics.AttrKey = "exit_status"
	AttrFailoverReason    forensics.AttrKey = "failover_reason"
	AttrGraceful          forensics.AttrKey = "graceful"
	AttrKeepNodes         forensics.AttrKey = "keep_nodes"
	AttrMasterNode        forensics.AttrKey = "master_node"
	AttrName              forensics.AttrKey = "name"
	AttrNodes             forensics.AttrKey = "nodes"
	AttrOperationID       forensics.AttrKey = "operation_id"
	AttrOsPID             forensics.AttrKey = "os_pid"
	AttrPath              forensics.AttrKey = "path"
	AttrPercent           forensics.AttrKey = "percent"
	AttrPID               forensics.AttrKey = "pid"
	AttrReadyNode         forensics.AttrKey = "ready_node"
	AttrUnreadyNode       forensics.AttrKey = "unready_node"
	AttrReason            forensics.AttrKey = "reason"
	AttrReasonNodes       forensics.AttrKey = "reason_nodes"
	AttrReasonTag         forensics.AttrKey = "reason_tag"
	AttrResult            forensics.AttrKey = "result"
	AttrSeconds           forensics.AttrKey = "seconds"
	AttrService           forensics.AttrKey = "service"
	AttrSeverity          forensics.AttrKey = "severity"
	AttrStatus            forensics.AttrKey = "status"
	AttrThresholdMS       forensics.AttrKey = "threshold_ms"
	AttrTimeTaken         forensics.AttrKey = "time_taken"
	AttrVia               forensics.AttrKey = "via"
	AttrWarmupTime        forensics.AttrKey = "warmup_time"
	AttrActiveAfter       forensics.AttrKey = "active_after"
	AttrActiveBefore      forensics.AttrKey = "active_before"
	AttrActiveBuckets     forensics.AttrKey = "active_buckets"
	AttrChainAfter        forensics.AttrKey = "chain_after"
	AttrChainBefore       forensics.AttrKey = "chain_before"
	AttrDeltaNodes        forensics.AttrKey = "delta_nodes"
	AttrDownNode          forensics.AttrKey = "down_node"
	AttrErrorNodes        forensics.AttrKey = "error_nodes"
	AttrFailedNodes       forensics.AttrKey = "failed_nodes"
	AttrFromState         forensics.AttrKey = "from_state"
	AttrHost              forensics.AttrKey = "host"
	AttrHosts             forensics.AttrKey = "hosts"
	AttrLoadedNode        forensics.AttrKey = "loaded_node"
	AttrNode              forensics.AttrKey = "node"
	AttrRepeated          forensics.AttrKey = "repeated"
	AttrState             forensics.AttrKey = "state"
	AttrVBNode            forensics.AttrKey = "vb_node"
	AttrCAID              forensics.AttrKey = "ca_id"
	AttrCert              forensics.AttrKey = "cert"
	AttrConnType          forensics.AttrKey = "conn_type"
	AttrDaysLeft          forensics.AttrKey = "days_left"
	AttrExpired           forensics.AttrKey = "expired"
	AttrExpires           forensics.AttrKey = "expires"
	AttrLimit             forensics.AttrKey = "limit"
	AttrSubject           forensics.AttrKey = "subject"
	AttrThresholdPct      forensics.AttrKey = "threshold_pct"
	AttrUsed              forensics.AttrKey = "used"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrActiveAfter, Type: forensics.AttrText, Doc: "the node of the active copy after the change"},
	{Key: AttrActiveBefore, Type: forensics.AttrText, Doc: "the node of the active copy before the change"},
	{Key: AttrActiveBuckets, Type: forensics.AttrList, Doc: "the buckets ns_doctor still counts as active on the node"},
	{Key: AttrAlertHost, Type: forensics.AttrText, Doc: "the host the alert names"},
	{Key: AttrAlertNode, Type: forensics.AttrText, Doc: "the node the alert names"},
	{Key: AttrAllowUnsafe, Type: forensics.AttrBool, Doc: "whether the failover allowed unsafe (data-losing) moves"},
	{Key: AttrAuto, Type: forensics.AttrBool, Doc: "true for an automatic failover"},
	{Key: AttrBuckets, Type: forensics.AttrList, Doc: "the buckets concerned"},
	{Key: AttrBucketUUID, Type: forensics.AttrText, Doc: "the bucket's uuid"},
	{Key: AttrCAID, Type: forensics.AttrInt, Doc: "the id ns_server gives a trusted CA certificate"},
	{Key: AttrCert, Type: forensics.AttrText, Doc: "which certificate: node (the server certificate), client, ca (a trusted CA), xdcr_client, xdcr_ca"},
	{Key: AttrChainAfter, Type: forensics.AttrList, Doc: "the vbucket's replication chain after the change, as host:port, active first"},
	{Key: AttrChainBefore, Type: forensics.AttrList, Doc: "the vbucket's replication chain before the change, as host:port, active first"},
	{Key: AttrCompletionMessage, Type: forensics.AttrText, Doc: "the message the event log gives the completed operation"},
	{Key: AttrComponent, Type: forensics.AttrText, Doc: "the event log's component of the event"},
	{Key: AttrConnType, Type: forensics.AttrText, Doc: "which connections of the data service: user or system"},
	{Key: AttrDaysLeft, Type: forensics.AttrNumber, Doc: "days from the bundle's collection (the cbcollect_info folder's stamp, else the file's time) to the certificate's expiry, to a tenth; negative once it had expired"},
	{Key: AttrDeltaNodes, Type: forensics.AttrList, Doc: "the nodes the rebalance recovers by delta recovery"},
	{Key: AttrDescription, Type: forensics.AttrText, Doc: "the event log's description of the event"},
	{Key: AttrDownNode, Type: forensics.AttrText, Doc: "the node the event log names as down"},
	{Key: AttrEjectNodes, Type: forensics.AttrList, Doc: "the nodes the rebalance removes"},
	{Key: AttrError, Type: forensics.AttrText, Doc: "the error, as logged (an Erlang term)"},
	{Key: AttrErrorNodes, Type: forensics.AttrList, Doc: "the nodes whose failover failed, as logged"},
	{Key: AttrEventID, Type: forensics.AttrInt, Doc: "the event log's event id"},
	{Key: AttrExitStatus, Type: forensics.AttrInt, Doc: "the service's exit status, from the event log"},
	{Key: AttrExpired, Type: forensics.AttrBool, Doc: "true when the alert says the certificate has expired"},
	{Key: AttrExpires, Type: forensics.AttrTime, Doc: "when the certificate expires, as the alert gives it (UTC)"},
	{Key: AttrFailedNodes, Type: forensics.AttrList, Doc: "the failed-over nodes the rebalance removes"},
	{Key: AttrFailoverReason, Type: forensics.AttrText, Doc: "why the nodes were failed over, from the event log"},
	{Key: AttrFromState, Type: forensics.AttrText, Doc: "the vbucket's state before the change"},
	{Key: AttrGraceful, Type: forensics.AttrBool, Doc: "true for a graceful failover"},
	{Key: AttrHost, Type: forensics.AttrText, Doc: "the vbucket's host, as host:port"},
	{Key: AttrHosts, Type: forensics.AttrList, Doc: "the hosts the master event names, as host:port"},
	{Key: AttrKeepNodes, Type: forensics.AttrList, Doc: "the nodes the rebalance keeps"},
	{Key: AttrLimit, Type: forensics.AttrInt, Doc: "the limit the alert names (the data service's maximum connections of that type)"},
	{Key: AttrLoadedNode, Type: forensics.AttrText, Doc: "the node the bucket was loaded on"},
	{Key: AttrMasterNode, Type: forensics.AttrText, Doc: "the orchestrator node that ran the operation"},
	{Key: AttrName, Type: forensics.AttrText, Doc: "the name the event log gives (the service's, the node's)"},
	{Key: AttrNode, Type: forensics.AttrText, Doc: "the node the event log names"},
	{Key: AttrNodes, Type: forensics.AttrList, Doc: "the nodes concerned, as ns_1@host"},
	{Key: AttrOperationID, Type: forensics.AttrText, Doc: "the id of the failover or rebalance, which ties its start to its end"},
	{Key: AttrOsPID, Type: forensics.AttrInt, Doc: "the service's operating system pid"},
	{Key: AttrPath, Type: forensics.AttrText, Doc: "the disk path the alert names"},
	{Key: AttrPercent, Type: forensics.AttrInt, Doc: "a usage in percent, as the alert gives it: how full the disk is, the indexer's RAM"},
	{Key: AttrPID, Type: forensics.AttrText, Doc: "the Erlang pid of the rebalance"},
	{Key: AttrReadyNode, Type: forensics.AttrText, Doc: "the node on which ns_doctor saw the buckets become ready"},
	{Key: AttrReason, Type: forensics.AttrText, Doc: "why, as logged"},
	{Key: AttrReasonNodes, Type: forensics.AttrList, Doc: "the nodes the rebalance's failure reason names"},
	{Key: AttrReasonTag, Type: forensics.AttrText, Doc: "the rebalance failure's reason, as a word: mover_crashed, buckets_shutdown_wait_failed, …"},
	{Key: AttrRepeated, Type: forensics.AttrInt, Doc: "how many times ns_log says the message repeated"},
	{Key: AttrResult, Type: forensics.AttrText, Doc: "how it ended: ok, incomplete, completed, failed"},
	{Key: AttrSeconds, Type: forensics.AttrInt, Doc: "seconds, as the message says (the time warmup took, a timeout)"},
	{Key: AttrService, Type: forensics.AttrText, Doc: "the service that exited"},
	{Key: AttrSeverity, Type: forensics.AttrText, Doc: "the event log's severity: info, warning, error"},
	{Key: AttrState, Type: forensics.AttrText, Doc: "the vbucket's state after the change"},
	{Key: AttrStatus, Type: forensics.AttrInt, Doc: "the exit status of the service or process"},
	{Key: AttrSubject, Type: forensics.AttrText, Doc: "the certificate's subject, as logged"},
	{Key: AttrThresholdMS, Type: forensics.AttrInt, Doc: "the clock drift threshold of the alert, in milliseconds"},
	{Key: AttrThresholdPct, Type: forensics.AttrInt, Doc: "the alert's threshold, in percent"},
	{Key: AttrTimeTaken, Type: forensics.AttrInt, Doc: "how long the operation took, in milliseconds, from the event log or the rebalance report"},
	{Key: AttrUnreadyNode, Type: forensics.AttrText, Doc: "the node on which ns_doctor saw the buckets stop being ready"},
	{Key: AttrUsed, Type: forensics.AttrInt, Doc: "the connections in use the alert counted"},
	{Key: AttrVBNode, Type: forensics.AttrText, Doc: "the vbucket's node, as ns_1@host"},
	{Key: AttrVia, Type: forensics.AttrText, Doc: "which record the event was read from: diag, event_log, master_events, info, rebalance_report"},
	{Key: AttrWarmupTime, Type: forensics.AttrInt, Doc: "how long the bucket's warmup took, in seconds, from the event log"},
}
