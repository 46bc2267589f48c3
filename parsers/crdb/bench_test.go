package crdb

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// logMessages is a mix of real v21.1–v23 node log messages; the DistSender
// ones are logged only with --vmodule=dist_sender=2 and are a small share.
var logMessages = []struct {
	sev  byte
	file string
	tags string
	msg  string
}{
	{'I', "3@vendor/github.com/cockroachdb/pebble/compaction.go:1281", "n1,pebble", "[JOB 17] compacted L0 [000123 000124] (2.1 M) + L6 [000100] (10 M) -> L6 [000125] (11 M), in 0.1s, output rate 100 M/s"},
	{'I', "3@vendor/github.com/cockroachdb/pebble/event.go:625", "n1,pebble", "[JOB 18] WAL created 000126 (recycled 000119)"},
	{'I', "gossip/client.go:124", "n1", "started gossip client to ‹localhost:26258›"},
	{'I', "server/status/runtime.go:525", "n1", "runtime stats: 170 MiB RSS, 261 goroutines (stacks: 5.0 MiB), 42 MiB/63 MiB Go alloc/total (heap fragmentation: 8.5 MiB, heap reserved: 3.3 MiB, heap released: 4.5 MiB), 3.9 MiB/5.5 MiB CGO alloc/total (0.2 CGO/sec), 1.8/0.8 %(u/s)time, 0.0 %gc (0x), 6.2 KiB/8.4 KiB (r/w)net"},
	{'W', "server/init.go:374", "n?", "outgoing join rpc to ‹localhost:26258› unsuccessful: ‹rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing dial tcp [::1]:26258: connect: connection refused\"›"},
	{'I', "kv/kvserver/replica_command.go:396", "n1,split,s1,r44/1:‹/{Table/53-Max}›", "initiating a split of this range at key ‹/Table/54› [r45] (‹zone config›)"},
	{'I', "kv/kvserver/replica_raftstorage.go:1003", "n1,s1,r45/2:‹/Table/5{4-5}›", "applied snapshot 3a8f7c22 from (n2,s2):1 at applied index 15 (total=2ms data=1.2 KiB ingestion=6@1ms)"},
	{'I', "4@util/log/event_log.go:32", "n1,client=127.0.0.1:53480,hostssl,user=root", "={\"Timestamp\":1625804709830000000,\"EventType\":\"client_authentication_ok\",\"InstanceID\":1,\"Network\":\"tcp\",\"RemoteAddress\":\"‹127.0.0.1:53480›\"}"},
	{'I', "kv/kvserver/store_rebalancer.go:265", "n1,s1,store-rebalancer", "load-based lease transfers successfully brought s1 down to 1043.52 qps (mean=812.33, upperThreshold=1015.41)"},
	{'E', "jobs/registry.go:1120", "n1", "error processing claimed jobs: ‹context canceled›"},
	{'I', "sql/sqlliveness/slinstance/slinstance.go:144", "n1", "created new SQL liveness session 83f2a1…"},
	{'I', "kv/kvclient/kvcoord/dist_sender.go:1957", "n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22", "r73: sending batch ‹1 Put› to (n3,s3):2"},
	{'I', "kv/kvclient/kvcoord/dist_sender.go:2097", "n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22", "application error: " + nlhe73},
	{'I', "kv/kvclient/kvcoord/dist_sender.go:1990", "n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22", "trying next peer (n2,s2):3"},
}

// weights: how often each message above occurs per 100 lines.
var logWeights = []int{18, 10, 8, 10, 10, 8, 10, 8, 5, 4, 6, 1, 1, 1}

// logLines writes n lines of one text format, with times and counters
// that advance like a real log's.
func logLines(n int, format string) []byte {
	var b bytes.Buffer
	t := time.Date(2021, 7, 9, 4, 25, 9, 0, time.UTC)
	var order []int
	for i, w := range logWeights {
		for range w {
			order = append(order, i)
		}
	}
	for i := range n {
		m := logMessages[order[(i*37)%len(order)]]
		t = t.Add(time.Duration(1000+(i*7919)%90000) * time.Microsecond)
		ts := fmt.Sprintf("%c%s %s", m.sev, t.Format("060102"), t.Format("15:04:05.000000"))
		gid := 100 + (i*31)%9000
		switch format {
		case "crdb-v2":
			if m.msg[0] == '=' {
				fmt.Fprintf(&b, "%s %d %s ⋮ [%s] %d %s\n", ts, gid, m.file, m.tags, i+1, m.msg)
			} else {
				fmt.Fprintf(&b, "%s %d %s ⋮ [%s] %d  %s\n", ts, gid, m.file, m.tags, i+1, m.msg)
			}
			if i%50 == 0 { // a multi-line entry
				fmt.Fprintf(&b, "%s %d %s ⋮ [%s] %d +‹  continued on a second line›\n", ts, gid, m.file, m.tags, i+1)
			}
		case "legacy":
			msg := strings.NewReplacer("‹", "", "›", "").Replace(m.msg)
			tags := strings.NewReplacer("‹", "", "›", "").Replace(m.tags)
			fmt.Fprintf(&b, "%s %d %s  [%s] %s\n", ts, gid, m.file[strings.IndexByte(m.file, '@')+1:], tags, msg)
			if i%50 == 0 {
				b.WriteString("goroutine 1 [running]:\n")
			}
		case "json":
			fmt.Fprintf(&b, `{"c":0,"t":"%d.%09d","N":1,"s":1,"sev":"%c","g":%d,"f":%q,"l":100,"n":%d,"r":1,"tags":{"n":"1"},"message":%q}`+"\n",
				t.Unix(), t.Nanosecond(), m.sev, gid, m.file, i+1, m.msg)
		}
	}
	return b.Bytes()
}

func BenchmarkLogV2(b *testing.B) {
	parsertest.Bench(b, LogFormat, forensics.Origin{Node: "n1"}, logLines(20000, "crdb-v2"))
}

// v25Lines are crdb-v2 lines as v25.4 writes them: tenant tags, DistSender
// on the KV_EXEC channel, leader leases with term= and min-exp=.
func v25Lines(n int) []byte {
	return []byte(strings.NewReplacer(
		"[n1", "[T1,Vsystem,n1",
		" kv/kvclient/kvcoord/dist_sender.go", " 15@kv/kvclient/kvcoord/dist_sender.go",
		"lease held by different store", "leader lease is not held locally, cannot determine validity",
		" epo=1 pro=", " term=9 min-exp=1625804715.439980668,0 pro=",
	).Replace(string(logLines(n, "crdb-v2"))))
}

func BenchmarkLogV25(b *testing.B) {
	parsertest.Bench(b, LogFormat, forensics.Origin{Node: "n1"}, v25Lines(20000))
}

// requestsTablePage is requestsPage pasted into an issue: a Markdown table.
func requestsTablePage(traces int) []byte {
	return []byte("When | Elapsed (s) |  \n-- | -- | --\n" + strings.ReplaceAll(string(requestsPage(traces)), "\t", " | "))
}

func BenchmarkRequestsTable(b *testing.B) {
	parsertest.Bench(b, RequestsFormat, forensics.Origin{Node: "n1"}, requestsTablePage(500))
}

func BenchmarkLogLegacy(b *testing.B) {
	parsertest.Bench(b, LogFormat, forensics.Origin{Node: "n1"}, logLines(20000, "legacy"))
}

func BenchmarkJSONLog(b *testing.B) {
	parsertest.Bench(b, JSONLogFormat, forensics.Origin{Node: "n1"}, logLines(20000, "json"))
}

// requestsPage is a copied /debug/requests page: traces of the seed's shape,
// each listed twice (two latency buckets).
func requestsPage(traces int) []byte {
	var b bytes.Buffer
	t := time.Date(2018, 2, 20, 8, 10, 24, 413824000, time.UTC)
	const tags = "[client=127.0.0.1:35854,user=rk_user,n1]"
	for i := range traces {
		start := t.Add(time.Duration(i) * 37 * time.Millisecond)
		var tr bytes.Buffer
		fmt.Fprintf(&tr, "%s\t13.750285\tkv.DistSender: sending partial batch\n", start.Format("2006/01/02 15:04:05.000000"))
		at := start
		row := func(delta time.Duration, msg string) {
			at = at.Add(delta)
			fmt.Fprintf(&tr, "%s\t .%6d\t... %s\n", at.Format("15:04:05.000000"), delta.Microseconds(), msg)
		}
		row(2*time.Microsecond, "txnID:bb4d74d6-fc80-46eb-b3e2-9121a450a1c2")
		row(227*time.Microsecond, tags+" r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3")
		for range 4 {
			row(18*time.Microsecond, tags+" sending request to nathan-high-mem-0002:26257")
			row(5473*time.Microsecond, tags+" application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is "+seedLeaseN1)
			row(52*time.Microsecond, tags+" error: {(err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is "+seedLeaseN1+") <nil>}; trying next peer (n1,s1):1")
			row(40*time.Microsecond, tags+" querying next range at /Table/51/1/23")
		}
		b.Write(tr.Bytes())
		b.Write(tr.Bytes())
	}
	return b.Bytes()
}

func BenchmarkRequests(b *testing.B) {
	parsertest.Bench(b, RequestsFormat, forensics.Origin{Node: "n1"}, requestsPage(500))
}

func BenchmarkTraceTxt(b *testing.B) {
	var in bytes.Buffer
	for range 300 {
		in.WriteString(traceTxt)
	}
	parsertest.Bench(b, TraceFormat, forensics.Origin{}, in.Bytes())
}

func BenchmarkTraceJaeger(b *testing.B) {
	head := traceJaeger[:strings.Index(traceJaeger, "\t\t\t\t{\n\t\t\t\t\t\"traceID\"")]
	span := traceJaeger[len(head):strings.Index(traceJaeger, "\t\t\t],\n\t\t\t\"processes\"")]
	tail := traceJaeger[len(head)+len(span):]
	var in strings.Builder
	in.WriteString(head)
	for i := range 1000 {
		if i > 0 {
			in.WriteString(",\n")
		}
		in.WriteString(strings.TrimSuffix(span, "\n"))
	}
	in.WriteString("\n" + tail)
	parsertest.Bench(b, TraceFormat, forensics.Origin{}, []byte(in.String()))
}

// The benchmark inputs must parse as they claim, or the figures mean nothing.
func TestBenchInputs(t *testing.T) {
	for _, tc := range []struct {
		f     forensics.Format
		in    []byte
		kinds map[forensics.Kind]int
	}{
		{LogFormat, logLines(1400, "crdb-v2"), map[forensics.Kind]int{KindSend: 14, KindNLHE: 14, KindNextPeer: 14}},
		{LogFormat, logLines(1400, "legacy"), map[forensics.Kind]int{KindSend: 14, KindNLHE: 14, KindNextPeer: 14}},
		{JSONLogFormat, logLines(1400, "json"), map[forensics.Kind]int{KindSend: 14, KindNLHE: 14, KindNextPeer: 14}},
		{RequestsFormat, requestsPage(3), map[forensics.Kind]int{KindTraceStart: 3, KindSend: 3, KindRPC: 12, KindNLHE: 12, KindNextPeer: 12}},
		{RequestsFormat, requestsTablePage(3), map[forensics.Kind]int{KindTraceStart: 3, KindSend: 3, KindRPC: 12, KindNLHE: 12, KindNextPeer: 12}},
		{LogFormat, v25Lines(1400), map[forensics.Kind]int{KindSend: 14, KindNLHE: 14, KindNextPeer: 14}},
	} {
		if s := tc.f.Detect("x", tc.in[:min(len(tc.in), 16<<10)]); s < 80 {
			t.Errorf("%s: input detected with %d", tc.f.Name, s)
		}
		res := parsertest.Parse(tc.f, forensics.Origin{}, tc.in)
		if len(res.Errors) > 0 {
			t.Errorf("%s: %d errors, first %v", tc.f.Name, len(res.Errors), res.Errors[0])
		}
		sameCounts(t, countKinds(res.Events), tc.kinds)
	}
}

// A line that is not an event must not allocate, in every format.
func TestNoAllocsOnPlainLines(t *testing.T) {
	emit := func(*forensics.Event) { t.Fatal("unexpected event") }
	for _, tc := range []struct {
		f     forensics.Format
		setup []string // lines read first, for context
		lines []string
	}{
		{LogFormat, nil, []string{
			"I210709 04:30:10.000000 412 server/status/runtime.go:525 ⋮ [n1] 6020  runtime stats: 170 MiB RSS, 261 goroutines",
			"W210709 02:36:56.673877 183 server/init.go:374 ⋮ [n?] 19  outgoing join rpc to ‹localhost:26258› unsuccessful: ‹rpc error›",
			"I210709 04:25:09.833540 83961 kv/kvclient/kvcoord/dist_sender.go:2063 ⋮ [n1,client=127.0.0.1:53480] 5830  " + nlhe73,
			"I210709 04:25:09.900000 83961 kv/kvclient/kvcoord/dist_sender.go:2097 ⋮ [n1] 5840  application error: TransactionRetryError: retry txn",
			"W210709 02:36:56.323474 1 1@cli/start.go:992 ⋮ [-] 1 +- Intruders can log in without password and read or write any data in the cluster.",
			"I170312 15:17:12.602400 150 storage/replica.go:2011  [n1,s1,r22/1:/Table/51/1/{23-48}] applied",
			"goroutine 1 [running]:",
		}},
		// v24–v25: tenant tags, the KV_EXEC channel, a header read before.
		{LogFormat, []string{
			"I251009 14:20:07.918950 1 util/log/file_sync_buffer.go:237 ⋮ [config]   binary: CockroachDB CCL v25.4.1 (x86_64-pc-linux-gnu, built 2025/11/03 16:21:31, go1.23.12 X:nocoverageredesign)",
			"I251009 14:20:08.000001 412 server/status/runtime.go:625 ⋮ [T1,Vsystem,n1] 1  runtime stats: 2.1 GiB RSS",
		}, []string{
			"I251009 14:36:18.207001 55120 15@kv/kvclient/kvcoord/range_iter.go:188 ⋮ [T1,Vsystem,n1,client=‹10.0.1.7:52004›,hostssl,user=‹app›] 122  querying next range at ‹/Table/106/1/12/0›",
			"I251009 14:36:18.300000 388 3@pebble/event.go:734 ⋮ [T1,Vsystem,n1,s1,pebble] 123  [JOB 1841] compacted(default) L0 [019322 019323] (4.1MB) Score=1.02",
			"W251009 14:36:25.984439 55120 15@kv/kvclient/kvcoord/dist_sender.go:2591 ⋮ [T1,Vsystem,n1] 201  slow range RPC: have been waiting 10.04s (19 attempts) for RPC to r1187",
			"I251009 14:36:25.984440 1 util/log/file_sync_buffer.go:237 ⋮ [config]   binary: CockroachDB CCL v25.4.1 (x86_64-pc-linux-gnu)",
		}},
		{JSONLogFormat, nil, []string{
			`{"c":0,"t":"1625804709.833547000","N":1,"s":1,"sev":"I","g":9,"f":"gossip/client.go","l":124,"n":7,"r":1,"tags":{"n":"1"},"message":"started gossip client to ‹localhost:26258›"}`,
			`{"channel_numeric":1,"channel":"OPS","timestamp":"1136214245.654321000","severity_numeric":2,"severity":"WARNING","goroutine":11,"file":"util/log/format_json_test.go","line":123,"entry_counter":0,"redactable":0,"tags":{"noval":"","s":"1","long":"2"},"message":"hello world"}`,
		}},
		{RequestsFormat, []string{"2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch"}, []string{
			"08:10:24.413826 . 2 ... txnID:bb4d74d6-fc80-46eb-b3e2-9121a450a1c2",
			"08:10:24.419900\t .   286\t... [client=127.0.0.1:35854,user=rk_user,n1] node received request: 2 CPut, 1 BeginTxn",
			"We can see n1 and n2 continuously redirecting to each other.",
		}},
		{RequestsFormat, []string{"2017/10/12 20:31:13.306622 | 62.405386 | /cockroach.roachpb.Internal/Batch"}, []string{
			"20:31:13.306626 | .     4 | ... span.kind:server component:gRPC txnid:1c8a2d55-6cd1-4b2b-9aa1-5fc2ae3c2dbe",
			"20:31:13.306689 | .    51 | ... [n3,s3,r1423/2:/Table/51/1/1{12…-53…}] read-only path",
			"-- | -- | --",
		}},
		{RequestsFormat, []string{`<tr class="first">`, `<td class="when">2018/02/20 08:10:24.413824</td>`, `<td class="elapsed">13.750285</td>`, `<td>kv.DistSender: sending partial batch</td>`, `</tr>`}, []string{
			`<tr>`, `<td class="when">08:10:24.413826</td>`, `<td class="elapsed"> .     2</td>`, `<td>... txnID:bb4d74d6 &amp; more</td>`, `</tr>`,
		}},
		{TraceFormat, []string{"     0.000ms      0.000ms    === operation:dist sender send _verbose:1 node:1"}, []string{
			"     1.120ms      0.020ms    event:kv/kvclient/kvcoord/range_iter.go:175 " + traceTags + " querying next range at /Table/106/1/1/0",
			"     2.120ms      1.000ms    structured:{\"@type\":\"type.googleapis.com/cockroach.roachpb.ScanStats\"}",
		}},
	} {
		p := tc.f.New(forensics.Origin{})
		n := int64(0)
		for _, l := range tc.setup {
			n++
			p.Line(n, []byte(l), func(*forensics.Event) {})
		}
		lines := make([][]byte, len(tc.lines))
		for i, l := range tc.lines {
			lines[i] = []byte(l)
		}
		// Each run reads all the lines: an HTML row spans several.
		allocs := testing.AllocsPerRun(100, func() {
			for _, l := range lines {
				n++
				if _, err := p.Line(n, l, emit); err != nil {
					t.Fatalf("%s: %q: %v", tc.f.Name, l, err)
				}
			}
		})
		if allocs > 0 {
			t.Errorf("%s: %q allocates %.1f times", tc.f.Name, tc.lines, allocs)
		}
	}
}
