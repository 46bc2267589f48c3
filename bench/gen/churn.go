package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// What makes real bundles heavy beyond their size: DCP stream churn from
// the services (GSI projectors reconnecting, XDCR pipelines restarting),
// memcached restarts, and many rotations. The default profile has none of
// it; -profile dense turns it all up.

// profile is a set of knob values.
type profile struct {
	churn     float64 // stream requests from GSI and XDCR per second per data node
	restarts  int     // clean memcached restarts per data node over the span
	rotation  int64   // memcached's log_cyclesize
	multiline int     // weight multiplier of ns_server's multi-line entries
}

var profiles = map[string]profile{
	"default": {rotation: memcachedRotation, multiline: 1},
	// At 1 GiB over four nodes (about 11 hours): ~370,000 stream
	// creations, 300 restarts, a rotation every 1 MiB of memcached.log,
	// and three times the multi-line ns_server entries.
	"dense": {churn: 4, restarts: 100, rotation: 1 << 20, multiline: 3},
}

// A GSI or XDCR consumer's stream requests on a data node, with the
// producer connections they open and the streams they close (kv_engine
// 7.1 dcp/producer.cc, dcp/active_stream.cc, daemon/protocol/mcbp/dcp_open_executor.cc).
func (c *cbCtx) churn() template {
	xdcr := func(r *rand.Rand, bucket string) string {
		return fmt.Sprintf("xdcr:%s-%016x/%d", bucket, r.Uint64(), r.IntN(4))
	}
	gsi := func(r *rand.Rand, bucket string) string {
		return fmt.Sprintf("secidx:proj-%s-%s-%d/%d", bucket, one(r, c.topics), 1000000000000000000+r.Int64N(8000000000000000000), r.IntN(2))
	}
	name := func(r *rand.Rand, bucket string) string {
		if r.IntN(4) == 0 {
			return xdcr(r, bucket)
		}
		return gsi(r, bucket)
	}
	return mixed(mcStamp,
		piece{8, func(b []byte, r *rand.Rand, ts []byte) []byte {
			user := "@projector"
			if r.IntN(4) == 0 {
				user = "@goxdcr"
			}
			return fmt.Appendf(b, "%s INFO %d: DCP connection opened successfully. PRODUCER, INCLUDE_XATTRS [ {\"ip\":\"127.0.0.1\",\"port\":%d} - {\"ip\":\"127.0.0.1\",\"port\":11210} (System, <ud>%s</ud>) ]\n",
				ts, 100+r.IntN(4000), 40000+r.IntN(25000), user)
		}},
		piece{70, func(b []byte, r *rand.Rand, ts []byte) []byte {
			bucket, s := c.bucket(r), 3000+r.IntN(6000)
			return fmt.Appendf(b, "%s INFO %d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) Creating stream with start seqno %d and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{%d,%d} collections-filter-size:%d sid:none\n",
				ts, 100+r.IntN(4000), bucket, name(r, bucket), vbNotIncident(r), s, s, s, r.IntN(2))
		}},
		piece{22, func(b []byte, r *rand.Rand, ts []byte) []byte {
			bucket := c.bucket(r)
			return fmt.Appendf(b, "%s INFO %d: (%s) DCP (Producer) eq_dcpq:%s - (vb:%d) ActiveStream::setDead_UNLOCKED Stream closing, sent until seqno %d remaining items 0, reason: The stream closed early because the conn was disconnected\n",
				ts, 100+r.IntN(4000), bucket, name(r, bucket), vbNotIncident(r), 3000+r.IntN(6000))
		}},
	)
}

// restartTimes draws when a data node's memcached is restarted cleanly:
// spread over [from, to), away from the buried incident, and on the
// incident's node not after it.
func (cl *cluster) restartTimes(n *cbNode, count int, from, to time.Time) []time.Time {
	if count == 0 || n.index {
		return nil
	}
	r := newRand(mix(cl.o.seed, label(n.host+"/restarts")))
	quietFrom, quietTo := cl.incident.Add(-15*time.Minute), cl.incident.Add(15*time.Minute)
	if n.host == seedNodes[0] {
		quietTo = to
	}
	from, to = from.Add(10*time.Minute), to.Add(-10*time.Minute)
	var ts []time.Time
	for tries := 0; len(ts) < count && tries < 100*count; tries++ {
		t := from.Add(time.Duration(r.Int64N(int64(to.Sub(from))))).Truncate(time.Microsecond)
		if !t.Before(quietFrom) && t.Before(quietTo) {
			continue
		}
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	// Restarts are minutes apart at least: one must end before the next.
	out := ts[:0]
	for _, t := range ts {
		if len(out) == 0 || t.Sub(out[len(out)-1]) > time.Minute {
			out = append(out, t)
		}
	}
	return out
}

// restartDown is how long memcached is quiet from its shutdown until
// traffic is enabled on every bucket again, in the lines restarts writes.
const restartDown = 15 * time.Second

// restarts writes a clean restart of memcached at each time: graceful
// shutdown, a new log file, the version banner, the buckets created and
// warmed up, and traffic enabled by ns_server before any stream request
// (the healthy order; daemon/memcached.cc, daemon/buckets.cc,
// ep_engine.cc of kv_engine 7.1).
type restarts struct {
	c     *cbCtx
	times []time.Time
	r     *rand.Rand
	queue []entry
	buf   []byte
}

func newRestarts(c *cbCtx, times []time.Time) *restarts {
	return &restarts{c: c, times: times, r: newRand(mix(c.cl.o.seed, label(c.n.host+"/restart-lines")))}
}

func (s *restarts) next() (time.Time, []byte, bool) {
	if len(s.queue) == 0 {
		if len(s.times) == 0 {
			return time.Time{}, nil, false
		}
		s.episode(s.times[0])
		s.times = s.times[1:]
	}
	e := s.queue[0]
	s.queue = s.queue[1:]
	return e.t, e.text, true
}

func (s *restarts) episode(t time.Time) {
	r := s.r
	s.queue = s.queue[:0]
	at := t
	line := func(d time.Duration, format string, args ...any) {
		at = at.Add(d)
		b := mcStamp(nil, at)
		b = fmt.Appendf(b, " "+format+"\n", args...)
		s.queue = append(s.queue, entry{t: at, text: b})
	}
	ms := time.Millisecond
	line(0, "INFO Initiating graceful shutdown.")
	line(time.Duration(800+r.IntN(400))*ms, "INFO ---------- Closing logfile")
	line(time.Duration(1500+r.IntN(1000))*ms, "INFO ---------- Opening logfile: ")
	line(300*time.Microsecond, "INFO Couchbase version 7.1.1-3175-enterprise starting.")
	line(ms, "INFO Breakpad enabled. Minidumps will be written to '/opt/couchbase/var/lib/couchbase/crash'")
	for _, bucket := range s.c.buckets {
		cid := 150 + r.IntN(20)
		line(time.Duration(300+r.IntN(600))*ms, "INFO %d: Create Couchbase bucket [%s]", cid, bucket)
		line(time.Duration(50+r.IntN(100))*ms, "INFO (%s) Collections::Manager::warmupLoadManifest: starting at uid:0x%x", bucket, 1+r.IntN(40))
		line(time.Duration(100+r.IntN(100))*ms, "INFO %d: Bucket [%s] created successfully", cid, bucket)
	}
	for _, bucket := range s.c.buckets {
		line(time.Duration(1500+r.IntN(1500))*ms, "INFO (%s) EventuallyPersistentEngine::enableTraffic() result true", bucket)
		line(41*time.Microsecond, "INFO (%s) EventuallyPersistentEngine::handleTrafficControlCmd() Data traffic to persistence engine is enabled", bucket)
	}
}
