package kvstream

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"forensics/parsers/nsserver"
)

// The Couchbase cases under testdata/couchbase are written by this
// generator and committed; review the files, not just this code:
//
//	go test ./rules/kvstream -run TestGenerateCases -update
//	go test ./cmd/forensics -run 'TestScenarios/couchbase' -update
//
// Without -update the test generates the cases in memory and fails when a
// committed file differs from the generator's output, so the cases and
// their generator cannot drift apart.
//
// Every line follows a template read in the upstream source of the
// release it claims (kv_engine v7.1.1, v7.6.4 and v8.0.0; ns_server neo,
// trinity and morpheus; indexing 6.6.1, 7.1.x, trinity and morpheus; the
// files are named next to each writer below). A case's release (rel711,
// rel764, rel800) picks the templates. The signal
// lines are written out per case; the noise around them is drawn from the
// same templates with a fixed seed, so the output is stable.
var update = flag.Bool("update", false, "rewrite the generated cases of testdata/couchbase")

const caseRoot = "../../testdata/couchbase"

func TestGenerateCases(t *testing.T) {
	for _, c := range []*cluster{seedCase(), trafficBeforeStreamCase(), nmvbDuringWarmupCase(), hostnamesCase(), projectorOnlyCase(),
		seedRelease(rel764), seedRelease(rel800), trafficBeforeStreamRelease(rel800)} {
		dir := filepath.Join(caseRoot, c.name)
		files, err := c.files()
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := writeCase(dir, files); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := compareCase(dir, files); err != nil {
			t.Errorf("%v (run go test ./rules/kvstream -run TestGenerateCases -update, then review the diff)", err)
		}
	}
}

// golden reports whether a case's file is written by the scenario tests
// (the expected outputs), not by the generator.
func golden(name string) bool { return strings.HasPrefix(name, "want.") }

// writeCase replaces the generated files of a case, keeping its goldens.
func writeCase(dir string, files map[string][]byte) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, e := range entries {
		if !golden(e.Name()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compareCase checks a committed case against the generator's files: the
// same files, byte for byte, and no others.
func compareCase(dir string, files map[string][]byte) error {
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if golden(name) {
			return nil
		}
		want, ok := files[name]
		if !ok {
			return fmt.Errorf("%s: not written by the generator", p)
		}
		seen[name] = true
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s differs from the generator's output", p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for name := range files {
		if !seen[name] {
			return fmt.Errorf("%s: generated but not committed", filepath.Join(dir, name))
		}
	}
	return nil
}

// cluster is one case: the nodes' cbcollect_info folders and expect.json.
type cluster struct {
	name, stamp string // stamp: the collection time in the folder name (UTC)
	description string
	expect      []map[string]any
	nodes       []*cbnode
	diag        []line // user-visible log entries, in every node's diag.log
	events      []line // event log JSON lines, in every node's diag.log
	rng         *rand.Rand
	seq         int
	skipFiles   map[string]bool // "node/file" left out of the collection
	rel         *release        // the release the nodes run: which templates memcached and ns_server lines follow
}

// release is what changes between the Couchbase releases a case is
// written for: memcached's grammar, ns_server's module:function:line
// headers and wording. GSI lines keep the indexing wording of the 7.1 cases.
type release struct {
	version string            // memcached's banner and diag.log's ns_server version
	kv      string            // "7.1", "7.6" or "8.0": the kv_engine templates
	mfl     map[string]string // ns_server headers by what they log
}

// rel711 is kv_engine and ns_server v7.1.1 (neo), the grammar of the first cases.
var rel711 = &release{version: "7.1.1-3175-enterprise", kv: "7.1", mfl: map[string]string{
	"not_ready": "ns_janitor:cleanup_with_membase_bucket_vbucket_map:127", "start_failover": "ns_orchestrator:handle_start_failover:1600",
	"failing_over": "failover:orchestrate:151", "failed_over": "failover:orchestrate:161", "completion": "ns_orchestrator:log_rebalance_completion:1429",
	"enabling": "ns_memcached:handle_call:294", "warmed": "ns_memcached:handle_call:298", "doctor": "ns_doctor:update_status:309",
	"goport": "goport:handle_process_exit:566", "cushion": "supervisor_cushion:handle_info:54", "consume_log": "ns_log:consume_log:76",
	"compaction": "compaction_daemon:spawn_dbs_compactor:731", "port_log": "ns_port_server:log:226",
}}

// rel764 is Couchbase 7.6.4 (trinity): kv_engine v7.6.4 (the rollback's
// "(sid:none)", "flags:… filter:…" on stream creation, the reworded
// enableTraffic) and ns_server trinity (src/…: failover start with
// AllowUnsafe, the janitor's cleanup_with_membase_buckets_vbucket_map).
var rel764 = &release{version: "7.6.4-5146-enterprise", kv: "7.6", mfl: map[string]string{
	"not_ready": "ns_janitor:cleanup_with_membase_buckets_vbucket_map:232", "start_failover": "ns_orchestrator:handle_start_failover:1869",
	"failing_over": "failover:orchestrate:172", "failed_over": "failover:orchestrate:184", "completion": "ns_orchestrator:log_rebalance_completion:1667",
	"enabling": "ns_memcached:handle_call:370", "warmed": "ns_memcached:handle_call:374", "doctor": "ns_doctor:update_status:316",
	"goport": "goport:handle_process_exit:573", "cushion": "supervisor_cushion:handle_info:66", "consume_log": "ns_log:consume_log:76",
	"compaction": "compaction_daemon:spawn_dbs_compactor:691", "port_log": "ns_port_server:log:226",
}}

// rel800 is Couchbase 8.0.0 (morpheus): kv_engine v8.0.0's message plus
// JSON context (MB-60861), and ns_server morpheus, whose source moved under
// apps/ns_server/src, so the same functions log from other lines.
var rel800 = &release{version: "8.0.0-3777-enterprise", kv: "8.0", mfl: map[string]string{
	"not_ready": "ns_janitor:cleanup_with_membase_buckets_vbucket_map:255", "start_failover": "ns_orchestrator:handle_start_failover:2240",
	"failing_over": "failover:orchestrate:172", "failed_over": "failover:orchestrate:184", "completion": "ns_orchestrator:log_rebalance_completion:1894",
	"enabling": "ns_memcached:handle_call:406", "warmed": "ns_memcached:handle_call:410", "doctor": "ns_doctor:update_status:318",
	"goport": "goport:handle_process_exit:582", "cushion": "supervisor_cushion:handle_info:66", "consume_log": "ns_log:consume_log:77",
	"compaction": "compaction_daemon:spawn_dbs_compactor:725", "port_log": "ns_port_server:log:237",
}}

func (c *cluster) kv8() bool { return c.rel.kv == "8.0" }

// gsi7 reports whether GSI lines follow indexing trinity and morpheus
// (secondary/indexer/indexer.go, timekeeper.go): KeyspaceId where 6.6 said
// Bucket, startKeyspaceIdStream with a manifest column (common/timestamp.go
// TsVbuuid.String), TK StreamBegin with the KV host and the high-water mark,
// and the projector's "feed started. useMutationQueue: …".
func (c *cluster) gsi7() bool { return c.rel != rel711 }

// projName is the name of a projector feed's DCP connection as memcached
// and the projector log it. Up to 7.6: "secidx:proj-<keyspace>-<topic>-<uuid>/<n>"
// (dcp_feed.go DcpFeedPrefix). 8.0 (morpheus dcp_feed.go DcpFeedname2
// StreamLogPrefix): "DCPT:<topic>:<keyspace>:<uuid>:##<opaque>:<n>", which
// truncFeedName leaves as it is, so memcached gets it unchanged.
func (c *cluster) projName(keyspace, topic string, uuid uint64, opaque, n int) string {
	if c.kv8() {
		return fmt.Sprintf("DCPT:%s:%s:%d:##%x:%d", topic, keyspace, uuid, opaque, n)
	}
	return fmt.Sprintf("secidx:proj-%s-%s-%d/%d", keyspace, topic, uuid, n)
}

// dcpt is the prefix of a projector DCP connection's lines: DCPT[name] up
// to 7.6, the name itself in 8.0 (it starts with DCPT:).
func (c *cluster) dcpt(name string) string {
	if c.kv8() {
		return name
	}
	return "DCPT[" + name + "]"
}

// streamBegin is timekeeper.go's TK StreamBegin: "TK StreamBegin {stream}
// {keyspace} {vb} {vbuuid} {seqno} {opaque}" (indexing 6.6, the seed's), then
// " {kv host}. HWT [{snap start}-{snap end},{seqno}]." from 7.x.
func (c *cluster) streamBegin(stream, keyspace string, vb int, uuid, seqno uint64, opaque int, kv *cbnode, ss, se, hwt uint64) string {
	s := fmt.Sprintf("TK StreamBegin %s %s %d %d %d %d", stream, keyspace, vb, uuid, seqno, opaque)
	if c.gsi7() {
		s += fmt.Sprintf(" %s:8091. HWT [%d-%d,%d].", kv.host, ss, se, hwt)
	}
	return s
}

// indexerUp writes the line the indexer logs once it is up (indexing
// trinity and morpheus indexer.go NewIndexer): its version
// (common.INDEXER_CUR_VERSION: 9 in 7.6, 10 in 8.0), its priority
// (ServerPriority of the build, and GetVersion of it) and the build.
func (c *cluster) indexerUp(n *cbnode, t time.Time) {
	build, _, _ := strings.Cut(c.rel.version, "-enterprise")
	cur, prio := 9, "7060451"
	if c.kv8() {
		cur, prio = 10, "8000037"
	}
	c.gsi(n, "ns_server.indexer.log", t, "Info", fmt.Sprintf("Indexer::indexer version %d with priority %s (%s) PRODUCT_VERSION - %s", cur, build, prio, build))
}

// feedStarted writes dcp_feed.go's line when a feed's connection is up.
func (c *cluster) feedStarted(n *cbnode, t time.Time, name string, opaque int) {
	if c.gsi7() {
		c.gsi(n, "ns_server.projector.log", t, "Info", fmt.Sprintf("%s ##%x feed started. useMutationQueue: true ...", c.dcpt(name), opaque))
		return
	}
	c.gsi(n, "ns_server.projector.log", t, "Info", fmt.Sprintf("DCPT[%s] ##%x feed started ...", name, opaque))
}

type cbnode struct {
	otp, host string
	loc       *time.Location
	files     map[string][]line
	pid       int // Erlang process id counter, for realistic <0.N.0>
	cid       int
}

type line struct {
	t    time.Time
	seq  int
	text string
}

func newCluster(name, stamp string, seed uint64) *cluster {
	return &cluster{name: name, stamp: stamp, rng: rand.New(rand.NewPCG(seed, 1)), skipFiles: map[string]bool{}, rel: rel711}
}

func (c *cluster) node(otp string, loc *time.Location) *cbnode {
	n := &cbnode{otp: otp, host: nsserver.Host(otp), loc: loc, files: map[string][]line{}, pid: 2000 + c.rng.IntN(30000), cid: 40 + c.rng.IntN(200)}
	c.nodes = append(c.nodes, n)
	return n
}

func (c *cluster) add(n *cbnode, file string, t time.Time, text string) {
	c.seq++
	n.files[file] = append(n.files[file], line{t, c.seq, text})
}

// ---- line grammars ----

// mc writes a memcached.log line (logger/spdlogger.cc "%Y-%m-%dT%T.%f%z %l %v").
func (c *cluster) mc(n *cbnode, t time.Time, level, msg string) {
	c.add(n, "memcached.log", t, t.In(n.loc).Format("2006-01-02T15:04:05.000000-07:00")+" "+level+" "+msg)
}

// aleTime is ale_default_formatter's time: ms, and Z when the offset is 0.
func aleTime(n *cbnode, t time.Time) string {
	return t.In(n.loc).Format("2006-01-02T15:04:05.000Z07:00")
}

// ale writes an ns_server log entry (ale_default_formatter.erl).
func (c *cluster) ale(n *cbnode, file string, t time.Time, logger, level, proc, mfl, msg string) {
	who := n.otp
	if file == "ns_server.babysitter.log" {
		who = "babysitter_of_ns_1@cb.local"
	}
	c.add(n, file, t, fmt.Sprintf("[%s:%s,%s,%s:%s:%s]%s", logger, level, aleTime(n, t), who, proc, mfl, msg))
}

func (n *cbnode) proc() string {
	n.pid += 1 + int(n.pid%7)
	return fmt.Sprintf("<0.%d.0>", n.pid)
}

// user writes a user-visible message: ns_server.info.log and diag.log.
func (c *cluster) user(n *cbnode, t time.Time, module, mfl, msg string) {
	c.ale(n, "ns_server.info.log", t, "user", "info", n.proc(), mfl, msg)
	c.seq++
	c.diag = append(c.diag, line{t, c.seq, fmt.Sprintf("%s, %s:0:info:message(%s) - %s", aleTime(n, t), module, n.otp, msg)})
}

// gsi writes an indexer or projector line (secondary/logging/logging.go).
func (c *cluster) gsi(n *cbnode, file string, t time.Time, level, msg string) {
	c.add(n, file, t, t.In(n.loc).Format("2006-01-02T15:04:05.000-07:00")+" ["+level+"] "+msg)
}

// event writes an event log entry (event_log.erl) with a UTC timestamp.
func (c *cluster) event(n *cbnode, t time.Time, id int, component, desc, severity string, extra map[string]any) {
	obj := map[string]any{
		"timestamp": t.UTC().Format("2006-01-02T15:04:05.000Z"), "event_id": id, "component": component,
		"description": desc, "severity": severity, "node": n.host, "otp_node": n.otp, "uuid": c.uuid(),
	}
	if extra != nil {
		obj["extra_attributes"] = extra
	}
	// event_log.erl builds the object in this key order.
	keys := []string{"timestamp", "event_id", "component", "description", "severity", "node", "otp_node", "uuid", "extra_attributes"}
	var parts []string
	for _, k := range keys {
		v, ok := obj[k]
		if !ok {
			continue
		}
		b, _ := json.Marshal(v)
		parts = append(parts, fmt.Sprintf("%q:%s", k, b))
	}
	c.seq++
	c.events = append(c.events, line{t, c.seq, "{" + strings.Join(parts, ",") + "}"})
}

func (c *cluster) uuid() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 36)
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		case 14:
			b[i] = '4'
		default:
			b[i] = hex[c.rng.IntN(16)]
		}
	}
	return string(b)
}

func (c *cluster) hex(n int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hex[c.rng.IntN(16)]
	}
	return string(b)
}

// jitter returns t plus up to ms milliseconds, at µs resolution.
func (c *cluster) jitter(t time.Time, ms int) time.Time {
	return t.Add(time.Duration(c.rng.IntN(ms*1000)) * time.Microsecond)
}

// ---- writing ----

const rule78 = "=============================================================================="

// headers are cbcollect_info's task header blocks (cbcollect_info: header()).
var headers = map[string][2]string{
	"memcached.log":            {"Memcached logs", `sh -c cd "$1"; for file in $(ls -tr memcached.log.*); do cat "$file"; done -- /opt/couchbase/var/lib/couchbase/logs`},
	"ns_server.info.log":       {"couchbase logs (info.log)", "cbbrowse_logs info.log"},
	"ns_server.babysitter.log": {"couchbase logs (babysitter.log)", "cbbrowse_logs babysitter.log"},
	"ns_server.indexer.log":    {"couchbase logs (indexer.log)", "cbbrowse_logs indexer.log"},
	"ns_server.projector.log":  {"couchbase logs (projector.log)", "cbbrowse_logs projector.log"},
	"diag.log":                 {"couchbase diags", "curl -sS -k --proxy  -K- http://127.0.0.1:8091/diag"},
}

func sortLines(ls []line) {
	sort.SliceStable(ls, func(i, j int) bool {
		if !ls[i].t.Equal(ls[j].t) {
			return ls[i].t.Before(ls[j].t)
		}
		return ls[i].seq < ls[j].seq
	})
}

// files renders the case: its files by path in the case's folder.
func (c *cluster) files() (map[string][]byte, error) {
	out := map[string][]byte{}
	sortLines(c.diag)
	sortLines(c.events)
	for _, n := range c.nodes {
		folder := "cbcollect_info_" + n.otp + "_" + c.stamp
		n.files["diag.log"] = nil
		for name, ls := range n.files {
			if c.skipFiles[n.otp+"/"+name] {
				continue
			}
			var b strings.Builder
			h := headers[name]
			fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n", rule78, h[0], h[1], rule78)
			if name == "diag.log" {
				c.writeDiag(&b, n)
			} else {
				sortLines(ls)
				for _, l := range ls {
					b.WriteString(l.text + "\n")
				}
			}
			out[folder+"/"+name] = []byte(b.String())
		}
	}
	exp := map[string]any{"description": c.description, "findings": c.expect}
	if c.expect == nil {
		exp["findings"] = []any{}
		exp["absent"] = []string{"kv-stream-before-traffic"}
	}
	b, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return nil, err
	}
	out["expect.json"] = append(b, '\n')
	return out, nil
}

// writeDiag writes GET /diag as diag_handler does: the user-visible log of
// all nodes, the event log, then per-node Erlang terms (abridged).
func (c *cluster) writeDiag(b *strings.Builder, n *cbnode) {
	b.WriteString("logs:\n-------------------------------\n")
	for _, l := range c.diag {
		b.WriteString(l.text + "\n")
	}
	b.WriteString("-------------------------------\n\n\nEvent Logs:\n-------------------------------\n")
	for _, l := range c.events {
		b.WriteString(l.text + "\n")
	}
	b.WriteString("-------------------------------\n\n\n")
	fmt.Fprintf(b, "per_node_diag(%s) =\n", n.otp)
	fmt.Fprintf(b, "     [{version,[{kernel,\"8.1.3\"},\n")
	fmt.Fprintf(b, "                {ale,\"%s\"},\n", c.rel.version)
	fmt.Fprintf(b, "                {os_mon,\"2.7.1\"},\n")
	fmt.Fprintf(b, "                {ns_server,\"%s\"}]},\n", c.rel.version)
	fmt.Fprintf(b, "      {manifest,[\"<project name=\\\"kv_engine\\\" path=\\\"kv_engine\\\" revision=\\\"%s\\\"/>\"]},\n", c.hex(40))
	fmt.Fprintf(b, "      {system_arch,\"x86_64-pc-linux-gnu\"},\n")
	fmt.Fprintf(b, "      {wall_clock,%d},\n", 3000+c.rng.IntN(90000))
	fmt.Fprintf(b, "      {memory_data,{%d,%d,{<0.%d.0>,%d}}}]\n", 16363216896, 9734443008+c.rng.IntN(1e8), 300+c.rng.IntN(500), 1229768)
}

// ---- noise, drawn from the same templates ----

// noise writes ordinary lines into every log of n between from and to,
// about one per every seconds seconds per file.
func (c *cluster) noise(n *cbnode, from, to time.Time, every int, buckets []string, peers []*cbnode, kv, index bool) {
	span := int(to.Sub(from) / time.Second)
	at := func() time.Time { return from.Add(time.Duration(c.rng.Int64N(int64(span) * int64(time.Second)))) }
	count := span / every
	bucket := func() string { return buckets[c.rng.IntN(len(buckets))] }
	if kv {
		for range count {
			t := at()
			switch c.rng.IntN(6) {
			case 0, 1:
				// daemon/protocol/mcbp/sasl_auth_command_context.cc
				if c.kv8() {
					c.mc(n, t, "INFO", fmt.Sprintf(`Client authenticated {"conn_id":%d,"description":{"peer":{"ip":"%s","port":%d},"socket":{"ip":"%s","port":11210},"user":{"name":"<ud>Administrator</ud>"}},"mechanism":"SCRAM-SHA512"}`,
						n.cid+c.rng.IntN(4000), peerHost(c, peers, n), 40000+c.rng.IntN(25000), n.host))
					break
				}
				c.mc(n, t, "INFO", fmt.Sprintf(`%d: Client {"ip":"%s","port":%d} authenticated as <ud>Administrator</ud>`,
					n.cid+c.rng.IntN(4000), peerHost(c, peers, n), 40000+c.rng.IntN(25000)))
			case 2:
				// daemon/cookie.cc
				vb := c.rng.IntN(1024)
				if c.kv8() {
					c.mc(n, t, "WARNING", fmt.Sprintf(`Slow operation {"conn_id":%d,"bucket":"%s","command":"GET","duration":"%d ms","packet":{"bodylen":%d,"cas":0,"datatype":"raw","extlen":0,"key":"<ud>key::%06d</ud>","keylen":13,"magic":"ClientRequest","opaque":%d,"opcode":"GET","vbucket":%d},"peer":{"ip":"%s","port":%d},"response":"Success","worker_tid":%d}`,
						n.cid+c.rng.IntN(4000), bucket(), 500+c.rng.IntN(900), 13, c.rng.IntN(999999), c.rng.IntN(1<<16), vb, peerHost(c, peers, n), 40000+c.rng.IntN(25000), 139800000000000+c.rng.IntN(1e9)))
					break
				}
				c.mc(n, t, "WARNING", fmt.Sprintf(`%d: Slow operation: {"bucket":"%s","cid":"%s:%d/%x","command":"GET","duration":"%d ms","packet":{"bodylen":%d,"cas":0,"datatype":"raw","extlen":0,"key":"<ud>key::%06d</ud>","keylen":%d,"magic":"ClientRequest","opaque":%d,"opcode":"GET","vbucket":%d},"peer":{"ip":"%s","port":%d},"response":"Success","trace":"request=%d:%d","worker_tid":%d}`,
					n.cid+c.rng.IntN(4000), bucket(), n.host, 40000+c.rng.IntN(25000), c.rng.IntN(1<<20), 500+c.rng.IntN(900),
					13, c.rng.IntN(999999), 13, c.rng.IntN(1<<16), vb, peerHost(c, peers, n), 40000+c.rng.IntN(25000),
					c.rng.Int64N(1e15), 500000+c.rng.IntN(900000), 139800000000000+c.rng.IntN(1e9)))
			case 3:
				// kv_bucket.cc
				if c.kv8() {
					c.mc(n, t, "WARNING", fmt.Sprintf(`Slow runtime {"bucket":"%s","task":"Checkpoint Remover","thread":"nonIO_worker_%d","runtime":"%d ms"}`, bucket(), c.rng.IntN(4), 1000+c.rng.IntN(700)))
					break
				}
				c.mc(n, t, "WARNING", fmt.Sprintf("(%s) Slow runtime for 'Checkpoint Remover' on thread nonIO_worker_%d: %d ms", bucket(), c.rng.IntN(4), 1000+c.rng.IntN(700)))
			case 4, 5:
				// dcp/active_stream.cc, replication streams to the replica nodes
				p := peers[c.rng.IntN(len(peers))]
				b := bucket()
				vb := c.rng.IntN(1024)
				if c.kv8() {
					ctx := fmt.Sprintf(`"conn_id":%d,"bucket":"%s","dcp":"producer","dcp_name":"eq_dcpq:replication:%s->%s:%s","vb":"vb:%d"`, n.cid, b, n.otp, p.otp, b, vb)
					if c.rng.IntN(2) == 0 {
						s := 3000 + c.rng.IntN(2000)
						c.mc(n, t, "INFO", fmt.Sprintf(`ActiveStream::markDiskSnapshot: Sending disk snapshot {%s,"snapshot":[%d,%d],"flags":"disk,checkpoint","high_completed_seqno":"none","max_visible_seqno":%d,"last_backfilled_seqno":%d}`, ctx, s, s+c.rng.IntN(60), s+c.rng.IntN(60), s))
					} else {
						c.mc(n, t, "INFO", fmt.Sprintf(`ActiveStream::transitionState: Transitioning {%s,"from":"backfilling","to":"in-memory","details":""}`, ctx))
					}
					break
				}
				pre := fmt.Sprintf("%d: (%s) DCP (Producer) eq_dcpq:replication:%s->%s:%s - (vb:%d)", n.cid, b, n.otp, p.otp, b, vb)
				if c.rng.IntN(2) == 0 {
					s := 3000 + c.rng.IntN(2000)
					c.mc(n, t, "INFO", fmt.Sprintf("%s ActiveStream::markDiskSnapshot: Sending disk snapshot with start %d, end %d, and high completed none, max visible %d", pre, s, s+c.rng.IntN(60), s+c.rng.IntN(60)))
				} else {
					c.mc(n, t, "INFO", pre+" ActiveStream::transitionState: Transitioning from backfilling to in-memory")
				}
			}
		}
		for range count / 2 {
			t := at()
			// compaction_daemon.erl spawn_dbs_compactor
			c.ale(n, "ns_server.info.log", t, "ns_server", "info", n.proc(), c.rel.mfl["compaction"],
				"Finished compaction of databases for bucket "+bucket())
		}
		for range count / 4 {
			t := at()
			// dcp/transport/client/dcp_feed.go logStats
			name := c.projName(bucket(), "MAINT_STREAM_TOPIC_"+c.hex(32), uint64(c.rng.Int64N(1e18)), 1, 0)
			c.gsi(n, "ns_server.projector.log", t, "Info", fmt.Sprintf(`%s ##%x stats: {"bytes":%d,"bufferacks":%d,"toAckBytes":%d,"streamreqs":%d,"snapshots":%d,"mutations":%d,"deletions":%d,"expires":%d,"streamends":0,"closestreams":0,"lastAckTime":%.6fs,"lastNoopSend":%.6fs,"lastNoopRecv":%.6fs,"lastMsgSend":%.6fs,"lastMsgRecv":%.6fs,"rcvchLen":0,"rcvchCap":10000,"incomingMsg":%d}`,
				c.dcpt(name), c.rng.IntN(255), c.rng.Int64N(1e9), c.rng.IntN(5000), c.rng.IntN(1<<20), c.rng.IntN(400), c.rng.IntN(99999), c.rng.IntN(999999),
				c.rng.IntN(999), c.rng.IntN(99), c.rng.Float64()*60, c.rng.Float64()*60, c.rng.Float64()*60, c.rng.Float64()*2, c.rng.Float64()*2, c.rng.IntN(1e7)))
		}
		for range count / 6 {
			c.ale(n, "ns_server.babysitter.log", at(), "ns_server", "info", n.proc(), c.rel.mfl["port_log"],
				fmt.Sprintf("cbq-engine<0.%d.0>: _time=%s _level=INFO _msg=Query Configuration changed for node-quota.", 300+c.rng.IntN(200), at().In(n.loc).Format("2006-01-02T15:04:05.000-07:00")))
		}
	}
	if index {
		for range count {
			t := at()
			// indexer/storage_manager.go handleCreateSnapshot
			c.gsi(n, "ns_server.indexer.log", t, "Info", fmt.Sprintf("StorageMgr::handleCreateSnapshot Added New Snapshot Index: %d PartitionId: 0 SliceId: 0 Crc64: %d (SnapshotInfo: count:%d committed:false) SnapCreateDur %dµs SnapOpenDur %dµs",
				[]uint64{7165339316829419245, 12766839110520311237, 2935881719220193451}[c.rng.IntN(3)], c.rng.Uint64(), 40000+c.rng.IntN(20000), 10+c.rng.IntN(400), 5+c.rng.IntN(40)))
		}
		for range count / 3 {
			c.ale(n, "ns_server.info.log", at(), "ns_server", "info", n.proc(), c.rel.mfl["compaction"],
				"Finished compaction of databases for bucket "+bucket())
		}
	}
}

func peerHost(c *cluster, peers []*cbnode, n *cbnode) string {
	if c.rng.IntN(3) == 0 {
		return "127.0.0.1"
	}
	return peers[c.rng.IntN(len(peers))].host
}

// ---- incident pieces ----

// boot writes a memcached start, as after a kill when killed is true:
// the new process opens a new log file with no Closing line before it.
// 8.0 writes no Opening logfile line (logger/custom_rotating_file_sink.h
// has the opening and closing markers in v7.6.4, none in v8.0.0) and logs
// the banner with its context (daemon/memcached.cc v8.0.0).
func (c *cluster) boot(n *cbnode, t time.Time, version string) time.Time {
	if c.kv8() {
		c.mc(n, t, "INFO", fmt.Sprintf(`Couchbase version starting {"version":"%s"}`, version))
		t = t.Add(41 * time.Microsecond)
		c.mc(n, t, "INFO", fmt.Sprintf(`Process identifier {"pid":%d}`, 1000+c.rng.IntN(60000)))
		t = t.Add(27 * time.Millisecond)
		c.mc(n, t, "INFO", `Using SLA configuration {"COMPACT_DB":{"slow":"1800 s"},"DELETE_BUCKET":{"slow":"10 s"},"comment":"Current MCBP SLA configuration","default":{"slow":"500 ms"},"version":1}`)
		return t
	}
	c.mc(n, t, "INFO", "---------- Opening logfile: ")
	t = t.Add(312 * time.Microsecond)
	c.mc(n, t, "INFO", "Couchbase version "+version+" starting.")
	t = t.Add(1200 * time.Microsecond)
	c.mc(n, t, "INFO", "Breakpad enabled. Minidumps will be written to '/opt/couchbase/var/lib/couchbase/crash'")
	t = t.Add(27 * time.Millisecond)
	c.mc(n, t, "INFO", "Using SLA configuration: {\"COMPACT_DB\":{\"slow\":\"1800 s\"},\"DELETE_BUCKET\":{\"slow\":\"10 s\"},\"comment\":\"Current MCBP SLA configuration\",\"default\":{\"slow\":\"500 ms\"},\"version\":1}")
	return t
}

// createBucket writes the bucket's creation and warmup's new failover
// entries (daemon/buckets.cc, warmup.cc, collections/manager.cc).
func (c *cluster) createBucket(n *cbnode, t time.Time, bucket string, entries map[int][2]uint64, unclean bool) time.Time {
	cid := n.cid + c.rng.IntN(30)
	kv8 := c.kv8()
	if kv8 {
		c.mc(n, t, "INFO", fmt.Sprintf(`Create bucket {"conn_id":%d,"bucket":"%s","type":"Couchbase"}`, cid, bucket))
	} else {
		c.mc(n, t, "INFO", fmt.Sprintf("%d: Create Couchbase bucket [%s]", cid, bucket))
	}
	t = c.jitter(t.Add(80*time.Millisecond), 40)
	if kv8 {
		// 8.0 gets the manifest with the bucket's config (ep_engine.cc
		// initialize, collections/manager.cc); warmup no longer loads it.
		c.mc(n, t, "INFO", fmt.Sprintf(`Collections::Manager::setInitialCollectionManifest: starting at uid:0x%x {"bucket":"%s"}`, 1+c.rng.IntN(40), bucket))
	} else {
		c.mc(n, t, "INFO", fmt.Sprintf("(%s) Collections::Manager::warmupLoadManifest: starting at uid:0x%x", bucket, 1+c.rng.IntN(40)))
	}
	t = c.jitter(t.Add(120*time.Millisecond), 50)
	if kv8 {
		c.mc(n, t, "INFO", fmt.Sprintf(`Bucket created successfully {"conn_id":%d,"bucket":"%s"}`, cid, bucket))
	} else {
		c.mc(n, t, "INFO", fmt.Sprintf("%d: Bucket [%s] created successfully", cid, bucket))
	}
	if !unclean {
		return t
	}
	t = c.jitter(t.Add(90*time.Millisecond), 30)
	var vbs []int
	for vb := range entries {
		vbs = append(vbs, vb)
	}
	sort.Ints(vbs)
	for _, vb := range vbs {
		t = t.Add(time.Duration(40+c.rng.IntN(200)) * time.Microsecond)
		if kv8 {
			c.mc(n, t, "INFO", fmt.Sprintf(`Warmup(Primary)::createVBuckets: vb:%d created new failover entry with uuid:%d and seqno:%d due to unclean shutdown {"bucket":"%s"}`,
				vb, entries[vb][0], entries[vb][1], bucket))
			continue
		}
		c.mc(n, t, "INFO", fmt.Sprintf("(%s) Warmup::createVBuckets: vb:%d created new failover entry with uuid:%d and seqno:%d due to unclean shutdown",
			bucket, vb, entries[vb][0], entries[vb][1]))
	}
	return t
}

// warmupUnblock writes warmup.cc releasing the requests that waited for
// the vbuckets: processCreateVBucketsComplete (7.1), notifyWaitingCookies
// with a status (7.6), named Warmup(Primary) (8.0).
func (c *cluster) warmupUnblock(n *cbnode, t time.Time, bucket string, cookies int) {
	switch c.rel.kv {
	case "8.0":
		c.mc(n, t, "INFO", fmt.Sprintf(`Warmup(Primary)::notifyWaitingCookies unblocking %d cookie(s) status:success {"bucket":"%s"}`, cookies, bucket))
	case "7.6":
		c.mc(n, t, "INFO", fmt.Sprintf("(%s) Warmup::notifyWaitingCookies unblocking %d cookie(s) status:success", bucket, cookies))
	default:
		c.mc(n, t, "INFO", fmt.Sprintf("(%s) Warmup::processCreateVBucketsComplete unblocking %d cookie(s)", bucket, cookies))
	}
}

// warmupCompleted writes warmup.cc's completion line: "Warmup completed:
// {} keys and {} values loaded in {} ({} keys/s), mem_used now at {} MB
// ({} MB/s)" up to 7.6; 8.0 names the warmup, adds totals and prints
// human sizes (cb::size2human).
func (c *cluster) warmupCompleted(n *cbnode, t time.Time, bucket, line71 string, keys, ms int, mb float64) {
	if !c.kv8() {
		c.mc(n, t, "INFO", line71)
		return
	}
	secs := float64(ms) / 1000
	c.mc(n, t, "INFO", fmt.Sprintf(`Warmup(Primary) completed: %d keys (total:%d) and %d values (total:%d) loaded in %d ms (%.2f keys/s %.2f values/s), mem_used now at %.2fMiB (%.2fMiB/s) {"bucket":"%s"}`,
		keys, keys, keys, keys, ms, float64(keys)/secs, float64(keys)/secs, mb, mb/secs, bucket))
}

// vbSetState writes vbucket.cc's state change with ns_server's meta.
func (c *cluster) vbSetState(n *cbnode, t time.Time, bucket string, vb int, high uint64, meta string) {
	if c.kv8() {
		c.mc(n, t, "INFO", fmt.Sprintf(`VBucket::setState: transitioning {"bucket":"%s","vb":"vb:%d","high_seqno":%d,"from":"replica","to":"active","meta":%s}`, bucket, vb, high, meta))
		return
	}
	c.mc(n, t, "INFO", fmt.Sprintf(`(%s) VBucket::setState: transitioning vb:%d with high seqno:%d from:replica to:active meta:%s`, bucket, vb, high, meta))
}

// dcpOpen writes memcached accepting the projector's DCP connection
// (daemon/protocol/mcbp/dcp_open_executor.cc).
func (c *cluster) dcpOpen(n *cbnode, t time.Time, cid int) {
	port := 40000 + c.rng.IntN(25000)
	if c.kv8() {
		c.mc(n, t, "INFO", fmt.Sprintf(`DCP connection opened successfully {"conn_id":%d,"flags":["PRODUCER","INCLUDE_XATTRS"],"description":{"peer":{"ip":"127.0.0.1","port":%d},"socket":{"ip":"127.0.0.1","port":11210},"user":{"name":"<ud>@projector</ud>","system":true}}}`, cid, port))
		return
	}
	c.mc(n, t, "INFO", fmt.Sprintf(`%d: DCP connection opened successfully. PRODUCER, INCLUDE_XATTRS [ {"ip":"127.0.0.1","port":%d} - {"ip":"127.0.0.1","port":11210} (System, <ud>@projector</ud>) ]`, cid, port))
}

// dcpCtx is an 8.0 DCP producer's context before the message's own keys
// (engines/ep/src/bucket_logger.cc, dcp/producer.cc setLogContext,
// dcp/active_stream.cc logWithContext).
func dcpCtx(cid int, bucket, mcName string, vb int) string {
	return fmt.Sprintf(`"conn_id":%d,"bucket":"%s","dcp":"producer","dcp_name":"eq_dcpq:%s","vb":"vb:%d"`, cid, bucket, mcName, vb)
}

// streamRollback writes memcached's rollback answer (dcp/producer.cc), the
// projector's view of it (dcp_feed.go, feed.go).
func (c *cluster) streamRollback(n *cbnode, t time.Time, cid int, bucket, mcName, projName string, opaque int, vb int, to, reqStart, snapS, snapE, uuid uint64, reason string) time.Time {
	switch c.rel.kv {
	case "8.0":
		c.mc(n, t, "WARNING", fmt.Sprintf(`Stream request requires rollback to seqno {%s,"rollback_seqno":%d,"rollback_reason":"%s","start_seqno":%d,"end_seqno":18446744073709551615,"snapshot":[%d,%d],"vb_uuid":%d}`,
			dcpCtx(cid, bucket, mcName, vb), to, reason, reqStart, snapS, snapE, uuid))
	case "7.6":
		c.mc(n, t, "WARNING", fmt.Sprintf("%d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) (sid:none) Stream request requires rollback to seqno:%d because %s. Client requested seqnos:{%d,18446744073709551615} snapshot:{%d,%d} uuid:%d",
			cid, bucket, mcName, vb, to, reason, reqStart, snapS, snapE, uuid))
	default:
		c.mc(n, t, "WARNING", fmt.Sprintf("%d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) Stream request requires rollback to seqno:%d because %s. Client requested seqnos:{%d,18446744073709551615} snapshot:{%d,%d} uuid:%d",
			cid, bucket, mcName, vb, to, reason, reqStart, snapS, snapE, uuid))
	}
	t2 := c.jitter(t.Add(300*time.Microsecond), 1)
	if projName != "" {
		c.gsi(n, "ns_server.projector.log", t2, "Warn", fmt.Sprintf("%s ##%x STREAMREQ(%d) with rollback %d", c.dcpt(projName), opaque, vb, to))
	}
	return t2
}

func (c *cluster) streamCreated(n *cbnode, t time.Time, cid int, bucket, mcName string, vb int, start, snapS, snapE uint64) {
	switch c.rel.kv {
	case "8.0":
		c.mc(n, t, "INFO", fmt.Sprintf(`Creating stream {%s,"takeover":false,"start_seqno":%d,"end_seqno":18446744073709551615,"requested_end_seqno":18446744073709551615,"flags":"None","snapshot":[%d,%d],"filter":"filter:{passthrough, size:0}"}`,
			dcpCtx(cid, bucket, mcName, vb), start, snapS, snapE))
	case "7.6":
		c.mc(n, t, "INFO", fmt.Sprintf("%d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) Creating stream with start seqno %d and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, flags:0, snapshot:{%d,%d} filter:{passthrough, size:0}, sid:none",
			cid, bucket, mcName, vb, start, snapS, snapE))
	default:
		c.mc(n, t, "INFO", fmt.Sprintf("%d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) Creating stream with start seqno %d and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{%d,%d} collections-filter-size:0 sid:none",
			cid, bucket, mcName, vb, start, snapS, snapE))
	}
}

// backch writes the projector handing memcached's answer to the indexer
// (projector/feed.go PostStreamRequest).
func (c *cluster) backch(n *cbnode, t time.Time, topic, cluster string, feedOp int, status, bucket string, vb int, uuid, seqno uint64, op int, kvdata uint64) {
	c.gsi(n, "ns_server.projector.log", t, "Info", fmt.Sprintf("FEED[<=>%s(%s)] ##%x backch *projector.controlStreamRequest {controlStreamRequest, %s, %s, %d, %x, %d, ##%x, %d}",
		topic, cluster, feedOp, status, bucket, vb, uuid, seqno, op, kvdata))
}

// trafficOn writes ns_server enabling traffic and ep_engine.cc doing it:
// enableTraffic() plus handleTrafficControlCmd() (7.1), "enableTraffic:
// Traffic successfully enabled" (7.6, MB-51916), the 8.0 context form.
func (c *cluster) trafficOn(n *cbnode, t time.Time, bucket string, started time.Time, ready []*cbnode) {
	p := n.proc()
	c.ale(n, "ns_server.info.log", t, "ns_server", "info", "ns_memcached-"+bucket+p, c.rel.mfl["enabling"], fmt.Sprintf("Enabling traffic to bucket %q", bucket))
	t1 := c.jitter(t.Add(2*time.Millisecond), 2)
	switch c.rel.kv {
	case "8.0":
		c.mc(n, t1, "INFO", fmt.Sprintf(`EventuallyPersistentEngine::enableTraffic {"bucket":"%s","state":"enabled"}`, bucket))
	case "7.6":
		c.mc(n, t1, "INFO", fmt.Sprintf("(%s) EventuallyPersistentEngine::enableTraffic: Traffic successfully enabled", bucket))
	default:
		c.mc(n, t1, "INFO", fmt.Sprintf("(%s) EventuallyPersistentEngine::enableTraffic() result true", bucket))
		c.mc(n, t1.Add(41*time.Microsecond), "INFO", fmt.Sprintf("(%s) EventuallyPersistentEngine::handleTrafficControlCmd() Data traffic to persistence engine is enabled", bucket))
	}
	t2 := t1.Add(time.Millisecond)
	secs := int(t2.Sub(started) / time.Second)
	c.ale(n, "ns_server.info.log", t2, "ns_server", "info", "ns_memcached-"+bucket+p, c.rel.mfl["warmed"], fmt.Sprintf("Bucket %q marked as warmed in %d seconds", bucket, secs))
	c.event(n, t2.Add(time.Millisecond), 8199, "data", "Bucket online", "info", map[string]any{"bucket": bucket, "bucket_uuid": c.hex(32), "warmup_time": secs})
	for i, o := range ready {
		// ns_doctor update_status: about a heartbeat later, on every node.
		tr := c.jitter(t2.Add(time.Duration(700+300*i)*time.Millisecond), 300)
		c.ale(o, "ns_server.info.log", tr, "ns_server", "info", "ns_doctor"+o.proc(), c.rel.mfl["doctor"],
			fmt.Sprintf("The following buckets became ready on node '%s': [%q]", n.otp, bucket))
	}
}

// crash writes memcached being killed: the babysitter, ns_log's
// user-visible entry (with memcached's last output) and event 19.
func (c *cluster) crash(n *cbnode, t time.Time, status int, lastOutput []string) {
	c.ale(n, "ns_server.babysitter.log", t.Add(-2*time.Millisecond), "ns_server", "info", n.proc(), c.rel.mfl["goport"], fmt.Sprintf("Port exited with status %d.", status))
	c.ale(n, "ns_server.babysitter.log", t.Add(-time.Millisecond), "ns_server", "info", n.proc(), c.rel.mfl["cushion"], fmt.Sprintf("Cushion managed supervisor for memcached failed:  {abnormal,%d}", status))
	msg := fmt.Sprintf("Service 'memcached' exited with status %d. Restarting. Messages:", status)
	c.ale(n, "ns_server.info.log", t, "user", "info", n.proc(), c.rel.mfl["consume_log"], msg+"\n"+strings.Join(lastOutput, "\n"))
	c.seq++
	c.diag = append(c.diag, line{t, c.seq, fmt.Sprintf("%s, ns_log:0:info:message(%s) - %s", aleTime(n, t), n.otp, msg)})
	c.event(n, t.Add(time.Millisecond), 19, "ns_server", "Service crashed", "error", map[string]any{"name": "memcached", "exit_status": status, "os_pid": 2000 + c.rng.IntN(60000)})
}

// ---- the cases ----

func mustLoc(name string, offset int) *time.Location { return time.FixedZone(name, offset) }

var pdt = mustLoc("PDT", -7*3600)

// vbuuid derives a stable, realistic 48-bit vbucket uuid for a vbucket.
func vbuuid(seed, vb int) uint64 {
	x := uint64(seed)*0x9E3779B97F4A7C15 + uint64(vb)*0xBF58476D1CE4E5B9
	x ^= x >> 31
	return x&0xffffffffffff | 0x100000000000
}
