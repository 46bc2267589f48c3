// Package crdb reads CockroachDB's evidence of how requests were routed:
// node logs in every text and JSON format, saved /debug/requests pages and
// the traces of statement diagnostics bundles.
//
// The events are DistSender's: the batches it sends, the RPCs, each
// NotLeaseHolderError it gets back (one distsender.nlhe per redirect), the
// retries on the next replica and the backoffs, and the leases replicas
// apply; plus the starts of traces and spans that group them. Every format
// reads the same messages into the same kinds and attributes, so a rule does
// not care where a redirect was seen. Every other line is a plain line.
//
// ParseNLHE reads NotLeaseHolderError texts of every version, and
// CompareLeases tells which of two leases is newer, in every lease form up
// to v25 (min-exp=, acq=, leader leases with term=).
//
// The node log parsers also tell which release wrote the log (Release, from
// the sink header's binary: line) and which node (Node: the debug zip
// folder, the header's nodeID:, the first n<id> tag, else the host of the
// file name). Saved /debug/requests pages and statement-bundle traces do
// not name their release.
package crdb

import "forensics"

// LogFormat reads node logs in the text formats: the legacy format of
// v1.x–v20.1, crdb-v1 (v20.2, and the logs a debug zip re-renders) and
// crdb-v2 (v21.1+), including sink headers, multi-line entries, channel
// prefixes (15@… for KV_EXEC in v25.4) and every file group
// (cockroach-kv-exec.…, cockroach-health.…). Times are UTC.
var LogFormat = forensics.Format{
	Name:      "crdb-log",
	Component: "cockroach",
	Detect:    detectLog,
	New:       newLogParser,
	Kinds:     logKinds(),
}

// JSONLogFormat reads node logs in the JSON formats (json, json-compact,
// json-fluent, json-fluent-compact; v21.1+). Times are UTC.
var JSONLogFormat = forensics.Format{
	Name:      "crdb-json",
	Component: "cockroach",
	Detect:    detectJSONLog,
	New:       newJSONParser,
	Kinds:     logKinds(),
}

// RequestsFormat reads a saved /debug/requests page, as HTML, as text
// copied from a browser, or as the Markdown table such a copy becomes in an
// issue. Times are the server's local time, read as UTC
// (ZoneAssumed). A trace listed in several latency buckets is read once.
var RequestsFormat = forensics.Format{
	Name:      "crdb-requests",
	Component: "cockroach",
	Detect:    detectRequests,
	New:       newRequestsParser,
	Kinds:     docs(append([]forensics.Kind{KindTraceStart, KindTraceDiscarded}, distSenderKinds...)...),
	Pages:     true,
}

// TraceFormat reads the traces of a statement diagnostics bundle:
// trace.txt, trace.json and trace-jaeger.json (Jaeger, or Zipkin spans).
var TraceFormat = forensics.Format{
	Name:      "crdb-trace",
	Component: "cockroach",
	Detect:    detectTrace,
	New:       newTraceParser,
	Kinds:     docs(append([]forensics.Kind{KindTraceStart}, distSenderKinds...)...),
}

// logKinds are the kinds of the node log formats: DistSender's, and the
// messages of a node's health and of the operations support meets most
// (admission control, changefeeds, transaction waits, decommissions).
func logKinds() []forensics.KindDoc {
	out := docs(distSenderKinds...)
	for _, d := range [][]forensics.KindDoc{healthDocs, admissionDocs, changefeedDocs, txnwaitDocs, decommissionDocs} {
		out = append(out, d...)
	}
	return out
}

// Formats is every format of this package.
var Formats = []forensics.Format{LogFormat, JSONLogFormat, RequestsFormat, TraceFormat}
