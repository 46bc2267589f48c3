package nsserver

import "forensics"

// The attribute keys the nsserver parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrAlertHost         = "alert_host"
	AttrAlertNode         = "alert_node"
	AttrAllowUnsafe       = "allow_unsafe"
	AttrAuto              = "auto"
	AttrBucketUUID        = "bucket_uuid"
	AttrBuckets           = "buckets"
	AttrCompletionMessage = "completion_message"
	AttrComponent         = "component"
	AttrDescription       = "description"
	AttrEjectNodes        = "eject_nodes"
	AttrError             = "error"
	AttrEventID           = "event_id"
	AttrExitStatus        = "exit_status"
	AttrFailoverReason    = "failover_reason"
	AttrGraceful          = "graceful"
	AttrKeepNodes         = "keep_nodes"
	AttrMasterNode        = "master_node"
	AttrName              = "name"
	AttrNodes             = "nodes"
	AttrOperationID       = "operation_id"
	AttrOsPID             = "os_pid"
	AttrPath              = "path"
	AttrPercent           = "percent"
	AttrPID               = "pid"
	AttrReadyNode         = "ready_node"
	AttrReason            = "reason"
	AttrReasonNodes       = "reason_nodes"
	AttrReasonTag         = "reason_tag"
	AttrResult            = "result"
	AttrSeconds           = "seconds"
	AttrService           = "service"
	AttrSeverity          = "severity"
	AttrStatus            = "status"
	AttrThresholdMS       = "threshold_ms"
	AttrTimeTaken         = "time_taken"
	AttrVia               = "via"
	AttrWarmupTime        = "warmup_time"
)

// Attrs lists, for each kind the nsserver parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	AutoFailover:        {AttrNodes, AttrReason, AttrVia},
	AutoFailoverRefused: {AttrNodes, AttrReason, AttrVia},
	BucketNotReady:      {AttrNodes},
	BucketOnline:        {AttrBucketUUID, AttrComponent, AttrDescription, AttrEventID, AttrSeverity, AttrVia, AttrWarmupTime},
	BucketReady:         {AttrBuckets, AttrReadyNode},
	BucketWarmed:        {AttrSeconds},
	CASDrift:            {AttrAlertHost, AttrThresholdMS},
	DiskAlert:           {AttrAlertHost, AttrPath, AttrPercent, AttrVia},
	FailoverEnd:         {AttrAuto, AttrCompletionMessage, AttrComponent, AttrDescription, AttrEventID, AttrFailoverReason, AttrGraceful, AttrMasterNode, AttrNodes, AttrOperationID, AttrSeverity, AttrTimeTaken, AttrVia},
	FailoverFailed:      {AttrError, AttrOperationID, AttrVia},
	FailoverNode:        {AttrNodes, AttrResult, AttrVia},
	FailoverStart:       {AttrAllowUnsafe, AttrAuto, AttrComponent, AttrDescription, AttrEventID, AttrFailoverReason, AttrGraceful, AttrMasterNode, AttrNodes, AttrOperationID, AttrSeverity, AttrVia},
	PortExited:          {AttrReason, AttrService, AttrStatus},
	RebalanceEnd:        {AttrComponent, AttrDescription, AttrEventID, AttrOperationID, AttrPID, AttrReason, AttrReasonNodes, AttrReasonTag, AttrResult, AttrSeverity, AttrVia},
	RebalanceStart:      {AttrEjectNodes, AttrKeepNodes, AttrOperationID, AttrPID, AttrVia},
	ServiceExited:       {AttrComponent, AttrDescription, AttrEventID, AttrExitStatus, AttrName, AttrOsPID, AttrService, AttrSeverity, AttrStatus, AttrVia},
	TimeOutOfSync:       {AttrAlertNode, AttrVia},
	WriteCommitFailed:   {AttrAlertHost, AttrVia},
}
