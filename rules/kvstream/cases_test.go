package kvstream

import (
	"fmt"
	"time"
)

const version711 = "7.1.1-3175-enterprise"

// seedCase is the incident of MB-53076's spin-off (seeds/couchbase-dcp-stream-
// before-traffic.txt): memcached on .15 killed (137) at 17:39:12.120-07:00,
// the indexer's repair at 16.284, .15 answering vb 141 with a rollback to
// 4109 at 17.706652 while warming up, the failover at 18.234–19.308, and
// the second rollback on .16, which took vb 141 over. The seed's lines are
// kept verbatim. The index node's lines use the wording the seed shows
// (Bucket, startBucketStream, TK StreamBegin without the KV host: indexing
// 6.6), so only the KV nodes' own logs tie the answers to .15. Of .15's
// active vbuckets, eight (139–146) are shown; the others are left out to
// keep the case small.
func seedCase() *cluster {
	return seedLike("seed", false)
}

// projectorOnlyCase is the seed incident without .15's memcached.log (as when
// the rotated files were lost): the restart is known from ns_server and the
// babysitter, the answers from .15's projector log alone.
func projectorOnlyCase() *cluster {
	return seedLike("projector-only", true)
}

// seedRelease is the seed incident on the nodes of a later release, on a
// day that release was current: the same story and numbers, every memcached
// and ns_server line in that release's grammar.
func seedRelease(rel *release) *cluster {
	switch rel {
	case rel764:
		return seedLikeOn("seed-7.6.4", false, rel, time.Date(2025, 3, 18, 0, 0, 0, 0, pdt), "20250319-004733")
	case rel800:
		return seedLikeOn("seed-8.0.0", false, rel, time.Date(2025, 10, 21, 0, 0, 0, 0, pdt), "20251022-004733")
	}
	panic("no seed case for " + rel.version)
}

func seedLike(name string, noMemcachedLog bool) *cluster {
	return seedLikeOn(name, noMemcachedLog, rel711, time.Date(2022, 7, 21, 0, 0, 0, 0, pdt), "20220722-004733")
}

func seedLikeOn(name string, noMemcachedLog bool, rel *release, date time.Time, stamp string) *cluster {
	c := newCluster(name, stamp, 53076)
	c.rel = rel
	n15 := c.node("ns_1@172.23.100.15", pdt)
	n16 := c.node("ns_1@172.23.100.16", pdt)
	n17 := c.node("ns_1@172.23.100.17", pdt)
	n19 := c.node("ns_1@172.23.100.19", pdt)
	kv := []*cbnode{n15, n16, n17}

	day := func(h, m, s int, frac float64) time.Time {
		return time.Date(date.Year(), date.Month(), date.Day(), h, m, s, int(frac*1e9), pdt)
	}
	from, to := day(17, 31, 0, 0), day(17, 46, 30, 0)
	for _, n := range kv {
		var peers []*cbnode
		for _, p := range kv {
			if p != n {
				peers = append(peers, p)
			}
		}
		c.noise(n, from, to, 4, []string{"test3", "default"}, peers, true, false)
	}
	c.noise(n19, from, to, 3, []string{"test3", "default"}, kv, false, true)
	if c.gsi7() {
		c.indexerUp(n19, day(17, 31, 2, 0.771))
	}

	// The morning's clean start of every KV node, in the same memcached.log.
	for i, n := range kv {
		t := c.boot(n, day(17, 2, 11+i, 0.204311), c.rel.version)
		for _, b := range []string{"default", "test3"} {
			t = c.createBucket(n, t.Add(900*time.Millisecond), b, nil, false)
			c.trafficOn(n, t.Add(3*time.Second), b, t.Add(-time.Second), nil)
		}
	}

	const (
		topic    = "MAINT_STREAM_TOPIC_0765f2d280c663c382dea1a1b49ab1cd"
		kvdata   = uint64(2556451229124417097)
		cluster  = "127.0.0.1:8091"
		bucket   = "test3"
		cidProj  = 382
		uuid141  = uint64(77409272469274) // 0x46674030171a, the seed's
		reqSeq   = 4168
		rollTo   = 4109
		newUUID  = uint64(183364417036540)
		opaque   = 0x1
		feedOp   = 0x1
		stream   = "MAINT_STREAM"
		indexLog = "ns_server.indexer.log"
		projLog  = "ns_server.projector.log"
	)
	proj := c.projName(bucket, topic, kvdata, feedOp, 1)
	vbs := []int{139, 140, 141, 142, 143, 144, 145, 146}
	type vbstate struct {
		uuid             uint64
		seq, snapS, rbTo uint64
	}
	st := map[int]vbstate{}
	for _, vb := range vbs {
		s := vbstate{uuid: vbuuid(15, vb), seq: uint64(4000 + c.rng.IntN(300))}
		s.snapS = s.seq - uint64(c.rng.IntN(8))
		if vb%2 == 1 { // the odd ones had unpersisted mutations
			s.rbTo = s.seq - uint64(20+c.rng.IntN(60))
		}
		st[vb] = s
	}
	st[141] = vbstate{uuid: uuid141, seq: reqSeq, snapS: 4163, rbTo: rollTo}

	// a. 12.111: the indexer loses the streams (its clock reads a little
	// behind .15's: the stream ends precede ns_server's exit line).
	tEnd := day(17, 39, 12, 0.111)
	c.gsi(n15, projLog, day(17, 39, 12, 0.109), "Info", c.dcpt(proj)+" EOF received")
	for i, vb := range append([]int{141}, vbs...) {
		if i > 0 && vb == 141 {
			continue
		}
		s := st[vb]
		c.gsi(n19, indexLog, tEnd.Add(time.Duration((i+2)/3)*time.Millisecond), "Info", fmt.Sprintf("TK StreamEnd %s %s %d %d %d", stream, bucket, vb, s.uuid, s.seq))
	}
	// b. 12.120: memcached exited.
	last := []string{
		day(17, 39, 5, 0.120144).Format("2006-01-02T15:04:05.000000-07:00") + " INFO 97: (test3) DCP (Producer) eq_dcpq:replication:ns_1@172.23.100.15->ns_1@172.23.100.16:test3 - Removing connection",
		day(17, 39, 11, 0.998812).Format("2006-01-02T15:04:05.000000-07:00") + " WARNING (test3) Slow runtime for 'Checkpoint Remover' on thread nonIO_worker_0: 1062 ms",
	}
	if c.kv8() {
		last = []string{
			day(17, 39, 5, 0.120144).Format("2006-01-02T15:04:05.000000-07:00") + ` INFO Removing connection {"conn_id":97,"bucket":"test3","dcp":"producer","dcp_name":"eq_dcpq:replication:ns_1@172.23.100.15->ns_1@172.23.100.16:test3","description":{"peer":{"ip":"172.23.100.16","port":50112},"socket":{"ip":"172.23.100.15","port":11209},"user":{"name":"<ud>@ns_server</ud>","system":true}}}`,
			day(17, 39, 11, 0.998812).Format("2006-01-02T15:04:05.000000-07:00") + ` WARNING Slow runtime {"bucket":"test3","task":"Checkpoint Remover","thread":"nonIO_worker_0","runtime":"1062 ms"}`,
		}
	}
	c.crash(n15, day(17, 39, 12, 0.120), 137, last)

	// The new memcached: no Closing logfile before it.
	t := c.boot(n15, day(17, 39, 13, 0.208877), c.rel.version)
	t = c.createBucket(n15, t.Add(400*time.Millisecond), "default", nil, false)
	entries := map[int][2]uint64{}
	for _, vb := range vbs {
		s := st[vb]
		persisted := s.seq
		if s.rbTo != 0 {
			persisted = s.rbTo
		}
		u := vbuuid(1515, vb)
		if vb == 141 {
			u = newUUID
		}
		entries[vb] = [2]uint64{u, persisted}
	}
	t = c.createBucket(n15, t.Add(200*time.Millisecond), bucket, entries, true)
	c.warmupUnblock(n15, t.Add(3*time.Millisecond), bucket, 1)

	// The orchestrator (.15) janitor waits for the bucket.
	for i := range 4 {
		c.ale(n15, "ns_server.info.log", day(17, 39, 14+i, 0.512+0.01*float64(i)), "ns_server", "info", n15.proc(), c.rel.mfl["not_ready"],
			fmt.Sprintf("Bucket %q not yet ready on ['%s']", bucket, n15.otp))
	}

	// c. 16.284: the indexer repairs the stream from what it had.
	tRep := day(17, 39, 16, 0.284)
	ksWord := "Bucket"
	if c.gsi7() {
		ksWord = "KeyspaceId"
	}
	c.gsi(n19, indexLog, tRep, "Info", fmt.Sprintf("Indexer::handleKVStreamRepair Initiate Stream Repair %s %s %s StreamId 1", stream, ksWord, bucket))
	ts := fmt.Sprintf("Indexer::startBucketStream Stream: %s Bucket: %s SessionId 1 RestartTS bucket: %s, vbuckets: 1024 Crc64: 0 snapType NO_SNAP -\n    {vbno, vbuuid, seqno, snapshot-start, snapshot-end}", stream, bucket, bucket)
	if c.gsi7() {
		ts = fmt.Sprintf("Indexer::startKeyspaceIdStream Stream: %s KeyspaceId: %s SessionId 1 RestartTS bucket: %s, scopeId: , collectionId: , vbuckets: 1024 Crc64: 0 snapType NO_SNAP OpenOSOSnap false -\n    {vbno, vbuuid, manifest, seqno, snapshot-start, snapshot-end}", stream, bucket, bucket)
	}
	for vb := range 1024 {
		s, ok := st[vb]
		if !ok {
			seq := uint64(3900 + (vb*37)%500)
			s = vbstate{uuid: vbuuid(15, vb), seq: seq, snapS: seq - uint64(vb%5)}
		}
		if c.gsi7() {
			ts += fmt.Sprintf("\n    {%5d %16x %v %10d %10d %10d}", vb, s.uuid, 0, s.seq, s.snapS, s.seq)
			continue
		}
		ts += fmt.Sprintf("\n    {%5d %16x %10d %10d %10d}", vb, s.uuid, s.seq, s.snapS, s.seq)
	}
	c.gsi(n19, indexLog, tRep, "Info", ts)

	// d. 17.7: the projector on .15 reconnects; memcached answers.
	c.feedStarted(n15, day(17, 39, 17, 0.648), proj, feedOp)
	c.dcpOpen(n15, day(17, 39, 17, 0.652118), cidProj)
	tAns := day(17, 39, 17, 0.706652)
	opq := 0x10
	for i, vb := range vbs {
		s := st[vb]
		at := tAns.Add(time.Duration((i+1)*173) * time.Microsecond)
		if vb == 141 {
			at = tAns // the seed's line
		}
		opq++
		if s.rbTo != 0 {
			reason := fmt.Sprintf("consumer ahead of producer - producer upper at %d", s.rbTo)
			t2 := c.streamRollback(n15, at, cidProj, bucket, proj, proj, opq, vb, s.rbTo, s.seq, s.snapS, s.seq, s.uuid, reason)
			c.backch(n15, t2, topic, cluster, feedOp, "ROLLBACK", bucket, vb, s.uuid, s.rbTo, opq, kvdata)
			ti := c.jitter(t2.Add(400*time.Microsecond), 1)
			c.gsi(n19, indexLog, ti, "Info", c.streamBegin(stream, bucket, vb, s.uuid, s.rbTo, 1, n15, s.snapS, s.seq, s.seq))
			c.gsi(n19, indexLog, ti, "Warn", fmt.Sprintf("Timekeeper::handleStreamBegin StreamBegin rollback for StreamId %s %s %s vbucket %d. Rollback (%d, %16x). ", stream, ksWord, bucket, vb, s.rbTo, s.uuid))
		} else {
			c.streamCreated(n15, at, cidProj, bucket, proj, vb, s.seq, s.snapS, s.seq)
			t2 := c.jitter(at.Add(300*time.Microsecond), 1)
			c.backch(n15, t2, topic, cluster, feedOp, "SUCCESS", bucket, vb, entries[vb][0], s.seq, opq, kvdata)
			c.gsi(n19, indexLog, c.jitter(t2.Add(400*time.Microsecond), 1), "Info", c.streamBegin(stream, bucket, vb, entries[vb][0], s.seq, 1, n15, s.snapS, s.seq, s.seq))
		}
	}
	// The indexer restarts the rolled-back vbuckets from the rollback
	// point; .15 accepts, handing out its new failover-log branch.
	tRe := day(17, 39, 17, 0.984)
	c.gsi(n19, indexLog, tRe.Add(-40*time.Millisecond), "Info", fmt.Sprintf("Timekeeper::repairStream need rollback for %s %s 1. Sending Init Prepare.", stream, bucket))
	for i, vb := range vbs {
		s := st[vb]
		if s.rbTo == 0 {
			continue
		}
		at := tRe.Add(time.Duration(i*211) * time.Microsecond)
		opq++
		c.streamCreated(n15, at, cidProj, bucket, proj, vb, s.rbTo, s.rbTo, s.rbTo)
		c.backch(n15, c.jitter(at.Add(300*time.Microsecond), 1), topic, cluster, feedOp, "SUCCESS", bucket, vb, entries[vb][0], s.rbTo, opq, kvdata)
	}
	c.warmupCompleted(n15, day(17, 39, 17, 0.998301), bucket, "(test3) Warmup completed: 41277 keys and 41277 values loaded in 4252 ms (9707.65 keys/s), mem_used now at 61.432896 MB (14.447766 MB/s)", 41277, 4252, 58.59)

	// e. 18.234: .15 is failed over (hard failover, run on the orchestrator .15).
	opID := c.hex(32)
	startMsg := fmt.Sprintf("Starting failover of nodes ['%s']. Operation Id = %s", n15.otp, opID)
	if c.rel != rel711 {
		// ns_orchestrator.erl handle_start_failover (trinity, morpheus).
		startMsg = fmt.Sprintf("Starting failover of nodes ['%s'] AllowUnsafe = false Operation Id = %s", n15.otp, opID)
	}
	c.user(n15, day(17, 39, 18, 0.230), "ns_orchestrator", c.rel.mfl["start_failover"], startMsg)
	nodesInfo := map[string]any{"active_nodes": []string{n15.otp, n16.otp, n17.otp, n19.otp}, "failover_nodes": []string{n15.otp}, "master_node": n15.otp}
	c.event(n15, day(17, 39, 18, 0.231), 10, "ns_server", "Hard failover initiated", "info", map[string]any{"operation_id": opID, "nodes_info": nodesInfo, "allow_unsafe": false})
	c.user(n15, day(17, 39, 18, 0.234), "failover", c.rel.mfl["failing_over"], fmt.Sprintf("Starting failing over ['%s']", n15.otp))
	// .16 and .17 take over .15's vbuckets: replica to active.
	for i, vb := range vbs {
		s := st[vb]
		c.vbSetState(n16, day(17, 39, 19, 0.112).Add(time.Duration(i*97)*time.Microsecond), bucket, vb, s.seq, fmt.Sprintf(`{"topology":[["%s",null]]}`, n16.otp))
	}
	c.user(n15, day(17, 39, 19, 0.301), "failover", c.rel.mfl["failed_over"], fmt.Sprintf("Failed over ['%s']: ok", n15.otp))
	c.user(n15, day(17, 39, 19, 0.308), "ns_orchestrator", c.rel.mfl["completion"], "Failover completed successfully.\nRebalance Operation Id = "+opID)
	c.event(n15, day(17, 39, 19, 0.309), 11, "ns_server", "Hard failover completed", "info", map[string]any{"operation_id": opID, "nodes_info": nodesInfo, "time_taken": 1077, "completion_message": "Failover completed successfully."})

	// f. The indexer moves to .16 and is told to roll back again: .16 never
	// saw the branches .15 created at warmup.
	proj16 := c.projName(bucket, topic, kvdata, feedOp, 1)
	c.feedStarted(n16, day(17, 39, 21, 0.402), proj16, feedOp)
	c.dcpOpen(n16, day(17, 39, 21, 0.405530), 611)
	tSecond := day(17, 39, 21, 0.447203)
	for i, vb := range vbs {
		s := st[vb]
		start := s.seq
		if s.rbTo != 0 {
			start = s.rbTo
		}
		at := tSecond.Add(time.Duration(i*151) * time.Microsecond)
		opq++
		reason := "vBucket UUID not found in failover table, consumer and producer have no common history"
		t2 := c.streamRollback(n16, at, 611, bucket, proj16, proj16, opq, vb, 0, start, start, start, entries[vb][0], reason)
		c.backch(n16, t2, topic, cluster, feedOp, "ROLLBACK", bucket, vb, entries[vb][0], 0, opq, kvdata)
		ti := c.jitter(t2.Add(500*time.Microsecond), 1)
		c.gsi(n19, indexLog, ti, "Info", c.streamBegin(stream, bucket, vb, entries[vb][0], 0, 2, n16, start, start, start))
		c.gsi(n19, indexLog, ti, "Warn", fmt.Sprintf("Timekeeper::handleStreamBegin StreamBegin rollback for StreamId %s %s %s vbucket %d. Rollback (0, %16x). ", stream, ksWord, bucket, vb, entries[vb][0]))
	}

	c.description = "The seed incident (MB-53076 spin-off, Couchbase 7.1, July 2022): memcached on 172.23.100.15 killed with status 137, the GSI projector's stream requests for test3 answered (rollbacks and accepts) while warming up, then .15 failed over before traffic was enabled and the indexer rolled back again on .16. Must give exactly one critical finding for .15/test3."
	if c.rel != rel711 {
		c.description = fmt.Sprintf("The seed incident on Couchbase %s (%s): the same kill, warmup, answered stream requests and failover, every memcached and ns_server line in that release's grammar%s. Must give exactly one critical finding for .15/test3.",
			c.rel.version, date.Format("January 2006"), map[bool]string{true: " (memcached.log: message plus JSON context, no Opening logfile marker)", false: " (the rollback's (sid:none), flags and filter on stream creation, the reworded enableTraffic, failover start with AllowUnsafe)"}[c.kv8()])
	}
	if noMemcachedLog {
		c.skipFiles[n15.otp+"/memcached.log"] = true
		c.description = "The seed incident without the restarted node's memcached.log: the restart is known from ns_server (babysitter, ns_log, event log) and the answers from .15's projector log only. Must still give one critical finding for .15/test3."
	}
	c.expect = []map[string]any{{
		"rule": "kv-stream-before-traffic", "severity": "critical",
		"subject": map[string]any{"node": n15.otp, "bucket": bucket, "vbuckets": vbs},
	}, {
		// The second rollback, on the node that took the vbuckets over, is
		// to zero: a full rebuild of test3's indexes.
		"rule": "cb-dcp-rollback-to-zero", "severity": "high",
		"subject": map[string]any{"node": n16.otp, "bucket": bucket, "consumer": "indexer", "vbuckets": vbs},
	}}
	return c
}

// trafficBeforeStreamCase: memcached on .42 is killed and restarts; ns_server
// enables traffic on the bucket before the indexer's stream repair reaches
// it, and nothing is failed over. Every answered request is after traffic.
func trafficBeforeStreamCase() *cluster {
	return trafficBeforeStreamOn("traffic-before-stream", rel711, time.Date(2023, 3, 14, 0, 0, 0, 0, pdt), "20230314-182002")
}

// trafficBeforeStreamRelease is the near-miss on a later release.
func trafficBeforeStreamRelease(rel *release) *cluster {
	c := trafficBeforeStreamOn("traffic-before-stream-8.0.0", rel, time.Date(2025, 10, 28, 0, 0, 0, 0, pdt), "20251028-182002")
	c.description = "Near-miss on Couchbase " + rel.version + ": memcached on 10.144.210.42 is killed and restarts, ns_server enables traffic on travel-sample (and beer-sample) before the first stream request of the indexer's repair reaches the node (8.0's memcached.log: message plus JSON context), and no failover follows. Every stream request is answered after traffic: no finding."
	return c
}

func trafficBeforeStreamOn(name string, rel *release, date time.Time, stamp string) *cluster {
	c := newCluster(name, stamp, 2)
	c.rel = rel
	n41 := c.node("ns_1@10.144.210.41", pdt)
	n42 := c.node("ns_1@10.144.210.42", pdt)
	n43 := c.node("ns_1@10.144.210.43", pdt)
	n44 := c.node("ns_1@10.144.210.44", pdt)
	kv := []*cbnode{n41, n42, n43}
	day := func(h, m, s int, frac float64) time.Time {
		return time.Date(date.Year(), date.Month(), date.Day(), h, m, s, int(frac*1e9), pdt)
	}
	buckets := []string{"travel-sample", "beer-sample"}
	for _, n := range kv {
		c.noise(n, day(11, 3, 0, 0), day(11, 17, 0, 0), 4, buckets, others(kv, n), true, false)
	}
	c.noise(n44, day(11, 3, 0, 0), day(11, 17, 0, 0), 3, buckets, kv, false, true)
	for i, n := range kv {
		t := c.boot(n, day(10, 51, 30+i, 0.004417), c.rel.version)
		for _, b := range buckets {
			t = c.createBucket(n, t.Add(700*time.Millisecond), b, nil, false)
			c.trafficOn(n, t.Add(2*time.Second), b, t.Add(-time.Second), nil)
		}
	}
	const (
		bucket = "travel-sample"
		topic  = "MAINT_STREAM_TOPIC_9f1e4c0b5a7d4e21b3c8a6d0e2f41b77"
		stream = "MAINT_STREAM"
	)
	proj, short := c.projName(bucket, topic, 8812649925543120311, 3, 0), "secidx:proj-"+topic+"-8812649925543120311/0"
	if c.kv8() {
		short = proj // 8.0 sends the name unchanged (dcp_feed.go truncFeedName)
	}
	vbs := []int{352, 353, 354, 355}
	tCrash := day(11, 8, 41, 0.530)
	for _, vb := range vbs {
		c.gsi(n44, "ns_server.indexer.log", tCrash.Add(-4*time.Millisecond), "Info", fmt.Sprintf("TK StreamEnd %s %s %d %d %d", stream, bucket, vb, vbuuid(42, vb), 1800+vb))
	}
	lastLine := day(11, 8, 40, 0.981204).Format("2006-01-02T15:04:05.000000-07:00") + " INFO 211: (travel-sample) DCP (Producer) eq_dcpq:replication:ns_1@10.144.210.42->ns_1@10.144.210.43:travel-sample - (vb:371) ActiveStream::transitionState: Transitioning from backfilling to in-memory"
	if c.kv8() {
		lastLine = day(11, 8, 40, 0.981204).Format("2006-01-02T15:04:05.000000-07:00") + ` INFO ActiveStream::transitionState: Transitioning {"conn_id":211,"bucket":"travel-sample","dcp":"producer","dcp_name":"eq_dcpq:replication:ns_1@10.144.210.42->ns_1@10.144.210.43:travel-sample","vb":"vb:371","from":"backfilling","to":"in-memory","details":""}`
	}
	c.crash(n42, tCrash, 137, []string{lastLine})
	t := c.boot(n42, day(11, 8, 42, 0.611903), c.rel.version)
	t = c.createBucket(n42, t.Add(300*time.Millisecond), "beer-sample", nil, false)
	entries := map[int][2]uint64{}
	for _, vb := range vbs {
		entries[vb] = [2]uint64{vbuuid(4242, vb), uint64(1800 + vb)}
	}
	t = c.createBucket(n42, t.Add(150*time.Millisecond), bucket, entries, true)
	c.warmupCompleted(n42, t.Add(900*time.Millisecond), bucket, "(travel-sample) Warmup completed: 31591 keys and 31591 values loaded in 1108 ms (28511.73 keys/s), mem_used now at 88.113536 MB (79.524852 MB/s)", 31591, 1108, 84.03)
	started := day(11, 8, 42, 0.611903)
	c.trafficOn(n42, day(11, 8, 45, 0.208), bucket, started, []*cbnode{n41, n43, n44})
	c.trafficOn(n42, day(11, 8, 45, 0.331), "beer-sample", started, []*cbnode{n41, n43, n44})
	// The indexer repairs after traffic is on.
	tRep := day(11, 8, 47, 0.902)
	c.gsi(n44, "ns_server.indexer.log", tRep, "Info", fmt.Sprintf("Indexer::handleKVStreamRepair Initiate Stream Repair %s KeyspaceId %s StreamId 3", stream, bucket))
	c.feedStarted(n42, day(11, 8, 48, 0.101), proj, 0x3)
	c.dcpOpen(n42, day(11, 8, 48, 0.104772), 733)
	for i, vb := range vbs {
		at := day(11, 8, 48, 0.140213).Add(time.Duration(i*190) * time.Microsecond)
		c.streamCreated(n42, at, 733, bucket, short, vb, uint64(1800+vb), uint64(1800+vb), uint64(1800+vb))
		c.backch(n42, at.Add(310*time.Microsecond), topic, "127.0.0.1:8091", 0x3, "SUCCESS", bucket, vb, vbuuid(4242, vb), uint64(1800+vb), 0x40+i, 8812649925543120311)
		c.gsi(n44, "ns_server.indexer.log", at.Add(2*time.Millisecond), "Info", fmt.Sprintf("TK StreamBegin %s %s %d %d %d 3 %s:8091. HWT [%d-%d,%d].", stream, bucket, vb, vbuuid(4242, vb), 1800+vb, n42.host, 1800+vb, 1800+vb, 1800+vb))
	}
	c.description = "Near-miss: memcached on 10.144.210.42 is killed and restarts, ns_server enables traffic on travel-sample (and beer-sample) before the indexer's stream repair reaches the node, and no failover follows. Every stream request is answered after traffic: no finding."
	return c
}

// nmvbDuringWarmupCase: the projector reconnects while the bucket is still
// being created; memcached refuses with not_my_vbucket until warmup made
// the vbuckets, the consumer backs off, and asks again after traffic.
func nmvbDuringWarmupCase() *cluster {
	c := newCluster("nmvb-during-warmup", "20230921-071532", 3)
	cest := mustLoc("CEST", 2*3600)
	a := c.node("ns_1@192.168.56.101", cest)
	b := c.node("ns_1@192.168.56.102", cest)
	d := c.node("ns_1@192.168.56.103", cest)
	kv := []*cbnode{a, b, d}
	day := func(h, m, s int, frac float64) time.Time { return time.Date(2023, 9, 21, h, m, s, int(frac*1e9), cest) }
	for _, n := range kv {
		c.noise(n, day(8, 58, 0, 0), day(9, 12, 0, 0), 4, []string{"gamesim"}, others(kv, n), true, n == d)
	}
	for i, n := range kv {
		t := c.boot(n, day(8, 41, 2+i, 0.771005), version711)
		t = c.createBucket(n, t.Add(800*time.Millisecond), "gamesim", nil, false)
		c.trafficOn(n, t.Add(2*time.Second), "gamesim", t.Add(-time.Second), nil)
	}
	const (
		bucket = "gamesim"
		topic  = "MAINT_STREAM_TOPIC_3ad0c1f7e52b4a9c8e1d6f7a0b9c2d3e"
		proj   = "secidx:proj-" + bucket + "-" + topic + "-4471209911836627101/0"
		short  = "secidx:proj-" + topic + "-4471209911836627101/0"
		stream = "MAINT_STREAM"
	)
	vbs := []int{12, 13, 14}
	tCrash := day(9, 4, 10, 0.744)
	c.crash(a, tCrash, 137, nil)
	t := c.boot(a, day(9, 4, 11, 0.802114), version711)
	// The projector is quick: its stream requests arrive while memcached
	// creates the bucket, before warmup has made the vbuckets.
	c.gsi(a, "ns_server.projector.log", day(9, 4, 12, 0.017), "Info", fmt.Sprintf("DCPT[%s] ##%x feed started ...", proj, 0x7))
	c.dcpOpen(a, day(9, 4, 12, 0.019377), 95)
	cid := a.cid + 3
	c.mc(a, day(9, 4, 12, 0.021004), "INFO", fmt.Sprintf("%d: Create Couchbase bucket [%s]", cid, bucket))
	for i, vb := range vbs {
		at := day(9, 4, 12, 0.088120).Add(time.Duration(i*140) * time.Microsecond)
		c.mc(a, at, "WARNING", fmt.Sprintf("95: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) Stream request failed because this vbucket doesn't exist", bucket, short, vb))
		c.gsi(a, "ns_server.projector.log", at.Add(400*time.Microsecond), "Error", fmt.Sprintf("DCPT[%s] ##%x STREAMREQ(%d) unexpected status: NOT_MY_VBUCKET", proj, 0x20+i, vb))
	}
	c.mc(a, day(9, 4, 12, 0.140312), "INFO", fmt.Sprintf("(%s) Collections::Manager::warmupLoadManifest: starting at uid:0x3", bucket))
	c.mc(a, day(9, 4, 12, 0.301550), "INFO", fmt.Sprintf("%d: Bucket [%s] created successfully", cid, bucket))
	_ = t
	for i, vb := range vbs {
		c.mc(a, day(9, 4, 12, 0.390442).Add(time.Duration(i*77)*time.Microsecond), "INFO",
			fmt.Sprintf("(%s) Warmup::createVBuckets: vb:%d created new failover entry with uuid:%d and seqno:%d due to unclean shutdown", bucket, vb, vbuuid(101, vb), 900+vb))
	}
	c.mc(a, day(9, 4, 13, 0.664020), "INFO", "(gamesim) Warmup completed: 586 keys and 586 values loaded in 1262 ms (464.34 keys/s), mem_used now at 29.118464 MB (23.073269 MB/s)")
	c.trafficOn(a, day(9, 4, 16, 0.075), bucket, day(9, 4, 11, 0.802), []*cbnode{b, d})
	for i, vb := range vbs {
		at := day(9, 4, 18, 0.220031).Add(time.Duration(i*160) * time.Microsecond)
		c.streamCreated(a, at, 95, bucket, short, vb, uint64(900+vb), uint64(900+vb), uint64(900+vb))
		c.backch(a, at.Add(350*time.Microsecond), topic, "127.0.0.1:8091", 0x7, "SUCCESS", bucket, vb, vbuuid(101, vb), uint64(900+vb), 0x30+i, 4471209911836627101)
		c.gsi(d, "ns_server.indexer.log", at.Add(3*time.Millisecond), "Info", fmt.Sprintf("TK StreamBegin %s %s %d %d %d 5 %s:8091. HWT [%d-%d,%d].", stream, bucket, vb, vbuuid(101, vb), 900+vb, a.host, 900+vb, 900+vb, 900+vb))
	}
	c.description = "Near-miss: during warmup memcached on 192.168.56.101 refuses the projector's stream requests with not_my_vbucket (the vbuckets do not exist yet); they are accepted only after ns_server enabled traffic. Refusals are correct behaviour: no finding."
	return c
}

// hostnamesCase changes everything the seed fixed: hostnames, another
// bucket, several vbuckets, nodes logging in UTC, -05:00 and +02:00 (so
// only a UTC merge puts the indexer's requests before the traffic
// enablement), 7.1.x indexer wording with the KV host, the truncated DCP
// name memcached sees from a 7.x projector, and no failover.
func hostnamesCase() *cluster {
	c := newCluster("hostnames-no-failover", "20240311-142922", 4)
	est := mustLoc("EST", -5*3600)
	eet := mustLoc("EET", 2*3600)
	n1 := c.node("ns_1@cb-01.prod.example.net", time.UTC)
	n2 := c.node("ns_1@cb-02.prod.example.net", est)
	n3 := c.node("ns_1@cb-03.prod.example.net", eet)
	n4 := c.node("ns_1@cb-04.prod.example.net", time.UTC)
	kv := []*cbnode{n1, n2, n3}
	utc := func(h, m, s int, frac float64) time.Time {
		return time.Date(2024, 3, 11, h, m, s, int(frac*1e9), time.UTC)
	}
	buckets := []string{"orders", "sessions"}
	for _, n := range kv {
		c.noise(n, utc(13, 55, 0, 0), utc(14, 9, 0, 0), 4, buckets, others(kv, n), true, false)
	}
	c.noise(n4, utc(13, 55, 0, 0), utc(14, 9, 0, 0), 3, buckets, kv, false, true)
	for i, n := range kv {
		t := c.boot(n, utc(9, 12, 40+i, 0.118204), "7.1.4-3601-enterprise")
		for _, b := range buckets {
			t = c.createBucket(n, t.Add(600*time.Millisecond), b, nil, false)
			c.trafficOn(n, t.Add(2*time.Second), b, t.Add(-time.Second), nil)
		}
	}
	const (
		bucket = "orders"
		topic  = "MAINT_STREAM_TOPIC_c41d9e07b2f84a6d9be1f03a7d5c6e18"
		proj   = "secidx:proj-" + bucket + "-" + topic + "-6409581173927734529/1"
		short  = "secidx:proj-" + topic + "-6409581173927734529/1"
		stream = "MAINT_STREAM"
	)
	vbs := []int{512, 513, 514, 515, 516, 517}
	tCrash := utc(14, 2, 7, 0.415)
	for _, vb := range vbs {
		c.gsi(n4, "ns_server.indexer.log", tCrash.Add(3*time.Millisecond), "Info", fmt.Sprintf("TK StreamEnd %s %s %d %d %d", stream, bucket, vb, vbuuid(2, vb), 77000+vb))
	}
	c.crash(n2, tCrash, 137, nil)
	t := c.boot(n2, utc(14, 2, 8, 0.530771), "7.1.4-3601-enterprise")
	t = c.createBucket(n2, t.Add(300*time.Millisecond), "sessions", nil, false)
	entries := map[int][2]uint64{}
	for _, vb := range vbs {
		entries[vb] = [2]uint64{vbuuid(202, vb), uint64(76950 + vb)}
	}
	c.createBucket(n2, t.Add(200*time.Millisecond), bucket, entries, true)
	// 14:02:12Z: the indexer (UTC) repairs; cb-02 (-05:00) answers.
	tRep := utc(14, 2, 11, 0.904)
	c.gsi(n4, "ns_server.indexer.log", tRep, "Info", fmt.Sprintf("Indexer::handleKVStreamRepair Initiate Stream Repair %s KeyspaceId %s StreamId 4", stream, bucket))
	ts := fmt.Sprintf("Indexer::startKeyspaceIdStream Stream: %s KeyspaceId: %s SessionId 4 RestartTS bucket: %s, scopeId: , collectionId: , vbuckets: %d Crc64: 0 snapType NO_SNAP OpenOSOSnap false -\n    {vbno, vbuuid, manifest, seqno, snapshot-start, snapshot-end}", stream, bucket, bucket, len(vbs))
	for _, vb := range vbs {
		ts += fmt.Sprintf("\n    {%5d %16x 12 %10d %10d %10d}", vb, vbuuid(2, vb), 77000+vb, 76990+vb, 77000+vb)
	}
	c.gsi(n4, "ns_server.indexer.log", tRep, "Info", ts)
	c.gsi(n2, "ns_server.projector.log", utc(14, 2, 12, 0.290), "Info", fmt.Sprintf("DCPT[%s] ##%x feed started ...", proj, 0x4))
	c.dcpOpen(n2, utc(14, 2, 12, 0.293019), 508)
	for i, vb := range vbs {
		at := utc(14, 2, 12, 0.331406).Add(time.Duration(i*183) * time.Microsecond)
		to := uint64(76950 + vb)
		reason := fmt.Sprintf("consumer ahead of producer - producer upper at %d", to)
		t2 := c.streamRollback(n2, at, 508, bucket, short, proj, 0x50+i, vb, to, uint64(77000+vb), uint64(76990+vb), uint64(77000+vb), vbuuid(2, vb), reason)
		c.backch(n2, t2, topic, "127.0.0.1:8091", 0x4, "ROLLBACK", bucket, vb, vbuuid(2, vb), to, 0x50+i, 6409581173927734529)
		ti := c.jitter(t2.Add(1200*time.Microsecond), 1)
		c.gsi(n4, "ns_server.indexer.log", ti, "Info", fmt.Sprintf("TK StreamBegin %s %s %d %d %d 4 %s:8091. HWT [%d-%d,%d].", stream, bucket, vb, vbuuid(2, vb), to, n2.host, 76990+vb, 77000+vb, 77000+vb))
		c.gsi(n4, "ns_server.indexer.log", ti, "Warn", fmt.Sprintf("Timekeeper::handleStreamBegin StreamBegin rollback for StreamId %s KeyspaceId %s vbucket %d. Rollback (%d, %16x). ", stream, bucket, vb, to, vbuuid(2, vb)))
	}
	c.mc(n2, utc(14, 2, 14, 0.702228), "INFO", "(orders) Warmup completed: 398112 keys and 398112 values loaded in 5172 ms (76974.47 keys/s), mem_used now at 612.884480 MB (118.500479 MB/s)")
	// 14:02:31Z (09:02:31-05:00 on cb-02): traffic enabled.
	c.trafficOn(n2, utc(14, 2, 31, 0.377), bucket, utc(14, 2, 8, 0.530), []*cbnode{n1, n3, n4})
	c.description = "The variant that changes what the seed fixed: hostnames, bucket orders, six vbuckets at once, nodes logging in UTC (cb-01, cb-04), -05:00 (cb-02, the restarted node) and +02:00 (cb-03), so only a UTC merge puts the indexer's stream requests (14:02:12Z) before traffic enablement (09:02:31-05:00); 7.1 indexer wording naming the KV host; memcached sees the projector's truncated DCP name. No failover: one finding, severity high."
	c.expect = []map[string]any{{
		"rule": "kv-stream-before-traffic", "severity": "high",
		"subject": map[string]any{"node": n2.otp, "bucket": bucket, "vbuckets": vbs, "consumers": []string{short}},
	}}
	return c
}

func others(all []*cbnode, n *cbnode) []*cbnode {
	var out []*cbnode
	for _, p := range all {
		if p != n {
			out = append(out, p)
		}
	}
	return out
}
