package nsserver

import (
	"bytes"
	"regexp"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of the messages ns_server logs about rebalances, refused
// auto-failovers and the alerts of menelaus_web_alerts_srv. They reach the
// user log, so diag.log holds them too.
const (
	AutoFailoverRefused forensics.Kind = "nsserver.autofailover_refused"
	RebalanceStart      forensics.Kind = "nsserver.rebalance_start"
	RebalanceEnd        forensics.Kind = "nsserver.rebalance_end"
	RebalanceStuck      forensics.Kind = "nsserver.rebalance_stuck"
	DiskAlert           forensics.Kind = "nsserver.disk_alert"
	WriteCommitFailed   forensics.Kind = "nsserver.write_commit_failed"
	TimeOutOfSync       forensics.Kind = "nsserver.time_out_of_sync"
	CASDrift            forensics.Kind = "nsserver.cas_drift"
	// The steps of a rebalance that name the bucket it failed in: they go
	// to the debug and info logs only, never to the user log.
	RebalanceBucketWait forensics.Kind = "nsserver.rebalance_bucket_wait"
	BucketQueryFailed   forensics.Kind = "nsserver.bucket_query_failed"
	ConnectionsAlert    forensics.Kind = "nsserver.connections_alert"
	IndexerRAMAlert     forensics.Kind = "nsserver.indexer_ram_alert"
)

var alertKindDocs = map[forensics.Kind]forensics.KindDoc{
	AutoFailoverRefused: {Category: forensics.CategoryError, Label: "autofailover refused", Doc: "auto-failover decided not to fail a node over, with the reason (auto_failover: Could not auto-failover …)", Attrs: attrs.Of(AttrComponent, AttrDescription, AttrDownNode, AttrEventID, AttrName, AttrNode, AttrNodes, AttrReason, AttrSeverity, AttrVia)},
	RebalanceStart:      {Category: forensics.CategoryOther, Label: "rebalance start", Doc: "a rebalance started, with the nodes kept and ejected (ns_orchestrator: Starting rebalance, KeepNodes = …; master events rebalanceStart, also with the failed and delta-recovered nodes)", Attrs: attrs.Of(AttrDeltaNodes, AttrEjectNodes, AttrFailedNodes, AttrKeepNodes, AttrOperationID, AttrPID, AttrVia)},
	RebalanceEnd:        {Category: forensics.CategoryOther, Label: "rebalance end", Doc: "a rebalance ended: result completed, failed (with the exit reason as logged and its leading atom as reason_tag), stopped or interrupted (ns_orchestrator; master events rebalanceEnd: completed, stopped for the exit reason {shutdown,stop}, or failed; a rebalance report's completion message, with its master node and time taken, interrupted when the janitor stopped it)", Attrs: attrs.Of(AttrComponent, AttrDescription, AttrDownNode, AttrEventID, AttrMasterNode, AttrName, AttrNode, AttrOperationID, AttrPID, AttrReason, AttrReasonNodes, AttrReasonTag, AttrResult, AttrSeverity, AttrTimeTaken, AttrVia)},
	RebalanceStuck:      {Category: forensics.CategoryOther, Label: "rebalance stuck", Doc: "the stuck-rebalance alert of 7.6+: no progress for a service for a number of seconds (menelaus_web_alerts_srv)", Attrs: attrs.Of(AttrOperationID, AttrSeconds, AttrService)},
	DiskAlert:           {Category: forensics.CategoryOther, Label: "disk alert", Doc: "the approaching-full-disk alert: a disk (path) of a node is used above the threshold, percent as logged (menelaus_web_alerts_srv)", Attrs: attrs.Of(AttrAlertHost, AttrPath, AttrPercent, AttrVia)},
	WriteCommitFailed:   {Category: forensics.CategoryError, Label: "write commit failed", Doc: "the Write Commit Failure alert: the data service failed to persist items of a bucket on a node (menelaus_web_alerts_srv, ep_item_commit_failed)", Attrs: attrs.Of(AttrAlertHost, AttrVia)},
	TimeOutOfSync:       {Category: forensics.CategoryOther, Label: "time out of sync", Doc: "the time-out-of-sync alert: a node's clock differs from the orchestrator's beyond the threshold (menelaus_web_alerts_srv)", Attrs: attrs.Of(AttrAlertNode, AttrVia)},
	CASDrift:            {Category: forensics.CategoryOther, Label: "cas drift", Doc: "the CAS drift alert: a node received mutations of a bucket timestamped more than threshold_ms ahead of its clock (menelaus_web_alerts_srv, ep_clock_cas_drift_threshold_exceeded)", Attrs: attrs.Of(AttrAlertHost, AttrThresholdMS)},
	ConnectionsAlert:    {Category: forensics.CategoryOther, Label: "data service connections alert", Doc: "the data service's user or system connections in use are above the notice threshold of their limit (menelaus_web_alerts_srv memcached_connections, 7.1+; 90% by default); used, threshold_pct, limit", Attrs: attrs.Of(AttrAlertNode, AttrConnType, AttrLimit, AttrThresholdPct, AttrUsed, AttrVia)},
	IndexerRAMAlert:     {Category: forensics.CategoryOther, Label: "index RAM alert", Doc: "the approaching-max-index-RAM alert: the indexer's RAM on a node is at or above the threshold of its quota, percent as logged (menelaus_web_alerts_srv indexer_ram_max_usage; memory-optimized indexes only)", Attrs: attrs.Of(AttrAlertHost, AttrPercent, AttrThresholdPct, AttrVia)},
	CertAlert:           certAlertDoc,
}

// rebalanceStepDocs documents the steps of a rebalance read from the ale logs.
var rebalanceStepDocs = []forensics.KindDoc{
	{Kind: RebalanceBucketWait, Category: forensics.CategoryWarmup, Label: "rebalance waits for the bucket", Doc: "a rebalance waits for the bucket to be ready on the nodes before it moves the bucket's vbuckets (ns_rebalancer rebalance_membase_bucket: Waiting for bucket … to be ready on …)", Attrs: attrs.Of(AttrNodes)},
	{Kind: BucketQueryFailed, Category: forensics.CategoryWarmup, Label: "bucket not ready on nodes", Doc: "querying the bucket's vbucket states failed on some nodes, each with its reason, warming_up while the bucket loads (janitor_agent check_bucket_ready: Querying bucket … states failed. Failures: …)", Attrs: attrs.Of(AttrNodes, AttrReason)},
}

// alertKinds are the kinds of this file, for the formats' Kinds and diag.log's filter.
var alertKinds = []forensics.Kind{AutoFailoverRefused, RebalanceStart, RebalanceEnd, RebalanceStuck,
	DiskAlert, WriteCommitFailed, TimeOutOfSync, CASDrift, ConnectionsAlert, IndexerRAMAlert, CertAlert}

// alertDocs documents the given kinds of this file, or all of them.
func alertDocs(kinds ...forensics.Kind) []forensics.KindDoc {
	if len(kinds) == 0 {
		kinds = alertKinds
	}
	out := make([]forensics.KindDoc, len(kinds))
	for i, k := range kinds {
		out[i] = alertKindDocs[k]
		out[i].Kind = k
	}
	return out
}

func isAlertKind(k forensics.Kind) bool { return alertKindDocs[k].Doc != "" }

// alertCandidate is the cheap first-line test for the templates of this file.
func alertCandidate(msg []byte) bool {
	if len(msg) < 10 {
		return false
	}
	if certCandidate(msg) {
		return true
	}
	switch msg[0] {
	case 'C':
		return scan.HasPrefix(msg, "Could not auto")
	case 'R':
		return scan.HasPrefix(msg, "Rebalance ") || scan.HasPrefix(msg, "Remote or replica mutation received")
	case 'S':
		return scan.HasPrefix(msg, "Starting rebalance, KeepNodes")
	case 'W':
		return scan.HasPrefix(msg, "Warning: ") || scan.HasPrefix(msg, "Write Commit Failure.") || scan.HasPrefix(msg, "Waiting for bucket ")
	case 'Q':
		return scan.HasPrefix(msg, "Querying bucket ")
	case 'A':
		return scan.HasPrefix(msg, "Approaching full disk warning.")
	case 'T':
		return scan.HasPrefix(msg, "The time on node ")
	}
	return false
}

// recognizeAlert reads the templates of this file and reports whether msg
// was one of them (then recognize reads nothing else).
func recognizeAlert(msg []byte, ev *forensics.Event, out found) bool {
	if !alertCandidate(msg) {
		return false
	}
	if certCandidate(msg) {
		return recognizeCert(msg, ev, out)
	}
	switch msg[0] {
	case 'C':
		return autoFailoverRefused(msg, ev, out)
	case 'R':
		if r, ok := scan.Cut(msg, "Rebalance "); ok {
			return rebalanceEnd(r, ev, out)
		}
		return casDrift(msg, ev, out)
	case 'S':
		return rebalanceStart(msg, ev, out)
	case 'W':
		switch {
		case scan.HasPrefix(msg, "Warning: Rebalance of "):
			return rebalanceStuck(msg[len("Warning: Rebalance of "):], ev, out)
		case scan.HasPrefix(msg, "Warning: On node "):
			return connectionsAlert(msg[len("Warning: On node "):], ev, out)
		case scan.HasPrefix(msg, "Warning: approaching max index RAM. "):
			return indexerRAMAlert(msg, ev, out)
		}
		if r, ok := scan.Cut(msg, "Waiting for bucket "); ok {
			return bucketWait(r, ev, out)
		}
		return writeCommitFailed(msg, ev, out)
	case 'Q':
		r, _ := scan.Cut(msg, "Querying bucket ")
		return bucketQueryFailed(r, ev, out)
	case 'A':
		return diskAlert(msg, ev, out)
	case 'T':
		return timeOutOfSync(msg, ev, out)
	}
	return false
}

// autoFailoverRefused reads auto_failover process_action/5,
// maybe_report_max_node_reached/4 and log_unsafe_node/2 (7.1–8.0):
//
//	Could not auto-failover node (~p). There was at least another node down.
//	Could not auto-failover node (~p). The list of nodes being down has changed.
//	Could not auto-failover node (~p). Number of remaining nodes that are running ~s service is ~p. You need at least ~p nodes.
//	Could not auto-failover node (~p). Auto-failover for ~s service is disabled.
//	Could not auto-failover service node (~p). One of the data service nodes cannot be automatically failed over.
//	Could not auto-failover more nodes (~p). Maximum number of auto-failover nodes (~p) has been reached.
//	Could not auto-failover nodes (~p). ~s Continuing to auto-failover nodes ~p
//	Could not automatically fail over node (~p) due to operation being unsafe for service ~p. ~s
//	Could not automatically fail over nodes (~p). ~s   (7.1, e.g. "Rebalance is running.")
func autoFailoverRefused(msg []byte, ev *forensics.Event, out found) bool {
	var r []byte
	ok := false
	for _, p := range [...]string{"Could not auto-failover node (", "Could not auto-failover service node (",
		"Could not auto-failover more nodes (", "Could not auto-failover nodes (",
		"Could not automatically fail over node (", "Could not automatically fail over nodes ("} {
		if r, ok = scan.Cut(msg, p); ok {
			break
		}
	}
	if !ok {
		return false
	}
	var nodes string
	if len(r) > 0 && r[0] == '[' {
		n, _, rest, ok := list(r)
		if !ok {
			return false
		}
		nodes, r = n, rest
	} else {
		v, rest, ok := scalar(r)
		if !ok {
			return false
		}
		nodes, r = v.String(), rest
	}
	if !scan.HasPrefix(r, ")") {
		return false
	}
	reason := trimSpace(r[1:])
	reason = bytes.TrimPrefix(reason, []byte(". "))
	ev.Kind = AutoFailoverRefused
	ev.Set(AttrNodes, nodes)
	if len(reason) > 0 {
		ev.Set(AttrReason, string(firstLineOf(reason)))
	}
	out(ev, nil)
	return true
}

// rebalanceEnd reads ns_orchestrator log_rebalance_completion/2 for a
// rebalance (7.1–8.0): "Rebalance completed successfully.", "Rebalance
// exited with reason ~p.", "Rebalance stopped by user.", "Rebalance
// interrupted due to auto-failover of nodes ~p.", "Rebalance interrupted as
// observer exited with reason ~p.", each followed by "~nRebalance Operation
// Id = ~s". diag.log has the same text on one entry.
func rebalanceEnd(r []byte, ev *forensics.Event, out found) bool {
	result := ""
	var reason []byte
	switch {
	case scan.HasPrefix(r, "completed successfully."):
		result = "completed"
	case scan.HasPrefix(r, "stopped by user."):
		result = "stopped"
	case scan.HasPrefix(r, "stopped by janitor."):
		// ns_janitor reset the status of a rebalance that was no longer
		// running (the report's message, maybe_reset_rebalance_status/0).
		result = "interrupted"
	case scan.HasPrefix(r, "interrupted due to auto-failover of nodes "):
		result = "interrupted"
		if nodes, _, _, ok := list(r[len("interrupted due to auto-failover of nodes "):]); ok {
			ev.Set(AttrNodes, nodes)
		}
	case scan.HasPrefix(r, "interrupted as observer exited with reason "):
		result, reason = "failed", r[len("interrupted as observer exited with reason "):]
	case scan.HasPrefix(r, "exited with reason "):
		result, reason = "failed", r[len("exited with reason "):]
	default:
		return false
	}
	ev.Kind = RebalanceEnd
	ev.Set(AttrResult, result)
	if reason != nil {
		if after, ok := skipTerm(reason); ok {
			reason = reason[:len(reason)-len(after)]
		} else if i := bytes.Index(reason, rebalanceOpID); i >= 0 {
			reason = reason[:i]
		}
		setRebalanceReason(ev, trimSpace(reason))
	}
	if i := bytes.Index(r, operationID); i >= 0 {
		if id := firstWord(r[i+len(operationID):]); len(id) > 0 {
			ev.Set(AttrOperationID, string(id))
		}
	}
	out(ev, nil)
	return true
}

// setRebalanceReason sets the exit reason of a failed rebalance, its
// leading atom, the bucket and the nodes it names.
func setRebalanceReason(ev *forensics.Event, reason []byte) {
	ev.Set(AttrReason, compactTerm(reason))
	tag, bucket := reasonHead(reason)
	if tag != "" {
		ev.Set(AttrReasonTag, tag)
	}
	if bucket != "" {
		ev.Bucket = bucket
	}
	if nodes := otpNodes(reason); nodes != "" {
		ev.Set(AttrReasonNodes, nodes)
	}
}

// compactTerm drops the line breaks and indentation ~p puts into a long
// term, so that the reason reads the same in info.log (wrapped) and in
// diag.log (whose entries hold no line breaks).
func compactTerm(b []byte) string {
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' && (i == 0 || b[i-1] != '\\') {
			inString = !inString
		}
		if !inString && isSpace(c) && (len(out) == 0 || out[len(out)-1] == ',' || out[len(out)-1] == '{' || out[len(out)-1] == '[' || c == '\n') {
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

// reasonHead returns the leading atom of an exit reason ({mover_crashed, …}
// gives mover_crashed) and its second element when that is a string (the
// bucket of pre_rebalance_janitor_run_failed and the like).
func reasonHead(reason []byte) (tag, bucket string) {
	b := reason
	if len(b) == 0 {
		return "", ""
	}
	if b[0] != '{' {
		v, _, ok := scalar(b)
		if ok {
			return v.String(), ""
		}
		return "", ""
	}
	v, rest, ok := scalar(skipSpace(b[1:]))
	if !ok {
		return "", ""
	}
	tag = v.String()
	rest = skipSpace(rest)
	if len(rest) > 1 && rest[0] == ',' && rest[1] == '"' {
		if s, _, ok := scalar(rest[1:]); ok {
			bucket = s.String()
		}
	}
	return tag, bucket
}

var otpNodeRE = regexp.MustCompile(`'?(ns_1@[A-Za-z0-9._:\-\[\]]+)'?`)

// otpNodes returns the distinct node names in a term, joined with commas.
func otpNodes(b []byte) string {
	var out []string
	seen := map[string]bool{}
	for _, m := range otpNodeRE.FindAllSubmatch(b, -1) {
		n := string(m[1])
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// rebalanceStart reads ns_orchestrator's "Starting rebalance, KeepNodes =
// ~p, EjectNodes = ~p, Failed over and being ejected nodes = ~p; … Operation
// Id = ~s" (7.1–8.0).
func rebalanceStart(msg []byte, ev *forensics.Event, out found) bool {
	r, _ := scan.Cut(msg, "Starting rebalance, KeepNodes = ")
	keep, _, r, ok := list(r)
	if !ok {
		return false
	}
	ev.Kind = RebalanceStart
	ev.Set(AttrKeepNodes, keep)
	if r, ok := scan.Cut(r, ", EjectNodes = "); ok {
		if eject, _, _, ok := list(r); ok && eject != "" {
			ev.Set(AttrEjectNodes, eject)
		}
	}
	if i := bytes.Index(msg, operationID); i >= 0 {
		if id := firstWord(msg[i+len(operationID):]); len(id) > 0 {
			ev.Set(AttrOperationID, string(id))
		}
	}
	out(ev, nil)
	return true
}

// bucketWait reads ns_rebalancer rebalance_membase_bucket's "Waiting for
// bucket ~p to be ready on ~p" (7.1–8.0, logged to the rebalance logger): the
// rebalance moves this bucket next, once it is ready on these nodes.
func bucketWait(r []byte, ev *forensics.Event, out found) bool {
	bucket, r, ok := scalar(r)
	if !ok {
		return false
	}
	r, ok = scan.Cut(r, " to be ready on ")
	if !ok {
		return false
	}
	nodes, _, _, ok := list(r)
	if !ok {
		return false
	}
	ev.Kind = RebalanceBucketWait
	ev.Bucket = bucket.String()
	ev.Set(AttrNodes, nodes)
	out(ev, nil)
	return true
}

// bucketQueryFailed reads janitor_agent check_bucket_ready's "Querying bucket
// ~p states failed. Failures: ~p" (7.1–8.0), the failures a list of {Node,
// Reason}: warming_up while memcached loads the bucket.
func bucketQueryFailed(r []byte, ev *forensics.Event, out found) bool {
	bucket, r, ok := scalar(r)
	if !ok {
		return false
	}
	r, ok = scan.Cut(r, " states failed. Failures: ")
	if !ok {
		return false
	}
	var nodes, reasons []string
	for _, pair := range failurePairRE.FindAllSubmatch(r, -1) {
		nodes = append(nodes, string(pair[1]))
		reasons = append(reasons, string(pair[2]))
	}
	if len(nodes) == 0 {
		return false
	}
	ev.Kind = BucketQueryFailed
	ev.Bucket = bucket.String()
	ev.Set(AttrNodes, strings.Join(nodes, ","))
	ev.Set(AttrReason, strings.Join(reasons, ","))
	out(ev, nil)
	return true
}

// failurePairRE is one {'ns_1@host',reason} of janitor_agent's failures;
// the reason is an atom or the head of a term.
var failurePairRE = regexp.MustCompile(`\{\s*'([^']+@[^']+)'\s*,\s*\{?\s*([a-z][a-zA-Z0-9_]*)`)

// rebalanceStuck reads errors(stuck_rebalance) (7.6+): "Warning: Rebalance
// of '~s' (rebalance_id: ~s) appears stuck, no progress has been made for ~b
// seconds." where ~s is the service.
func rebalanceStuck(r []byte, ev *forensics.Event, out found) bool {
	if len(r) == 0 || r[0] != '\'' {
		return false
	}
	end := bytes.IndexByte(r[1:], '\'')
	if end < 0 {
		return false
	}
	service := r[1 : 1+end]
	r = r[end+2:]
	ev.Kind = RebalanceStuck
	ev.Set(AttrService, string(service))
	if v, ok := between(r, "(rebalance_id: ", ")"); ok {
		ev.Set(AttrOperationID, string(v))
	}
	if v, ok := between(r, "no progress has been made for ", " seconds"); ok {
		ev.Set(AttrSeconds, string(v))
	}
	out(ev, nil)
	return true
}

// diskAlert reads errors(disk) (7.1–8.0): "Approaching full disk warning.
// Usage of disk \"~s\" on node \"~s\" is around ~p%."
func diskAlert(msg []byte, ev *forensics.Event, out found) bool {
	path, ok1 := between(msg, "Usage of disk \"", "\" on node ")
	host, ok2 := between(msg, "\" on node \"", "\" is around ")
	pct, ok3 := between(msg, "\" is around ", "%")
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	ev.Kind = DiskAlert
	ev.Set(AttrPath, string(path))
	ev.Set(AttrAlertHost, string(host))
	ev.Set(AttrPercent, string(pct))
	out(ev, nil)
	return true
}

// writeCommitFailed reads errors(ep_item_commit_failed) (7.1–8.0): "Write
// Commit Failure. Disk write failed for item in Bucket \"~s\" on node ~s."
func writeCommitFailed(msg []byte, ev *forensics.Event, out found) bool {
	b, ok := between(msg, "in Bucket \"", "\" on node ")
	if !ok {
		return false
	}
	i := bytes.Index(msg, []byte("\" on node "))
	host := bytes.TrimSuffix(firstLineOf(trimSpace(msg[i+len("\" on node "):])), []byte("."))
	ev.Kind = WriteCommitFailed
	ev.Bucket = string(b)
	ev.Set(AttrAlertHost, string(host))
	out(ev, nil)
	return true
}

// timeOutOfSync reads errors(time_out_of_sync) (7.1–8.0): "The time on node
// ~p is not synchronized. Please ensure that NTP is set up correctly on all
// nodes and that clocks are synchronized."
func timeOutOfSync(msg []byte, ev *forensics.Event, out found) bool {
	r, _ := scan.Cut(msg, "The time on node ")
	v, r, ok := scalar(r)
	if !ok || !scan.HasPrefix(r, " is not synchronized.") {
		return false
	}
	ev.Kind = TimeOutOfSync
	ev.Set(AttrAlertNode, v.String())
	out(ev, nil)
	return true
}

// casDrift reads errors(ep_clock_cas_drift_threshold_exceeded) (7.1–8.0):
// "Remote or replica mutation received for bucket ~p on node ~p with
// timestamp more than ~p milliseconds ahead of local clock. …". kv_engine
// itself only counts these (the ep_clock_cas_drift_threshold_exceeded stat);
// this alert is where the words are.
func casDrift(msg []byte, ev *forensics.Event, out found) bool {
	r, ok := scan.Cut(msg, "Remote or replica mutation received for bucket ")
	if !ok {
		return false
	}
	b, r, ok := scalar(r)
	if !ok {
		return false
	}
	if r, ok = scan.Cut(r, " on node "); !ok {
		return false
	}
	host, r, ok := scalar(r)
	if !ok {
		return false
	}
	if r, ok = scan.Cut(r, " with timestamp more than "); !ok {
		return false
	}
	ms, r := digits(r)
	if ms == nil || !scan.HasPrefix(r, " milliseconds ahead of local clock") {
		return false
	}
	ev.Kind = CASDrift
	ev.Bucket = b.String()
	ev.Set(AttrAlertHost, host.String())
	ev.Set(AttrThresholdMS, string(ms))
	out(ev, nil)
	return true
}

// connectionsAlert reads errors(memcached_connections) (7.1–8.0):
// "Warning: On node ~s the number of ~s connections being used by the Data
// Service (~p) is above the notice threshold of ~b%. The limit is ~p.",
// with node() (ns_1@host), user or system, the connections in use, the
// threshold and kv_max_user_connections or kv_max_system_connections.
func connectionsAlert(r []byte, ev *forensics.Event, out found) bool {
	node, ok := between(r, "", " the number of ")
	typ, ok2 := between(r, " the number of ", " connections being used by the Data Service (")
	used, ok3 := between(r, " connections being used by the Data Service (", ") is above the notice threshold of ")
	pct, ok4 := between(r, " is above the notice threshold of ", "%. The limit is ")
	if !ok || !ok2 || !ok3 || !ok4 {
		return false
	}
	limit, _ := digits(r[bytes.Index(r, []byte("%. The limit is "))+len("%. The limit is "):])
	ev.Kind = ConnectionsAlert
	ev.Set(AttrAlertNode, string(node))
	ev.Set(AttrConnType, string(typ))
	ev.Set(AttrUsed, string(used))
	ev.Set(AttrThresholdPct, string(pct))
	if limit != nil {
		ev.Set(AttrLimit, string(limit))
	}
	out(ev, nil)
	return true
}

// indexerRAMAlert reads errors(indexer_ram_max_usage) (7.1–8.0): "Warning:
// approaching max index RAM. Indexer RAM on node \"~s\" is ~p%, which is
// at or above the threshold of ~p%." The check runs only for
// memory-optimized indexes (index_settings_manager:is_memory_optimized).
func indexerRAMAlert(msg []byte, ev *forensics.Event, out found) bool {
	host, ok := between(msg, "Indexer RAM on node \"", "\" is ")
	pct, ok2 := between(msg, "\" is ", "%, which is at or above the threshold of ")
	limit, ok3 := between(msg, "%, which is at or above the threshold of ", "%")
	if !ok || !ok2 || !ok3 {
		return false
	}
	ev.Kind = IndexerRAMAlert
	ev.Set(AttrAlertHost, string(host))
	ev.Set(AttrPercent, string(pct))
	ev.Set(AttrThresholdPct, string(limit))
	out(ev, nil)
	return true
}

func between(b []byte, start, end string) ([]byte, bool) {
	i := bytes.Index(b, []byte(start))
	if i < 0 {
		return nil, false
	}
	r := b[i+len(start):]
	j := bytes.Index(r, []byte(end))
	if j < 0 {
		return nil, false
	}
	return r[:j], true
}

func firstLineOf(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}
