package main

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zip"
)

func TestShiftTimes(t *testing.T) {
	sh := shift{cut: time.Date(2022, 7, 22, 0, 30, 0, 0, time.UTC), early: -time.Hour, late: 2 * time.Hour}
	for _, tc := range []struct{ in, want string }{
		// memcached, before the cut: fraction and offset kept.
		{"2022-07-21T17:02:11.204311-07:00 INFO x", "2022-07-21T16:02:11.204311-07:00 INFO x"},
		// ns_server, after the cut, with a memcached time in its message.
		{"[user:info,2022-07-21T17:39:12.120-07:00,ns_1@h:<0.1.0>:m:f:1]Messages: 2022-07-21T17:39:05.120144-07:00 INFO",
			"[user:info,2022-07-21T19:39:12.120-07:00,ns_1@h:<0.1.0>:m:f:1]Messages: 2022-07-21T19:39:05.120144-07:00 INFO"},
		// The event log's UTC times, across midnight.
		{`{"timestamp":"2022-07-22T00:39:12.121Z","event_id":19}`, `{"timestamp":"2022-07-22T02:39:12.121Z","event_id":19}`},
		// Not times.
		{"seqno:4109 uuid:77409272469274 2022-07", "seqno:4109 uuid:77409272469274 2022-07"},
	} {
		if got := string(shiftTimes(nil, []byte(tc.in), sh)); got != tc.want {
			t.Errorf("shiftTimes(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestCrdbNumbering(t *testing.T) {
	var f crdbFile
	in := "I220719 09:30:18.380127 1 util/log/file_sync_buffer.go:238 ⋮ [config]   log format (utf8=✓): crdb-v2\n" +
		"I220719 09:31:02.074816 91213 kv/kvclient/kvcoord/dist_sender.go:2144 ⋮ [n1,client=‹10.0.1.7:51882›] 344  r73: sending batch\n" +
		"I220719 09:31:02.074816 91213 kv/kvclient/kvcoord/dist_sender.go:2144 ⋮ [n1] 0 +continued\n" +
		"I220719 09:31:02.074827 4 util/log/event_log.go:32 ⋮ [n1] 0 ={\"EventType\":\"x\"}\n"
	want := "I220719 09:30:18.380127 1 util/log/file_sync_buffer.go:238 ⋮ [config]   log format (utf8=✓): crdb-v2\n" +
		"I220719 09:31:02.074816 91213 kv/kvclient/kvcoord/dist_sender.go:2144 ⋮ [n1,client=‹10.0.1.7:51882›] 1  r73: sending batch\n" +
		"I220719 09:31:02.074816 91213 kv/kvclient/kvcoord/dist_sender.go:2144 ⋮ [n1] 1 +continued\n" +
		"I220719 09:31:02.074827 4 util/log/event_log.go:32 ⋮ [n1] 2 ={\"EventType\":\"x\"}\n"
	if got := string(f.number([]byte(in))); got != want {
		t.Errorf("numbered\n%s\nwant\n%s", got, want)
	}
}

// The bundle is a function of the flags, whatever the parallelism, and
// holds every line of the buried incidents.
func TestBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 × 16 MiB")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gen := func(dir string, jobs string) map[string][32]byte {
		args := []string{"-q", "-out", dir, "-size", "16MiB", "-j", jobs,
			"-couchbase-case", filepath.Join(root, "testdata/couchbase/seed"),
			"-crdb-case", filepath.Join(root, "testdata/crdb/crdb-v2-reason")}
		if err := run(args); err != nil {
			t.Fatal(err)
		}
		sums := map[string][32]byte{}
		files, _ := filepath.Glob(filepath.Join(dir, "*.zip"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sums[filepath.Base(f)] = sha256.Sum256(data)
		}
		return sums
	}
	dir := t.TempDir()
	a, b := gen(dir, "1"), gen(t.TempDir(), "4")
	if len(a) != 5 {
		t.Fatalf("%d zips, want 4 cbcollect_info zips and a debug zip", len(a))
	}
	for name, sum := range a {
		if b[name] != sum {
			t.Errorf("%s differs between runs", name)
		}
	}

	zr, err := zip.OpenReader(filepath.Join(dir, "collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var mc []byte
	for _, f := range zr.File {
		if f.Name == "cbcollect_info_ns_1@172.23.100.15_20220722-004733/memcached.log" {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			buf.ReadFrom(r)
			mc = buf.Bytes()
		}
	}
	for _, s := range []string{
		"INFO Couchbase version 7.1.1-3175-enterprise starting.",
		"(vb:141) Stream request requires rollback to seqno:4109 because consumer ahead of producer",
	} {
		if !bytes.Contains(mc, []byte(s)) {
			t.Errorf("memcached.log of .15 lacks %q", s)
		}
	}
}

// The dense profile holds what it promises: restarts in the healthy order
// (traffic enabled on both buckets before the services' streams come
// back), stream churn at about the rate asked, and many rotations.
func TestDenseProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 16 MiB")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := run([]string{"-q", "-out", dir, "-size", "16MiB", "-crdb", "0", "-profile", "dense", "-restarts", "20",
		"-couchbase-case", filepath.Join(root, "testdata/couchbase/seed")}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(filepath.Join(dir, "collectinfo-2022-07-22T004733-ns_1@172.23.100.16.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var mc []byte
	for _, f := range zr.File {
		if filepath.Base(f.Name) == "memcached.log" {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			buf.ReadFrom(r)
			mc = buf.Bytes()
		}
	}
	var (
		restarts, rotations, streams int
		first, last                  time.Time
		down                         bool // between a shutdown and traffic on test3
		enabled                      = map[string]bool{}
	)
	for _, line := range bytes.Split(mc, []byte("\n")) {
		if len(line) < 32 || line[4] != '-' {
			continue
		}
		ts, err := time.Parse("2006-01-02T15:04:05.000000-07:00", string(line[:32]))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if first.IsZero() {
			first = ts
		}
		last = ts
		msg := string(line[33:])
		switch {
		case strings.Contains(msg, "Initiating graceful shutdown."):
			restarts++
			down = true
			clear(enabled)
		case strings.Contains(msg, "---------- Opening logfile") && !down:
			rotations++
		case strings.Contains(msg, "enableTraffic() result true"):
			enabled[msg[strings.Index(msg, "(")+1:strings.Index(msg, ")")]] = true
			if enabled["default"] && enabled["test3"] {
				down = false
			}
		case strings.Contains(msg, "eq_dcpq:secidx:") || strings.Contains(msg, "eq_dcpq:xdcr:"):
			if down {
				t.Fatalf("a service's stream line while memcached is down or warming up: %s", line)
			}
			if strings.Contains(msg, "Creating stream") {
				streams++
			}
		}
	}
	if restarts < 10 || restarts > 20 {
		t.Errorf("%d restarts, want up to the 20 asked and at least half (restarts a minute apart are merged)", restarts)
	}
	if rotations < 5 {
		t.Errorf("%d rotations of a %d-byte memcached.log at 1 MiB each", rotations, len(mc))
	}
	// 4 requests a second, 70% of them stream creations.
	want := 4 * 0.7 * last.Sub(first).Seconds()
	if float64(streams) < 0.8*want || float64(streams) > 1.2*want {
		t.Errorf("%d stream creations over %s, want about %.0f", streams, last.Sub(first), want)
	}
}
