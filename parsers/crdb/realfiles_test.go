package crdb

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// requestsTable is /debug/requests as a browser copy pasted into a GitHub
// issue renders it: a Markdown table with the page's three columns (the
// first rows are those quoted in the issue this reading was added for).
const requestsTable = `When | Elapsed (s) |  
-- | -- | --
2017/10/12 20:31:13.306622 | 62.405386 | /cockroach.roachpb.Internal/Batch
20:31:13.306626 | .     4 | ... span.kind:server component:gRPC txnid:1c8a2d55-6cd1-4b2b-9aa1-5fc2ae3c2dbe
20:31:13.306638 | .    12 | ... [n3] 1 QueryTxn
20:31:13.306689 | .    51 | ... [n3,s3,r1423/2:/Table/51/1/1{12…-53…}] read-only path
2017/10/12 20:31:14.100000 | 1.204512 | kv.DistSender: sending partial batch
20:31:14.100227 | .   227 | ... [client=10.0.0.9:35854,user=app,n1] r52: sending batch 1 Put to (n2,s2):3
20:31:14.105700 | .  5473 | ... [client=10.0.0.9:35854,user=app,n1] application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is repl=(n1,s1):1 seq=4 start=1507839000.000000000,0 epo=2 pro=1507839000.000000001,0
20:31:14.105752 | .    52 | ... [client=10.0.0.9:35854,user=app,n1] error: (err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is repl=(n1,s1):1 seq=4 start=1507839000.000000000,0 epo=2 pro=1507839000.000000001,0) <nil>; trying next peer (n1,s1):1
`

func TestRequestsTable(t *testing.T) {
	if s := detectRequests("requests.md", []byte(requestsTable)); s < 80 {
		t.Fatalf("table detected with %d", s)
	}
	res := parsertest.Parse(RequestsFormat, forensics.Origin{}, []byte(requestsTable))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{KindTraceStart: 2, KindSend: 1, KindNLHE: 1, KindNextPeer: 1})
	nlhe := res.OfKind(KindNLHE)[0]
	if nlhe.Line != 9 || nlhe.Range != 52 || nlhe.Attr("lease_replica") != "(n1,s1):1" || nlhe.Attr("lease_seq") != "4" ||
		nlhe.Attr("trace") != "2017/10/12 20:31:14.100000 kv.DistSender: sending partial batch" {
		t.Errorf("redirect %+v", nlhe)
	}
	if want := "2017-10-12T20:31:14.1057Z"; nlhe.Time.Format("2006-01-02T15:04:05.999999Z") != want {
		t.Errorf("redirect at %v, want %s", nlhe.Time, want)
	}
}

// zipkinTrace is a trace-jaeger.json that holds Zipkin v2 spans.
const zipkinTrace = `[
  {
    "traceId": "6b2c1a3f4e5d6c7b",
    "id": "7c3d2b1a0f9e8d7c",
    "kind": "CLIENT",
    "name": "dist sender send",
    "timestamp": 1760011841100000,
    "duration": 12600,
    "localEndpoint": {"serviceName": "node 1"},
    "annotations": [
      {"timestamp": 1760011841100227, "value": "kv/kvclient/kvcoord/dist_sender.go:2721 [n1,client=10.0.1.7:52218] r412: sending batch 1 Put to (n2,s2):2"},
      {"timestamp": 1760011841105700, "value": "kv/kvclient/kvcoord/dist_sender.go:2803 [n1,client=10.0.1.7:52218] application error: [NotLeaseHolderError] leader lease is not held locally, cannot determine validity; r412: replica (n2,s2):2 not lease holder; current lease is repl=(n3,s3):3 seq=7 start=1760011800.412000000,0 term=9 min-exp=1760011806.412000000,0 pro=1760011800.411000000,0 acq=Request"}
    ],
    "tags": {"node": "1"}
  },
  {
    "traceId": "6b2c1a3f4e5d6c7b",
    "parentId": "7c3d2b1a0f9e8d7c",
    "id": "8d4e3c2b1a0f9e8d",
    "name": "/cockroach.roachpb.Internal/Batch",
    "timestamp": 1760011841101000,
    "duration": 4100,
    "localEndpoint": {"serviceName": "node 2"}
  }
]
`

func TestZipkinTrace(t *testing.T) {
	if s := detectTrace("trace-jaeger.json", []byte(zipkinTrace)); s < 80 {
		t.Fatalf("zipkin detected with %d", s)
	}
	res := parsertest.Parse(TraceFormat, forensics.Origin{}, []byte(zipkinTrace))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{KindTraceStart: 2, KindSend: 1, KindNLHE: 1})
	nlhe := res.OfKind(KindNLHE)[0]
	if nlhe.Line != 12 || nlhe.Node != "n1" || nlhe.Range != 412 || nlhe.Attr("lease_term") != "9" ||
		nlhe.Attr("reason") != "leader lease is not held locally, cannot determine validity" || nlhe.Attr("trace") != "7c3d2b1a0f9e8d7c" {
		t.Errorf("redirect %+v", nlhe)
	}
	spans := res.OfKind(KindTraceStart)
	if spans[1].Node != "n2" || spans[1].Line != 16 || spans[1].Attr("trace_id") != "6b2c1a3f4e5d6c7b" {
		t.Errorf("second span %+v", spans[1])
	}
}

// Files that quote evidence are not evidence, whatever lines they quote.
func TestNotEvidence(t *testing.T) {
	for name, head := range map[string]string{
		"report.md": "# forensics report\n\n## crdb-nlhe-pingpong (critical)\n\n```\n" +
			"I220308 14:36:18.207733 55120 kv/kvclient/kvcoord/dist_sender.go:1928 ⋮ [n1] r1187: sending batch ‹1 Put› to (n2,s2):5\n" +
			"I220308 14:36:18.207733 55120 kv/kvclient/kvcoord/dist_sender.go:1928 ⋮ [n1] r1187: sending batch ‹1 Put› to (n2,s2):5\n" +
			"I220308 14:36:18.207733 55120 kv/kvclient/kvcoord/dist_sender.go:1928 ⋮ [n1] r1187: sending batch ‹1 Put› to (n2,s2):5\n```\n",
		"requests-report.md": "## Evidence\n\n```\n2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch\n" +
			"08:10:24.414053 . 227 ... [client=127.0.0.1:35854,user=rk_user,n1] r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3\n" +
			"08:10:24.419545 . 5473 ... [client=127.0.0.1:35854,user=rk_user,n1] application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; lease holder unknown\n```\n",
		"notes.txt": "Call with the customer\n- upgraded to v25.4.1 last week\n" +
			"I251009 12:10:41.882731 90442 15@kv/kvclient/kvcoord/dist_sender.go:2854 ⋮ [T1,Vsystem,n2] 1204  slow replica RPC: have been waiting 12.31s (1 attempts)\n" +
			"- ask for a debug zip\n",
		"one-trace.txt": "2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch\n",
	} {
		for _, f := range Formats {
			if s := f.Detect(name, []byte(head)); s != 0 {
				t.Errorf("%s detected as %s with %d", name, f.Name, s)
			}
		}
	}
}

// A retry line repeats the application error line before it in traces and
// /debug/requests: one redirect, not two. Alone (a log at
// --vmodule=dist_sender=1), or after another redirect, it is one of its own.
func TestRetryLineRedirects(t *testing.T) {
	const tags = "[client=127.0.0.1:35854,user=rk_user,n1] "
	appErr := "I180220 08:10:24.419545 1234 kv/dist_sender.go:1306  " + tags + "application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1
	retry := "I180220 08:10:24.419597 1234 kv/dist_sender.go:1357  " + tags + "error: {(err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1 + ") <nil>}; trying next peer (n1,s1):1"
	retryOther := "I180220 08:10:24.419861 1234 kv/dist_sender.go:1357  " + tags + "error: {(err: [NotLeaseHolderError] r52: replica (n1,s1):1 not lease holder; current lease is " + seedLeaseN2 + ") <nil>}; trying next peer (n2,s2):3"
	for _, tc := range []struct {
		name  string
		lines []string
		nlhe  int
	}{
		{"application error, then its retry line", []string{appErr, retry}, 1},
		{"retry line alone", []string{retry}, 1},
		{"retry line after another redirect", []string{appErr, retryOther}, 2},
		{"two retries after one application error", []string{appErr, retry, retry}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := ""
			for _, l := range tc.lines {
				in += l + "\n"
			}
			res := parsertest.Parse(LogFormat, forensics.Origin{}, []byte(in))
			if n := len(res.OfKind(KindNLHE)); n != tc.nlhe {
				t.Errorf("%d redirects, want %d", n, tc.nlhe)
			}
			retries := 0
			for _, l := range tc.lines {
				if strings.Contains(l, "trying next peer") {
					retries++
				}
			}
			if n := len(res.OfKind(KindNextPeer)); n != retries {
				t.Errorf("%d retries, want %d", n, retries)
			}
		})
	}
}

// A real legacy log opens with the insecure-mode warning, whose lines start
// like Markdown list items; it is a log all the same. A short excerpt under
// a cockroach log name is one too.
func TestDetectLegacyLogWithWarning(t *testing.T) {
	head := "I200301 10:00:00.000100 1 util/log/clog.go:1270  [config] file created at: 2020/03/01 10:00:00\n" +
		"I200301 10:00:00.000100 1 util/log/clog.go:1270  [config] running on machine: roach-1\n" +
		"W200301 10:00:00.100000 1 cli/start.go:1152  ALL SECURITY CONTROLS HAVE BEEN DISABLED!\n\n" +
		"This mode is intended for non-production testing only.\n\n" +
		"In this mode:\n" +
		"- Your cluster is open to any client that can reach any of your addresses.\n" +
		"- Intruders with access to your machine or network can observe client-server traffic.\n" +
		"- Intruders can log in without password and read or write any data in the cluster.\n" +
		"- Intruders can consume all your server's resources and cause unavailability.\n" +
		"I200301 10:00:00.200000 1 cli/start.go:1162  ▶ starting cockroach node\n" +
		"I200301 10:00:00.300000 1 server/server.go:1062  [n?] monitoring forward clock jumps based on server.clock.forward_jump_check_enabled\n"
	if s := detectLog("cockroach.roach-1.root.2020-03-01T10_00_00Z.000101.log", []byte(head)); s == 0 {
		t.Errorf("legacy log with the insecure warning not detected")
	}
	short := "I200301 10:00:00.300000 1 server/server.go:1062  [n1] monitoring forward clock jumps\n"
	if s := detectLog("cockroach.log", []byte(short)); s == 0 {
		t.Errorf("one-line cockroach.log not detected")
	}
	// One line under any other name is an excerpt pasted into a ticket or an
	// issue: its header is no other program's.
	if s := detectLog("excerpt.txt", []byte(short)); s == 0 {
		t.Errorf("one line under another name not detected")
	}
	if s := detectLog("excerpt.txt", []byte("Saw this in the log:\n"+short)); s != 0 {
		t.Errorf("notes quoting one line detected with %d", s)
	}
}
