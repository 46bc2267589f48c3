package nlhepingpong

// The inputs of the CockroachDB cases under testdata/crdb are written by
// this generator, so that hundreds of lines of a loop follow the timings and
// wordings of the version they claim. TestCases checks that the committed
// files are what the generator writes; run
//
//	go test ./rules/nlhepingpong -run TestCases -update
//
// to rewrite them, then review the diff and refresh want.json with
// go test ./cmd/forensics -run 'TestScenarios/crdb' -update.
//
// Wordings and layouts, by source (FORMATS.md part B):
//   - /debug/requests: golang.org/x/net/trace's page template (cells when,
//     elapsed with its blanked zeros, "... msg"; at most 1000 events per
//     CockroachDB span, the middle ones replaced by "(N events discarded)",
//     timestamped like the last one dropped); the text copy of the seed
//     (cockroachdb/cockroach#22837) separates cells with " \t".
//   - v2.0 DistSender (pkg/kv/dist_sender.go): "r%d: sending batch %s to %s",
//     "application error: %s" (VErrEventf, so E in logs), "error: %v; trying
//     next peer %s" printing {(err: …) <nil>}; kv/transport.go "sending
//     request to %s" / "… to local server". Logs see only the dist_sender.go
//     lines with --vmodule=dist_sender=2.
//   - v2.0 log lines: util/log/clog.go headers, "runtime stats" and "gossip
//     status" (real lines of that era), continuation lines without prefix.
//   - v20.1 trace-jaeger.json: tracing.Recording.ToJaegerJSON (statement
//     comment, spans with tags, logs[{timestamp µs, fields[{key event}]}],
//     processes "node N"); messages "[tags] msg".
//   - v21.2/v22.1 DistSender (pkg/kv/kvclient/kvcoord/dist_sender.go): per
//     hop "trying next peer %s", the bare error (E), "backing off due to
//     NotLeaseHolderErr with stale info" (E), "application error: %s" (E);
//     the lagging replica is retried at most 10 times in a row.
//   - crdb-v2 (format_crdb_v2.go): "⋮ [tags] counter  msg"; debug zips hold
//     logs re-rendered as crdb-v1 (no counter); json (format_json.go).

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the generated inputs of testdata/crdb")

const casesDir = "../../testdata/crdb"

// genCase is one folder under testdata/crdb.
type genCase struct {
	name   string
	expect expectFile
	build  func(r *rand.Rand) map[string]string // path in the folder → content
}

type expectFile struct {
	Description string          `json:"description"`
	Findings    []expectFinding `json:"findings"`
	Absent      []string        `json:"absent,omitempty"`
}

type expectFinding struct {
	Rule     string         `json:"rule"`
	Severity string         `json:"severity"`
	Subject  map[string]any `json:"subject"`
}

func found(sev string, rng int64, replicas ...string) []expectFinding {
	return []expectFinding{{Rule: "crdb-nlhe-pingpong", Severity: sev, Subject: map[string]any{"range": rng, "replicas": replicas}}}
}

var absent = []string{"crdb-nlhe-pingpong"}

func TestCases(t *testing.T) {
	for _, c := range genCases() {
		t.Run(c.name, func(t *testing.T) {
			h := fnv.New64a()
			h.Write([]byte(c.name))
			files := c.build(rand.New(rand.NewPCG(h.Sum64(), 22837)))
			ex, err := json.MarshalIndent(c.expect, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			files["expect.json"] = string(ex) + "\n"
			dir := filepath.Join(casesDir, c.name)
			total := 0
			for name, content := range files {
				total += len(content)
				p := filepath.Join(dir, filepath.FromSlash(name))
				if *update {
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				got, err := os.ReadFile(p)
				if err != nil {
					t.Fatalf("%v (run go test ./rules/nlhepingpong -run TestCases -update to write the case)", err)
				}
				if !bytes.Equal(got, []byte(content)) {
					t.Errorf("%s differs from the generator's output (run go test ./rules/nlhepingpong -run TestCases -update, then review the diff)", p)
				}
			}
			if total > 700<<10 {
				t.Errorf("case is %d KiB; keep it well under 1 MiB", total>>10)
			}
		})
	}
}

func genCases() []genCase {
	return []genCase{
		{
			name: "debug-requests-seed",
			expect: expectFile{
				Description: "cockroachdb/cockroach#22837: /debug/requests of n1 (v2.0-alpha.20180212) copied as text from the browser, the ≥10s and ≥1s buckets pasted one after the other, so the 13.75 s trace of the ping-pong on r52 between (n1,s1):1 and (n2,s2):3 is listed twice; among ordinary traces, one with a single redirect that resolves. One critical finding: (n1,s1):1 has not applied the newer lease (seq=0, later start).",
				Findings:    found("critical", 52, "(n1,s1):1", "(n2,s2):3"),
			},
			build: func(r *rand.Rand) map[string]string {
				p := seedPage(r)
				return map[string]string{"requests.txt": p.text([]string{"≥10s"}, []string{"≥1s"})}
			},
		},
		{
			name: "debug-requests-html",
			expect: expectFile{
				Description: "The incident of debug-requests-seed as the saved HTML of /debug/requests?fam=tracing&b=5&exp=1 (the ≥1s bucket), text escaped by html/template. One critical finding for r52.",
				Findings:    found("critical", 52, "(n1,s1):1", "(n2,s2):3"),
			},
			build: func(r *rand.Rand) map[string]string {
				p := seedPage(r)
				return map[string]string{"requests.html": p.html("≥1s")}
			},
		},
		{
			name: "v2-node-log",
			expect: expectFile{
				Description: "The incident of cockroachdb/cockroach#22837 in n1's own log (v2.0 legacy format, --vmodule=dist_sender=2): two SQL clients' batches for r52 bounce between (n2,s2):3 and (n1,s1):1 from 08:10:24.414 until the file rotates at 08:10:25.5; only dist_sender.go lines are verbose, so there are no 'sending request to' lines. Noise: runtime stats, gossip status (multi-line), slow Raft ready warnings on r52, DistSender sends of other ranges. One critical finding.",
				Findings:    found("critical", 52, "(n1,s1):1", "(n2,s2):3"),
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"cockroach.nathan-high-mem-0001.nathan.2018-02-20T08_09_41Z.004219.log": v2NodeLog(r)}
			},
		},
		{
			name: "crdb-v2-healthy",
			expect: expectFile{
				Description: "v21.2 crdb-v2 log of n1 (--vmodule=dist_sender=2,replica_proposal=1) on a healthy 3-node cluster: two lease transfers (r73 n1→n2, r37 n3→n1), single redirects with the v21.1+ reason ('lease held by different store; r73: …') that succeed on the next replica, and one A→B→A bounce where DistSender backs off on stale info and then succeeds. No finding.",
				Findings:    []expectFinding{},
				Absent:      absent,
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"cockroach.roach-1.cockroach.2022-03-08T14_20_07Z.000001.log": healthyV2Log(r)}
			},
		},
		{
			name: "jaeger-short",
			expect: expectFile{
				Description: "trace-jaeger.json of a v20.1 statement diagnostics bundle: the UPDATE's 'dist sender send' span bounces r118 between (n4,s4):3 and (n5,s5):5 three full times in 0.4 s (DistSender waits 50, 100, 200 ms after the lagging replica's stale answers) before (n5,s5):5 serves it. One high finding (under 1 s).",
				Findings:    found("high", 118, "(n4,s4):3", "(n5,s5):5"),
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"stmt-bundle-551183922934431745/trace-jaeger.json": jaegerShort(r)}
			},
		},
		{
			name: "crdb-v2-reason",
			expect: expectFile{
				Description: "v22.1 crdb-v2 log of n1 after r73's lease moved from (n3,s3):2 to (n2,s2):3, which has not applied it: the up-to-date replicas answer 'lease held by different store; r73: … current lease is repl=(n2,s2):3 seq=7', (n2,s2):3 answers with the old lease seq=6; DistSender backs off and retries it 10 times, moves on, and is sent back, for 13 s. One critical finding naming (n2,s2):3 as lagging.",
				Findings:    found("critical", 73, "(n1,s1):1", "(n2,s2):3", "(n3,s3):2"),
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"cockroach.roach-1.cockroach.2022-07-19T09_30_18Z.001873.log": modernLog(r, modernV2)}
			},
		},
		{
			name: "json-log",
			expect: expectFile{
				Description: "v22.1 node log in the json format (n4 of 5): r205's lease moved from (n5,s5):2 to (n3,s3):4, which has not applied it; the same loop as crdb-v2-reason with other ids. One critical finding naming (n3,s3):4 as lagging.",
				Findings:    found("critical", 205, "(n1,s1):1", "(n3,s3):4", "(n5,s5):2"),
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"cockroach.roach-4.cockroach.2022-09-13T02_41_11Z.004410.log": modernLog(r, modernJSON)}
			},
		},
		{
			name: "debug-zip",
			expect: expectFile{
				Description: "An unzipped cockroach debug zip (v21.2): logs re-rendered as crdb-v1 under debug/nodes/N/logs. n1's log has the loop on r1187 between (n1,s1):6, (n2,s2):5 and the lagging (n3,s3):7; n3's log shows slow Raft ready on that range; n2's is noise. One critical finding.",
				Findings:    found("critical", 1187, "(n1,s1):6", "(n2,s2):5", "(n3,s3):7"),
			},
			build: debugZip,
		},
		{
			name: "backoff-resolves",
			expect: expectFile{
				Description: "v21.2 crdb-v2 log: right after r73's lease moved to (n2,s2):2, a request is redirected by (n1,s1):1 to (n2,s2):2, which has not applied the lease yet and names (n1,s1):1; DistSender logs 'backing off due to NotLeaseHolderErr with stale info', retries (n2,s2):2 and succeeds. Near miss: no finding.",
				Findings:    []expectFinding{},
				Absent:      absent,
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"cockroach.roach-1.cockroach.2022-03-08T14_20_07Z.000001.log": backoffLog(r)}
			},
		},
		{
			name: "bounce-resolves",
			expect: expectFile{
				Description: "v2.0 /debug/requests copied as text: during a lease transfer a batch for r61 goes (n3,s3):2 → (n1,s1):4 → back to (n3,s3):2 and is served at the third RPC. Near miss: one A→B→A bounce, no finding.",
				Findings:    []expectFinding{},
				Absent:      absent,
			},
			build: func(r *rand.Rand) map[string]string { return map[string]string{"requests.txt": bouncePage(r)} },
		},
		{
			name: "chain-abc",
			expect: expectFile{
				Description: "v2.0 log of n1 (--vmodule=dist_sender=2): a batch for r88 is redirected (n2,s2):2 → (n3,s3):3 → (n1,s1):1 (each replica names the next, newer holder) and served by the third. Near miss: a chain, no loop, no finding.",
				Findings:    []expectFinding{},
				Absent:      absent,
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"cockroach.nathan-high-mem-0001.nathan.2018-02-20T09_40_02Z.004219.log": chainLog(r)}
			},
		},
		{
			name: "holder-unknown",
			expect: expectFile{
				Description: "v21.2 crdb-v2 log: after n3 died, requests for r19 go round (n1,s1):2 and (n2,s2):3, both answering 'lease holder unknown', for 1.6 s until n2 acquires the lease. Near miss: no replica names another, no finding.",
				Findings:    []expectFinding{},
				Absent:      absent,
			},
			build: func(r *rand.Rand) map[string]string {
				return map[string]string{"cockroach.roach-1.cockroach.2022-03-08T14_20_07Z.000001.log": unknownLog(r)}
			},
		},
	}
}

// ---- small helpers ----

func us(d int) time.Duration { return time.Duration(d) * time.Microsecond }

// jitter returns d ± frac, to the microsecond.
func jitter(r *rand.Rand, d time.Duration, frac float64) time.Duration {
	f := 1 + frac*(2*r.Float64()-1)
	return time.Duration(float64(d) * f).Truncate(time.Microsecond)
}

func between(r *rand.Rand, lo, hi time.Duration) time.Duration {
	return (lo + time.Duration(r.Int64N(int64(hi-lo)+1))).Truncate(time.Microsecond)
}

// hlc prints a wall time as an HLC timestamp, the way leases print it.
func hlc(t time.Time) string {
	return fmt.Sprintf("%d.%09d,0", t.Unix(), t.Nanosecond())
}

// lease prints a lease as roachpb's Lease.String does in v2.0–v22.
func lease(repl string, seq int, start time.Time, epoch int) string {
	return fmt.Sprintf("repl=%s seq=%d start=%s epo=%d pro=%s", repl, seq, hlc(start), epoch, hlc(start.Add(us(2)+time.Duration(539)*time.Nanosecond)))
}

func nlheText(rng int64, replica, lease string) string {
	return fmt.Sprintf("[NotLeaseHolderError] r%d: replica %s not lease holder; current lease is %s", rng, replica, lease)
}

// ---- /debug/requests (golang.org/x/net/trace) ----

type traceEvent struct {
	at  time.Time
	msg string
}

type reqTrace struct {
	start  time.Time
	end    time.Time
	title  string
	events []traceEvent
}

// kept returns the rows the page shows: CockroachDB spans keep at most
// 1000 events; past that x/net/trace replaces the middle with one
// "(N events discarded)" event at index 499, timestamped like the last
// event it replaces, with the elapsed time of the first.
func (t *reqTrace) kept() (rows []traceEvent, elapsed []time.Duration) {
	const maxEvents = 1000
	ev := t.events
	deltas := make([]time.Duration, len(ev))
	for i := range ev {
		prev := t.start
		if i > 0 {
			prev = ev[i-1].at
		}
		deltas[i] = ev[i].at.Sub(prev)
	}
	if len(ev) <= maxEvents {
		return ev, deltas
	}
	di := (maxEvents - 1) / 2
	dropped := len(ev) - (maxEvents - 1)
	tail := len(ev) - (maxEvents - di - 1)
	rows = append(rows, ev[:di]...)
	elapsed = append(elapsed, deltas[:di]...)
	rows = append(rows, traceEvent{at: ev[tail-1].at, msg: fmt.Sprintf("(%d events discarded)", dropped)})
	elapsed = append(elapsed, deltas[di])
	rows = append(rows, ev[tail:]...)
	elapsed = append(elapsed, deltas[tail:]...)
	return rows, elapsed
}

// elapsedCell formats a delta as x/net/trace's elapsed(): %.6f seconds,
// under a second with the leading zeros blanked.
func elapsedCell(d time.Duration) string {
	b := []byte(fmt.Sprintf("%.6f", d.Seconds()))
	if d < time.Second {
		dot := bytes.IndexByte(b, '.')
		for i := 0; i < dot; i++ {
			b[i] = ' '
		}
		for i := dot + 1; i < len(b) && b[i] == '0'; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

type requestsPage struct {
	traces []*reqTrace
}

func (p *requestsPage) bucket(label string) []*reqTrace {
	least := map[string]time.Duration{"≥0s": 0, "≥1s": time.Second, "≥10s": 10 * time.Second}[label]
	var out []*reqTrace
	for _, t := range p.traces {
		if t.end.Sub(t.start) >= least {
			out = append(out, t)
		}
	}
	// Newest first.
	sort.SliceStable(out, func(i, j int) bool { return out[i].start.After(out[j].start) })
	return out
}

var bucketLabels = []string{"≥0s", "≥0.05s", "≥0.1s", "≥0.2s", "≥0.5s", "≥1s", "≥10s", "≥100s", "errors"}

// text renders the pages as a browser copies them: cells separated by
// " \t", like the seed's copy.
func (p *requestsPage) text(pages ...[]string) string {
	var b strings.Builder
	for i, labels := range pages {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("/debug/requests\n")
		b.WriteString("tracing\t[1 active]")
		for _, l := range bucketLabels {
			b.WriteString("\t[" + l + "]")
		}
		b.WriteString("\t[minute]\t[hour]\t[total]\n")
		b.WriteString("Family: tracing\n\n")
		b.WriteString("[Normal/Summary] [Normal/Expanded] [Traced/Summary] [Traced/Expanded]\n")
		b.WriteString("Completed Requests\n")
		b.WriteString("When\tElapsed (s)\n")
		for _, t := range p.bucket(labels[0]) {
			fmt.Fprintf(&b, "%s \t%.6f \t%s\n", t.start.Format("2006/01/02 15:04:05.000000"), t.end.Sub(t.start).Seconds(), t.title)
			rows, el := t.kept()
			for k, e := range rows {
				fmt.Fprintf(&b, "%s \t%s \t... %s\n", e.at.Format("15:04:05.000000"), elapsedCell(el[k]), e.msg)
			}
		}
	}
	return b.String()
}

// htmlEscape escapes text as html/template does in a text node.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// html renders the saved page of one bucket, expanded, with the layout of
// x/net/trace's template.
func (p *requestsPage) html(label string) string {
	var b strings.Builder
	b.WriteString(`
<html>
	<head>
	<title>/debug/requests</title>
	<style type="text/css">
		body {
			font-family: sans-serif;
		}
		table#tr-status td.family {
			padding-right: 2em;
		}
		table#tr-status td.active {
			padding-right: 1em;
		}
		table#tr-status td.latency-first {
			padding-left: 1em;
		}
		table#tr-status td.empty {
			color: #aaa;
		}
		table#reqs {
			margin-top: 1em;
		}
		table#reqs tr.first {
			font-weight: bold;
		}
		table#reqs td {
			font-family: monospace;
		}
		table#reqs td.when {
			text-align: right;
			white-space: nowrap;
		}
		table#reqs td.elapsed {
			padding: 0 0.5em;
			text-align: right;
			white-space: pre;
			width: 10em;
		}
		address {
			font-size: smaller;
			margin-top: 5em;
		}
	</style>
	</head>
	<body>

<h1>/debug/requests</h1>
 

<table id="tr-status">
	
	<tr>
		<td class="family">tracing</td>

		
		<td class="active ">
			<a href="?fam=tracing&b=-1&exp=1">
			[1 active]
			</a>
		</td>
`)
	for i, l := range bucketLabels {
		fmt.Fprintf(&b, "\n\t\t\n\t\t\n\t\t<td >\n\t\t<a href=\"?fam=tracing&b=%d&exp=1\">\n\t\t[%s]\n\t\t</a>\n\t\t</td>\n\t\t", i, l)
	}
	b.WriteString(`

		
		<td class="latency-first">
		<a href="?fam=tracing&b=9">[minute]</a>
		</td>
		<td>
		<a href="?fam=tracing&b=10">[hour]</a>
		</td>
		<td>
		<a href="?fam=tracing&b=11">[total]</a>
		</td>

	</tr>
	
</table>
 


<hr />
<h3>Family: tracing</h3>


  <a href="?fam=tracing&b=5">[Normal/Summary]</a>



  [Normal/Expanded]



	
	<a href="?fam=tracing&b=5&rtraced=1">[Traced/Summary]</a>
	
	
	<a href="?fam=tracing&b=5&exp=1&rtraced=1">[Traced/Expanded]</a>
        




<table id="reqs">
	<caption>
		Completed Requests
	</caption>
	<tr><th>When</th><th>Elapsed&nbsp;(s)</th></tr>
	`)
	for _, t := range p.bucket(label) {
		fmt.Fprintf(&b, "\n\t<tr class=\"first\">\n\t\t<td class=\"when\">%s</td>\n\t\t<td class=\"elapsed\">%.6f</td>\n\t\t<td>%s</td>\n\t\t\n\t</tr>\n\t\n\t",
			t.start.Format("2006/01/02 15:04:05.000000"), t.end.Sub(t.start).Seconds(), htmlEscape(t.title))
		rows, el := t.kept()
		for k, e := range rows {
			fmt.Fprintf(&b, "\n\t<tr>\n\t\t<td class=\"when\">%s</td>\n\t\t<td class=\"elapsed\">%s</td>\n\t\t<td>... %s</td>\n\t</tr>\n\t",
				e.at.Format("15:04:05.000000"), elapsedCell(el[k]), htmlEscape(e.msg))
		}
		b.WriteString("\n\t\n\t")
	}
	b.WriteString("\n</table>\n \n\n \n\n\t</body>\n</html>\n")
	return b.String()
}

// The seed's nodes and leases (cockroachdb/cockroach#22837).
var seedStart = time.Date(2018, 2, 20, 8, 10, 24, 413824000, time.UTC)

const (
	seedLeaseNew = "repl=(n1,s1):1 seq=0 start=1519114215.919013222,0 epo=1 pro=1519114215.919015761,0"
	seedLeaseOld = "repl=(n2,s2):3 seq=3 start=1519114118.566713425,0 epo=1 pro=1519114118.566716884,0"
)

const seedTags = "[client=127.0.0.1:35854,user=rk_user,n1] "

// seedLoop returns the DistSender events of the seed's request from its
// first send until end: each remote hop to n2 takes about 5.5 ms and each
// local hop to n1 about 0.3 ms; the first cycles have the seed's exact
// deltas. When done is true the request is served by n1 at the end. The
// timings depend on the request only, so that the page and the log of the
// same incident agree.
func seedLoop(tags string, first time.Time, end time.Time, done, exact bool) []traceEvent {
	h := fnv.New64a()
	h.Write([]byte(tags))
	r := rand.New(rand.NewPCG(h.Sum64(), 22837))
	var evs []traceEvent
	at := first
	add := func(d time.Duration, msg string) {
		at = at.Add(d)
		evs = append(evs, traceEvent{at, tags + msg})
	}
	remote := "sending request to nathan-high-mem-0002:26257"
	local := "sending request to local server"
	errN2 := nlheText(52, "(n2,s2):3", seedLeaseNew)
	errN1 := nlheText(52, "(n1,s1):1", seedLeaseOld)
	if exact {
		// The seed's first lines, to the displayed microsecond: the page
		// truncates times and rounds deltas, so these are the instants in
		// 100 ns that give both as the seed shows them.
		msgs := []string{"r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3", remote,
			"application error: " + errN2, "error: {(err: " + errN2 + ") <nil>}; trying next peer (n1,s1):1", local,
			"application error: " + errN1, "error: {(err: " + errN1 + ") <nil>}; trying next peer (n2,s2):3", remote}
		tenths := []int{4140532, 4140716, 4195450, 4195970, 4196140, 4198520, 4198610, 4198780,
			4262016, 4262200, 4262330, 4265782, 4265876, 4266120}
		for i, t := range tenths {
			at = time.Date(2018, 2, 20, 8, 10, 24, t*100, time.UTC)
			k := i
			if k >= len(msgs) {
				k -= 6 // the second cycle repeats the first
			}
			m := msgs[k]
			evs = append(evs, traceEvent{at, tags + m})
		}
	} else {
		add(0, "r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3")
		add(us(18), remote)
	}
	sub := func(lo, hi int) time.Duration {
		return time.Duration(lo)*time.Microsecond + time.Duration(r.Int64N(int64(hi-lo)*1000))
	}
	for {
		d := [6]time.Duration{sub(5100, 6600), sub(9, 60), sub(12, 26), sub(210, 380), sub(8, 14), sub(14, 30)}
		if at.Add(d[0] + d[1] + d[2] + d[3] + d[4] + d[5]).After(end) {
			break
		}
		add(d[0], "application error: "+errN2)
		add(d[1], "error: {(err: "+errN2+") <nil>}; trying next peer (n1,s1):1")
		add(d[2], local)
		add(d[3], "application error: "+errN1)
		add(d[4], "error: {(err: "+errN1+") <nil>}; trying next peer (n2,s2):3")
		add(d[5], remote)
	}
	if done {
		// n1 applied its lease: the next hop goes to n1 and is served.
		add(sub(5200, 6000), "application error: "+errN2)
		add(sub(9, 60), "error: {(err: "+errN2+") <nil>}; trying next peer (n1,s1):1")
		add(sub(12, 26), local)
	}
	return evs
}

// seedPage is n1's /debug/requests at the time of the seed.
func seedPage(r *rand.Rand) *requestsPage {
	p := &requestsPage{}
	// The seed: a partial batch of txn bb4d74d6 ping-pongs for 13.75 s.
	end := seedStart.Add(13750285 * time.Microsecond)
	seed := &reqTrace{start: seedStart, end: end, title: "kv.DistSender: sending partial batch"}
	seed.events = append(seed.events, traceEvent{seedStart.Add(us(2)), "txnID:bb4d74d6-fc80-46eb-b3e2-9121a450a1c2"})
	seed.events = append(seed.events, seedLoop(seedTags, seedStart.Add(us(229)), end.Add(-us(300)), true, true)...)
	p.traces = append(p.traces, seed)

	// Ordinary traces of the same minute: a slow partial batch, a batch
	// redirected once by a replica that had just handed its lease over,
	// and a transaction sending to several ranges.
	slow := &reqTrace{start: time.Date(2018, 2, 20, 8, 10, 31, 207115000, time.UTC), title: "kv.DistSender: sending partial batch"}
	at := slow.start.Add(us(3))
	slow.events = append(slow.events, traceEvent{at, "txnID:4c0a6e1b-88f5-4d0a-9a51-2b6ff8e3d7c2"})
	at = at.Add(us(201))
	slow.events = append(slow.events, traceEvent{at, "[client=127.0.0.1:35902,user=rk_user,n1] r57: sending batch 1 CPut to (n3,s3):2"})
	at = at.Add(us(16))
	slow.events = append(slow.events, traceEvent{at, "[client=127.0.0.1:35902,user=rk_user,n1] sending request to nathan-high-mem-0003:26257"})
	slow.end = at.Add(1268432 * time.Microsecond)
	p.traces = append(p.traces, slow)

	once := &reqTrace{start: time.Date(2018, 2, 20, 8, 10, 19, 880412000, time.UTC), title: "kv.DistSender: sending partial batch"}
	tags := "[client=127.0.0.1:35877,user=rk_user,n1] "
	l61 := lease("(n3,s3):1", 7, time.Date(2018, 2, 20, 8, 10, 19, 861270118, time.UTC), 1)
	e61 := nlheText(61, "(n1,s1):2", l61)
	at = once.start.Add(us(2))
	for _, s := range []struct {
		d   int
		msg string
	}{
		{0, "txnID:0f3e2a77-5b1c-4e0b-8a3c-6d2e9b41c5a0"},
		{188, tags + "r61: sending batch 1 CPut, 1 EndTxn to (n1,s1):2"},
		{15, tags + "sending request to local server"},
		{291, tags + "application error: " + e61},
		{11, tags + "error: {(err: " + e61 + ") <nil>}; trying next peer (n3,s3):1"},
		{19, tags + "sending request to nathan-high-mem-0003:26257"},
	} {
		at = at.Add(us(s.d))
		once.events = append(once.events, traceEvent{at, s.msg})
	}
	once.end = at.Add(1041887 * time.Microsecond)
	p.traces = append(p.traces, once)

	txn := &reqTrace{start: time.Date(2018, 2, 20, 8, 10, 27, 332901000, time.UTC), title: "sql txn"}
	tags = "[client=127.0.0.1:35861,user=rk_user,n1] "
	at = txn.start.Add(us(4))
	txn.events = append(txn.events, traceEvent{at, "txnID:9a7d31c2-0b6e-4f5d-b1e8-3c44a8f0e219"})
	for _, s := range []struct {
		rng  int
		to   string
		host string
		b    string
	}{
		{55, "(n1,s1):1", "", "1 Get"}, {58, "(n2,s2):2", "nathan-high-mem-0002:26257", "1 Scan"},
		{55, "(n1,s1):1", "", "1 CPut, 1 BeginTxn"}, {63, "(n3,s3):3", "nathan-high-mem-0003:26257", "1 CPut"},
		{58, "(n2,s2):2", "nathan-high-mem-0002:26257", "1 EndTxn"},
	} {
		at = at.Add(between(r, 150*time.Millisecond, 400*time.Millisecond))
		txn.events = append(txn.events, traceEvent{at, tags + fmt.Sprintf("r%d: sending batch %s to %s", s.rng, s.b, s.to)})
		at = at.Add(us(17))
		if s.host == "" {
			txn.events = append(txn.events, traceEvent{at, tags + "sending request to local server"})
		} else {
			txn.events = append(txn.events, traceEvent{at, tags + "sending request to " + s.host})
		}
	}
	txn.end = at.Add(2138 * time.Microsecond)
	p.traces = append(p.traces, txn)
	return p
}

// bouncePage is a v2.0 page with one A→B→A bounce that resolves.
func bouncePage(r *rand.Rand) string {
	p := &requestsPage{}
	t := &reqTrace{start: time.Date(2018, 3, 2, 17, 44, 9, 120335000, time.UTC), title: "kv.DistSender: sending partial batch"}
	tags := "[client=10.142.0.31:52016,user=root,n1] "
	newer := lease("(n1,s1):4", 9, time.Date(2018, 3, 2, 17, 44, 9, 118002731, time.UTC), 2)
	older := lease("(n3,s3):2", 8, time.Date(2018, 3, 2, 17, 31, 55, 402118004, time.UTC), 2)
	a := nlheText(61, "(n3,s3):2", newer)
	b := nlheText(61, "(n1,s1):4", older)
	at := t.start.Add(us(2))
	for _, s := range []struct {
		d   int
		msg string
	}{
		{0, "txnID:6d0c1f3a-2e57-4b8e-9f21-73a5c0de4b18"},
		{214, tags + "r61: sending batch 1 Put, 1 EndTxn to (n3,s3):2"},
		{17, tags + "sending request to roach-prod-3:26257"},
		{1104, tags + "application error: " + a},
		{21, tags + "error: {(err: " + a + ") <nil>}; trying next peer (n1,s1):4"},
		{14, tags + "sending request to local server"},
		{262, tags + "application error: " + b},
		{10, tags + "error: {(err: " + b + ") <nil>}; trying next peer (n3,s3):2"},
		{19, tags + "sending request to roach-prod-3:26257"},
		{1187, tags + "application error: " + a},
		{23, tags + "error: {(err: " + a + ") <nil>}; trying next peer (n1,s1):4"},
		{16, tags + "sending request to local server"},
	} {
		at = at.Add(us(s.d))
		t.events = append(t.events, traceEvent{at, s.msg})
	}
	t.end = at.Add(us(4211))
	p.traces = append(p.traces, t)
	// Ordinary traces around it.
	for i, rng := range []int{12, 44, 61, 7} {
		o := &reqTrace{start: t.start.Add(time.Duration(i-2)*713*time.Millisecond + us(i*131)), title: "sql txn"}
		tg := fmt.Sprintf("[client=10.142.0.%d:%d,user=root,n1] ", 30+i, 52000+i*7)
		at := o.start.Add(us(3))
		o.events = append(o.events, traceEvent{at, fmt.Sprintf("txnID:%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, 0x8000|r.Uint32()&0x3fff, r.Uint64()&0xffffffffffff)})
		for k := 0; k < 3; k++ {
			at = at.Add(between(r, 40*time.Millisecond, 300*time.Millisecond))
			o.events = append(o.events, traceEvent{at, tg + fmt.Sprintf("r%d: sending batch 1 Get to (n1,s1):4", rng)})
			at = at.Add(us(15))
			o.events = append(o.events, traceEvent{at, tg + "sending request to local server"})
		}
		o.end = at.Add(between(r, 2*time.Millisecond, 9*time.Millisecond))
		p.traces = append(p.traces, o)
	}
	return p.text([]string{"≥0s"})
}

// ---- v2.0 legacy log (util/log/clog.go) ----

// legacyLine prints a v1.x–v2.x log line: two spaces after file:line.
func legacyLine(sev byte, t time.Time, goid int, file string, tags, msg string) string {
	if tags != "" {
		tags = "[" + tags + "] "
	}
	return fmt.Sprintf("%c%s %d %s  %s%s", sev, t.Format("060102 15:04:05.000000"), goid, file, tags, msg)
}

type logLine struct {
	at   time.Time
	text string
}

type logBuf []logLine

func (b *logBuf) add(at time.Time, text string) { *b = append(*b, logLine{at, text}) }

// render sorts by time (stable, so lines logged together stay in order).
func (b logBuf) render() string {
	sort.SliceStable(b, func(i, j int) bool { return b[i].at.Before(b[j].at) })
	var s strings.Builder
	for _, l := range b {
		s.WriteString(l.text)
		s.WriteByte('\n')
	}
	return s.String()
}

func v2Header(b *logBuf, created time.Time, host string) {
	f := "util/log/clog.go:1013"
	for _, m := range []string{
		"[config] file created at: " + created.Format("2006/01/02 15:04:05"),
		"[config] running on machine: " + host,
		"[config] binary: CockroachDB CCL v2.0-alpha.20180212 (linux amd64, built 2018/02/12 18:04:27, go1.9.3)",
		"[config] arguments: [./cockroach start --insecure --store=/mnt/data1/cockroach --cache=25% --max-sql-memory=25% --vmodule=dist_sender=2 --join=nathan-high-mem-0001:26257,nathan-high-mem-0002:26257,nathan-high-mem-0003:26257]",
		"[config] clusterID: 7b9c3f0e-5a4d-4b6c-9f12-0d7e6c1a2b83",
		"line format: [IWEF]yymmdd hh:mm:ss.uuuuuu goid file:line msg utf8=✓",
	} {
		b.add(created, legacyLine('I', created, 1, f, "", m))
	}
}

// v2Noise adds what a busy v2.0 node logs besides the loop: runtime stats
// every 10 s, gossip status every minute, DistSender sends of healthy
// batches from the SQL clients.
func v2Noise(r *rand.Rand, b *logBuf, from, to time.Time) {
	for at := from.Add(between(r, 0, 10*time.Second)); at.Before(to); at = at.Add(jitter(r, 10*time.Second, 0.002)) {
		rss := 6.1 + r.Float64()*0.3
		gor := 1150 + r.IntN(90)
		b.add(at, legacyLine('I', at, 163, "server/status/runtime.go:219", "n1",
			fmt.Sprintf("runtime stats: %.1f GiB RSS, %d goroutines, %d MiB/%d MiB/1.1 GiB GO alloc/idle/total, 4.1 GiB/5.0 GiB CGO alloc/total, %.2fcgo/sec, %.2f/%.2f %%(u/s)time, 0.00 %%gc (%dx)",
				rss, gor, 560+r.IntN(90), 280+r.IntN(60), 24000+r.Float64()*3000, 290+r.Float64()*40, 44+r.Float64()*8, 2+r.IntN(3))))
	}
	for at := from.Add(between(r, 0, time.Minute)); at.Before(to); at = at.Add(time.Minute) {
		b.add(at, legacyLine('I', at, 157, "gossip/gossip.go:478", "n1", "gossip status (ok, 3 nodes)\n"+
			"gossip client (1/3 cur/max conns)\n"+
			fmt.Sprintf("  2: nathan-high-mem-0002:26257 (47m12s: infos %d/%d sent/received, bytes %dB/%dB sent/received)\n", 2100+r.IntN(100), 2300+r.IntN(100), 612000+r.IntN(9000), 688000+r.IntN(9000))+
			fmt.Sprintf("gossip server (1/3 cur/max conns, infos %d/%d sent/received, bytes %dB/%dB sent/received)\n", 4400+r.IntN(100), 4300+r.IntN(100), 1301000+r.IntN(9000), 1262000+r.IntN(9000))+
			"  3: nathan-high-mem-0003:26257 (47m10s)"))
	}
	batches := []string{"1 Get", "1 Scan", "2 CPut, 1 BeginTxn", "1 CPut", "1 CPut, 1 EndTxn", "1 EndTxn", "1 HeartbeatTxn", "1 QueryTxn"}
	for at := from.Add(between(r, 0, 50*time.Millisecond)); at.Before(to); at = at.Add(between(r, 20*time.Millisecond, 160*time.Millisecond)) {
		rng := []int{53, 55, 57, 58, 61, 63, 64, 70}[r.IntN(8)]
		to := []string{"(n1,s1):1", "(n2,s2):2", "(n3,s3):3"}[rng%3]
		port := 35850 + r.IntN(52)
		b.add(at, legacyLine('I', at, 5300000+r.IntN(90000), "kv/dist_sender.go:1201",
			fmt.Sprintf("client=127.0.0.1:%d,user=rk_user,n1", port),
			fmt.Sprintf("r%d: sending batch %s to %s", rng, batches[r.IntN(len(batches))], to)))
	}
}

// v2LoopLog adds the log lines of one request in the seed's loop: with
// --vmodule=dist_sender=2 only dist_sender.go logs, "application error"
// at severity E.
func v2LoopLog(b *logBuf, goid int, tags string, evs []traceEvent) {
	for _, e := range evs {
		msg := strings.TrimPrefix(e.msg, "["+tags+"] ")
		switch {
		case strings.HasPrefix(msg, "sending request to"):
			// kv/transport.go: not verbose with dist_sender=2 alone.
		case strings.HasPrefix(msg, "application error"):
			b.add(e.at, legacyLine('E', e.at, goid, "kv/dist_sender.go:1305", tags, msg))
		case strings.HasPrefix(msg, "error: "):
			b.add(e.at, legacyLine('I', e.at, goid, "kv/dist_sender.go:1323", tags, msg))
		default:
			b.add(e.at, legacyLine('I', e.at, goid, "kv/dist_sender.go:1201", tags, msg))
		}
	}
}

func v2NodeLog(r *rand.Rand) string {
	var b logBuf
	created := time.Date(2018, 2, 20, 8, 9, 41, 602114000, time.UTC)
	rotated := time.Date(2018, 2, 20, 8, 10, 25, 500318000, time.UTC)
	v2Header(&b, created, "nathan-high-mem-0001")
	v2Noise(r, &b, created.Add(us(900)), rotated)
	// n1 falls behind applying r52's Raft log.
	for at := time.Date(2018, 2, 20, 8, 10, 15, 402511000, time.UTC); at.Before(rotated); at = at.Add(between(r, 1200*time.Millisecond, 2100*time.Millisecond)) {
		b.add(at, legacyLine('W', at, 196, "storage/store.go:3705", "n1,s1,r52/1:/Table/53/1/{2680…-3012…}",
			fmt.Sprintf("handle raft ready: %.1fs [processed=0]", 0.6+r.Float64()*1.2)))
	}
	tags := "client=127.0.0.1:35854,user=rk_user,n1"
	v2LoopLog(&b, 5327881, tags, seedLoop("["+tags+"] ", seedStart.Add(us(229)), rotated, false, true))
	tags2 := "client=127.0.0.1:35860,user=rk_user,n1"
	v2LoopLog(&b, 5328140, tags2, seedLoop("["+tags2+"] ", time.Date(2018, 2, 20, 8, 10, 25, 96214000, time.UTC), rotated, false, false))
	return b.render()
}

func chainLog(r *rand.Rand) string {
	var b logBuf
	created := time.Date(2018, 2, 20, 9, 40, 2, 111742000, time.UTC)
	end := created.Add(62 * time.Second)
	v2Header(&b, created, "nathan-high-mem-0001")
	v2Noise(r, &b, created.Add(us(700)), end)
	// r88's lease moved n2 → n3 → n1 within a second; n1's cache still says n2.
	l3 := lease("(n3,s3):3", 11, time.Date(2018, 2, 20, 9, 40, 30, 17220114, time.UTC), 1)
	l1 := lease("(n1,s1):1", 12, time.Date(2018, 2, 20, 9, 40, 30, 803114250, time.UTC), 1)
	tags := "client=127.0.0.1:36012,user=rk_user,n1"
	at := time.Date(2018, 2, 20, 9, 40, 30, 811904000, time.UTC)
	e2 := nlheText(88, "(n2,s2):2", l3)
	e3 := nlheText(88, "(n3,s3):3", l1)
	for _, s := range []struct {
		d    int
		sev  byte
		file string
		msg  string
	}{
		{0, 'I', "kv/dist_sender.go:1201", "r88: sending batch 1 Put, 1 EndTxn to (n2,s2):2"},
		{5288, 'E', "kv/dist_sender.go:1305", "application error: " + e2},
		{41, 'I', "kv/dist_sender.go:1323", "error: {(err: " + e2 + ") <nil>}; trying next peer (n3,s3):3"},
		{5610, 'E', "kv/dist_sender.go:1305", "application error: " + e3},
		{33, 'I', "kv/dist_sender.go:1323", "error: {(err: " + e3 + ") <nil>}; trying next peer (n1,s1):1"},
	} {
		at = at.Add(us(s.d))
		b.add(at, legacyLine(s.sev, at, 5411203, s.file, tags, s.msg))
	}
	return b.render()
}

// ---- v20.1 statement bundle, trace-jaeger.json ----

type jKV struct {
	Key   string `json:"key"`
	Type  string `json:"type,omitempty"`
	Value string `json:"value"`
}

type jLog struct {
	Timestamp uint64 `json:"timestamp"`
	Fields    []jKV  `json:"fields,omitempty"`
}

type jRef struct {
	RefType string `json:"refType"`
	TraceID string `json:"traceID"`
	SpanID  string `json:"spanID"`
}

type jSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []jRef `json:"references,omitempty"`
	StartTime     uint64 `json:"startTime"`
	Duration      uint64 `json:"duration"`
	Tags          []jKV  `json:"tags,omitempty"`
	Logs          []jLog `json:"logs,omitempty"`
	ProcessID     string `json:"processID"`
}

type jProcess struct {
	ServiceName string `json:"serviceName"`
}

type jTrace struct {
	TraceID   string              `json:"traceID"`
	Spans     []jSpan             `json:"spans"`
	Processes map[string]jProcess `json:"processes"`
}

type jCollection struct {
	Comment string   `json:"_comment"`
	Data    []jTrace `json:"data"`
}

func micros(t time.Time) uint64 { return uint64(t.UnixNano() / 1000) }

func jaegerShort(r *rand.Rand) string {
	stmt := "UPDATE orders SET status = 'shipped' WHERE id = 90411"
	traceID := "3316519043751290167"
	start := time.Date(2020, 6, 11, 16, 2, 37, 514280000, time.UTC)
	tags := "[n1,client=10.0.3.21:41266,user=root] "
	newer := lease("(n5,s5):5", 12, time.Date(2020, 6, 11, 16, 2, 37, 501337219, time.UTC), 2)
	older := lease("(n4,s4):3", 11, time.Date(2020, 6, 11, 15, 48, 2, 93117802, time.UTC), 2)
	e4 := nlheText(118, "(n4,s4):3", newer)
	e5 := nlheText(118, "(n5,s5):5", older)

	var logs []jLog
	var remote []jSpan
	at := start.Add(us(612))
	ev := func(d time.Duration, msg string) {
		at = at.Add(d)
		logs = append(logs, jLog{micros(at), []jKV{{"event", "STRING", tags + msg}}})
	}
	rpc := func(node string, d time.Duration) {
		remote = append(remote, jSpan{TraceID: traceID, SpanID: strconv.FormatUint(r.Uint64()>>1, 10), OperationName: "/cockroach.roachpb.Internal/Batch",
			StartTime: micros(at.Add(us(180))), Duration: uint64((d - us(260)) / time.Microsecond),
			Tags: []jKV{{"component", "STRING", "gRPC"}, {"node", "STRING", node}, {"span.kind", "STRING", "server"}}, ProcessID: "node " + node})
	}
	ev(0, "r118: sending batch 1 Put, 1 EndTxn to (n4,s4):3")
	for _, backoff := range []int{50, 100, 200} {
		ev(us(14), "sending request to roach-4:26257")
		d := between(r, us(900), us(1400))
		rpc("4", d)
		ev(d, "application error: "+e4)
		ev(us(22), "error: (err: "+e4+") <nil>; trying next peer (n5,s5):5")
		ev(us(13), "sending request to roach-5:26257")
		d = between(r, us(1000), us(1500))
		rpc("5", d)
		ev(d, "application error: "+e5)
		// DistSender waits before following a lease older than one it has seen.
		ev(jitter(r, time.Duration(backoff)*time.Millisecond, 0.1), "error: (err: "+e5+") <nil>; trying next peer (n4,s4):3")
	}
	ev(us(14), "sending request to roach-4:26257")
	d := between(r, us(900), us(1400))
	rpc("4", d)
	ev(d, "application error: "+e4)
	ev(us(19), "error: (err: "+e4+") <nil>; trying next peer (n5,s5):5")
	ev(us(12), "sending request to roach-5:26257")
	d = between(r, us(1300), us(1800))
	rpc("5", d)
	end := at.Add(d + us(95))

	root := jSpan{TraceID: traceID, SpanID: "7216033218093442011", OperationName: "traced statement", StartTime: micros(start),
		Duration: uint64(end.Add(us(410)).Sub(start) / time.Microsecond),
		Tags:     []jKV{{"client", "STRING", "10.0.3.21:41266"}, {"node", "STRING", "1"}, {"sb", "STRING", "1"}, {"statement", "STRING", stmt}, {"user", "STRING", "root"}},
		Logs: []jLog{{micros(start.Add(us(41))), []jKV{{"event", "STRING", "[n1,client=10.0.3.21:41266,user=root] planning starts: UPDATE"}}},
			{micros(start.Add(us(455))), []jKV{{"event", "STRING", "[n1,client=10.0.3.21:41266,user=root] planning ends"}}},
			{micros(start.Add(us(470))), []jKV{{"event", "STRING", "[n1,client=10.0.3.21:41266,user=root] checking distributability"}}}},
		ProcessID: "node 1"}
	send := jSpan{TraceID: traceID, SpanID: "1882940164435127731", OperationName: "dist sender send",
		References: []jRef{{"CHILD_OF", traceID, root.SpanID}}, StartTime: micros(start.Add(us(598))),
		Duration: uint64(end.Sub(start.Add(us(598))) / time.Microsecond),
		Tags:     []jKV{{"client", "STRING", "10.0.3.21:41266"}, {"node", "STRING", "1"}, {"sb", "STRING", "1"}, {"txn", "STRING", "5e1b72d4"}, {"user", "STRING", "root"}},
		Logs:     logs, ProcessID: "node 1"}
	spans := []jSpan{root, send}
	for _, s := range remote {
		s.References = []jRef{{"CHILD_OF", traceID, send.SpanID}}
		spans = append(spans, s)
	}
	c := jCollection{
		Comment: "This is a trace for SQL statement: " + stmt + "\nThis trace can be imported into Jaeger for visualization. From the Jaeger Search screen, select JSON File.\nJaeger can be started using docker with: docker run -d --name jaeger -p 16686:16686 jaegertracing/all-in-one:1.17\nThe UI can then be accessed at http://localhost:16686/search",
		Data: []jTrace{{TraceID: traceID, Spans: spans, Processes: map[string]jProcess{
			"node 1": {"node 1"}, "node 4": {"node 4"}, "node 5": {"node 5"},
		}}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "\t")
	if err := enc.Encode(c); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// ---- v21.2 / v22.1 logs: crdb-v2, crdb-v1 (debug zips), json ----

type logFormat int

const (
	modernV2   logFormat = iota // crdb-v2
	modernV1                    // crdb-v1, as in debug zips
	modernJSON                  // json
)

// modernWriter prints the lines of one node's log in one format.
type modernWriter struct {
	f       logFormat
	counter int
	node    int
	cluster string
	buf     logBuf
}

// line prints one entry. tags are "key=value" or bare keys; values of
// client and user are marked as unsafe for redaction.
func (w *modernWriter) line(sev byte, at time.Time, goid int, ch int, file string, line int, tags []string, msg string) {
	w.counter++
	switch w.f {
	case modernJSON:
		sevNum := map[byte]int{'I': 1, 'W': 2, 'E': 3}[sev]
		sevName := map[byte]string{'I': "INFO", 'W': "WARNING", 'E': "ERROR"}[sev]
		chName := map[int]string{0: "DEV", 1: "OPS"}[ch]
		var tj []string
		for _, t := range tags {
			k, v, _ := strings.Cut(t, "=")
			if len(k) > 1 && k[0] == 'n' && k[1] >= '0' && k[1] <= '9' {
				k, v = "n", k[1:]
			} else if len(k) > 1 && k[0] == 's' && k[1] >= '0' && k[1] <= '9' {
				k, v = "s", k[1:]
			}
			tj = append(tj, strconv.Quote(k)+":"+jsonString(v))
		}
		w.buf.add(at, fmt.Sprintf(`{"channel_numeric":%d,"channel":"%s","timestamp":"%d.%09d","cluster_id":"%s","node_id":%d,"severity_numeric":%d,"severity":"%s","goroutine":%d,"file":"%s","line":%d,"entry_counter":%d,"redactable":1,"tags":{%s},"message":%s}`,
			ch, chName, at.Unix(), at.Nanosecond(), w.cluster, w.node, sevNum, sevName, goid, file, line, w.counter, strings.Join(tj, ","), jsonString(msg)))
	default:
		loc := fmt.Sprintf("%s:%d", file, line)
		if ch != 0 {
			loc = fmt.Sprintf("%d@%s", ch, loc)
		}
		t := "[" + strings.Join(tags, ",") + "]"
		if len(tags) == 0 {
			t = "[-]"
		}
		if w.f == modernV1 {
			w.buf.add(at, fmt.Sprintf("%c%s %d %s ⋮ %s %s", sev, at.Format("060102 15:04:05.000000"), goid, loc, t, msg))
			return
		}
		first, rest, _ := strings.Cut(msg, "\n")
		prefix := fmt.Sprintf("%c%s %d %s ⋮ %s %d ", sev, at.Format("060102 15:04:05.000000"), goid, loc, t, w.counter)
		text := prefix + " " + first
		for rest != "" {
			var l string
			l, rest, _ = strings.Cut(rest, "\n")
			text += "\n" + prefix + "+" + l
		}
		w.buf.add(at, text)
	}
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// header adds the sink's header entries.
func (w *modernWriter) header(created time.Time, host, binary, args string) {
	msgs := []string{
		"file created at: " + created.Format("2006/01/02 15:04:05"),
		"running on machine: ‹" + host + "›",
		"binary: " + binary,
		"arguments: " + args,
	}
	switch w.f {
	case modernJSON:
		msgs = append(msgs, "log format (utf8=✓): json")
	case modernV2:
		msgs = append(msgs, "log format (utf8=✓): crdb-v2", `line format: [IWEF]yymmdd hh:mm:ss.uuuuuu goid [chan@]file:line redactionmark \[tags\] [counter] msg`)
	case modernV1:
		msgs = append(msgs, "log format (utf8=✓): crdb-v1", "line format: [IWEF]yymmdd hh:mm:ss.uuuuuu goid [chan@]file:line redactionmark [tags] msg")
	}
	for _, m := range msgs {
		switch w.f {
		case modernJSON:
			w.buf.add(created, fmt.Sprintf(`{"header":1,"timestamp":"%d.%09d","goroutine":1,"file":"util/log/file_sync_buffer.go","line":238,"redactable":1,"tags":{"config":""},"message":%s}`,
				created.Unix(), created.Nanosecond(), jsonString(m)))
		case modernV2:
			w.buf.add(created, fmt.Sprintf("I%s 1 util/log/file_sync_buffer.go:238 ⋮ [config]   %s", created.Format("060102 15:04:05.000000"), m))
		case modernV1:
			w.buf.add(created, fmt.Sprintf("I%s 1 util/log/file_sync_buffer.go:238 ⋮ [config] %s", created.Format("060102 15:04:05.000000"), m))
		}
	}
}

// modernCluster names the nodes of a v21.2+ cluster and its DistSender
// source lines.
type modernCluster struct {
	version string // for the line numbers: "v21.2" or "v22.1"
	nodes   int
	node    int // the node whose log this is
}

func (c modernCluster) ds(kind string) int {
	lines := map[string]map[string]int{
		"v21.2": {"send": 1928, "next": 1933, "bare": 2040, "backoff": 2086, "apperr": 2102},
		"v22.1": {"send": 2031, "next": 2036, "bare": 2144, "backoff": 2191, "apperr": 2207},
	}
	return lines[c.version][kind]
}

const dsFile = "kv/kvclient/kvcoord/dist_sender.go"

func sqlTags(node int, client string, user string) []string {
	return []string{fmt.Sprintf("n%d", node), "client=‹" + client + "›", "hostssl", "user=‹" + user + "›"}
}

// modernNoise adds healthy DistSender sends of the gateway's SQL clients.
func modernNoise(r *rand.Rand, w *modernWriter, c modernCluster, from, to time.Time, ranges []int, replicas map[int]string, subnet string) {
	modernNoiseAt(r, w, c, from, to, ranges, func(rng int, _ time.Time) string { return replicas[rng] }, subnet)
}

// modernNoiseAt is modernNoise with the leaseholder the gateway's cache
// holds at each time; "" skips the range then.
func modernNoiseAt(r *rand.Rand, w *modernWriter, c modernCluster, from, to time.Time, ranges []int, holder func(int, time.Time) string, subnet string) {
	batches := []string{"‹1 Get›", "‹1 Scan›", "‹1 Put›", "‹1 Put, 1 EndTxn›", "‹1 EndTxn›", "‹1 HeartbeatTxn›", "‹1 QueryIntent, 1 EndTxn›", "‹2 CPut, 1 EndTxn›"}
	for at := from.Add(between(r, 0, 80*time.Millisecond)); at.Before(to); at = at.Add(between(r, 60*time.Millisecond, 420*time.Millisecond)) {
		rng := ranges[r.IntN(len(ranges))]
		client := fmt.Sprintf("%s:%d", subnet, 51800+r.IntN(120))
		to := holder(rng, at)
		if to == "" {
			continue
		}
		w.line('I', at, 48000+r.IntN(6000), 0, dsFile, c.ds("send"), sqlTags(c.node, client, "app"),
			fmt.Sprintf("r%d: sending batch %s to %s", rng, batches[r.IntN(len(batches))], to))
	}
}

// modernHop logs one redirect as v21.2+ DistSender does: the bare error,
// the backoff when the lease is stale, "application error", then the next
// try. It returns the time of the next try.
func modernHop(w *modernWriter, c modernCluster, at time.Time, goid int, tags []string, nlhe string, backoff time.Duration, next string) time.Time {
	w.line('E', at, goid, 0, dsFile, c.ds("bare"), tags, nlhe)
	if backoff > 0 {
		w.line('E', at.Add(us(9)), goid, 0, dsFile, c.ds("backoff"), tags, "backing off due to NotLeaseHolderErr with stale info")
		at = at.Add(backoff)
	} else {
		at = at.Add(us(11))
	}
	w.line('E', at, goid, 0, dsFile, c.ds("apperr"), tags, "application error: "+nlhe)
	at = at.Add(us(14))
	w.line('I', at, goid, 0, dsFile, c.ds("next"), tags, "trying next peer "+next)
	return at
}

// modernLoop is the v20.2+ loop after a lease transfer to a replica that
// does not apply it: the others name it; it names the old holder with the
// older lease; DistSender backs off and retries it at most 10 times in a
// row (sameReplicaRetryLimit), moves on to the next replica, and is sent
// back to it.
type modernLoop struct {
	rng              int64
	old, lag, third  string // the old leaseholder, the lagging new one, the third replica
	newer, older     string // leases
	reason           string
	gateway          int
	client           string
	goid             int
	start            time.Time
	rounds           int
	localOf          map[string]bool
	lagRetriesPerHop int
}

func (l modernLoop) run(r *rand.Rand, w *modernWriter, c modernCluster) time.Time {
	tags := sqlTags(l.gateway, l.client, "app")
	at := l.start
	w.line('I', at, l.goid, 0, dsFile, c.ds("send"), tags, fmt.Sprintf("r%d: sending batch ‹1 Put› to %s", l.rng, l.old))
	up := func(from string) string {
		return fmt.Sprintf("[NotLeaseHolderError] %s; r%d: replica %s not lease holder; current lease is %s", l.reason, l.rng, from, l.newer)
	}
	stale := fmt.Sprintf("[NotLeaseHolderError] %s; r%d: replica %s not lease holder; current lease is %s", l.reason, l.rng, l.lag, l.older)
	others := []string{l.old, l.third}
	// inTransferRetry: reset only when a redirect brings news, so within the
	// loop the backoff doubles up to its 1 s maximum and stays there.
	backoff := time.Duration(0)
	grow := func() time.Duration {
		if backoff == 0 {
			backoff = 50 * time.Millisecond
		} else {
			backoff = min(2*backoff, time.Second)
		}
		return jitter(r, backoff, 0.15)
	}
	for round := 0; round < l.rounds; round++ {
		from := others[round%2]
		rtt := between(r, us(700), us(1600))
		if l.localOf[from] {
			rtt = between(r, us(150), us(320))
		}
		at = at.Add(rtt)
		// The first redirect carries news (a newer lease): no backoff.
		var b time.Duration
		if round > 0 {
			b = grow()
		}
		at = modernHop(w, c, at, l.goid, tags, up(from), b, l.lag)
		for i := 0; i < l.lagRetriesPerHop; i++ {
			at = at.Add(between(r, us(700), us(1500)))
			next := l.lag
			if i == l.lagRetriesPerHop-1 && round < l.rounds-1 {
				next = others[(round+1)%2]
			}
			at = modernHop(w, c, at, l.goid, tags, stale, grow(), next)
		}
	}
	// The last try on the lagging replica is served: it applied the lease.
	return at
}

func modernLog(r *rand.Rand, f logFormat) string {
	c := modernCluster{version: "v22.1", nodes: 3, node: 1}
	w := &modernWriter{f: f, node: 1, cluster: "d51f0a7c-3b52-4a9e-8b0e-71c2a0f5e6d4"}
	created := time.Date(2022, 7, 19, 9, 30, 18, 380127000, time.UTC)
	host := "roach-1"
	loop := modernLoop{rng: 73, old: "(n3,s3):2", lag: "(n2,s2):3", third: "(n1,s1):1",
		newer:   lease("(n2,s2):3", 7, time.Date(2022, 7, 19, 9, 31, 2, 61532774, time.UTC), 4),
		older:   lease("(n3,s3):2", 6, time.Date(2022, 7, 19, 8, 2, 17, 449120383, time.UTC), 4),
		reason:  "lease held by different store",
		gateway: 1, goid: 91213, start: time.Date(2022, 7, 19, 9, 31, 2, 74012000, time.UTC),
		rounds: 2, lagRetriesPerHop: 10, localOf: map[string]bool{"(n1,s1):1": true}, client: "10.0.1.7:51882"}
	replicas := map[int]string{12: "(n1,s1):1", 37: "(n3,s3):3", 64: "(n2,s2):1", 81: "(n1,s1):2", 90: "(n3,s3):1", 104: "(n2,s2):4"}
	subnet := "10.0.1.7"
	if f == modernJSON {
		c.node, c.nodes = 4, 5
		w.node = 4
		w.cluster = "8e1a53a4-2ff9-4d8c-9c65-4a0f3d1de3b1"
		created = time.Date(2022, 9, 13, 2, 41, 11, 374515000, time.UTC)
		host = "roach-4"
		loop = modernLoop{rng: 205, old: "(n5,s5):2", lag: "(n3,s3):4", third: "(n1,s1):1",
			newer:   lease("(n3,s3):4", 15, time.Date(2022, 9, 13, 2, 41, 55, 918263107, time.UTC), 2),
			older:   lease("(n5,s5):2", 14, time.Date(2022, 9, 12, 23, 7, 40, 1887421, time.UTC), 2),
			reason:  "lease held by different store",
			gateway: 4, goid: 203771, start: time.Date(2022, 9, 13, 2, 41, 55, 930411000, time.UTC),
			rounds: 2, lagRetriesPerHop: 10, localOf: map[string]bool{}, client: "10.0.2.14:38422"}
		replicas = map[int]string{18: "(n4,s4):1", 66: "(n2,s2):3", 140: "(n5,s5):1", 177: "(n4,s4):2", 231: "(n1,s1):3"}
		subnet = "10.0.2.14"
	}
	w.header(created, host, "CockroachDB CCL v22.1.4 (x86_64-pc-linux-gnu, built 2022/07/19 17:09:48, go1.17.11)",
		"[‹/cockroach/cockroach› ‹start› ‹--certs-dir=/cockroach/certs› ‹--advertise-addr="+host+":26257› ‹--join=roach-1,roach-2,roach-3› ‹--cache=.25› ‹--max-sql-memory=.25› ‹--vmodule=dist_sender=2›]")
	var ranges []int
	for k := range replicas {
		ranges = append(ranges, k)
	}
	sort.Ints(ranges)
	end := loop.start.Add(40 * time.Second)
	modernNoise(r, w, c, created.Add(us(900)), end, ranges, replicas, subnet)
	last := loop.run(r, w, c)
	// A second client meets the same loop a few seconds later.
	loop2 := loop
	loop2.client = strings.Replace(loop.client, ":5", ":6", 1)
	loop2.goid += 4127
	loop2.start = loop.start.Add(2*time.Second + us(311207))
	loop2.rounds = 1
	loop2.run(r, w, c)
	// The lagging replica applies its lease: requests are served again.
	for i := 0; i < 5; i++ {
		at := last.Add(time.Duration(i+1)*137*time.Millisecond + us(r.IntN(900)))
		w.line('I', at, loop.goid+10+i, 0, dsFile, c.ds("send"), sqlTags(loop.gateway, fmt.Sprintf("%s:%d", subnet, 51900+i), "app"),
			fmt.Sprintf("r%d: sending batch ‹1 Put› to %s", loop.rng, loop.lag))
	}
	return w.buf.render()
}

// debugZip is an unzipped v21.2 debug zip with three nodes' logs.
func debugZip(r *rand.Rand) map[string]string {
	c := modernCluster{version: "v21.2", nodes: 3, node: 1}
	files := map[string]string{}
	created := time.Date(2022, 3, 8, 14, 20, 7, 516833000, time.UTC)
	loopStart := time.Date(2022, 3, 8, 14, 36, 18, 207733000, time.UTC)
	for n := 1; n <= 3; n++ {
		w := &modernWriter{f: modernV1, node: n}
		host := fmt.Sprintf("roach-%d", n)
		pid := []int{0, 6104, 6212, 5987}[n]
		w.header(created.Add(time.Duration(n)*us(402117)), host, "CockroachDB CCL v21.2.6 (x86_64-unknown-linux-gnu, built 2022/02/22 18:30:37, go1.16.6)",
			"[‹/cockroach/cockroach› ‹start› ‹--certs-dir=/cockroach/certs› ‹--advertise-addr="+host+":26257› ‹--join=roach-1,roach-2,roach-3› ‹--cache=.25› ‹--max-sql-memory=.25› ‹--vmodule=dist_sender=2›]")
		c.node = n
		replicas := map[int]string{14: "(n1,s1):1", 52: "(n2,s2):3", 388: "(n3,s3):2", 901: "(n1,s1):4", 1190: "(n2,s2):2"}
		modernNoise(r, w, c, loopStart.Add(-30*time.Second), loopStart.Add(25*time.Second), []int{14, 52, 388, 901, 1190}, replicas, fmt.Sprintf("10.0.1.%d", 6+n))
		switch n {
		case 1:
			loop := modernLoop{rng: 1187, old: "(n2,s2):5", lag: "(n3,s3):7", third: "(n1,s1):6",
				newer:   lease("(n3,s3):7", 22, time.Date(2022, 3, 8, 14, 36, 18, 190482211, time.UTC), 3),
				older:   lease("(n2,s2):5", 21, time.Date(2022, 3, 8, 11, 2, 9, 771041925, time.UTC), 3),
				reason:  "lease held by different store",
				gateway: 1, goid: 55120, start: loopStart, rounds: 2, lagRetriesPerHop: 10,
				localOf: map[string]bool{"(n1,s1):6": true}, client: "10.0.1.7:52004"}
			loop.run(r, w, c)
		case 3:
			// The lagging replica's node: applying r1187's log is slow.
			for at := loopStart.Add(-us(820114)); at.Before(loopStart.Add(14 * time.Second)); at = at.Add(between(r, 900*time.Millisecond, 1900*time.Millisecond)) {
				w.line('W', at, 310, 0, "kv/kvserver/store_raft.go", 524, []string{"n3", "s3", "r1187/7:‹/Table/6{1-2}›"},
					fmt.Sprintf("handle raft ready: %.1fs [applied=0, batches=0, state_assertions=0]", 0.9+r.Float64()*1.3))
			}
		}
		files[fmt.Sprintf("debug/nodes/%d/logs/cockroach.%s.cockroach.2022-03-08T14_20_07Z.%06d.log", n, host, pid)] = w.buf.render()
	}
	return files
}

// ---- v21.2 near misses ----

func v21Writer(created time.Time) (*modernWriter, modernCluster) {
	c := modernCluster{version: "v21.2", nodes: 3, node: 1}
	w := &modernWriter{f: modernV2, node: 1}
	w.header(created, "roach-1", "CockroachDB CCL v21.2.6 (x86_64-unknown-linux-gnu, built 2022/02/22 18:30:37, go1.16.6)",
		"[‹/cockroach/cockroach› ‹start› ‹--certs-dir=/cockroach/certs› ‹--advertise-addr=roach-1:26257› ‹--join=roach-1,roach-2,roach-3› ‹--cache=.25› ‹--max-sql-memory=.25› ‹--vmodule=dist_sender=2,replica_proposal=1›]")
	return w, c
}

var v21Replicas = map[int]string{12: "(n1,s1):1", 37: "(n3,s3):3", 64: "(n2,s2):1", 73: "(n1,s1):1", 81: "(n1,s1):2", 104: "(n2,s2):4"}

func v21Ranges() []int { return []int{12, 37, 64, 73, 81, 104} }

// newLease logs a lease applied on n1's replica (replica_proposal.go,
// verbose with --vmodule=replica_proposal=1).
func newLease(w *modernWriter, at time.Time, rangeTag, newer, prev string) {
	w.line('I', at, 612, 0, "kv/kvserver/replica_proposal.go", 234, []string{"n1", "s1", rangeTag}, "new range lease "+newer+" following "+prev)
}

func healthyV2Log(r *rand.Rand) string {
	created := time.Date(2022, 3, 8, 14, 20, 7, 516833000, time.UTC)
	w, c := v21Writer(created)
	from := time.Date(2022, 3, 8, 14, 30, 0, 0, time.UTC)
	// The gateway's cache follows the two lease transfers below; while it
	// is stale, the requests to those ranges are the redirected ones.
	t73a, t73b := time.Date(2022, 3, 8, 14, 31, 7, 0, time.UTC), time.Date(2022, 3, 8, 14, 31, 12, 100000000, time.UTC)
	t37a, t37b := time.Date(2022, 3, 8, 14, 32, 40, 600000000, time.UTC), time.Date(2022, 3, 8, 14, 32, 41, 600000000, time.UTC)
	modernNoiseAt(r, w, c, from, from.Add(3*time.Minute), v21Ranges(), func(rng int, at time.Time) string {
		switch {
		case rng == 73 && at.After(t73b):
			return "(n2,s2):2"
		case rng == 73 && at.After(t73a):
			return ""
		case rng == 37 && at.After(t37b):
			return "(n1,s1):1"
		case rng == 37 && at.After(t37a):
			return ""
		}
		return v21Replicas[rng]
	}, "10.0.1.7")

	// r73: n1 hands its lease to n2.
	l5 := lease("(n1,s1):1", 5, time.Date(2022, 3, 8, 12, 6, 52, 553109005, time.UTC), 3)
	l6 := lease("(n2,s2):2", 6, time.Date(2022, 3, 8, 14, 31, 7, 103004212, time.UTC), 3)
	newLease(w, time.Date(2022, 3, 8, 14, 31, 7, 103512000, time.UTC), "r73/1:‹/Table/5{3-4}›", l6, l5)
	held := func(rng int64, from, l string) string {
		return fmt.Sprintf("[NotLeaseHolderError] lease held by different store; r%d: replica %s not lease holder; current lease is %s", rng, from, l)
	}
	// A request already on its way to n2 meets it before it applied the
	// lease: n2 names n1; DistSender backs off, retries n2, is served.
	tags := sqlTags(1, "10.0.1.7:51873", "app")
	at := time.Date(2022, 3, 8, 14, 31, 7, 102966000, time.UTC)
	w.line('I', at, 48231, 0, dsFile, c.ds("send"), tags, "r73: sending batch ‹1 Put, 1 EndTxn› to (n1,s1):1")
	at = modernHop(w, c, at.Add(us(233)), 48231, tags, held(73, "(n1,s1):1", l6), 0, "(n2,s2):2")
	modernHop(w, c, at.Add(us(1089)), 48231, tags, held(73, "(n2,s2):2", l5), jitter(r, 50*time.Millisecond, 0.1), "(n2,s2):2")
	// Later requests with a stale cache: one redirect each.
	for i, t := range []string{"14:31:07.412207", "14:31:09.880114", "14:31:12.004391"} {
		at, _ := time.Parse("2006-01-02 15:04:05.000000", "2022-03-08 "+t)
		tags := sqlTags(1, fmt.Sprintf("10.0.1.7:%d", 51880+i), "app")
		g := 48300 + i*17
		w.line('I', at, g, 0, dsFile, c.ds("send"), tags, "r73: sending batch ‹1 Get› to (n1,s1):1")
		modernHop(w, c, at.Add(between(r, us(180), us(300))), g, tags, held(73, "(n1,s1):1", l6), 0, "(n2,s2):2")
	}

	// r37: n3 hands its lease to n1.
	l8 := lease("(n3,s3):3", 8, time.Date(2022, 3, 8, 13, 58, 1, 220871554, time.UTC), 3)
	l9 := lease("(n1,s1):1", 9, time.Date(2022, 3, 8, 14, 32, 40, 660912003, time.UTC), 3)
	newLease(w, time.Date(2022, 3, 8, 14, 32, 40, 662410000, time.UTC), "r37/1:‹/Table/5{6/1-7}›", l9, l8)
	for i, t := range []string{"14:32:40.971330", "14:32:41.550102"} {
		at, _ := time.Parse("2006-01-02 15:04:05.000000", "2022-03-08 "+t)
		tags := sqlTags(1, fmt.Sprintf("10.0.1.7:%d", 51890+i), "app")
		g := 48400 + i*23
		w.line('I', at, g, 0, dsFile, c.ds("send"), tags, "r37: sending batch ‹1 Scan› to (n3,s3):3")
		modernHop(w, c, at.Add(between(r, us(800), us(1300))), g, tags, held(37, "(n3,s3):3", l9), 0, "(n1,s1):1")
	}
	return w.buf.render()
}

func backoffLog(r *rand.Rand) string {
	created := time.Date(2022, 3, 8, 14, 20, 7, 516833000, time.UTC)
	w, c := v21Writer(created)
	from := time.Date(2022, 3, 8, 14, 30, 40, 0, time.UTC)
	t73 := time.Date(2022, 3, 8, 14, 31, 7, 0, time.UTC)
	modernNoiseAt(r, w, c, from, from.Add(70*time.Second), v21Ranges(), func(rng int, at time.Time) string {
		if rng == 73 && at.After(t73) {
			if at.Before(t73.Add(2 * time.Second)) {
				return ""
			}
			return "(n2,s2):2"
		}
		return v21Replicas[rng]
	}, "10.0.1.7")
	l5 := lease("(n1,s1):1", 5, time.Date(2022, 3, 8, 12, 6, 52, 553109005, time.UTC), 3)
	l6 := lease("(n2,s2):2", 6, time.Date(2022, 3, 8, 14, 31, 7, 103004212, time.UTC), 3)
	held := func(from, l string) string {
		return fmt.Sprintf("[NotLeaseHolderError] lease held by different store; r73: replica %s not lease holder; current lease is %s", from, l)
	}
	tags := sqlTags(1, "10.0.1.7:51873", "app")
	at := time.Date(2022, 3, 8, 14, 31, 7, 102966000, time.UTC)
	w.line('I', at, 48231, 0, dsFile, c.ds("send"), tags, "r73: sending batch ‹1 Put, 1 EndTxn› to (n1,s1):1")
	at = modernHop(w, c, at.Add(us(233)), 48231, tags, held("(n1,s1):1", l6), 0, "(n2,s2):2")
	at = modernHop(w, c, at.Add(us(1089)), 48231, tags, held("(n2,s2):2", l5), jitter(r, 50*time.Millisecond, 0.1), "(n2,s2):2")
	modernHop(w, c, at.Add(us(1173)), 48231, tags, held("(n2,s2):2", l5), jitter(r, 100*time.Millisecond, 0.1), "(n2,s2):2")
	newLease(w, time.Date(2022, 3, 8, 14, 31, 7, 103512000, time.UTC), "r73/1:‹/Table/5{3-4}›", l6, l5)
	return w.buf.render()
}

func unknownLog(r *rand.Rand) string {
	created := time.Date(2022, 3, 8, 14, 20, 7, 516833000, time.UTC)
	w, c := v21Writer(created)
	from := time.Date(2022, 3, 8, 14, 44, 0, 0, time.UTC)
	modernNoise(r, w, c, from, from.Add(80*time.Second), v21Ranges(), v21Replicas, "10.0.1.7")
	tags := sqlTags(1, "10.0.1.7:51911", "app")
	at := time.Date(2022, 3, 8, 14, 44, 31, 800412000, time.UTC)
	g := 50122
	end := at.Add(1600 * time.Millisecond)
	unavailable := "RPC error: ‹rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing dial tcp 10.0.1.9:26257: connect: connection refused\"›"
	backoff := 50 * time.Millisecond
	first := true
	for at.Before(end) {
		// Each attempt tries n3 (down: an RPC error, not a redirect), then n1
		// and n2, which know no leaseholder while the lease is acquired.
		w.line('I', at, g, 0, dsFile, c.ds("send"), tags, "r19: sending batch ‹1 Get› to (n3,s3):1")
		if first {
			at = at.Add(3 * time.Millisecond)
			first = false
		} else {
			at = at.Add(between(r, us(200), us(600)))
		}
		w.line('E', at, g, 0, dsFile, 2003, tags, unavailable)
		w.line('I', at.Add(us(15)), g, 0, dsFile, c.ds("next"), tags, "trying next peer (n1,s1):2")
		for _, p := range [][2]string{{"(n1,s1):2", "(n2,s2):3"}, {"(n2,s2):3", ""}} {
			at = at.Add(between(r, us(180), us(1300)))
			e := fmt.Sprintf("[NotLeaseHolderError] r19: replica %s not lease holder; lease holder unknown", p[0])
			w.line('E', at, g, 0, dsFile, c.ds("bare"), tags, e)
			w.line('E', at.Add(us(10)), g, 0, dsFile, c.ds("apperr"), tags, "application error: "+e)
			if p[1] != "" {
				w.line('I', at.Add(us(24)), g, 0, dsFile, c.ds("next"), tags, "trying next peer "+p[1])
			}
		}
		// Every replica failed: DistSender retries the range after a backoff.
		at = at.Add(jitter(r, backoff, 0.1))
		backoff = min(2*backoff, time.Second)
	}
	return w.buf.render()
}
