package main

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// The noise of a Couchbase 7.1 node: the lines a busy cluster logs when
// nothing is wrong, in the grammars of memcached.log (kv_engine spdlog),
// ns_server's ale logs and the Go services' logs. Templates come from the
// committed cases and the parsers' tests; their proportions follow real
// cbcollect_info zips of data and index nodes, where DCP backfills, slow
// operations and authentications fill memcached.log, and ns_doctor,
// ns_config and json_rpc fill ns_server.debug.log.
//
// The noise holds no restart, warmup, traffic change, failover or stream
// request from a GSI consumer: those belong to the buried incident, and
// more of them would be another incident. Stream creations are ns_server's
// own replication streams, and vbucket state changes avoid the incident's
// vbuckets (test3 139–146).

type cbCtx struct {
	cl      *cluster
	n       *cbNode
	peers   []string // the other data nodes
	data    []string // every data node
	index   string   // the index node
	topics  []string // the indexer's DCP feed topics
	tids    []int64  // memcached worker thread ids
	buckets []string
}

func newCBCtx(cl *cluster, n *cbNode) *cbCtx {
	c := &cbCtx{cl: cl, n: n, buckets: []string{"default", "test3"}}
	for _, m := range cl.nodes {
		switch {
		case m.index:
			c.index = m.host
		case m.host != n.host:
			c.peers = append(c.peers, m.host)
			c.data = append(c.data, m.host)
		default:
			c.data = append(c.data, m.host)
		}
	}
	r := newRand(mix(cl.o.seed, label(n.host+"/ctx")))
	for range 2 {
		c.topics = append(c.topics, fmt.Sprintf("MAINT_STREAM_TOPIC_%016x%016x", r.Uint64(), r.Uint64()))
	}
	for range 8 {
		c.tids = append(c.tids, 139800000000000+r.Int64N(999999999))
	}
	return c
}

// piece appends the rest of a line, or a few lines, after its time.
type piece struct {
	w int
	f func(b []byte, r *rand.Rand, ts []byte) []byte
}

// mixed draws one piece per entry, by weight, and stamps it.
func mixed(stamp func([]byte, time.Time) []byte, pieces ...piece) template {
	total := 0
	for _, p := range pieces {
		total += p.w
	}
	return func(b []byte, r *rand.Rand, t time.Time) []byte {
		var tsb [40]byte
		ts := stamp(tsb[:0], t)
		x := r.IntN(total)
		for _, p := range pieces {
			if x < p.w {
				return p.f(b, r, ts)
			}
			x -= p.w
		}
		panic("unreachable")
	}
}

func one[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// bucket picks a bucket; default carries most of the load.
func (c *cbCtx) bucket(r *rand.Rand) string {
	if r.IntN(10) < 6 {
		return "default"
	}
	return "test3"
}

// vb picks a vbucket outside the incident's.
func vbNotIncident(r *rand.Rand) int {
	for {
		if vb := r.IntN(1024); vb < 139 || vb > 146 {
			return vb
		}
	}
}

func (c *cbCtx) clientIP(r *rand.Rand) string {
	switch x := r.IntN(10); {
	case x < 4:
		return "127.0.0.1"
	case x < 6 && c.index != "":
		return c.index
	}
	if len(c.peers) == 0 {
		return "127.0.0.1"
	}
	return one(r, c.peers)
}

// replication names ns_server's DCP replication from this node to peer.
func (c *cbCtx) replication(peer, bucket string) string {
	return "replication:ns_1@" + c.n.host + "->ns_1@" + peer + ":" + bucket
}

// producerCID is the connection id of the replication producer to peer:
// one long-lived connection per peer and bucket.
func (c *cbCtx) producerCID(peer, bucket string) int {
	id := 223
	for i, p := range c.peers {
		if p == peer {
			id += i * 7
		}
	}
	if bucket == "test3" {
		id += 3
	}
	return id
}

var heloAgents = []string{
	`goxdcr/7.1.1 SourceBucket:default TargetBucket:default`,
	`gocbcore/v10.1.2 gocb/v2.4.0`,
	`cbq-engine/7.1.1-3175-enterprise`,
	`proj-default-MAINT_STREAM_TOPIC`,
	`ns_server`,
	`cbcollect_info`,
}

const heloFeatures = "TCP nodelay, XATTR, XERROR, Select bucket, Snappy, JSON, Duplex, Clustermap change notification, Unordered execution, Tracing, Collections"

var slowTasks = []string{"Checkpoint Remover", "Checkpoint Remover", "Checkpoint Remover", "Item Compressor", "Durability Completion Task"}

// memcachedData is memcached.log of a data node.
func (c *cbCtx) memcachedData() template {
	self := c.n.host
	dcp := func(b []byte, r *rand.Rand, ts []byte, body string, args ...any) []byte {
		peer := one(r, c.peers)
		bucket := c.bucket(r)
		b = fmt.Appendf(b, "%s INFO %d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) ", ts, c.producerCID(peer, bucket), bucket, c.replication(peer, bucket), vbNotIncident(r))
		b = fmt.Appendf(b, body, args...)
		return append(b, '\n')
	}
	return mixed(mcStamp,
		piece{190, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s INFO %d: Client {\"ip\":\"%s\",\"port\":%d} authenticated as <ud>Administrator</ud>\n",
				ts, 100+r.IntN(4000), c.clientIP(r), 40000+r.IntN(25000))
		}},
		piece{120, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s WARNING %d: Slow operation: {\"bucket\":\"%s\",\"cid\":\"%s:%d/%x\",\"command\":\"GET\",\"duration\":\"%d ms\","+
				"\"packet\":{\"bodylen\":13,\"cas\":0,\"datatype\":\"raw\",\"extlen\":0,\"key\":\"<ud>key::%06d</ud>\",\"keylen\":13,\"magic\":\"ClientRequest\",\"opaque\":%d,\"opcode\":\"GET\",\"vbucket\":%d},"+
				"\"peer\":{\"ip\":\"%s\",\"port\":%d},\"response\":\"Success\",\"trace\":\"request=%d:%d\",\"worker_tid\":%d}\n",
				ts, 100+r.IntN(4000), c.bucket(r), self, 40000+r.IntN(25000), r.IntN(1<<20), 500+r.IntN(800),
				r.IntN(1000000), r.IntN(65536), r.IntN(1024), c.clientIP(r), 40000+r.IntN(25000),
				30000000000000+r.Int64N(970000000000000), 500000+r.IntN(900000), one(r, c.tids))
		}},
		piece{140, func(b []byte, r *rand.Rand, ts []byte) []byte {
			s := 3000 + r.IntN(6000)
			e := s + r.IntN(60)
			return dcp(b, r, ts, "ActiveStream::markDiskSnapshot: Sending disk snapshot with start %d, end %d, and high completed none, max visible %d", s, e, e-r.IntN(10))
		}},
		piece{100, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return dcp(b, r, ts, "ActiveStream::transitionState: Transitioning from backfilling to in-memory")
		}},
		piece{60, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s WARNING (%s) Slow runtime for '%s' on thread nonIO_worker_%d: %d ms\n", ts, c.bucket(r), one(r, slowTasks), r.IntN(4), 1000+r.IntN(700))
		}},
		piece{50, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s INFO %d: HELO [{\"a\":\"%s\",\"i\":\"%016X/%016X\"}] %s [ {\"ip\":\"%s\",\"port\":%d} - {\"ip\":\"%s\",\"port\":11210} (not authenticated) ]\n",
				ts, 100+r.IntN(4000), one(r, heloAgents), r.Uint64(), r.Uint64N(64), heloFeatures, c.clientIP(r), 40000+r.IntN(25000), self)
		}},
		piece{60, func(b []byte, r *rand.Rand, ts []byte) []byte {
			size, items := 200000+r.IntN(100000), 200+r.IntN(100)
			return fmt.Appendf(b, "%s INFO (%s) Compaction of vb:%d done (ok). purged tombstones:%d, prepares:0, prepareBytes:0 collection_items_erased:alive:0,deleted:0, size/items/tombstones/purge_seqno pre{%d, %d, %d, 0}, post{%d, %d, 0, 0}\n",
				ts, c.bucket(r), r.IntN(1024), r.IntN(4), size, items, r.IntN(4), size-r.IntN(9000), items)
		}},
		piece{50, func(b []byte, r *rand.Rand, ts []byte) []byte {
			peer, bucket := one(r, c.peers), c.bucket(r)
			name := c.replication(peer, bucket)
			return fmt.Appendf(b, "%s INFO %d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) ActiveStream::scheduleBackfill_UNLOCKED register cursor with name \"eq_dcpq:%s\" backfill:true, seqno:%d\n",
				ts, c.producerCID(peer, bucket), bucket, name, vbNotIncident(r), name, 3000+r.IntN(6000))
		}},
		piece{40, func(b []byte, r *rand.Rand, ts []byte) []byte {
			peer, bucket := one(r, c.peers), c.bucket(r)
			s := 3000 + r.IntN(6000)
			return fmt.Appendf(b, "%s INFO %d: (%s) DCP (Consumer) eq_dcpq:replication:ns_1@%s->ns_1@%s:%s - (vb:%d) Attempting to add stream: opaque_:%d, start_seqno_:%d, end_seqno_:18446744073709551615, vb_uuid:%d, snap_start_seqno_:%d, snap_end_seqno_:%d, last_seqno:%d, stream_req_value:{\"uid\":\"0\"}\n",
				ts, 300+r.IntN(40), bucket, peer, self, bucket, vbNotIncident(r), r.IntN(2000), s, r.Int64N(1<<48), s, s, s)
		}},
		piece{15, func(b []byte, r *rand.Rand, ts []byte) []byte {
			s := 3000 + r.IntN(6000)
			return dcp(b, r, ts, "Creating stream with start seqno %d and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{%d,%d} collections-filter-size:0 sid:none", s, s, s)
		}},
		piece{10, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return dcp(b, r, ts, "ActiveStream::setDead_UNLOCKED Stream closing, sent until seqno %d remaining items 0, reason: The stream closed early because the conn was disconnected", 3000+r.IntN(6000))
		}},
		piece{4, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s INFO (%s) VBucket::setState: transitioning vb:%d with high seqno:%d from:pending to:active meta:{\"topology\":[[\"ns_1@%s\",\"ns_1@%s\"]]}\n",
				ts, c.bucket(r), vbNotIncident(r), 3000+r.IntN(6000), self, one(r, c.peers))
		}},
		piece{30, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s INFO Pushing new cluster config for bucket:[%s] revision:[%d]\n", ts, c.bucket(r), 1000+r.IntN(9000))
		}},
		piece{1, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s WARNING %d: Invalid password specified for [<ud>app_user</ud>]. Mechanism:[SCRAM-SHA512], UUID:[%08x-%04x-%04x-%04x-%012x]\n",
				ts, 100+r.IntN(4000), r.Uint32(), r.IntN(1<<16), r.IntN(1<<16), r.IntN(1<<16), r.Int64N(1<<48))
		}},
	)
}

// memcachedIndex is memcached.log of a node without the data service:
// only ns_server and the services connect to it.
func (c *cbCtx) memcachedIndex() template {
	return mixed(mcStamp,
		piece{70, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s INFO %d: Client {\"ip\":\"127.0.0.1\",\"port\":%d} authenticated as <ud>@index</ud>\n", ts, 100+r.IntN(4000), 40000+r.IntN(25000))
		}},
		piece{30, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s INFO %d: HELO [{\"a\":\"%s\",\"i\":\"%016X/%016X\"}] %s [ {\"ip\":\"127.0.0.1\",\"port\":%d} - {\"ip\":\"127.0.0.1\",\"port\":11209} (not authenticated) ]\n",
				ts, 100+r.IntN(4000), one(r, heloAgents), r.Uint64(), r.Uint64N(64), heloFeatures, 40000+r.IntN(25000))
		}},
	)
}

func pid(r *rand.Rand) string { return fmt.Sprintf("<0.%d.%d>", 100+r.IntN(30000), r.IntN(4)) }

// nsInfo is ns_server's info-level noise (ns_server.info.log, and again
// in debug.log).
func (c *cbCtx) nsInfo() template {
	node := c.n.name()
	return mixed(msStamp,
		piece{30, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:info,%s,%s:%s:compaction_daemon:spawn_dbs_compactor:731]Finished compaction of databases for bucket %s\n", ts, node, pid(r), c.bucket(r))
		}},
		piece{30, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:info,%s,%s:%s:compaction_daemon:spawn_scheduled_kv_compactor:473]Start compaction of vbuckets for bucket %s with config: \n"+
				"[{database_fragmentation_threshold,{30,undefined}},\n {view_fragmentation_threshold,{30,undefined}},\n {magma_fragmentation_percentage,50}]\n", ts, node, pid(r), c.bucket(r))
		}},
		piece{5, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:info,%s,%s:cb_dist<0.255.0>:cb_dist:info_msg:1007]cb_dist: Accepted new connection from <0.%d.0> DistCtrl #Port<0.%d>: {con,#Ref<0.%d.%d.%d>,inet_tcp_dist,undefined,undefined}\n",
				ts, node, 100+r.IntN(30000), r.IntN(90000), r.IntN(9999), r.IntN(1<<30), r.IntN(1<<30))
		}},
		piece{3, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[error_logger:info,%s,%s:error_logger<0.32.0>:ale_error_logger_handler:do_log:101]\n=========================PROGRESS REPORT=========================\n"+
				"    supervisor: {local,menelaus_sup}\n    started: [{pid,<0.%d.0>},\n              {id,menelaus_web_alerts_srv},\n              {mfargs,{menelaus_web_alerts_srv,start_link,[]}},\n"+
				"              {restart_type,permanent},\n              {shutdown,5000},\n              {child_type,worker}]\n\n", ts, node, 100+r.IntN(30000))
		}},
		piece{3, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:warn,%s,%s:ns_heart_slow_status_updater<0.371.0>:ns_heart:grab_index_status:382]ignoring failure to get index status: {exit,{timeout,{gen_server,call,['index_status_keeper-index',get_status,2000]}}}\n", ts, node)
		}},
	)
}

// nsDebug is ns_server.debug.log's own noise, the bulk of it: term dumps
// over many lines, janitor, stats and json_rpc lines.
func (c *cbCtx) nsDebug() template {
	node := c.n.name()
	all := append([]string{}, c.data...)
	if c.index != "" {
		all = append(all, c.index)
	}
	m := max(c.cl.o.multiline, 1) // multi-line entries weigh m times more
	return mixed(msStamp,
		piece{120 * m, func(b []byte, r *rand.Rand, ts []byte) []byte {
			b = fmt.Appendf(b, "[ns_doctor:debug,%s,%s:ns_doctor<0.3120.0>:ns_doctor:handle_info:167]Current node statuses:\n", ts, node)
			for i, peer := range all {
				open := " "
				if i == 0 {
					open = "["
				}
				b = fmt.Appendf(b, "%s{'ns_1@%s',\n     [{last_heard,-576460%06d},\n      {now,-576460%06d},\n      {active_buckets,[\"test3\",\"default\"]},\n      {ready_buckets,[\"test3\",\"default\"]},\n", open, peer, r.IntN(999999), r.IntN(999999))
				b = fmt.Appendf(b, "      {status_latency,%d},\n      {outgoing_replications_safeness_level,[{\"test3\",green},{\"default\",green}]},\n      {incoming_replications_conf_hashes,[{\"test3\",[{'ns_1@%s',%d}]}]},\n", r.IntN(9000), one(r, c.data), r.IntN(1<<30))
				b = fmt.Appendf(b, "      {local_tasks,[]},\n      {memory,[{total,%d},{processes,%d},{binary,%d},{ets,%d}]},\n      {system_stats,[{cpu_utilization_rate,%d.%d},{swap_total,0},{mem_free,%d}]}]}", r.IntN(1<<30), r.IntN(1<<28), r.IntN(1<<26), r.IntN(1<<24), r.IntN(100), r.IntN(100), r.Int64N(1<<34))
				if i == len(all)-1 {
					b = append(b, "]\n"...)
				} else {
					b = append(b, ",\n"...)
				}
			}
			return b
		}},
		piece{130 * m, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:ns_config_log<0.230.0>:ns_config_log:log_common:232]config change:\n"+
				"{node,'%s',memcached} ->\n[{'_vclock',[{<<\"%x\">>,{%d,63826000000}}]},\n {port,11210},\n {dedicated_port,11209},\n {ssl_port,11207},\n {admin_user,\"@ns_server\"},\n"+
				" {other_users,[\"@cbq-engine\",\"@projector\",\"@goxdcr\",\"@index\",\"@fts\",\"@eventing\",\"@cbas\",\"@backup\"]},\n {admin_pass,\"*****\"}]\n", ts, node, node, r.Uint64(), r.IntN(100))
		}},
		piece{150, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[json_rpc:debug,%s,%s:json_rpc_connection-index-cbauth<0.1510.0>:json_rpc_connection:handle_call:156]sending jsonrpc call:{[{jsonrpc,<<\"2.0\">>},{id,%d},{method,<<\"AuthCacheSvc.UpdateDB\">>},"+
				"{params,[{[{specialUser,<<\"@index-cbauth\">>},{nodes,[{[{host,<<\"%s\">>},{user,<<\"_admin\">>},{password,\"*****\"},{ports,[8091,18091,9100,9101,9102,9103,9104,9105,18091,11207,11209,11210]},{local,false}]}]},{buckets,[<<\"test3\">>,<<\"default\">>]}]}]}]}\n",
				ts, node, r.IntN(100000), one(r, all))
		}},
		piece{150, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[json_rpc:debug,%s,%s:json_rpc_connection-index-cbauth<0.1510.0>:json_rpc_connection:handle_info:89]got response: [{id,%d},{result,true},{error,null}]\n", ts, node, r.IntN(100000))
		}},
		piece{100, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:%s:janitor_agent:handle_call:692]Going to wait for persistence of seqno %d in vbucket %d\n", ts, node, pid(r), 3000+r.IntN(6000), r.IntN(1024))
		}},
		piece{90, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:compaction_daemon<0.455.0>:compaction_daemon:process_scheduler_message:1359]No buckets to compact for compact_views. Rescheduling compaction.\n", ts, node)
		}},
		piece{80, func(b []byte, r *rand.Rand, ts []byte) []byte {
			bucket := c.bucket(r)
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:ns_memcached-%s<0.%d.2>:ns_memcached:verify_report_long_call:357]call {stats,<<>>} took too long: %d us\n", ts, node, bucket, 20000+r.IntN(9000), 500000+r.IntN(900000))
		}},
		piece{60 * m, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:chronicle_kv_log<0.467.0>:chronicle_kv_log:log:59]update (key: {node,'%s',failover_vbuckets}, rev: {<<\"%x\">>,%d})\n[]\n", ts, node, one(r, all), r.Uint64(), r.IntN(100000))
		}},
		piece{50, func(b []byte, r *rand.Rand, ts []byte) []byte {
			p := pid(r)
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:%s:janitor_agent:handle_info:790]Got done message from subprocess: %s (ok)\n", ts, node, p, p)
		}},
		piece{40, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:menelaus_cbauth<0.544.0>:menelaus_cbauth:handle_cast:92]Observed json rpc process {'%s-cbauth',<0.%d.0>} needs_update\n",
				ts, node, one(r, []string{"projector", "goxdcr", "index", "cbq-engine"}), 100+r.IntN(30000))
		}},
		piece{30, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:debug,%s,%s:leader_lease_acquire_worker-ns_1@%s<0.%d.0>:leader_lease_acquire_worker:handle_fresh_lease_acquired:302]Acquired lease from node 'ns_1@%s' (lease uuid: <<\"%016x%016x\">>)\n",
				ts, node, one(r, all), 100+r.IntN(30000), one(r, all), r.Uint64(), r.Uint64())
		}},
	)
}

var queryMsgs = []string{
	"Query Configuration changed for node-quota.",
	"Using plain authentication for user <ud>@cbq-engine</ud>",
	"Refreshing pool default",
}

var xdcrMsgs = []string{
	"ResourceMgr: Resource Manager State = overallTP: 0 highTP: 0 highExist: false lowExist: false backlogExist: false maxTP: 0 highTPNeeded: 0 highTokens: 0 maxTokens: 0 lowTPLimit: 0 calibration: None dcpAction: Reset processCpu: 1 idleCpu: 97",
	"ReplicationSpecChangeListener: metakvCallback called on listener ReplicationSpecChangeListener with path = /replicationSpec/",
	"CheckpointManager: Done checkpointing for replication default -> remote/default",
}

// babysitter is ns_server.babysitter.log: the services' own output, relayed.
func (c *cbCtx) babysitter() template {
	return mixed(msStamp,
		piece{60, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:info,%s,babysitter_of_ns_1@cb.local:%s:ns_port_server:log:226]cbq-engine<0.%d.0>: _time=%s _level=INFO _msg=%s\n", ts, pid(r), 300+r.IntN(200), ts, one(r, queryMsgs))
		}},
		piece{40, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "[ns_server:info,%s,babysitter_of_ns_1@cb.local:%s:ns_port_server:log:226]goxdcr<0.%d.0>: %s INFO GOXDCR.%s\n", ts, pid(r), 300+r.IntN(200), ts, one(r, xdcrMsgs))
		}},
	)
}

// The index instances of the seed's indexer, and a few more.
var indexInsts = []uint64{12766839110520311237, 7165339316829419245, 2935881719220193451, 9223859182737412093, 4410583023918231127}

const gsiShard = "/opt/couchbase/var/lib/couchbase/data/@2i/shards/shard1"

// indexer is ns_server.indexer.log of the index node.
func (c *cbCtx) indexer() template {
	return mixed(msStamp,
		piece{400, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] StorageMgr::handleCreateSnapshot Added New Snapshot Index: %d PartitionId: 0 SliceId: 0 Crc64: %d (SnapshotInfo: count:%d committed:false) SnapCreateDur %dµs SnapOpenDur %dµs\n",
				ts, one(r, indexInsts), r.Uint64(), 40000+r.IntN(20000), 30+r.IntN(400), 5+r.IntN(40))
		}},
		piece{100, func(b []byte, r *rand.Rand, ts []byte) []byte {
			used := 40000 + r.IntN(30000)
			return fmt.Appendf(b, "%s [Info] LSS %s/data(shard1) : logCleaner: completed... frag %d, data: %d, used: %d log:(%d - %d) head:%d run:%d duration:%d ms\n",
				ts, gsiShard, r.IntN(40), used-r.IntN(20000), used, r.IntN(1<<20), used+r.IntN(1<<20), r.IntN(1<<20), 1+r.IntN(50), r.IntN(20))
		}},
		piece{40, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] Plasma: Adaptive memory quota tuning (decrementing): RSS:%d, freePercent:%d.%d, currentQuota=%d, newQuota=%d, netGrowth=%d, percent=%d\n",
				ts, 600000000+r.IntN(200000000), r.IntN(60), r.IntN(100), 500000000+r.IntN(10000000), 490000000+r.IntN(10000000), r.IntN(4000000), r.IntN(10))
		}},
		piece{40, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] CompactionDaemon: Checking fragmentation: IndexInstId: %d, Data:%d, Disk:%d, Fragmentation:%d.%d%%\n",
				ts, one(r, indexInsts), 1000000+r.IntN(9000000), 2000000+r.IntN(9000000), r.IntN(30), r.IntN(100))
		}},
		piece{60, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] [Queryport \":9101\"] connection \"%s:%d\" closed\n", ts, one(r, c.data), 40000+r.IntN(25000))
		}},
		piece{30, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] [Queryport \":9101\"] new connection \"%s:%d\"\n", ts, one(r, c.data), 40000+r.IntN(25000))
		}},
		piece{30, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] ClustMgr:handleGetLocalValue Key IndexerId\n", ts)
		}},
		piece{20, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] serviceChangeNotifier: received PoolChangeNotification\n", ts)
		}},
		piece{20, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] janitor: running cleanup.\n", ts)
		}},
	)
}

// periodicStats is the indexer's PeriodicStats dump, one long line a
// minute.
func (c *cbCtx) periodicStats() template {
	return func(b []byte, r *rand.Rand, t time.Time) []byte {
		b = msStamp(b, t)
		b = fmt.Appendf(b, " [Info] PeriodicStats = {\"cpu_utilization\":%d.%d,\"index_not_found_errcount\":0,\"indexer_state\":\"Active\",\"memory_free\":%d,\"memory_quota\":536870912,\"memory_rss\":%d,\"memory_total_storage\":%d,\"memory_used\":%d,\"needs_restart\":false,\"num_connections\":%d,\"num_cpu_core\":4,\"storage_mode\":\"plasma\",\"timings/stats_response\":\"%d %d %d\",\"total_data_size\":%d,\"total_disk_size\":%d",
			r.IntN(100), r.IntN(100), r.Int64N(1<<33), r.Int64N(1<<30), r.Int64N(1<<29), r.Int64N(1<<29), r.IntN(50), r.IntN(100000), r.Int64N(1<<40), r.Int64N(1<<50), r.Int64N(1<<32), r.Int64N(1<<33))
		for _, bucket := range c.buckets {
			for i := range 3 {
				idx := fmt.Sprintf("%s:idx_%d", bucket, i+1)
				for _, k := range indexStats {
					b = fmt.Appendf(b, ",\"%s:%s\":%d", idx, k, r.Int64N(1<<uint(10+len(k)%20)))
				}
			}
		}
		return append(b, "}\n"...)
	}
}

var indexStats = []string{
	"avg_drain_rate", "avg_item_size", "avg_scan_latency", "avg_scan_rate", "avg_scan_request_latency", "avg_ts_interval",
	"build_progress", "cache_hit_percent", "cache_hits", "cache_misses", "data_size", "delete_bytes", "disk_size",
	"docid_count", "flush_queue_size", "frag_percent", "get_bytes", "insert_bytes", "items_count", "key_size_distribution",
	"last_rollback_time", "num_commits", "num_docs_indexed", "num_docs_pending", "num_docs_processed", "num_docs_queued",
	"num_flush_queued", "num_items_flushed", "num_items_restored", "num_last_snapshot_reply", "num_requests",
	"num_rows_returned", "num_rows_scanned", "num_scan_errors", "num_scan_timeouts", "num_snapshot_waiters",
	"num_snapshots", "progress_stat_time", "recs_in_mem", "recs_on_disk", "resident_percent", "scan_bytes_read",
	"scan_cache_hit_aggr", "scan_wait_duration", "since_last_snapshot", "total_scan_duration",
}

// projector is ns_server.projector.log of a data node.
func (c *cbCtx) projector() template {
	feed := func(r *rand.Rand) (string, string) {
		bucket := c.bucket(r)
		topic := one(r, c.topics)
		return bucket, topic
	}
	return mixed(msStamp,
		piece{300, func(b []byte, r *rand.Rand, ts []byte) []byte {
			bucket, topic := feed(r)
			return fmt.Appendf(b, "%s [Info] DCPT[secidx:proj-%s-%s-%d/%d] ##%x stats: {\"bytes\":%d,\"bufferacks\":%d,\"toAckBytes\":%d,\"streamreqs\":%d,\"snapshots\":%d,\"mutations\":%d,\"deletions\":%d,\"expires\":%d,\"streamends\":0,\"closestreams\":0,\"lastAckTime\":%d.%06ds,\"lastNoopSend\":%d.%06ds,\"lastNoopRecv\":%d.%06ds,\"lastMsgSend\":%d.%06ds,\"lastMsgRecv\":%d.%06ds,\"rcvchLen\":0,\"rcvchCap\":10000,\"incomingMsg\":%d}\n",
				ts, bucket, topic, 100000000000000000+r.Int64N(900000000000000000), r.IntN(2), 1+r.IntN(200),
				r.Int64N(1<<30), r.IntN(5000), r.IntN(1<<20), 100+r.IntN(300), r.IntN(100000), r.IntN(400000), r.IntN(1000), r.IntN(100),
				r.IntN(40), r.IntN(1000000), r.IntN(40), r.IntN(1000000), r.IntN(40), r.IntN(1000000), r.IntN(2), r.IntN(1000000), r.IntN(3), r.IntN(1000000), r.IntN(10000000))
		}},
		piece{150, func(b []byte, r *rand.Rand, ts []byte) []byte {
			bucket, topic := feed(r)
			return fmt.Appendf(b, "%s [Info] KVDT[<-%s<-127.0.0.1:8091 #%s] ##%x stats: {\"hbCount\":%d,\"eventCount\":%d,\"reqCount\":%d,\"endCount\":0,\"snapStat.samples\":%d,\"snapStat.min\":%d,\"snapStat.max\":%d,\"snapStat.avg\":%d,\"upsertCount\":%d,\"deleteCount\":%d,\"exprCount\":%d,\"ainstCount\":%d,\"dinstCount\":0,\"tsCount\":0,\"propCount\":%d}\n",
				ts, bucket, topic, 1+r.IntN(200), r.IntN(100000), r.IntN(1000000), 100+r.IntN(300), r.IntN(100000), 1, 100+r.IntN(900), 1+r.IntN(10), r.IntN(400000), r.IntN(1000), r.IntN(100), 1+r.IntN(4), r.IntN(100))
		}},
		piece{100, func(b []byte, r *rand.Rand, ts []byte) []byte {
			_, topic := feed(r)
			return fmt.Appendf(b, "%s [Info] ENDP[<-(%s:9105)<-#%s] ##%x stats: {\"mutCount\":%d,\"upsertCount\":%d,\"deleteCount\":%d,\"upsdelCount\":0,\"syncCount\":%d,\"beginCount\":%d,\"endCount\":0,\"snapCount\":%d,\"flushCount\":%d,\"collectionCreate\":0,\"collectionDrop\":0,\"collectionFlush\":0,\"scopeCreate\":0,\"scopeDrop\":0,\"collectionChanged\":0,\"updateSeqno\":0,\"seqnoAdvanced\":0,\"osoSnapshotStart\":0,\"osoSnapshotEnd\":0,\"latency.min\":%d,\"latency.max\":%d,\"latency.avg\":%d,\"latency.movingAvg\":%d,\"endpChLen\":0}\n",
				ts, c.index, topic, 1+r.IntN(200), r.IntN(1000000), r.IntN(900000), r.IntN(1000), r.IntN(10000), r.IntN(1024), r.IntN(100000), r.IntN(100000), 10000+r.IntN(90000), 1000000+r.IntN(9000000), 100000+r.IntN(900000), 100000+r.IntN(900000))
		}},
		piece{80, func(b []byte, r *rand.Rand, ts []byte) []byte {
			return fmt.Appendf(b, "%s [Info] PROJ[:9999] cpuCollector: cpu percent %d.%02d for pid %d\n", ts, r.IntN(40), r.IntN(100), 3000+c.n.i)
		}},
	)
}

// memstats is the projector's Go memory statistics, once a minute.
func (c *cbCtx) memstats() template {
	return func(b []byte, r *rand.Rand, t time.Time) []byte {
		b = msStamp(b, t)
		b = fmt.Appendf(b, " [Info] memstats {\"Alloc\":%d, \"TotalAlloc\":%d, \"Sys\":%d, \"Lookups\":0, \"Mallocs\":%d, \"Frees\":%d, \"HeapAlloc\":%d, \"HeapSys\":%d, \"HeapIdle\":%d, \"HeapInuse\":%d, \"HeapReleased\":%d, \"HeapObjects\":%d, \"GCSys\":%d, \"LastGC\":%d, \"PauseTotalNs\":%d, \"PauseNs\":[",
			r.Int64N(1<<28), r.Int64N(1<<40), r.Int64N(1<<29), r.Int64N(1<<34), r.Int64N(1<<34), r.Int64N(1<<28), r.Int64N(1<<29), r.Int64N(1<<28), r.Int64N(1<<28), r.Int64N(1<<27), r.Int64N(1<<22), r.Int64N(1<<24), t.UnixNano(), r.Int64N(1<<36))
		for i := range 32 {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = fmt.Appendf(b, "%d", 20000+r.IntN(500000))
		}
		return fmt.Appendf(b, "], \"NumGC\":%d}\n", r.IntN(100000))
	}
}
