package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zip"
)

// archive writes one zip, one member at a time, and counts what went in.
type archive struct {
	f     *os.File
	zw    *zip.Writer
	mtime time.Time
	stat  zipStat
}

// zipStat is what one zip holds.
type zipStat struct {
	name       string
	members    int
	bytes      int64 // uncompressed
	lines      int64
	compressed int64 // the zip file's size
}

func newArchive(path string, level int, mtime time.Time) (*archive, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, level)
	})
	return &archive{f: f, zw: zw, mtime: mtime, stat: zipStat{name: path}}, nil
}

// member writes one file into the zip through a buffered writer.
func (a *archive) member(name string, write func(w *bufio.Writer) error) error {
	zf, err := a.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: a.mtime})
	if err != nil {
		return err
	}
	c := &counter{w: zf}
	w := bufio.NewWriterSize(c, 256<<10)
	if err := write(w); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	a.stat.members++
	a.stat.bytes += c.bytes
	a.stat.lines += c.lines
	return nil
}

func (a *archive) close() (zipStat, error) {
	err := a.zw.Close()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return a.stat, err
	}
	fi, err := os.Stat(a.stat.name)
	if err != nil {
		return a.stat, err
	}
	a.stat.compressed = fi.Size()
	return a.stat, nil
}

// report prints what was written and where the incidents are.
func report(w io.Writer, o options, stats []zipStat, cl *cluster, crdb bool) {
	var total zipStat
	fmt.Fprintf(w, "%-62s %8s %12s %12s %6s\n", "zip", "members", "bytes", "compressed", "ratio")
	for _, s := range stats {
		fmt.Fprintf(w, "%-62s %8d %12d %12d %6.1f\n", s.name, s.members, s.bytes, s.compressed, float64(s.bytes)/float64(s.compressed))
		total.members += s.members
		total.bytes += s.bytes
		total.lines += s.lines
		total.compressed += s.compressed
	}
	fmt.Fprintf(w, "%-62s %8d %12d %12d %6.1f\n", "total", total.members, total.bytes, total.compressed, float64(total.bytes)/float64(total.compressed))
	fmt.Fprintf(w, "lines %d; seed %d\n", total.lines, o.seed)
	fmt.Fprintf(w, "couchbase: logs %s to %s; kv-stream-before-traffic buried at %s (memcached on %s killed)\n",
		cl.start.Format(time.RFC3339), cl.collect.Format(time.RFC3339), cl.incident.Format(time.RFC3339), seedNodes[0])
	if crdb {
		fmt.Fprintf(w, "cockroach: crdb-nlhe-pingpong buried at %s (r73, gateway n1)\n", crdbIncident.Format(time.RFC3339))
	}
}
