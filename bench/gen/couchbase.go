package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The Couchbase cluster of the seed (MB-53076's spin-off, July 2022): data
// nodes .15, .16 and .17 with buckets default and test3, index node .19,
// all logging in -07:00. Nodes beyond the seed's are data nodes.
var seedNodes = []string{"172.23.100.15", "172.23.100.16", "172.23.100.17", "172.23.100.19"}

var (
	// cbcollect_info ran at 00:47:33 UTC, as in the seed's zip names.
	cbCollect = time.Date(2022, 7, 22, 0, 47, 33, 0, time.UTC)
	cbZone    = time.FixedZone("", -7*3600)
	// In the seed, the cluster started at 00:02:11 and memcached on .15
	// was killed at 00:39:12; its lines from 00:30 on are the incident.
	seedStart    = time.Date(2022, 7, 22, 0, 2, 11, 0, time.UTC)
	seedIncident = time.Date(2022, 7, 22, 0, 39, 12, 0, time.UTC)
	seedCut      = time.Date(2022, 7, 22, 0, 30, 0, 0, time.UTC)
)

const (
	// nodeRate is how fast a busy node writes its logs, all files
	// together: it sets how many hours a bundle of a given size spans
	// (about 11 hours for 1 GiB over four nodes).
	nodeRate = 6 << 10 // bytes per second
	// memcachedRotation is memcached's log_cyclesize: the size at which
	// it starts a new memcached.log.NNNNNN.txt.
	memcachedRotation = 10 << 20
)

type cluster struct {
	o        options
	nodes    []*cbNode
	start    time.Time // the first line of the logs
	collect  time.Time
	incident time.Time
	sh       shift
	from, to time.Time // the generated noise
}

type cbNode struct {
	i      int
	host   string
	index  bool   // an index node (no data service)
	dir    string // the test case folder its incident lines come from
	like   string // for nodes beyond the seed's: the seed node it copies the start of
	skew   time.Duration
	budget int64
}

func (n *cbNode) name() string { return "ns_1@" + n.host }

func newCluster(o options, budget int64) (*cluster, error) {
	per := budget / int64(o.nodes)
	span := max(time.Duration(per/nodeRate)*time.Second, 2*time.Hour)
	cl := &cluster{o: o, collect: cbCollect, start: cbCollect.Add(-span)}
	cl.incident = cl.start.Add(span / 2).Truncate(time.Second)
	cl.sh = shift{
		cut:   seedCut,
		early: cl.start.Add(2 * time.Second).Sub(seedStart),
		late:  cl.incident.Sub(seedIncident),
	}
	cl.from, cl.to = cl.start.Add(time.Minute), cl.collect.Add(-20*time.Second)

	r := newRand(mix(o.seed, label("cluster")))
	for i := range o.nodes {
		n := &cbNode{i: i, budget: per}
		if i < len(seedNodes) {
			n.host = seedNodes[i]
			n.dir = filepath.Join(o.cbCase, fmt.Sprintf("cbcollect_info_ns_1@%s_20220722-004733", n.host))
			if _, err := os.Stat(n.dir); err != nil {
				return nil, fmt.Errorf("the Couchbase incident: %w (run from the repository root or set -couchbase-case)", err)
			}
		} else {
			n.host = fmt.Sprintf("172.23.100.%d", 20+i-len(seedNodes))
			n.like, n.dir = seedNodes[1], filepath.Join(o.cbCase, fmt.Sprintf("cbcollect_info_ns_1@%s_20220722-004733", seedNodes[1]))
		}
		n.index = n.host == "172.23.100.19"
		// Node clocks disagree by tens of milliseconds.
		n.skew = time.Duration(r.IntN(80_000)-40_000) * time.Microsecond
		cl.nodes = append(cl.nodes, n)
	}
	return cl, nil
}

func (n *cbNode) zipName(cl *cluster) string {
	return fmt.Sprintf("collectinfo-%s-%s.zip", cl.collect.Format("2006-01-02T150405"), n.name())
}

func (n *cbNode) folder(cl *cluster) string {
	return fmt.Sprintf("cbcollect_info_%s_%s/", n.name(), cl.collect.Format("20060102-150405"))
}

// shares of a node's bytes per file; memcached.log is about half of the
// whole bundle, as in real cbcollect_info zips of data nodes.
type shares struct {
	memcached, debug, info, babysitter, indexer, projector, diag float64
}

var (
	dataShares  = shares{memcached: 0.62, debug: 0.21, info: 0.04, babysitter: 0.015, projector: 0.09, diag: 0.02}
	indexShares = shares{memcached: 0.12, debug: 0.26, info: 0.05, babysitter: 0.02, indexer: 0.52, diag: 0.02}
)

// writeNode writes one node's cbcollect_info zip.
func (cl *cluster) writeNode(path string, n *cbNode) (zipStat, error) {
	a, err := newArchive(path, cl.o.level, cl.collect.In(cbZone))
	if err != nil {
		return zipStat{}, err
	}
	c := newCBCtx(cl, n)
	sh := dataShares
	if n.index {
		sh = indexShares
	}
	b := func(share float64) int64 { return int64(share * float64(n.budget)) }
	seed := func(file string) uint64 { return mix(cl.o.seed, label(n.host+"/"+file)) }
	from, to := cl.from.Add(n.skew), cl.to.Add(n.skew)
	dir := n.folder(cl)

	caseEntries := func(file string, starts startsEntry) ([]entry, error) {
		es, err := readCase(filepath.Join(n.dir, file), starts, cl.sh)
		if os.IsNotExist(err) {
			return nil, nil
		}
		if err != nil || n.like == "" {
			return es, err
		}
		// A node beyond the seed's starts like its model and has no part
		// in the incident.
		var out []entry
		for _, e := range es {
			if e.t.Before(cl.sh.cut.Add(cl.sh.early)) {
				e.text = bytes.ReplaceAll(e.text, []byte(n.like), []byte(n.host))
				out = append(out, e)
			}
		}
		return out, nil
	}

	members := []struct {
		name  string
		write func(w *bufio.Writer) error
	}{
		{"couchbase.log", func(w *bufio.Writer) error { return c.couchbaseLog(w) }},
		{"ini.log", func(w *bufio.Writer) error { return c.iniLog(w) }},
		{"ns_server.debug.log", func(w *bufio.Writer) error {
			es, err := caseEntries("ns_server.info.log", aleStart)
			if err != nil {
				return err
			}
			// debug.log holds every level, info.log's lines too: the same
			// stream, drawn again from the same seed.
			info := newNoise(seed("info"), c.nsInfo(), from, to, b(sh.info))
			debug := newNoise(seed("debug"), c.nsDebug(), from, to, b(sh.debug)-b(sh.info))
			w.WriteString(aleHeader("debug.log"))
			return drain(w, newMerge(&entries{list: es}, info, debug))
		}},
		{"ns_server.info.log", func(w *bufio.Writer) error {
			es, err := caseEntries("ns_server.info.log", aleStart)
			if err != nil {
				return err
			}
			w.WriteString(aleHeader("info.log"))
			return drain(w, newMerge(&entries{list: es}, newNoise(seed("info"), c.nsInfo(), from, to, b(sh.info))))
		}},
		{"ns_server.babysitter.log", func(w *bufio.Writer) error {
			es, err := caseEntries("ns_server.babysitter.log", aleStart)
			if err != nil {
				return err
			}
			w.WriteString(aleHeader("babysitter.log"))
			return drain(w, newMerge(&entries{list: es}, newNoise(seed("babysitter"), c.babysitter(), from, to, b(sh.babysitter))))
		}},
		{"ns_server.indexer.log", func(w *bufio.Writer) error {
			es, err := caseEntries("ns_server.indexer.log", isoStart)
			if err != nil {
				return err
			}
			w.WriteString(aleHeader("indexer.log"))
			if sh.indexer == 0 {
				return drain(w, &entries{list: es})
			}
			stats := c.periodicStats()
			budget := b(sh.indexer) - periodicBytes(seed("indexer-stats"), stats, from, to, time.Minute)
			return drain(w, newMerge(&entries{list: es},
				newPeriodic(seed("indexer-stats"), stats, from, to, time.Minute),
				newNoise(seed("indexer"), c.indexer(), from, to, budget)))
		}},
		{"ns_server.projector.log", func(w *bufio.Writer) error {
			es, err := caseEntries("ns_server.projector.log", isoStart)
			if err != nil {
				return err
			}
			w.WriteString(aleHeader("projector.log"))
			if sh.projector == 0 {
				return drain(w, &entries{list: es})
			}
			mem := c.memstats()
			budget := b(sh.projector) - periodicBytes(seed("memstats"), mem, from, to, time.Minute)
			return drain(w, newMerge(&entries{list: es},
				newPeriodic(seed("memstats"), mem, from, to, time.Minute),
				newNoise(seed("projector"), c.projector(), from, to, budget)))
		}},
		{"memcached.log", func(w *bufio.Writer) error {
			es, err := caseEntries("memcached.log", isoStart)
			if err != nil {
				return err
			}
			gen := c.memcachedData()
			if n.index {
				gen = c.memcachedIndex()
			}
			budget := b(sh.memcached)
			var churn *noise
			if cl.o.churn > 0 && !n.index {
				churn = newPeriodic(seed("churn"), c.churn(), from, to, time.Duration(float64(time.Second)/cl.o.churn))
				churn.even = false
				budget -= periodicBytes(seed("churn"), c.churn(), from, to, time.Duration(float64(time.Second)/cl.o.churn))
			}
			src := newNoise(seed("memcached"), gen, from, to, budget)
			restartAt := cl.restartTimes(n, cl.o.restarts, from, to)
			for _, t := range restartAt {
				src.hole(t, t.Add(restartDown))
				if churn != nil {
					churn.hole(t, t.Add(restartDown))
				}
			}
			if n.host == seedNodes[0] {
				// Killed, restarted, warming up: quiet for a while; and
				// failed over, so no service streams from it after.
				src.hole(cl.incident.Add(-time.Second), cl.incident.Add(30*time.Second))
				if churn != nil {
					churn.hole(cl.incident.Add(-time.Second), to)
				}
			}
			var all source = src
			if churn != nil || len(restartAt) > 0 {
				srcs := []source{src, newRestarts(c, restartAt)}
				if churn != nil {
					srcs = append(srcs, churn)
				}
				all = newMerge(srcs...)
			}
			mc := &rotating{src: all, size: cl.o.rotation,
				// Not while the incident's memcached restarts.
				quietFrom: cl.incident.Add(-15 * time.Minute), quietTo: cl.incident.Add(15 * time.Minute)}
			w.WriteString(memcachedHeader)
			return drain(w, newMerge(&entries{list: es}, mc))
		}},
		{"diag.log", func(w *bufio.Writer) error { return c.diag(w, b(sh.diag)) }},
	}
	for _, m := range members {
		if err := a.member(dir+m.name, m.write); err != nil {
			a.close()
			return zipStat{}, err
		}
	}
	return a.close()
}

// The header block cbcollect_info writes before each task's output.
const bar = "==============================================================================\n"

const memcachedHeader = bar + "Memcached logs\n" +
	`sh -c cd "$1"; for file in $(ls -tr memcached.log.*); do cat "$file"; done -- /opt/couchbase/var/lib/couchbase/logs` + "\n" + bar

func aleHeader(file string) string {
	return bar + "couchbase logs (" + file + ")\ncbbrowse_logs " + file + "\n" + bar
}

// rotating adds memcached's log rotation to its stream: the rotated files
// are concatenated, so each rotation reads as a "Closing logfile" line
// followed by an "Opening logfile" line (custom_rotating_file_sink.cc).
type rotating struct {
	src                source
	size, written      int64
	quietFrom, quietTo time.Time

	held    entry
	holding bool
	buf     []byte
}

func (r *rotating) next() (time.Time, []byte, bool) {
	if r.holding {
		r.holding = false
		return r.held.t, r.held.text, true
	}
	t, text, ok := r.src.next()
	if !ok {
		return t, text, ok
	}
	r.written += int64(len(text))
	if r.written < r.size || (!t.Before(r.quietFrom) && t.Before(r.quietTo)) {
		return t, text, true
	}
	r.written = 0
	r.held, r.holding = entry{t: t, text: text}, true
	r.buf = mcStamp(r.buf[:0], t)
	r.buf = append(r.buf, " INFO ---------- Closing logfile\n"...)
	r.buf = mcStamp(r.buf, t.Add(time.Microsecond))
	r.buf = append(r.buf, " INFO ---------- Opening logfile: \n"...)
	return t, r.buf, true
}

// mcStamp appends memcached's time: local, microseconds, offset.
func mcStamp(b []byte, t time.Time) []byte {
	return t.In(cbZone).AppendFormat(b, "2006-01-02T15:04:05.000000-07:00")
}

// msStamp appends the time of ns_server and the Go services: milliseconds.
func msStamp(b []byte, t time.Time) []byte {
	return t.In(cbZone).AppendFormat(b, "2006-01-02T15:04:05.000-07:00")
}
