package crdb

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

const (
	traceTags = "[n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22]"
	lease73   = "repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1 pro=1625804709.450045745,0"
	nlhe73    = "[NotLeaseHolderError] lease held by different store; r73: replica (n3,s3):2 not lease holder; current lease is " + lease73
)

// trace.txt as tracingpb Recording.String() prints it after the statement.
var traceTxt = "SELECT *\n  FROM t\n WHERE k = 1\n\n\n\n" +
	"     0.000ms      0.000ms    === operation:traced statement _unfinished:1 _verbose:1\n" +
	"     0.021ms      0.021ms        === operation:sql query _verbose:1 node:1\n" +
	"     0.031ms      0.010ms        event:sql/conn_executor_exec.go:596 [n1,client=127.0.0.1:53480,hostssl,user=root] executing 1/1: SELECT * FROM t WHERE k = 1\n" +
	"     1.100ms      1.069ms            === operation:dist sender send _verbose:1 node:1 txn:5d1c7a22\n" +
	"     1.120ms      0.020ms            event:kv/kvclient/kvcoord/range_iter.go:175 " + traceTags + " querying next range at /Table/106/1/1/0\n" +
	"     1.381ms      0.261ms            event:kv/kvclient/kvcoord/dist_sender.go:2012 " + traceTags + " r73: sending batch ‹1 Get› to (n3,s3):2\n" +
	"     1.390ms      0.009ms            event:rpc/nodedialer/nodedialer.go:172 " + traceTags + " sending request to ‹roach-3:26257›\n" +
	"     6.900ms      5.510ms            event:kv/kvclient/kvcoord/dist_sender.go:2063 " + traceTags + " " + nlhe73 + "\n" +
	"     6.910ms      0.010ms            event:kv/kvclient/kvcoord/dist_sender.go:2097 " + traceTags + " application error: " + nlhe73 + "\n" +
	"     6.920ms      0.010ms            event:kv/kvclient/kvcoord/dist_sender.go:1990 " + traceTags + " trying next peer (n2,s2):3\n" +
	"     6.930ms      0.010ms            event:rpc/nodedialer/nodedialer.go:165 " + traceTags + " sending request to local client\n" +
	"     7.000ms     -0.070ms                === operation:/cockroach.roachpb.Internal/Batch _verbose:1 node:2 span.kind:server\n" +
	"     7.010ms      0.010ms                event:server/node.go:1407 [n2] node received request: ‹1 Get›\n" +
	"     9.000ms      1.990ms        event:sql/conn_executor_exec.go:1000 [n1,client=127.0.0.1:53480,hostssl,user=root] execution ends\n"

func TestTraceTxt(t *testing.T) {
	if s := detectTrace("trace.txt", []byte(traceTxt)); s < 85 {
		t.Fatalf("detected with %d", s)
	}
	res := parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(traceTxt))
	if len(res.Errors) > 0 || res.EndErr != nil {
		t.Fatalf("errors: %v %v", res.Errors, res.EndErr)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{
		KindTraceStart: 4, KindSend: 1, KindRPC: 2, KindNLHE: 1, KindNextPeer: 1,
	})
	send := "dist sender send@10"
	checkEvent(t, res.OfKind(KindNLHE)[0], want{KindNLHE, 73, "n1", map[string]string{
		"reason": "lease held by different store", "replica": "(n3,s3):2", "lease_replica": "(n2,s2):3", "lease_seq": "3",
		"lease_start": "1625804709.439980668,0", "lease_epoch": "1", "lease_pro": "1625804709.450045745,0",
		"trace": send, "gateway": "n1", "client": "127.0.0.1:53480", "txn": "5d1c7a22", "offset_ms": "6.910"}})
	checkEvent(t, res.OfKind(KindNextPeer)[0], want{KindNextPeer, 73, "n1", map[string]string{
		"next": "(n2,s2):3", "trace": send, "gateway": "n1", "client": "127.0.0.1:53480", "txn": "5d1c7a22", "offset_ms": "6.920"}})
	starts := res.OfKind(KindTraceStart)
	for i, w := range []struct{ op, node string }{{"traced statement", ""}, {"sql query", "n1"}, {"dist sender send", "n1"}, {"/cockroach.roachpb.Internal/Batch", "n2"}} {
		if starts[i].Attr("operation") != w.op || starts[i].Node != w.node {
			t.Errorf("span %d: operation %q node %q, want %q %q", i, starts[i].Attr("operation"), starts[i].Node, w.op, w.node)
		}
	}
	for _, e := range res.Events {
		if !e.Time.IsZero() {
			t.Errorf("%s has a time (%v): trace.txt has none", e.Kind, e.Time)
		}
	}
}

// trace.json: the root span in protobuf JSON, both LogRecord spellings.
var traceJSON = `{
	"operation": "traced statement",
	"tags": {
		"_unfinished": "1",
		"_verbose": "1"
	},
	"startTime": "2021-07-09T04:25:09.826000Z",
	"duration": "0.012345s",
	"children": [
		{
			"operation": "dist sender send",
			"tags": {
				"node": "1",
				"txn": "5d1c7a22"
			},
			"startTime": "2021-07-09T04:25:09.830000Z",
			"duration": "0.010s",
			"logs": [
				{
					"time": "2021-07-09T04:25:09.830100Z",
					"message": "kv/kvclient/kvcoord/dist_sender.go:2012 ` + traceTags + ` r73: sending batch ‹1 Get› to (n3,s3):2"
				},
				{
					"time": "2021-07-09T04:25:09.835600Z",
					"fields": [
						{
							"key": "event",
							"value": "` + traceTags + ` application error: ` + nlhe73 + `"
						}
					]
				}
			]
		}
	]
}
`

func TestTraceJSON(t *testing.T) {
	if s := detectTrace("trace.json", []byte(traceJSON)); s < 80 {
		t.Fatalf("detected with %d", s)
	}
	res := parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(traceJSON))
	if len(res.Errors) > 0 || res.EndErr != nil {
		t.Fatalf("errors: %v %v", res.Errors, res.EndErr)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{KindTraceStart: 2, KindSend: 1, KindNLHE: 1})
	lines := strings.Split(traceJSON, "\n")
	for _, e := range res.Events {
		if e.Zone != forensics.ZoneUTC || e.Time.IsZero() {
			t.Errorf("%s: time %v zone %v", e.Kind, e.Time, e.Zone)
		}
		if l := strings.TrimSpace(lines[e.Line-1]); l != "{" {
			t.Errorf("%s on line %d %q, want the line opening its object", e.Kind, e.Line, l)
		}
	}
	nlhe := res.OfKind(KindNLHE)[0]
	if nlhe.Range != 73 || nlhe.Node != "n1" || nlhe.Attr("trace") != "dist sender send 2021-07-09T04:25:09.830000Z" ||
		!nlhe.Time.Equal(time.Date(2021, 7, 9, 4, 25, 9, 835600000, time.UTC)) || nlhe.Line != 23 {
		t.Errorf("nlhe range %d node %q trace %q time %v line %d", nlhe.Range, nlhe.Node, nlhe.Attr("trace"), nlhe.Time, nlhe.Line)
	}
	root := res.Events[0]
	if root.Kind != KindTraceStart || root.Line != 1 || root.Attr("elapsed") != "0.012345" || root.Attr("duration") != "0.012345s" {
		t.Errorf("root span: %s line %d %v", root.Kind, root.Line, root.Attrs)
	}
}

// trace-jaeger.json as tracingpb ToJaegerJSON writes it.
var traceJaeger = `{
	"data": [
		{
			"traceID": "5230897893829230223",
			"spans": [
				{
					"traceID": "5230897893829230223",
					"spanID": "7040551232164946437",
					"flags": 1,
					"operationName": "dist sender send",
					"references": [
						{
							"refType": "CHILD_OF",
							"traceID": "5230897893829230223",
							"spanID": "4581282843364211023"
						}
					],
					"startTime": 1625804709830000,
					"duration": 10000,
					"tags": [
						{
							"key": "goroutine",
							"type": "int64",
							"value": 83961
						},
						{
							"key": "txn",
							"type": "STRING",
							"value": "5d1c7a22"
						}
					],
					"logs": [
						{
							"timestamp": 1625804709830100,
							"fields": [
								{
									"key": "event",
									"type": "STRING",
									"value": "kv/kvclient/kvcoord/dist_sender.go:2012 ` + traceTags + ` r73: sending batch ‹1 Get› to (n3,s3):2"
								}
							]
						},
						{
							"timestamp": 1625804709835600,
							"fields": [
								{
									"key": "event",
									"type": "STRING",
									"value": "kv/kvclient/kvcoord/dist_sender.go:2097 [n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22] application error: [NotLeaseHolderError] r73: replica (n3,s3):2 not lease holder; lease holder unknown"
								}
							]
						}
					],
					"processID": "node 1",
					"warnings": null
				}
			],
			"processes": {
				"node 1": {
					"serviceName": "node 1",
					"tags": null
				}
			},
			"warnings": null
		}
	],
	"_comment": "This is a trace for SQL statement: SELECT * FROM t WHERE k = 1"
}
`

func TestTraceJaeger(t *testing.T) {
	if s := detectTrace("trace-jaeger.json", []byte(traceJaeger)); s < 85 {
		t.Fatalf("detected with %d", s)
	}
	res := parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(traceJaeger))
	if len(res.Errors) > 0 || res.EndErr != nil {
		t.Fatalf("errors: %v %v", res.Errors, res.EndErr)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{KindTraceStart: 1, KindSend: 1, KindNLHE: 1})
	st := res.OfKind(KindTraceStart)[0]
	if st.Line != 6 || st.Node != "n1" || st.Attr("trace") != "7040551232164946437" || st.Attr("duration_us") != "10000" ||
		st.Attr("elapsed") != "0.010000" || !st.Time.Equal(time.UnixMicro(1625804709830000)) {
		t.Errorf("span start line %d node %q attrs %v time %v", st.Line, st.Node, st.Attrs, st.Time)
	}
	checkEvent(t, res.OfKind(KindNLHE)[0], want{KindNLHE, 73, "n1", map[string]string{"replica": "(n3,s3):2", "holder_unknown": "true",
		"trace": "7040551232164946437", "gateway": "n1", "client": "127.0.0.1:53480", "txn": "5d1c7a22"}})
	// The log's object opens on the line before its timestamp.
	wantLine := int64(strings.Count(traceJaeger[:strings.Index(traceJaeger, "1625804709835600")], "\n"))
	if e := res.OfKind(KindNLHE)[0]; e.Line != wantLine || !e.Time.Equal(time.UnixMicro(1625804709835600)) {
		t.Errorf("nlhe line %d (want %d) time %v", e.Line, wantLine, e.Time)
	}
}

func TestTraceDocumentErrors(t *testing.T) {
	cut := traceJaeger[:strings.Index(traceJaeger, `"processID"`)]
	res := parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(cut))
	lastLine := strings.Count(cut, "\n")
	if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "is cut") || !strings.Contains(res.EndErr.Error(), "line "+strconv.Itoa(lastLine)) {
		t.Errorf("cut document: %v (last line %d)", res.EndErr, lastLine)
	}

	bad := strings.Replace(traceJSON, `"duration": "0.010s",`, `"duration": "0.010s",,`, 1)
	res = parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(bad))
	if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "line 17") {
		t.Errorf("syntax error: %v", res.EndErr)
	}

	old := maxDocument
	maxDocument = 200
	defer func() { maxDocument = old }()
	res = parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(traceJSON))
	if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "larger than") || len(res.Events) > 0 {
		t.Errorf("oversized document: %v, %d events", res.EndErr, len(res.Events))
	}

	res = parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(`{"some": "other json"}`))
	if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "not a trace") {
		t.Errorf("other JSON: %v", res.EndErr)
	}
}

func TestDetectTrace(t *testing.T) {
	for name, head := range map[string]string{
		"log":      "I210709 02:36:56.322726 1 util/log/flags.go:180  [-] 1  stderr capture started\n",
		"json log": `{"c":0,"t":"1625804709.833547000","g":9,"f":"x.go","l":1,"message":"m"}` + "\n",
		"requests": "2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch\n",
		"other":    `{"spans": 1}`,
	} {
		if s := detectTrace("trace.txt", []byte(head)); s != 0 {
			t.Errorf("%s scored %d", name, s)
		}
	}
}
