// Command gen writes a realistic incident bundle for benchmarking
// forensics against the tools support engineers use on the same evidence
// (unzip, grep, lnav).
//
//	go run ./bench/gen -out DIR [-size 1GiB] [-nodes 4] [-seed 1] [-crdb 0.1]
//
// It writes one cbcollect_info zip per Couchbase node, named and laid out as
// cbcollect_info writes them, and a cockroach debug zip. The logs are in
// the real grammars, with the message mix and the rates of a busy cluster,
// over hours of local time. Buried in the middle are two incidents copied
// from the committed test cases: the Couchbase seed (testdata/couchbase/seed:
// kv-stream-before-traffic) across the first four nodes, and a NotLeaseHolderError
// ping-pong (testdata/crdb/crdb-v2-reason: crdb-nlhe-pingpong) in node 1's
// CockroachDB log.
//
// The output is a function of the flags alone: the same flags give the
// same bytes. Each log is generated as it is compressed, so memory stays
// small whatever the size.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// options are the command line.
type options struct {
	out      string
	size     int64
	nodes    int
	seed     uint64
	crdb     float64 // share of size given to the cockroach debug zip
	level    int
	jobs     int
	cbCase   string
	crdbCase string
	quiet    bool
	profile
}

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	var o options
	var size string
	fs.StringVar(&o.out, "out", "", "directory to write the zips to (created if missing)")
	fs.StringVar(&size, "size", "1GiB", "uncompressed size of the whole bundle (e.g. 512MiB, 1GiB, 4GiB)")
	fs.IntVar(&o.nodes, "nodes", 4, "Couchbase nodes, at least the 4 of the seed incident")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the generated noise")
	fs.Float64Var(&o.crdb, "crdb", 0.1, "share of -size given to a cockroach debug zip with a NotLeaseHolderError ping-pong (0: none)")
	fs.IntVar(&o.level, "level", 6, "deflate level (cbcollect_info uses Python's zipfile: zlib level 6)")
	fs.IntVar(&o.jobs, "j", runtime.NumCPU(), "zips written at once")
	fs.StringVar(&o.cbCase, "couchbase-case", filepath.Join("testdata", "couchbase", "seed"), "test case whose incident is buried in the Couchbase logs")
	fs.StringVar(&o.crdbCase, "crdb-case", filepath.Join("testdata", "crdb", "crdb-v2-reason"), "test case whose incident is buried in the CockroachDB logs")
	fs.BoolVar(&o.quiet, "q", false, "print nothing but errors")
	prof := fs.String("profile", "default", "what the bundle holds besides its size: default, or dense (stream churn, restarts, rotations, multi-line entries); the flags below override it")
	churn := fs.Float64("churn", -1, "DCP stream requests from GSI and XDCR per second per data node")
	restarts := fs.Int("restarts", -1, "clean memcached restarts per data node")
	rotation := fs.String("rotation", "", "memcached's log_cyclesize: the size at which it starts a new log file")
	multiline := fs.Int("multiline", -1, "weight multiplier of ns_server's multi-line entries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, ok := profiles[*prof]
	if !ok {
		return fmt.Errorf("-profile: %q is not a profile (default, dense)", *prof)
	}
	o.profile = p
	if *churn >= 0 {
		o.churn = *churn
	}
	if *restarts >= 0 {
		o.restarts = *restarts
	}
	if *multiline >= 1 {
		o.multiline = *multiline
	}
	if *rotation != "" {
		n, err := parseSize(*rotation, 64<<10)
		if err != nil {
			return fmt.Errorf("-rotation: %w", err)
		}
		o.rotation = n
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.out == "" {
		return errors.New("-out is required")
	}
	var err error
	if o.size, err = parseSize(size, 16<<20); err != nil {
		return fmt.Errorf("-size: %w", err)
	}
	if o.nodes < len(seedNodes) {
		return fmt.Errorf("-nodes: the seed incident needs at least %d nodes", len(seedNodes))
	}
	if o.crdb < 0 || o.crdb >= 1 {
		return fmt.Errorf("-crdb: %v is not a share in [0, 1)", o.crdb)
	}
	if o.level < 1 || o.level > 9 {
		return fmt.Errorf("-level: %d is not a deflate level (1-9)", o.level)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}

	crdbBytes := int64(float64(o.size) * o.crdb)
	cl, err := newCluster(o, o.size-crdbBytes)
	if err != nil {
		return err
	}
	var jobs []job
	for _, n := range cl.nodes {
		jobs = append(jobs, job{name: n.zipName(cl), write: func(path string) (zipStat, error) { return cl.writeNode(path, n) }})
	}
	if crdbBytes > 0 {
		rc, err := newRoaches(o, crdbBytes)
		if err != nil {
			return err
		}
		jobs = append(jobs, job{name: "debug.zip", write: rc.write})
	}

	stats, err := runJobs(o, jobs)
	if err != nil {
		return err
	}
	if !o.quiet {
		report(os.Stdout, o, stats, cl, crdbBytes > 0)
	}
	return nil
}

// job writes one zip.
type job struct {
	name  string
	write func(path string) (zipStat, error)
}

func runJobs(o options, jobs []job) ([]zipStat, error) {
	stats := make([]zipStat, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, max(o.jobs, 1))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			path := filepath.Join(o.out, j.name)
			stats[i], errs[i] = j.write(path)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", path, errs[i])
				os.Remove(path)
			}
		}()
	}
	wg.Wait()
	return stats, errors.Join(errs...)
}

// parseSize reads "1GiB", "512MiB", "100MB", "1G" (binary) or a byte
// count of at least least bytes.
func parseSize(s string, least int64) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	n := int64(f * float64(mult))
	if n < least {
		return 0, fmt.Errorf("%d bytes is too small (at least %d)", n, least)
	}
	return n, nil
}
