package nsserver

import (
	"bytes"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of events read from ns_server's messages, wherever they were logged
// (ale log files, diag.log, the event log, master events).
const (
	ServiceExited       forensics.Kind = "nsserver.service_exited"
	PortExited          forensics.Kind = "nsserver.port_exited"
	TrafficEnabling     forensics.Kind = "nsserver.traffic_enabling"
	BucketWarmed        forensics.Kind = "nsserver.bucket_warmed"
	TrafficEnableFailed forensics.Kind = "nsserver.traffic_enable_failed"
	BucketReady         forensics.Kind = "nsserver.bucket_ready"
	BucketUnready       forensics.Kind = "nsserver.bucket_unready"
	BucketNotReady      forensics.Kind = "nsserver.bucket_not_ready"
	BucketLoaded        forensics.Kind = "nsserver.bucket_loaded"
	BucketOnline        forensics.Kind = "nsserver.bucket_online"
	FailoverStart       forensics.Kind = "nsserver.failover_start"
	FailoverNode        forensics.Kind = "nsserver.failover_node"
	FailoverFailed      forensics.Kind = "nsserver.failover_failed"
	FailoverEnd         forensics.Kind = "nsserver.failover_end"
	AutoFailover        forensics.Kind = "nsserver.autofailover"
	BucketFailoverStart forensics.Kind = "nsserver.bucket_failover_start"
	BucketFailoverEnd   forensics.Kind = "nsserver.bucket_failover_end"
	VBucketState        forensics.Kind = "nsserver.vbucket_state"
	VBucketMap          forensics.Kind = "nsserver.vbucket_map"
	LoggedEvent         forensics.Kind = "nsserver.event"
)

var kindDocs = map[forensics.Kind]forensics.KindDoc{
	ServiceExited:       {Category: forensics.CategoryProcess, Label: "service exited, restarting", Doc: "a service run by the babysitter (memcached, indexer, …) exited and is being restarted (ns_log: Service '…' exited with status N; event log id 19)", Attrs: attrs.Of(AttrComponent, AttrDescription, AttrEventID, AttrExitStatus, AttrName, AttrOsPID, AttrRepeated, AttrService, AttrSeverity, AttrStatus, AttrVia)},
	PortExited:          {Category: forensics.CategoryProcess, Label: "process exited", Doc: "the babysitter saw a service's OS process exit (goport: Port exited with status N; supervisor_cushion: Cushion managed supervisor for … failed)", Attrs: attrs.Of(AttrReason, AttrService, AttrStatus)},
	TrafficEnabling:     {Category: forensics.CategoryTraffic, Label: "enabling traffic", Doc: "ns_server on this node is about to enable data traffic on the bucket (ns_memcached: Enabling traffic to bucket)"},
	BucketWarmed:        {Category: forensics.CategoryTraffic, Label: "traffic enabled (marked as warmed)", Doc: "data traffic was enabled on the bucket on this node: the end of warmup as clients see it (ns_memcached: Bucket … marked as warmed)", Attrs: attrs.Of(AttrSeconds)},
	TrafficEnableFailed: {Category: forensics.CategoryError, Label: "enabling traffic failed", Doc: "enabling data traffic on the bucket failed on this node (ns_memcached: Failed to enable traffic to bucket)", Attrs: attrs.Of(AttrError)},
	BucketReady:         {Category: forensics.CategoryTraffic, Label: "ns_doctor: bucket ready", Doc: "ns_doctor learned that buckets became ready (traffic enabled) on a node, about a heartbeat after the fact", Attrs: attrs.Of(AttrActiveBuckets, AttrBuckets, AttrReadyNode)},
	BucketUnready:       {Category: forensics.CategoryTraffic, Label: "ns_doctor: bucket no longer ready", Doc: "ns_doctor learned that buckets stopped being ready on a node (for example memcached restarted)", Attrs: attrs.Of(AttrActiveBuckets, AttrBuckets, AttrUnreadyNode)},
	BucketNotReady:      {Category: forensics.CategoryWarmup, Label: "janitor: bucket not yet ready", Doc: "the orchestrator's janitor found the bucket not yet ready on some nodes and did not set vbucket states (ns_janitor)", Attrs: attrs.Of(AttrNodes)},
	BucketLoaded:        {Category: forensics.CategoryWarmup, Label: "bucket loaded (traffic not yet enabled)", Doc: "the bucket's warmup finished loading on a node; traffic is NOT enabled yet (ns_memcached: Bucket … loaded on node …)", Attrs: attrs.Of(AttrLoadedNode, AttrSeconds, AttrVia)},
	BucketOnline:        {Category: forensics.CategoryTraffic, Label: "bucket online", Doc: "the bucket came online on a node: traffic enabled (event log id 8199)", Attrs: attrs.Of(AttrBucketUUID, AttrComponent, AttrDescription, AttrEventID, AttrSeverity, AttrVia, AttrWarmupTime)},
	FailoverStart:       {Category: forensics.CategoryFailover, Label: "failover began", Doc: "a failover of nodes began (ns_orchestrator, failover.erl; event log ids 6, 10, 14)", Attrs: attrs.Of(AttrAllowUnsafe, AttrAuto, AttrComponent, AttrDescription, AttrEventID, AttrFailoverReason, AttrGraceful, AttrHosts, AttrMasterNode, AttrNodes, AttrOperationID, AttrSeverity, AttrVia)},
	FailoverNode:        {Category: forensics.CategoryFailover, Label: "nodes failed over", Doc: "nodes were failed over (failover.erl: Failed over …: ok); result is ok or incomplete", Attrs: attrs.Of(AttrErrorNodes, AttrNodes, AttrResult, AttrVia)},
	FailoverFailed:      {Category: forensics.CategoryError, Label: "failover failed", Doc: "a failover failed, was interrupted or stopped (failover.erl, ns_orchestrator; event log ids 8, 9, 12, 13, 16; a rebalance report's completion message)", Attrs: attrs.Of(AttrError, AttrGraceful, AttrMasterNode, AttrOperationID, AttrTimeTaken, AttrVia)},
	FailoverEnd:         {Category: forensics.CategoryFailover, Label: "failover completed", Doc: "a failover completed successfully (ns_orchestrator; event log ids 7, 11, 15)", Attrs: attrs.Of(AttrAuto, AttrCompletionMessage, AttrComponent, AttrDescription, AttrEventID, AttrFailoverReason, AttrGraceful, AttrMasterNode, AttrNodes, AttrOperationID, AttrSeverity, AttrTimeTaken, AttrVia)},
	AutoFailover:        {Category: forensics.CategoryFailover, Label: "auto-failover", Doc: "a node was automatically failed over, with the reason (auto_failover)", Attrs: attrs.Of(AttrNodes, AttrReason, AttrVia)},
	BucketFailoverStart: {Category: forensics.CategoryFailover, Label: "bucket failover began", Doc: "the failover of one bucket began (master events bucketFailoverStarted)", Attrs: attrs.Of(AttrHosts, AttrNodes, AttrVia)},
	BucketFailoverEnd:   {Category: forensics.CategoryFailover, Label: "bucket failover ended", Doc: "the failover of one bucket ended (master events bucketFailoverEnded)", Attrs: attrs.Of(AttrHosts, AttrNodes, AttrVia)},
	VBucketState:        {Category: forensics.CategoryFailover, Label: "vbucket state set", Doc: "ns_server set or decided a vbucket's state on a node (ns_memcached, ns_janitor; master events vbucketStateChange)", Attrs: attrs.Of(AttrFromState, AttrHost, AttrState, AttrVBNode, AttrVia)},
	VBucketMap:          {Category: forensics.CategoryFailover, Label: "vbucket map changed", Doc: "the vbucket map changed a vbucket's chain, e.g. a replica promoted to active (master events updateMap; ns_janitor)", Attrs: attrs.Of(AttrActiveAfter, AttrActiveBefore, AttrChainAfter, AttrChainBefore, AttrVia)},
	CertUpdated:         certUpdatedDoc,
	LoggedEvent:         {Category: forensics.CategoryOther, Label: "event log entry", Doc: "another event log entry (event log JSON), with its event_id and description", Attrs: attrs.Of(AttrComponent, AttrDescription, AttrDownNode, AttrEventID, AttrName, AttrNode, AttrReason, AttrSeverity, AttrVia)},
}

func docs(kinds ...forensics.Kind) []forensics.KindDoc {
	out := make([]forensics.KindDoc, len(kinds))
	for i, k := range kinds {
		out[i] = kindDocs[k]
		out[i].Kind = k
	}
	return out
}

// candidate reports whether a message's first line could start one of the
// templates recognize knows. It is the cheap test run on every entry.
func candidate(msg []byte) bool {
	if len(msg) < 6 {
		return false
	}
	if alertCandidate(msg) {
		return true
	}
	switch msg[0] {
	case 'S':
		return scan.HasPrefix(msg, "Service '") || scan.HasPrefix(msg, "Starting fail") || scan.HasPrefix(msg, "Starting graceful failover") || scan.HasPrefix(msg, "Setting vbucket ")
	case 'P':
		return scan.HasPrefix(msg, "Port exited with status ")
	case 'C':
		return scan.HasPrefix(msg, "Cushion managed supervisor for ") || scan.HasPrefix(msg, "Changed ") || scan.HasPrefix(msg, compactingPrefix)
	case 'E':
		return scan.HasPrefix(msg, "Enabling traffic to bucket ")
	case 'B':
		return scan.HasPrefix(msg, "Bucket ")
	case 'F':
		return scan.HasPrefix(msg, "Failed over ") || scan.HasPrefix(msg, "Failed to enable traffic") || scan.HasPrefix(msg, "Failover ") || scan.HasPrefix(msg, finishedPrefix)
	case 'G':
		return scan.HasPrefix(msg, "Graceful failover ")
	case 'T':
		return scan.HasPrefix(msg, "The following buckets became ")
	case 'N':
		return scan.HasPrefix(msg, "Node (")
	case 'M':
		return scan.HasPrefix(msg, "Master for vbucket ")
	}
	return false
}

// found receives an event recognised in a message. text is the part of the
// message the event stands for, or nil for the whole entry.
type found func(ev *forensics.Event, text []byte)

// recognize reads an ns_server message (the whole entry, continuation lines
// included) and reports the events it holds. ev is reset before each.
// Templates are ns_server v7.0–8.0; the file that logs each is named.
func recognize(msg []byte, ev *forensics.Event, out found) {
	ev.Reset()
	if recognizeAlert(msg, ev, out) {
		return
	}
	switch msg[0] {
	case 'S':
		if rest, ok := scan.Cut(msg, "Service "); ok {
			serviceExited(rest, ev, out)
		} else if rest, ok := scan.Cut(msg, "Starting failing over "); ok {
			// failover.erl orchestrate/2.
			if nodes, _, _, ok := list(rest); ok {
				ev.Kind = FailoverStart
				ev.Set(AttrNodes, nodes)
				out(ev, nil)
			}
		} else if rest, ok := scan.Cut(msg, "Starting failover of nodes "); ok {
			failoverStarting(rest, false, ev, out)
		} else if rest, ok := scan.Cut(msg, "Starting graceful failover of nodes "); ok {
			failoverStarting(rest, true, ev, out)
		} else if rest, ok := scan.Cut(msg, "Setting vbucket "); ok {
			janitorActivating(rest, ev, out)
		}
	case 'P':
		// goport.erl handle_process_exit/2, in the babysitter. The port's
		// name is not in the line; the cushion line after it has it.
		if rest, ok := scan.Cut(msg, "Port exited with status "); ok {
			if st, _ := digits(rest); st != nil {
				ev.Kind = PortExited
				ev.Set(AttrStatus, string(st))
				out(ev, nil)
			}
		}
	case 'C':
		if compaction(msg, ev, out) {
			return
		}
		if rest, ok := scan.Cut(msg, "Cushion managed supervisor for "); ok {
			cushionFailed(rest, ev, out)
		} else if rest, ok := scan.Cut(msg, "Changed bucket "); ok {
			vbucketChanged(rest, ev, out)
		} else if rest, ok := scan.Cut(msg, "Changed vbucket state"); ok {
			vbucketsChanged(rest, ev, out)
		}
	case 'E':
		// ns_memcached handle_call(mark_warmed), before ENABLE_TRAFFIC.
		if rest, ok := scan.Cut(msg, "Enabling traffic to bucket "); ok {
			if b, _, ok := scalar(rest); ok {
				ev.Kind = TrafficEnabling
				ev.Bucket = b.String()
				out(ev, nil)
			}
		}
	case 'B':
		if rest, ok := scan.Cut(msg, "Bucket "); ok {
			bucketMessage(rest, ev, out)
		}
	case 'F':
		if !compaction(msg, ev, out) {
			failMessage(msg, ev, out)
		}
	case 'G':
		if rest, ok := scan.Cut(msg, "Graceful failover "); ok {
			failoverResult(rest, true, ev, out)
		}
	case 'T':
		if rest, ok := scan.Cut(msg, "The following buckets became "); ok {
			bucketsBecame(rest, ev, out)
		}
	case 'N':
		if rest, ok := scan.Cut(msg, "Node ("); ok {
			autoFailover(rest, ev, out)
		}
	case 'M':
		if rest, ok := scan.Cut(msg, "Master for vbucket "); ok {
			janitorNewMaster(rest, ev, out)
		}
	}
}

var (
	exitedWithStatus = []byte("' exited with status ")
	failedColon      = []byte(" failed:")
	operationID      = []byte("Operation Id = ")
	repeatedTimes    = []byte(" (repeated ")
	rebalanceOpID    = []byte("\nRebalance Operation Id")
)

// serviceExited reads ns_log consume_log/1:
// "Service '~p' exited with status ~p. Restarting. Messages:~n~s".
// A name that needs quotes is quoted twice:
//
//	Service ''cbq-engine'' exited with status 1. Restarting. Messages:
func serviceExited(rest []byte, ev *forensics.Event, out found) {
	if len(rest) == 0 || rest[0] != '\'' {
		return
	}
	first := rest
	if nl := bytes.IndexByte(first, '\n'); nl >= 0 {
		first = first[:nl]
	}
	k := bytes.Index(first, exitedWithStatus)
	if k < 1 {
		return
	}
	st, _ := digits(rest[k+len(exitedWithStatus):])
	if st == nil {
		return
	}
	ev.Kind = ServiceExited
	ev.Set(AttrService, unquote(string(rest[1:k])))
	ev.Set(AttrStatus, string(st))
	repeated(rest, ev)
	out(ev, nil)
}

// repeated notes ns_log's summary of suppressed duplicates,
// "… (repeated ~p times, last seen ~p secs ago)": the entry's time is then
// the time of the summary, not of the first occurrence.
func repeated(msg []byte, ev *forensics.Event) {
	i := bytes.LastIndex(msg, repeatedTimes)
	if i < 0 {
		return
	}
	n, rest := digits(msg[i+len(repeatedTimes):])
	if n != nil && scan.HasPrefix(rest, " times") {
		ev.Set(AttrRepeated, string(n))
	}
}

// cushionFailed reads supervisor_cushion handle_info/2 in the babysitter:
// "Cushion managed supervisor for ~p failed:  ~p", where the reason of a
// crashed port is {abnormal,Status}.
func cushionFailed(rest []byte, ev *forensics.Event, out found) {
	k := bytes.Index(rest, failedColon)
	if k < 1 {
		return
	}
	reason := trimSpace(rest[k+len(failedColon):])
	ev.Kind = PortExited
	ev.Set(AttrService, unquote(string(trimSpace(rest[:k]))))
	if r, ok := scan.Cut(reason, "{abnormal,"); ok {
		if st, r := digits(r); st != nil && len(r) > 0 && r[0] == '}' {
			ev.Set(AttrStatus, string(st))
		}
	}
	ev.Set(AttrReason, string(reason))
	out(ev, nil)
}

// bucketMessage reads the templates that start with "Bucket ~p".
func bucketMessage(rest []byte, ev *forensics.Event, out found) {
	b, rest, ok := scalar(rest)
	if !ok {
		return
	}
	if r, ok := scan.Cut(rest, " marked as warmed in "); ok {
		// ns_memcached handle_call(mark_warmed): ENABLE_TRAFFIC succeeded.
		if sec, _ := digits(r); sec != nil {
			ev.Kind = BucketWarmed
			ev.Bucket = b.String()
			ev.Set(AttrSeconds, string(sec))
			out(ev, nil)
		}
	} else if r, ok := scan.Cut(rest, " loaded on node "); ok {
		// ns_memcached handle_cast(start_completed): warmup done, no traffic yet.
		node, r, ok := scalar(r)
		if !ok {
			return
		}
		r, ok = scan.Cut(r, " in ")
		sec, _ := digits(r)
		if !ok || sec == nil {
			return
		}
		ev.Kind = BucketLoaded
		ev.Bucket = b.String()
		ev.Set(AttrLoadedNode, node.String())
		ev.Set(AttrSeconds, string(sec))
		out(ev, nil)
	} else if r, ok := scan.Cut(rest, " not yet ready on "); ok {
		// ns_janitor cleanup_with_membase_bucket(s)_vbucket_map.
		if nodes, _, _, ok := list(r); ok {
			ev.Kind = BucketNotReady
			ev.Bucket = b.String()
			ev.Set(AttrNodes, nodes)
			out(ev, nil)
		}
	}
}

func failMessage(msg []byte, ev *forensics.Event, out found) {
	if rest, ok := scan.Cut(msg, "Failed over "); ok {
		// failover.erl orchestrate/2: "Failed over ~p: ok", or
		// "Failed over ~p. Failover couldn't complete on some nodes:~n~p".
		nodes, _, r, ok := list(rest)
		if !ok {
			return
		}
		ev.Kind = FailoverNode
		ev.Set(AttrNodes, nodes)
		if _, ok := scan.Cut(r, ": ok"); ok {
			ev.Set(AttrResult, "ok")
		} else if r, ok := scan.Cut(r, ". Failover couldn't complete on some nodes:"); ok {
			ev.Set(AttrResult, "incomplete")
			if e := trimSpace(r); len(e) > 0 {
				ev.Set(AttrErrorNodes, string(e))
			}
		} else {
			return
		}
		out(ev, nil)
	} else if rest, ok := scan.Cut(msg, "Failed to enable traffic to bucket "); ok {
		// ns_memcached handle_call(mark_warmed).
		b, r, ok := scalar(rest)
		if !ok {
			return
		}
		ev.Kind = TrafficEnableFailed
		ev.Bucket = b.String()
		if r, ok := scan.Cut(r, ": "); ok {
			ev.Set(AttrError, string(trimSpace(r)))
		}
		out(ev, nil)
	} else if rest, ok := scan.Cut(msg, "Failover failed with "); ok {
		// failover.erl orchestrate/2.
		ev.Kind = FailoverFailed
		ev.Set(AttrError, string(trimSpace(rest)))
		out(ev, nil)
	} else if rest, ok := scan.Cut(msg, "Failover "); ok {
		failoverResult(rest, false, ev, out)
	}
}

// failoverResult reads ns_orchestrator log_rebalance_completion/2 for a
// failover: "~s completed successfully.~nRebalance Operation Id = ~s", or
// "~s exited with reason ~p.", "~s interrupted …", "~s stopped by user.",
// where ~s is "Failover" or "Graceful failover".
func failoverResult(rest []byte, graceful bool, ev *forensics.Event, out found) {
	switch {
	case scan.HasPrefix(rest, "completed successfully."):
		ev.Kind = FailoverEnd
	case scan.HasPrefix(rest, "exited with reason "), scan.HasPrefix(rest, "interrupted "), scan.HasPrefix(rest, "stopped by user."):
		ev.Kind = FailoverFailed
		reason := rest
		if i := bytes.Index(reason, rebalanceOpID); i >= 0 {
			reason = reason[:i]
		}
		ev.Set(AttrError, string(trimSpace(reason)))
	default:
		return
	}
	if graceful {
		ev.Set(AttrGraceful, "true")
	}
	if i := bytes.Index(rest, operationID); i >= 0 {
		if id := firstWord(rest[i+len(operationID):]); len(id) > 0 {
			ev.Set(AttrOperationID, string(id))
		}
	}
	out(ev, nil)
}

func firstWord(b []byte) []byte {
	i := 0
	for i < len(b) && !isSpace(b[i]) {
		i++
	}
	return b[:i]
}

// failoverStarting reads ns_orchestrator handle_start_failover and the
// graceful failover start:
// "Starting failover of nodes ~p. Operation Id = ~s" (7.0–7.2),
// "Starting failover of nodes ~p AllowUnsafe = ~p Operation Id = ~s" (7.6+),
// "Starting graceful failover of nodes ~p. Operation Id = ~s".
func failoverStarting(rest []byte, graceful bool, ev *forensics.Event, out found) {
	nodes, _, r, ok := list(rest)
	if !ok {
		return
	}
	ev.Kind = FailoverStart
	ev.Set(AttrNodes, nodes)
	if graceful {
		ev.Set(AttrGraceful, "true")
	}
	if r, ok := scan.Cut(r, " AllowUnsafe = "); ok {
		if v, _, ok := scalar(r); ok {
			ev.Set(AttrAllowUnsafe, v.String())
		}
	}
	if i := bytes.Index(r, operationID); i >= 0 {
		if id := firstWord(r[i+len(operationID):]); len(id) > 0 {
			ev.Set(AttrOperationID, string(id))
		}
	}
	out(ev, nil)
}

// bucketsBecame reads ns_doctor update_status/3:
// "The following buckets became ready on node ~p: ~p" and
// "The following buckets became not ready on node ~p: ~p, those of them are active ~p".
func bucketsBecame(rest []byte, ev *forensics.Event, out found) {
	kind, key := BucketReady, AttrReadyNode
	r, ok := scan.Cut(rest, "ready on node ")
	if !ok {
		if r, ok = scan.Cut(rest, "not ready on node "); !ok {
			return
		}
		kind, key = BucketUnready, AttrUnreadyNode
	}
	node, r, ok := scalar(r)
	if !ok {
		return
	}
	if r, ok = scan.Cut(r, ": "); !ok {
		return
	}
	buckets, n, r, ok := list(r)
	if !ok {
		return
	}
	ev.Kind = kind
	ev.Set(key, node.String())
	ev.Set(AttrBuckets, buckets)
	if n == 1 {
		ev.Bucket = buckets
	}
	if kind == BucketUnready {
		if r, ok := scan.Cut(r, ", those of them are active "); ok {
			if active, _, _, ok := list(r); ok && active != "" {
				ev.Set(AttrActiveBuckets, active)
			}
		}
	}
	out(ev, nil)
}

// autoFailover reads auto_failover log_failover_success/3:
// "Node (~p) was automatically failed over. Reason: ~s", or
// "Node (~p) was automatically failed over.~n~p".
func autoFailover(rest []byte, ev *forensics.Event, out found) {
	node, r, ok := scalar(rest)
	if !ok {
		return
	}
	r, ok = scan.Cut(r, ") was automatically failed over.")
	if !ok {
		return
	}
	ev.Kind = AutoFailover
	ev.Set(AttrNodes, node.String())
	if reason, ok := scan.Cut(r, " Reason: "); ok {
		r = reason
	}
	if reason := trimSpace(r); len(reason) > 0 {
		ev.Set(AttrReason, string(reason))
	}
	out(ev, nil)
}

// vbucketChanged reads ns_memcached do_handle_call({set_vbucket, …}):
// "Changed bucket ~p vbucket ~p state to ~p", logged by the node whose
// vbucket it is.
func vbucketChanged(rest []byte, ev *forensics.Event, out found) {
	b, r, ok := scalar(rest)
	if !ok {
		return
	}
	if r, ok = scan.Cut(r, " vbucket "); !ok {
		return
	}
	vb, r := digits(r)
	if r, ok = scan.Cut(r, " state to "); !ok || vb == nil {
		return
	}
	state, _, ok := scalar(r)
	if !ok || !setVB(ev, vb) {
		return
	}
	ev.Kind = VBucketState
	ev.Bucket = b.String()
	ev.Set(AttrState, state.String())
	out(ev, nil)
}

// vbucketsChanged reads ns_memcached do_handle_call({set_vbuckets, …}):
// "Changed vbucket state ~n~p" with a list of {VBucket, State, Topology}.
// The bucket is not in the message. One event per vbucket; its text is the
// tuple as logged.
func vbucketsChanged(rest []byte, ev *forensics.Event, out found) {
	b := skipSpace(rest)
	if len(b) == 0 || b[0] != '[' {
		return
	}
	b = skipSpace(b[1:])
	for len(b) > 0 && b[0] == '{' {
		start := b
		vb, r := digits(skipSpace(b[1:]))
		r = skipSpace(r)
		if vb == nil || len(r) == 0 || r[0] != ',' {
			return
		}
		state, _, ok := scalar(skipSpace(r[1:]))
		if !ok {
			return
		}
		after, ok := skipTerm(b)
		if !ok {
			return
		}
		ev.Reset()
		if !setVB(ev, vb) {
			return
		}
		ev.Kind = VBucketState
		ev.Set(AttrState, state.String())
		out(ev, start[:len(start)-len(after)])
		b = skipSpace(after)
		if len(b) == 0 || b[0] != ',' {
			return
		}
		b = skipSpace(b[1:])
	}
}

// janitorActivating reads ns_janitor sanify_chain/5, logged by the
// orchestrator when no copy of a vbucket is active:
// "Setting vbucket ~p in ~p on ~p from ~p to active."
func janitorActivating(rest []byte, ev *forensics.Event, out found) {
	vb, r := digits(rest)
	r, ok := scan.Cut(r, " in ")
	if vb == nil || !ok {
		return
	}
	b, r, ok := scalar(r)
	if !ok {
		return
	}
	if r, ok = scan.Cut(r, " on "); !ok {
		return
	}
	node, r, ok := scalar(r)
	if !ok {
		return
	}
	if r, ok = scan.Cut(r, " from "); !ok {
		return
	}
	from, r, ok := scalar(r)
	if !ok || !scan.HasPrefix(r, " to active") || !setVB(ev, vb) {
		return
	}
	ev.Kind = VBucketState
	ev.Bucket = b.String()
	ev.Set(AttrState, "active")
	ev.Set(AttrFromState, from.String())
	ev.Set(AttrVBNode, node.String())
	out(ev, nil)
}

// janitorNewMaster reads ns_janitor derive_chain/4: "Master for vbucket ~p in
// ~p is not active, but ~p is (one of replicas). So making that master." (or
// "…, but ~p is, so making that the master." for a node outside the chain).
func janitorNewMaster(rest []byte, ev *forensics.Event, out found) {
	vb, r := digits(rest)
	r, ok := scan.Cut(r, " in ")
	if vb == nil || !ok {
		return
	}
	b, r, ok := scalar(r)
	if !ok {
		return
	}
	if r, ok = scan.Cut(r, " is not active, but "); !ok {
		return
	}
	node, _, ok := scalar(r)
	if !ok || !setVB(ev, vb) {
		return
	}
	ev.Kind = VBucketMap
	ev.Bucket = b.String()
	ev.Set(AttrActiveAfter, node.String())
	out(ev, nil)
}

// setVB sets the event's vbucket from decimal digits, refusing what cannot be one.
func setVB(ev *forensics.Event, b []byte) bool {
	if len(b) == 0 || len(b) > 5 || b[0] == '-' {
		return false
	}
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	ev.VB = n
	return true
}
