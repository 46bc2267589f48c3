package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A cockroach debug zip of a three-node v22.1 cluster, its logs in the
// crdb-v2 format under debug/nodes/<id>/logs/, started with
// --vmodule=dist_sender=2 as in the case the incident comes from
// (testdata/crdb/crdb-v2-reason): n1's DistSender bounces r73 between the
// replicas that name (n2,s2):3, which has not applied its new lease, and
// (n2,s2):3 itself. Its lines keep their times (UTC, as CockroachDB logs);
// the generated hours are placed around them.

// crdbIncident is when the ping-pong starts in the case.
var crdbIncident = time.Date(2022, 7, 19, 9, 31, 2, 0, time.UTC)

const (
	crdbCaseLog = "cockroach.roach-1.cockroach.2022-07-19T09_30_18Z.001873.log"
	// crdbRotation is --log-file-max-size: each node log file is cut at
	// 10 MiB and the next one starts with the file header again.
	crdbRotation = 10 << 20
	crdbNodes    = 3
)

type roaches struct {
	o        options
	budget   int64
	from, to time.Time
	seed     []entry // n1's lines of the incident
}

func newRoaches(o options, budget int64) (*roaches, error) {
	per := budget / crdbNodes
	span := max(time.Duration(per/nodeRate)*time.Second, 2*time.Hour)
	rc := &roaches{o: o, budget: budget, from: crdbIncident.Add(-span / 2), to: crdbIncident.Add(span / 2)}
	es, err := readCrdbCase(filepath.Join(o.crdbCase, crdbCaseLog))
	if err != nil {
		return nil, fmt.Errorf("the CockroachDB incident: %w (run from the repository root or set -crdb-case)", err)
	}
	rc.seed = es
	return rc, nil
}

// readCrdbCase reads the entries of the case's log, without its file
// header (each generated file has its own).
func readCrdbCase(path string) ([]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		line = append(line, '\n')
		if bytes.Contains(line, []byte("] ")) && bytes.Contains(line, []byte("⋮ [config]")) {
			continue
		}
		t, ok := crdbTime(line)
		if !ok {
			if len(out) > 0 {
				out[len(out)-1].text = append(out[len(out)-1].text, line...)
			}
			continue
		}
		out = append(out, entry{t: t, text: line})
	}
	return out, sc.Err()
}

// crdbTime reads "I220719 09:31:02.074816" at the start of a line.
func crdbTime(line []byte) (time.Time, bool) {
	if len(line) < 23 || line[7] != ' ' || line[16] != '.' {
		return time.Time{}, false
	}
	t, err := time.Parse("060102 15:04:05.000000", string(line[1:23]))
	return t, err == nil
}

func crdbStamp(b []byte, sev byte, t time.Time) []byte {
	b = append(b, sev)
	return t.UTC().AppendFormat(b, "060102 15:04:05.000000")
}

// write writes the debug zip.
func (rc *roaches) write(path string) (zipStat, error) {
	a, err := newArchive(path, rc.o.level, rc.to)
	if err != nil {
		return zipStat{}, err
	}
	fail := func(err error) (zipStat, error) {
		a.close()
		return zipStat{}, err
	}
	if err := a.member("debug/settings.json", func(w *bufio.Writer) error {
		_, err := w.WriteString(crdbSettings)
		return err
	}); err != nil {
		return fail(err)
	}
	pids := []int{1873, 1921, 1877}
	for id := 1; id <= crdbNodes; id++ {
		if err := a.member(fmt.Sprintf("debug/nodes/%d/details.json", id), func(w *bufio.Writer) error {
			_, err := fmt.Fprintf(w, "{\n  \"nodeId\": %d,\n  \"address\": {\n    \"networkField\": \"tcp\",\n    \"addressField\": \"roach-%d:26257\"\n  },\n  \"buildInfo\": {\n    \"goVersion\": \"go1.17.11\",\n    \"tag\": \"v22.1.4\",\n    \"time\": \"2022/07/19 17:09:48\",\n    \"type\": \"release\",\n    \"channel\": \"official-binary\"\n  }\n}\n", id, id)
			return err
		}); err != nil {
			return fail(err)
		}
		if err := rc.writeNode(a, id, pids[id-1]); err != nil {
			return fail(err)
		}
	}
	return a.close()
}

// writeNode writes one node's log files, cutting them at crdbRotation.
func (rc *roaches) writeNode(a *archive, id, pid int) error {
	seed := func(s string) uint64 { return mix(rc.o.seed, label(fmt.Sprintf("crdb/n%d/%s", id, s))) }
	c := &crdbCtx{id: id, host: fmt.Sprintf("roach-%d", id)}
	stats := c.runtimeStats()
	budget := rc.budget/crdbNodes - periodicBytes(seed("runtime"), stats, rc.from, rc.to, 10*time.Second)
	srcs := []source{}
	if id == 1 {
		srcs = append(srcs, &entries{list: rc.seed})
	}
	srcs = append(srcs,
		newPeriodic(seed("runtime"), stats, rc.from, rc.to, 10*time.Second),
		newNoise(seed("log"), c.log(), rc.from, rc.to, budget))
	p := &peeker{src: newMerge(srcs...)}
	for {
		t, ok := p.peek()
		if !ok {
			return nil
		}
		name := fmt.Sprintf("debug/nodes/%d/logs/cockroach.%s.cockroach.%s.%06d.log", id, c.host, t.Format("2006-01-02T15_04_05Z"), pid)
		err := a.member(name, func(w *bufio.Writer) error {
			cw := &crdbFile{}
			w.Write(c.header(nil, t.Add(-time.Millisecond)))
			var written int64
			for written < crdbRotation {
				_, text, ok := p.next()
				if !ok {
					break
				}
				out := cw.number(text)
				w.Write(out)
				written += int64(len(out))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// peeker lets the writer see the time of the next entry before taking it.
type peeker struct {
	src  source
	t    time.Time
	text []byte
	held bool
	ok   bool
}

func (p *peeker) peek() (time.Time, bool) {
	if !p.held {
		var text []byte
		p.t, text, p.ok = p.src.next()
		p.text = append(p.text[:0], text...)
		p.held = true
	}
	return p.t, p.ok
}

func (p *peeker) next() (time.Time, []byte, bool) {
	p.peek()
	p.held = false
	return p.t, p.text, p.ok
}

// crdbFile numbers the entries of one log file: crdb-v2 counts entries per
// file, and the lines that continue an entry ('+', '|') or print its stack
// ('!') repeat its number.
type crdbFile struct {
	n   int
	buf []byte
}

func (f *crdbFile) number(text []byte) []byte {
	f.buf = f.buf[:0]
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i+1], text[i+1:]
		} else {
			text = nil
		}
		f.buf = f.renumber(f.buf, line)
	}
	return f.buf
}

func (f *crdbFile) renumber(dst, line []byte) []byte {
	i := bytes.Index(line, []byte("⋮ ["))
	if i < 0 {
		return append(dst, line...)
	}
	j := bytes.Index(line[i:], []byte("] "))
	if j < 0 {
		return append(dst, line...)
	}
	start := i + j + 2
	end := start
	for end < len(line) && line[end] >= '0' && line[end] <= '9' {
		end++
	}
	if end == start || end+1 >= len(line) || line[end] != ' ' {
		return append(dst, line...) // the file header has no counter
	}
	switch line[end+1] {
	case '+', '|', '!':
	default:
		f.n++
	}
	dst = append(dst, line[:start]...)
	dst = strconv.AppendInt(dst, int64(f.n), 10)
	return append(dst, line[end:]...)
}

type crdbCtx struct {
	id   int
	host string
}

// header is the file header CockroachDB writes at the top of every log
// file (util/log/file_sync_buffer.go), with the node once it is known.
func (c *crdbCtx) header(b []byte, t time.Time) []byte {
	lines := []string{
		"file created at: " + t.Format("2006/01/02 15:04:05"),
		"running on machine: ‹" + c.host + "›",
		"binary: CockroachDB CCL v22.1.4 (x86_64-pc-linux-gnu, built 2022/07/19 17:09:48, go1.17.11)",
		"arguments: [‹/cockroach/cockroach› ‹start› ‹--certs-dir=/cockroach/certs› ‹--advertise-addr=" + c.host + ":26257› ‹--join=roach-1,roach-2,roach-3› ‹--cache=.25› ‹--max-sql-memory=.25› ‹--vmodule=dist_sender=2›]",
		"log format (utf8=✓): crdb-v2",
		"line format: [IWEF]yymmdd hh:mm:ss.uuuuuu goid [chan@]file:line redactionmark \\[tags\\] [counter] msg",
		"clusterID: ‹5c2e1d0a-7a4b-4f1e-9b3c-2d8f6a1e4b7c›",
		fmt.Sprintf("nodeID: n%d", c.id),
	}
	for _, l := range lines {
		b = crdbStamp(b, 'I', t)
		b = append(b, " 1 util/log/file_sync_buffer.go:238 ⋮ [config]   "...)
		b = append(b, l...)
		b = append(b, '\n')
	}
	return b
}

// crdbLine appends one entry; the counter is 0 until the file numbers it.
func crdbLine(b []byte, sev byte, t time.Time, goid int, file, tags, msg string) []byte {
	b = crdbStamp(b, sev, t)
	// The continuation mark follows the counter: ' ' for a new entry, '='
	// for a structured event, '+' for a following line.
	sep := "  "
	if len(msg) > 0 && (msg[0] == '=' || msg[0] == '+') {
		sep = " "
	}
	return fmt.Appendf(b, " %d %s ⋮ [%s] 0%s%s\n", goid, file, tags, sep, msg)
}

// The ranges n1's clients use, as in the case; r73 is left to the incident.
var crdbRanges = []int{12, 37, 64, 81, 90, 104, 118, 131, 147}

var batches = []string{"1 Get", "1 Scan", "1 Put", "1 Put, 1 EndTxn", "2 CPut, 1 EndTxn", "1 QueryIntent, 1 EndTxn", "1 HeartbeatTxn", "1 EndTxn"}

// log is a node's log: storage, runtime, gossip, SQL sessions, range
// splits and snapshots, and (with --vmodule=dist_sender=2) the batches
// the node's DistSender sends. Now and then a lease moves and one request
// is redirected once: the near miss that the incident is not.
func (c *crdbCtx) log() template {
	n := c.id
	// A node serves a pool of SQL connections, each on its own goroutine.
	pool := newRand(mix(uint64(n), label("crdb-pool")))
	type conn struct {
		goid int
		tags string
	}
	conns := make([]conn, 64)
	for i := range conns {
		conns[i] = conn{100 + pool.IntN(99000), fmt.Sprintf("n%d,client=‹10.0.1.7:%d›,hostssl,user=‹app›", n, 40000+pool.IntN(10000))}
	}
	return func(b []byte, r *rand.Rand, t time.Time) []byte {
		cn := one(r, conns)
		goid, client := cn.goid, cn.tags
		rng := one(r, crdbRanges)
		// Each range has its leaseholder; batches go there.
		holder := 1 + rng%3
		leaseholder := fmt.Sprintf("(n%d,s%d):%d", holder, holder, 1+rng%5)
		replica := func() string { m := 1 + r.IntN(3); return fmt.Sprintf("(n%d,s%d):%d", m, m, 1+r.IntN(5)) }
		rangeTags := func(kind string) string {
			return fmt.Sprintf("n%d,%ss%d,r%d/%d:‹/Table/10{4-5}›", n, kind, n, rng, 1+rng%5)
		}
		switch x := r.IntN(1000); {
		case x < 300:
			return crdbLine(b, 'I', t, goid, "kv/kvclient/kvcoord/dist_sender.go:2031", client, fmt.Sprintf("r%d: sending batch ‹%s› to %s", rng, one(r, batches), leaseholder))
		case x < 420:
			job := pebbleJob(t)
			return crdbLine(b, 'I', t, 400+r.IntN(100), "3@vendor/github.com/cockroachdb/pebble/compaction.go:1281", fmt.Sprintf("n%d,pebble", n),
				fmt.Sprintf("[JOB %d] compacted(default) L0 [%06d %06d] (%.1f M) + L6 [%06d] (%d M) -> L6 [%06d] (%d M), in %.1fs (%.1fs total), output rate %d M/s",
					job, job*3, job*3+1, 1+r.Float64()*4, job*2, 8+r.IntN(60), job*3+2, 9+r.IntN(60), r.Float64(), r.Float64()*2, 20+r.IntN(200)))
		case x < 500:
			job := pebbleJob(t)
			return crdbLine(b, 'I', t, 400+r.IntN(100), "3@vendor/github.com/cockroachdb/pebble/event.go:625", fmt.Sprintf("n%d,pebble", n),
				fmt.Sprintf("[JOB %d] flushed 1 memtable to L0 [%06d] (%.1f M), in %.1fs (%.1fs total), output rate %.1f M/s", job, job*3, r.Float64()*8, r.Float64(), r.Float64()*2, 5+r.Float64()*50))
		case x < 560:
			job := pebbleJob(t)
			return crdbLine(b, 'I', t, 400+r.IntN(100), "3@vendor/github.com/cockroachdb/pebble/event.go:625", fmt.Sprintf("n%d,pebble", n),
				fmt.Sprintf("[JOB %d] WAL created %06d (recycled %06d)", job, job*3, job*3-7))
		case x < 650:
			port := 40000 + r.IntN(10000)
			return crdbLine(b, 'I', t, goid, "4@util/log/event_log.go:32", client,
				fmt.Sprintf("={\"Timestamp\":%d,\"EventType\":\"client_authentication_ok\",\"InstanceID\":%d,\"Network\":\"tcp\",\"RemoteAddress\":\"‹10.0.1.7:%d›\",\"SessionID\":\"%016x%016x\",\"Transport\":\"hostssl\",\"User\":\"‹app›\",\"SystemIdentity\":\"‹app›\",\"Method\":\"cert-password\"}",
					t.UnixNano(), n, port, r.Uint64(), r.Uint64()))
		case x < 720:
			tbl := 104 + r.IntN(8)
			return crdbLine(b, 'I', t, goid, "kv/kvserver/replica_command.go:396", fmt.Sprintf("n%d,split,s%d,r%d/1:‹/Table/%d/1/%d›", n, n, rng, tbl, r.IntN(900000)),
				fmt.Sprintf("initiating a split of this range at key ‹/Table/%d/1/%d› [r%d] (‹%d KiB above threshold size 512 MiB›)", tbl, r.IntN(900000), 200+r.IntN(3000), r.IntN(9000)))
		case x < 780:
			return crdbLine(b, 'I', t, goid, "kv/kvserver/replica_raftstorage.go:1003", rangeTags(""),
				fmt.Sprintf("applied snapshot %08x from %s at applied index %d (total=%dms data=%.1f MiB ingestion=6@%dms)", r.Uint32(), replica(), 10+r.IntN(100000), 1+r.IntN(900), r.Float64()*64, 1+r.IntN(300)))
		case x < 830:
			qps := 500 + r.Float64()*600
			return crdbLine(b, 'I', t, goid, "kv/kvserver/store_rebalancer.go:265", fmt.Sprintf("n%d,s%d,store-rebalancer", n, n),
				fmt.Sprintf("load-based lease transfers successfully brought s%d down to %.2f qps (mean=%.2f, upperThreshold=%.2f)", n, qps, qps*0.8, qps*0.97))
		case x < 870:
			return crdbLine(b, 'I', t, goid, "gossip/gossip.go:1541", fmt.Sprintf("n%d", n), "node has connected to cluster via gossip")
		case x < 910:
			return crdbLine(b, 'W', t, goid, "kv/kvserver/replica_raft.go:1215", rangeTags(""),
				fmt.Sprintf("slow raft ready: %.2fs [append=%.2fs, apply=%.2fs, sync=%.2fs]", 0.5+r.Float64(), r.Float64()*0.1, r.Float64()*0.3, 0.4+r.Float64()))
		case x < 950:
			tags := rangeTags("mvccGC,")
			b = crdbLine(b, 'I', t, goid, "2@kv/kvserver/mvcc_gc_queue.go:413", tags,
				fmt.Sprintf("processing replica with score ‹queue=true with %.2f/fuzz(1.06)=%.2f›", 1+r.Float64(), 1+r.Float64()))
			return crdbLine(b, 'I', t, goid, "2@kv/kvserver/mvcc_gc_queue.go:413", tags,
				fmt.Sprintf("+‹likely last GC: %dh%dm ago, %.1f MiB non-live, curr. age %d MiB*s›", 20+r.IntN(10), r.IntN(60), r.Float64()*8, r.IntN(900)))
		case x < 975:
			return crdbLine(b, 'E', t, goid, "jobs/registry.go:1120", fmt.Sprintf("n%d", n), "error processing claimed jobs: ‹context canceled›")
		case x < 978:
			return crdbLine(b, 'I', t, goid, "sql/sqlliveness/slinstance/slinstance.go:144", fmt.Sprintf("n%d", n), fmt.Sprintf("created new SQL liveness session %016x%016x", r.Uint64(), r.Uint64()))
		case x < 998:
			return crdbLine(b, 'I', t, goid, "kv/kvclient/kvcoord/dist_sender.go:2031", client, fmt.Sprintf("r%d: sending batch ‹%s› to %s", rng, one(r, batches), leaseholder))
		default:
			// A lease transfer: one redirect, then the new holder serves.
			from := 1 + r.IntN(3)
			to := from%3 + 1
			lease := fmt.Sprintf("repl=(n%d,s%d):%d seq=%d start=%d.%09d,0 epo=4 pro=%d.%09d,0", to, to, to, 5+r.IntN(50), t.Unix()-1, r.IntN(1e9), t.Unix()-1, r.IntN(1e9))
			nlhe := fmt.Sprintf("[NotLeaseHolderError] lease held by different store; r%d: replica (n%d,s%d):%d not lease holder; current lease is %s", rng, from, from, from, lease)
			b = crdbLine(b, 'E', t, goid, "kv/kvclient/kvcoord/dist_sender.go:2144", client, nlhe)
			b = crdbLine(b, 'E', t.Add(9*time.Microsecond), goid, "kv/kvclient/kvcoord/dist_sender.go:2207", client, "application error: "+nlhe)
			return crdbLine(b, 'I', t.Add(23*time.Microsecond), goid, "kv/kvclient/kvcoord/dist_sender.go:2036", client, fmt.Sprintf("trying next peer (n%d,s%d):%d", to, to, to))
		}
	}
}

// pebbleJob numbers pebble's jobs (flushes, compactions, WAL files) in
// the order they run: about one every two seconds.
func pebbleJob(t time.Time) int {
	return 1000 + int(t.Sub(crdbIncident.Add(-48*time.Hour))/(2*time.Second))
}

// runtimeStats is the line every node logs every 10 s (server/status/runtime.go).
func (c *crdbCtx) runtimeStats() template {
	return func(b []byte, r *rand.Rand, t time.Time) []byte {
		return crdbLine(b, 'I', t, 412, "server/status/runtime.go:525", fmt.Sprintf("n%d", c.id),
			fmt.Sprintf("runtime stats: %d MiB RSS, %d goroutines (stacks: %.1f MiB), %d MiB/%d MiB Go alloc/total (heap fragmentation: %.1f MiB, heap reserved: %.1f MiB, heap released: %.1f MiB), %.1f MiB/%.1f MiB CGO alloc/total (%.1f CGO/sec), %.1f/%.1f %%(u/s)time, %.1f %%gc (%dx), %.1f KiB/%.1f KiB (r/w)net",
				900+r.IntN(600), 300+r.IntN(900), 4+r.Float64()*8, 100+r.IntN(400), 300+r.IntN(400), r.Float64()*30, r.Float64()*10, r.Float64()*20,
				500+r.Float64()*900, 900+r.Float64()*900, r.Float64()*500, r.Float64()*90, r.Float64()*20, r.Float64()*5, r.IntN(4), r.Float64()*9000, r.Float64()*9000))
	}
}

const crdbSettings = `{
  "key_values": {
    "cluster.organization": {"value": "bench", "type": "s", "description": "organization name"},
    "kv.rangefeed.enabled": {"value": "true", "type": "b", "description": "if set, rangefeed registration is enabled"},
    "server.time_until_store_dead": {"value": "5m0s", "type": "d", "description": "the time after which if there is no new gossiped information about a store, it is considered dead"},
    "version": {"value": "22.1", "type": "m", "description": "set the active cluster version in the format '<major>.<minor>'"}
  }
}
`
