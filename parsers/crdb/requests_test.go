package crdb

import (
	"os"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

func countKinds(evs []forensics.Event) map[forensics.Kind]int {
	m := map[forensics.Kind]int{}
	for _, e := range evs {
		m[e.Kind]++
	}
	return m
}

func sameCounts(t *testing.T, got map[forensics.Kind]int, want map[forensics.Kind]int) {
	t.Helper()
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d events, want %d (all: %v)", k, got[k], n, got)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %d %s events", n, k)
		}
	}
}

const seedKey = "2018/02/20 08:10:24.413824 kv.DistSender: sending partial batch"

// The seed as published: the text of cockroachdb/cockroach#22837
// ("storage: NotLeaseholderError redirection can get in tight loop")
// around a /debug/requests excerpt of 2018-02-20 copied with single spaces.
func TestRequestsSeed(t *testing.T) {
	seed, err := os.ReadFile("testdata/issue-22837.txt")
	if err != nil {
		t.Fatal(err)
	}
	if s := detectRequests("crdb-notleaseholder-pingpong.txt", seed); s < 80 {
		t.Fatalf("seed detected with %d", s)
	}
	for _, f := range []forensics.Format{LogFormat, JSONLogFormat, TraceFormat} {
		if s := f.Detect("crdb-notleaseholder-pingpong.txt", seed); s != 0 {
			t.Errorf("%s claims the seed with %d", f.Name, s)
		}
	}
	res := parsertest.Parse(RequestsFormat, forensics.Origin{Node: "n1"}, seed)
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{
		KindTraceStart: 1, KindSend: 1, KindRPC: 5, KindNLHE: 4, KindNextPeer: 4,
	})
	// The redirects alternate: n2 points at n1, n1 back at n2.
	var hops []string
	for _, e := range res.OfKind(KindNLHE) {
		if e.Range != 52 || e.Attr("trace") != seedKey || e.Attr("gateway") != "n1" || e.Zone != forensics.ZoneAssumed {
			t.Errorf("nlhe: range %d trace %q gateway %q zone %v", e.Range, e.Attr("trace"), e.Attr("gateway"), e.Zone)
		}
		hops = append(hops, e.Attr("replica")+">"+e.Attr("lease_replica"))
	}
	if got := strings.Join(hops, " "); got != "(n2,s2):3>(n1,s1):1 (n1,s1):1>(n2,s2):3 (n2,s2):3>(n1,s1):1 (n1,s1):1>(n2,s2):3" {
		t.Errorf("hops %s", got)
	}
	first := res.OfKind(KindNLHE)[0]
	if want := time.Date(2018, 2, 20, 8, 10, 24, 419545000, time.UTC); !first.Time.Equal(want) {
		t.Errorf("first redirect at %v, want %v", first.Time, want)
	}
	start := res.OfKind(KindTraceStart)[0]
	if start.Attr("title") != "kv.DistSender: sending partial batch" || start.Attr("elapsed") != "13.750285" || start.Attr("trace") != seedKey {
		t.Errorf("trace.start attrs %v", start.Attrs)
	}
	// Every row of the excerpt has a time; the issue text around it has none.
	for i, st := range res.Stamps {
		line := strings.Split(string(seed), "\n")[i]
		if hasTime := strings.HasPrefix(line, "08:") || strings.HasPrefix(line, "2018/"); hasTime == st.IsZero() {
			t.Errorf("line %d %q: stamp %v", i+1, line, st.Time)
		}
	}
}

// A page listing the same trace under two latency buckets, tab-separated
// as a browser copies it, with the deltas padded as the page prints them.
func TestRequestsDedupAndRows(t *testing.T) {
	trace := "2018/02/20 23:59:59.999000\t13.750285\tkv.DistSender: sending partial batch\n" +
		"23:59:59.999100\t .   100\t... [n1,client=127.0.0.1:35854,user=root] r52: sending batch 1 Put to (n2,s2):3\n" +
		"2018/02/21 00:00:00.000200\t .  1100\t... [n1,client=127.0.0.1:35854,user=root] sending request to roach-2:26257\n" +
		"00:00:00.005600\t .  5400\t... [n1,client=127.0.0.1:35854,user=root] application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; lease holder unknown\n" +
		"00:00:00.005800\t .   200\t... (2 events discarded)\n" +
		"00:00:01.900000\t1.894200\t... [n1,client=127.0.0.1:35854,user=root] backing off due to NotLeaseHolderErr with stale info\n" +
		"00:00:01.900100\t .   100\t[redacted]\n"
	other := "2018/02/20 23:59:58.000000\t0.001200\tsql txn\n" +
		"23:59:58.000100\t .   100\t... [n1,client=127.0.0.1:35854,user=root] r7: sending batch 1 Get to (n1,s1):1\n"
	page := "When\tElapsed (s)\n" + trace + other + "Family: tracing\n" + trace
	res := parsertest.Parse(RequestsFormat, forensics.Origin{}, []byte(page))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{
		KindTraceStart: 2, KindSend: 2, KindRPC: 1, KindNLHE: 1, KindTraceDiscarded: 1, KindBackoff: 1,
	})
	nlhe := res.OfKind(KindNLHE)[0]
	if want := time.Date(2018, 2, 21, 0, 0, 0, 5600000, time.UTC); !nlhe.Time.Equal(want) {
		t.Errorf("after midnight: %v, want %v", nlhe.Time, want)
	}
	if nlhe.Attr("holder_unknown") != "true" || nlhe.Attr("lease_replica") != "" {
		t.Errorf("holder unknown: %v", nlhe.Attrs)
	}
	d := res.OfKind(KindTraceDiscarded)[0]
	if d.Attr("count") != "2" || d.Attr("trace") != "2018/02/20 23:59:59.999000 kv.DistSender: sending partial batch" {
		t.Errorf("discarded: %v", d.Attrs)
	}
	if b := res.OfKind(KindBackoff)[0]; b.Range != 52 || b.Attr("reason") != "stale info" {
		t.Errorf("backoff range %d attrs %v", b.Range, b.Attrs)
	}
	// The repeat's rows keep their times but are plain lines.
	n := len(res.Stamps)
	if res.Stamps[n-2].IsZero() {
		t.Errorf("repeated row lost its time")
	}
	for _, e := range res.Events {
		if e.Line > int64(strings.Count(page[:strings.Index(page, "Family")], "\n")) {
			t.Errorf("event %s on line %d, inside the repeated trace", e.Kind, e.Line)
		}
	}
}

// A single redirect that resolves: one redirect, then the batch succeeds.
func TestRequestsSingleRedirect(t *testing.T) {
	page := "2018/02/20 08:10:24.413824 0.006100 kv.DistSender: sending partial batch\n" +
		"08:10:24.414053 . 227 ... [client=127.0.0.1:35854,user=rk_user,n1] r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3\n" +
		"08:10:24.414071 . 18 ... [client=127.0.0.1:35854,user=rk_user,n1] sending request to nathan-high-mem-0002:26257\n" +
		"08:10:24.419545 . 5473 ... [client=127.0.0.1:35854,user=rk_user,n1] application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1 + "\n" +
		"08:10:24.419597 . 52 ... [client=127.0.0.1:35854,user=rk_user,n1] error: {(err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1 + ") <nil>}; trying next peer (n1,s1):1\n" +
		"08:10:24.419614 . 17 ... [client=127.0.0.1:35854,user=rk_user,n1] sending request to local server\n" +
		"08:10:24.419900 . 286 ... [client=127.0.0.1:35854,user=rk_user,n1] node received request: 2 CPut, 1 BeginTxn\n"
	res := parsertest.Parse(RequestsFormat, forensics.Origin{}, []byte(page))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{
		KindTraceStart: 1, KindSend: 1, KindRPC: 2, KindNLHE: 1, KindNextPeer: 1,
	})
	np := res.OfKind(KindNextPeer)[0]
	checkEvent(t, np, want{KindNextPeer, 52, "n1", map[string]string{"next": "(n1,s1):1", "nlhe": "true",
		"trace": "2018/02/20 08:10:24.413824 kv.DistSender: sending partial batch", "gateway": "n1", "client": "127.0.0.1:35854"}})
}

func TestRequestsErrors(t *testing.T) {
	for _, line := range []string{
		"2018/13/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch",
		"2018/02/20 08:10:24.413824 . 227 title with a blanked elapsed",
		"08:61:24.414053 . 227 ... msg",
		"08:10:24.414053 garbage",
		"08:10:24.414053 . 227 no dots before the message",
		"08:10:24.4140531 . 227 ... seven decimals",
	} {
		res := parsertest.Parse(RequestsFormat, forensics.Origin{}, []byte(line))
		if len(res.Errors) != 1 || len(res.Events) > 0 {
			t.Errorf("%q: errors %v events %d; want one error", line, res.Errors, len(res.Events))
		}
	}
	for _, line := range []string{"08:10 meeting notes", "2018/02/20 was a Tuesday", "...", "for multiple seconds"} {
		res := parsertest.Parse(RequestsFormat, forensics.Origin{}, []byte(line))
		if len(res.Errors) > 0 || len(res.Events) > 0 || !res.Stamps[0].IsZero() {
			t.Errorf("%q: errors %v events %d stamp %v; want a plain line", line, res.Errors, len(res.Events), res.Stamps[0])
		}
	}
}

// A page saved as HTML: x/net/trace's template writes each cell on its own
// line and html/template escapes the text.
const requestsHTML = `
<html>
	<head>
	<title>/debug/requests</title>
	</head>
	<body>

<h1>/debug/requests</h1>

<table id="tr-status">
	<tr>
		<td class="family">tracing</td>
		<td class="active ">
			<a href="?fam=tracing&b=-1&exp=1">
			[3 active]
			</a>
		</td>
	</tr>
</table>
<hr />
<h3>Family: tracing</h3>
<table id="reqs">
	<caption>
		Completed Requests
	</caption>
	<tr><th>When</th><th>Elapsed&nbsp;(s)</th></tr>
	
	<tr class="first">
		<td class="when">2018/02/20 08:10:24.413824</td>
		<td class="elapsed">13.750285</td>
		<td>kv.DistSender: sending partial batch</td>
		
	</tr>
	
	
	<tr>
		<td class="when">08:10:24.413826</td>
		<td class="elapsed"> .     2</td>
		<td>... txnID:bb4d74d6-fc80-46eb-b3e2-9121a450a1c2</td>
	</tr>
	
	<tr>
		<td class="when">08:10:24.414053</td>
		<td class="elapsed"> .   227</td>
		<td>... [client=127.0.0.1:35854,user=rk_user,n1] r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3</td>
	</tr>
	
	<tr>
		<td class="when">08:10:24.419545</td>
		<td class="elapsed"> .  5473</td>
		<td>... [client=127.0.0.1:35854,user=rk_user,n1] application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is repl=(n1,s1):1 seq=0 start=1519114215.919013222,0 epo=1 pro=1519114215.919015761,0</td>
	</tr>
	
	<tr>
		<td class="when">08:10:24.419597</td>
		<td class="elapsed"> .    52</td>
		<td>... [client=127.0.0.1:35854,user=rk_user,n1] error: {(err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is repl=(n1,s1):1 seq=0 start=1519114215.919013222,0 epo=1 pro=1519114215.919015761,0) &lt;nil&gt;}; trying next peer (n1,s1):1</td>
	</tr>
	
	<tr>
		<td class="when">08:10:24.419600</td>
		<td class="elapsed"> .     3</td>
		<td>... [client=127.0.0.1:35854,user=rk_user,n1] event with
two lines &amp; &#43;1</td>
	</tr>
	
	<tr>
		<td class="when">08:10:24.419610</td>
		<td class="elapsed"> .    10</td>
		<td><em>[redacted]</em></td>
	</tr>
	
	<tr class="first">
		<td class="when">2018/02/20 08:10:24.413824</td>
		<td class="elapsed">13.750285</td>
		<td>kv.DistSender: sending partial batch</td>
		
	</tr>
	
	<tr>
		<td class="when">08:10:24.414053</td>
		<td class="elapsed"> .   227</td>
		<td>... [client=127.0.0.1:35854,user=rk_user,n1] r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3</td>
	</tr>
	
</table>
	</body>
</html>
`

func TestRequestsHTML(t *testing.T) {
	if s := detectRequests("requests.html", []byte(requestsHTML)); s < 90 {
		t.Fatalf("detected with %d", s)
	}
	res := parsertest.Parse(RequestsFormat, forensics.Origin{}, []byte(requestsHTML))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	sameCounts(t, countKinds(res.Events), map[forensics.Kind]int{
		KindTraceStart: 1, KindSend: 1, KindNLHE: 1, KindNextPeer: 1,
	})
	lines := strings.Split(requestsHTML, "\n")
	for _, e := range res.Events {
		if !strings.Contains(lines[e.Line-1], "<td") {
			t.Errorf("%s on line %d: %q", e.Kind, e.Line, lines[e.Line-1])
		}
	}
	np := res.OfKind(KindNextPeer)[0]
	if !strings.Contains(np.Text, ") <nil>}; trying next peer") || np.Attr("next") != "(n1,s1):1" || np.Range != 52 {
		t.Errorf("next_peer text %q attrs %v", np.Text, np.Attrs)
	}
	nlhe := res.OfKind(KindNLHE)[0]
	if want := time.Date(2018, 2, 20, 8, 10, 24, 419545000, time.UTC); !nlhe.Time.Equal(want) || nlhe.Attr("trace") != seedKey {
		t.Errorf("nlhe at %v trace %q", nlhe.Time, nlhe.Attr("trace"))
	}
	// The when cell's line carries the row's time.
	for i, st := range res.Stamps {
		if l := lines[i]; strings.Contains(l, `<td class="when">`) != !st.IsZero() {
			t.Errorf("line %d %q: stamp %v", i+1, l, st.Time)
		}
	}
}

func TestUnescapeHTML(t *testing.T) {
	for in, want := range map[string]string{
		"&lt;nil&gt;":            "<nil>",
		"a &amp; b &#43;1 &#34;": `a & b +1 "`,
		"&#x2039;x&#x203A;":      "‹x›",
		"&bogus; & &#99999999;":  "&bogus; & &#99999999;",
		"&nbsp;(s)":              " (s)",
	} {
		if got := string(unescapeHTML(nil, []byte(in))); got != want {
			t.Errorf("unescapeHTML(%q) = %q, want %q", in, got, want)
		}
	}
}

// SHOW KV TRACE FOR SESSION output lists DistSender sends but no redirects;
// it is not a /debug/requests page nor any other format here.
func TestShowKVTraceIsNoFormat(t *testing.T) {
	out := `          timestamp             |       age       |                    message                     |                       tag                        | location |     operation      | span
--------------------------------+-----------------+------------------------------------------------+--------------------------------------------------+----------+--------------------+-------
  2018-10-26 23:13:44.312239+00 | 00:00:00.000503 | r58: sending batch 1 Scan to (n1,s1):1         | [n1,client=[::1]:61834,user=root,txn=cc09e45a]   |          | dist sender send   |    3
  2018-10-26 23:13:44.312241+00 | 00:00:00.000505 | sending request to local client               | [n1,client=[::1]:61834,user=root,txn=cc09e45a]   |          | dist sender send   |    3
  2018-10-26 23:13:44.315012+00 | 00:00:00.003276 | fetched: /t/primary/1/v -> /2                  | [n1,client=[::1]:61834,user=root,txn=cc09e45a]   |          | colbatchscan       |    2
(3 rows)
`
	for _, f := range Formats {
		if s := f.Detect("kvtrace.txt", []byte(out)); s != 0 {
			t.Errorf("%s claims SHOW KV TRACE output with %d", f.Name, s)
		}
		res := parsertest.Parse(f, forensics.Origin{}, []byte(out))
		if n := len(res.OfKind(KindNLHE)); n > 0 {
			t.Errorf("%s read %d redirects", f.Name, n)
		}
	}
}
