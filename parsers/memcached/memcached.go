// Package memcached reads memcached.log, the log of Couchbase's data service
// (kv_engine 7.0–8.0): the process and the ep-engine of every bucket write to
// it through spdlog. 8.0 writes each message followed by a JSON object of
// context (ctx.go); both forms are read, in one file too.
//
// In a cbcollect_info zip, memcached.log is every rotated
// memcached.log.NNNNNN.txt concatenated in modification-time order, after a
// header block of cbcollect_info's own; a single rotated file reads the same.
//
// The events are the ones that place a node's data service on the timeline
// of an incident: process starts and shutdowns, bucket creation, warmup,
// when data traffic was enabled, and what DCP producers did with stream
// requests (accepted, answered with a rollback, refused) and vbucket state
// changes. Every other line is a plain line.
package memcached

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/logtime"
)

// Kinds of events in memcached.log.
const (
	LogOpened       forensics.Kind = "memcached.log_opened"
	LogClosed       forensics.Kind = "memcached.log_closed"
	Start           forensics.Kind = "memcached.start"
	Shutdown        forensics.Kind = "memcached.shutdown"
	BucketCreate    forensics.Kind = "memcached.bucket_create"
	BucketCreated   forensics.Kind = "memcached.bucket_created"
	WarmupStart     forensics.Kind = "memcached.warmup_start"
	FailoverEntry   forensics.Kind = "memcached.failover_entry"
	WarmupUnblock   forensics.Kind = "memcached.warmup_unblock"
	WarmupEnough    forensics.Kind = "memcached.warmup_enough"
	WarmupComplete  forensics.Kind = "memcached.warmup_complete"
	TrafficEnabled  forensics.Kind = "memcached.traffic_enabled"
	TrafficDisabled forensics.Kind = "memcached.traffic_disabled"
	DCPProducer     forensics.Kind = "memcached.dcp_producer"
	StreamCreated   forensics.Kind = "memcached.stream_created"
	StreamRollback  forensics.Kind = "memcached.stream_rollback"
	StreamRefused   forensics.Kind = "memcached.stream_refused"
	VBState         forensics.Kind = "memcached.vb_state"
)

// Format reads memcached.log and its rotated files (memcached.log.NNNNNN.txt).
var Format = forensics.Format{
	Name:      "memcached",
	Component: "memcached",
	Detect:    detect,
	New:       newParser,
	Kinds: []forensics.KindDoc{
		{Kind: LogOpened, Category: forensics.CategoryProcess, Label: "log file opened", Doc: "memcached opened a log file (---------- Opening logfile): at process start or at rotation"},
		{Kind: LogClosed, Category: forensics.CategoryProcess, Label: "log file closed", Doc: "memcached closed a log file (---------- Closing logfile): at rotation or at a clean exit; absent when the process was killed"},
		{Kind: Start, Category: forensics.CategoryProcess, Label: "memcached started", Doc: "the memcached process started (Couchbase version … starting.; 8.0: Couchbase version starting {\"version\":…}); unclean=true when the previous start in this file had no graceful shutdown or log close after it (killed, e.g. status 137)", Attrs: attrs.Of(AttrUnclean, AttrVersion)},
		{Kind: Shutdown, Category: forensics.CategoryProcess, Label: "graceful shutdown began", Doc: "memcached began a graceful shutdown (Initiating graceful shutdown.)", Attrs: attrs.Of(AttrSigint, AttrSigterm)},
		{Kind: BucketCreate, Category: forensics.CategoryWarmup, Label: "bucket creation began", Doc: "memcached began creating a bucket (Create … bucket […]); type is the bucket type", Attrs: attrs.Of(AttrConnID, AttrType)},
		{Kind: BucketCreated, Category: forensics.CategoryWarmup, Label: "bucket created, warmup runs", Doc: "a bucket was created and its engine initialised (Bucket […] created successfully); warmup runs from here", Attrs: attrs.Of(AttrConnID)},
		{Kind: WarmupStart, Category: forensics.CategoryWarmup, Label: "warmup began", Doc: "a bucket's warmup began: the collections manifest was loaded from disk (warmupLoadManifest: starting at uid)", Attrs: attrs.Of(AttrForce, AttrManifestUID)},
		{Kind: FailoverEntry, Category: forensics.CategoryWarmup, Label: "new failover-log entry", Doc: "a vbucket got a new failover entry (a new history branch): at warmup after an unclean shutdown or manifest change, or on promotion to active", Attrs: attrs.Of(AttrOrigin, AttrReason, AttrSeqno, AttrUUID)},
		{Kind: WarmupUnblock, Category: forensics.CategoryWarmup, Label: "warmup created the vbuckets, waiting requests released", Doc: "warmup created its vbuckets and released requests that waited for them: a client talked to the bucket during warmup", Attrs: attrs.Of(AttrCookies, AttrStatus)},
		{Kind: WarmupEnough, Category: forensics.CategoryWarmup, Label: "warmup loaded enough data", Doc: "warmup loaded enough data to stop loading (Enough … loaded to enable traffic); traffic is NOT enabled by this", Attrs: attrs.Of(AttrCriterion)},
		{Kind: WarmupComplete, Category: forensics.CategoryWarmup, Label: "warmup completed", Doc: "a bucket's warmup finished (Warmup completed: …); traffic is NOT enabled by this", Attrs: attrs.Of(AttrDuration, AttrKeys, AttrValues, AttrWarmup)},
		{Kind: TrafficEnabled, Category: forensics.CategoryTraffic, Label: "traffic enabled", Doc: "data traffic was enabled on the bucket: clients stop getting temporary failures (ns_server's ENABLE_TRAFFIC)"},
		{Kind: TrafficDisabled, Category: forensics.CategoryTraffic, Label: "traffic disabled", Doc: "data traffic was disabled on the bucket"},
		{Kind: DCPProducer, Category: forensics.CategoryStream, Label: "DCP producer connection opened", Doc: "a client opened a DCP producer connection (DCP connection opened successfully. PRODUCER …); consumer names the client when a later line of the connection tells", Attrs: attrs.Of(AttrConnID, AttrConsumer, AttrConsumerKind, AttrFlags, AttrPeer, AttrUser)},
		{Kind: StreamCreated, Category: forensics.CategoryStream, Label: "stream request accepted", Doc: "a DCP producer accepted a stream request and created the stream (Creating stream with start seqno …)", Attrs: attrs.Of(AttrConnID, AttrConsumer, AttrConsumerKind, AttrEndSeqno, AttrFlags, AttrPitr, AttrRequestedEndSeqno, AttrSid, AttrSnapEnd, AttrSnapStart, AttrStartSeqno, AttrTakeover)},
		{Kind: StreamRollback, Category: forensics.CategoryRollback, Label: "stream request answered with a rollback", Doc: "a DCP producer answered a stream request with a rollback (Stream request requires rollback to seqno …)", Attrs: attrs.Of(AttrConnID, AttrConsumer, AttrConsumerKind, AttrReason, AttrReqEnd, AttrReqStart, AttrRollbackSeqno, AttrSnapEnd, AttrSnapStart, AttrUUID)},
		{Kind: StreamRefused, Category: forensics.CategoryError, Label: "stream request refused", Doc: "a DCP producer refused a stream request (Stream request failed because …); status not_my_vbucket when the vbucket is missing, dead or in the wrong state", Attrs: attrs.Of(AttrConnID, AttrConsumer, AttrConsumerKind, AttrReason, AttrSid, AttrStatus)},
		{Kind: VBState, Category: forensics.CategoryFailover, Label: "vbucket state changed", Doc: "a vbucket changed state (VBucket::setState: transitioning … from:… to:…)", Attrs: attrs.Of(AttrFrom, AttrHighSeqno, AttrMeta, AttrTo)},
		writeFailedDoc, slowOpDoc, connRejectedDoc, compactionDoneDoc, helloDoc,
		breakpadDoc,
	},
}

// detect recognises memcached.log by its name and by spdlog's grammar as
// kv_engine configures it (logger/spdlogger.cc: "%Y-%m-%dT%T.%f%z %l %v"):
// a local time with microseconds and its offset, then an upper-case level.
// Couchbase's Go services write milliseconds and bracketed levels instead.
func detect(name string, head []byte) int {
	named := name == "memcached.log" || strings.HasPrefix(name, "memcached.log.")
	stamped, marked := 0, false
	for lines := 0; len(head) > 0 && lines < 200; lines++ {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		msg, ok := spdlogLine(line)
		if !ok {
			continue
		}
		stamped++
		if !marked {
			for _, m := range markers {
				if bytes.Contains(msg, m) {
					marked = true
					break
				}
			}
		}
	}
	switch {
	case stamped == 0 && named:
		return 50 // empty, or only cbcollect_info's header so far
	case stamped == 0:
		return 0
	case named:
		return 95
	case marked:
		return 90
	case stamped >= 2:
		return 60
	}
	return 40
}

// markers are strings only memcached.log holds.
var markers = [][]byte{
	[]byte("---------- Opening logfile"),
	[]byte("Couchbase version "),
	[]byte("eq_dcpq:"),
	[]byte("(No Engine) "),
	[]byte("Process identifier: "),
	[]byte("Bucket ["),
	[]byte(" bucket ["),
	[]byte("VBucket::"),
	[]byte("Warmup"),
}

// spdlogLine reports whether line has memcached's header with a six-digit
// fraction, and returns the message after it.
func spdlogLine(line []byte) ([]byte, bool) {
	if len(line) < 34 || line[19] != '.' || line[25] < '0' || line[25] > '9' || (line[26] != '+' && line[26] != '-') {
		return nil, false
	}
	_, n, ok := logtime.ISO(line)
	if !ok || n >= len(line) || line[n] != ' ' {
		return nil, false
	}
	lvl, msg, ok := level(line[n+1:])
	if !ok || lvl == 0 {
		return nil, false
	}
	return msg, true
}
