// Package goxdcr reads goxdcr.log, the log of Couchbase's cross data center
// replication (XDCR) service, releases 7.x to 8.0; cbcollect_info copies it
// as ns_server.goxdcr.log. goxdcr logs to its standard output, which the
// babysitter writes to goxdcr.log (ns_server ns_ports_setup goport_defs).
//
// The grammar is goxdcr's logger (log/logger.go processCommonFields,
// trinity and morpheus): a time with milliseconds and its offset (Z in UTC),
// a four-letter level, GOXDCR. and the logging module, then the message,
// which a pipeline's parts prefix with their context (pipelineFullTopic=…,):
//
//	2024-06-12T13:52:03.123-04:00 INFO GOXDCR.PipelineMgr: Try to fix Pipeline 0f9a…/orders/orders. Current error(s)=…
//	2024-01-03T09:55:01.810-08:00 INFO GOXDCR.XmemNozzle: pipelineFullTopic=44d5…/B1/B2, xmem_44d5…/B1/B2_127.0.0.1:12002_0: Using …
//
// A line without the header continues the entry before it (an error map,
// whose errors go one a line, a Go panic's stack).
//
// The events are the ones that follow a replication's pipeline through its
// failures: restarts to fix errors, restarts that failed, the return to
// normal, and checkpoints the target refused. Every other line is a plain line.
package goxdcr

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/logtime"
	"forensics/parsers/cbgo"
	"forensics/parsers/scan"
)

// Kinds of events in goxdcr.log.
const (
	PipelineFix      forensics.Kind = "xdcr.pipeline_fix"
	PipelineUpdated  forensics.Kind = "xdcr.pipeline_updated"
	UpdateFailed     forensics.Kind = "xdcr.update_failed"
	CheckpointFailed forensics.Kind = "xdcr.checkpoint_failed"
)

// Format reads goxdcr.log and cbcollect_info's ns_server.goxdcr.log. Its
// name is the one the file had when it was read as a plain service log.
var Format = forensics.Format{
	Name:      "couchbase-xdcr",
	Component: "xdcr",
	Detect:    detect,
	New:       func(forensics.Origin) forensics.Parser { return &parser{} },
	Kinds: []forensics.KindDoc{
		{Kind: PipelineFix, Category: forensics.CategoryError, Label: "XDCR pipeline restarted to fix errors",
			Doc:   "goxdcr's pipeline updater stops and starts a replication's pipeline because its parts reported errors (pipeline_manager.go update: Try to fix Pipeline … Current error(s)=…); error as logged, cause as a word",
			Attrs: attrs.Of(AttrCause, AttrError, AttrPipeline, AttrReplication, AttrTargetBucket, AttrTargetCluster)},
		{Kind: UpdateFailed, Category: forensics.CategoryError, Label: "XDCR pipeline restart failed",
			Doc:   "the pipeline updater could not restart the pipeline and will retry (pipeline_manager.go: Failed to update pipeline …, err=…)",
			Attrs: attrs.Of(AttrCause, AttrError, AttrPipeline, AttrReplication, AttrTargetBucket, AttrTargetCluster)},
		{Kind: PipelineUpdated, Category: forensics.CategoryStream, Label: "XDCR pipeline running again",
			Doc:   "the pipeline updater restarted the pipeline and it runs (pipeline_manager.go: Replication … has been updated. Back to business)",
			Attrs: attrs.Of(AttrPipeline, AttrReplication, AttrTargetBucket, AttrTargetCluster)},
		{Kind: CheckpointFailed, Category: forensics.CategoryError, Label: "XDCR checkpoint refused",
			Doc:   "the checkpoint manager's _pre_replicate call to the target failed for a vbucket, so the pipeline cannot resume from its checkpoint (checkpoint_manager.go: Pre_replicate failed for VB. err=…)",
			Attrs: attrs.Of(AttrCause, AttrError, AttrPipeline, AttrReplication, AttrTargetBucket, AttrTargetCluster)},
	},
}

const component = " GOXDCR."

// header reads goxdcr's header and returns the message after "Module: ".
func header(line []byte) (forensics.Stamp, []byte, bool) {
	if len(line) < 40 || line[4] != '-' || line[10] != 'T' {
		return forensics.Stamp{}, nil, false
	}
	// Milliseconds, then Z or the offset (FormatTimeWithMilliSecondPrecision:
	// "2006-01-02T15:04:05.000Z07:00"); memcached writes microseconds.
	st, n, ok := logtime.ISO(line)
	if !ok || line[19] != '.' || (n != 24 && n != 29) || len(line) < n+5+len(component) || line[n] != ' ' || !isLevel(line[n+1:n+5]) {
		return forensics.Stamp{}, nil, false
	}
	r := line[n+5:]
	if !scan.HasPrefix(r, component) {
		return forensics.Stamp{}, nil, false
	}
	r = r[len(component):]
	i := bytes.Index(r, []byte(": "))
	if i <= 0 || i > 64 || bytes.IndexByte(r[:i], ' ') >= 0 {
		return forensics.Stamp{}, nil, false
	}
	return st, r[i+2:], true
}

// isLevel reports whether b is one of log.LogLevel's LogString()s.
func isLevel(b []byte) bool {
	switch string(b) {
	case "INFO", "WARN", "ERRO", "DEBU", "TRAC", "FATA":
		return true
	}
	return false
}

// detect knows goxdcr.log by its name (ns_server.goxdcr.log, goxdcr.log and
// its rotations) and by its header, which names GOXDCR.
func detect(name string, head []byte) int {
	named := cbgo.NamedLike(name, "goxdcr.log")
	headers := 0
	for lines := 0; len(head) > 0 && lines < 200; lines++ {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if _, _, ok := header(bytes.TrimSuffix(line, []byte{'\r'})); ok {
			headers++
		}
	}
	switch {
	case named && (headers > 0 || strings.HasPrefix(name, "ns_server.")):
		return 95 // cbcollect_info's copy is goxdcr's whatever it holds so far
	case named:
		return 50
	case headers >= 2:
		return 80
	case headers == 1:
		return 60
	}
	return 0
}
