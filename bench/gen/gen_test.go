package main

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
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
