package crdb

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// Each text and JSON log names its release from the sink header's binary:
// line, and its node from the header, the path or, in a file without a
// header (a rotated-out head, a paste from an issue), the first n<id> tag;
// the host comes from the file name when no line names a node.
func TestLogIdentity(t *testing.T) {
	for _, tc := range []struct {
		name    string
		format  forensics.Format
		origin  forensics.Origin
		in      string
		release string
		node    string
	}{
		{
			name:   "crdb-v1 debug zip header (v21.2)",
			format: LogFormat,
			origin: forensics.Origin{Name: "cockroach.roach-1.cockroach.2022-03-08T14_20_07Z.006104.log", Node: "n1"},
			in: "I220308 14:20:07.918950 1 util/log/file_sync_buffer.go:238 ⋮ [config] binary: CockroachDB CCL v21.2.6 (x86_64-unknown-linux-gnu, built 2022/02/22 18:30:37, go1.16.6)\n" +
				"I220308 14:35:48.227252 51539 kv/kvclient/kvcoord/dist_sender.go:1928 ⋮ [n1,client=‹10.0.1.7:51868›,hostssl,user=‹app›] r388: sending batch ‹1 Put› to (n3,s3):2\n",
			release: "v21.2.6", node: "n1",
		},
		{
			name:   "crdb-v2 header of v24.3, node from nodeID:",
			format: LogFormat,
			origin: forensics.Origin{Name: "cockroach.roach-3.cockroach.2024-12-02T09_12_44Z.000873.log"},
			in: "I241202 09:12:44.512023 1 util/log/file_sync_buffer.go:237 ⋮ [config]   binary: CockroachDB CCL v24.3.1 (x86_64-pc-linux-gnu, built 2024/11/26 09:35:16, go1.22.8 X:nocoverageredesign)\n" +
				"I241202 09:12:44.512023 1 util/log/file_sync_buffer.go:237 ⋮ [config]   nodeID: n3\n" +
				"I241202 09:12:45.000001 412 server/status/runtime.go:525 ⋮ [T1,Vsystem,n?] 12  runtime stats: 170 MiB RSS\n",
			release: "v24.3.1", node: "n3",
		},
		{
			name:   "no header: the node of the tags, not the unknown n?",
			format: LogFormat,
			origin: forensics.Origin{Name: "cockroach.roach-2.cockroach.2025-06-01T10_00_00Z.000042.log"},
			in: "I250601 10:20:00.000001 412 server/status/runtime.go:525 ⋮ [T1,Vsystem,n?] 4412  runtime stats: 170 MiB RSS\n" +
				"I250601 10:20:10.000001 412 server/status/runtime.go:525 ⋮ [T1,Vsystem,n2] 4413  runtime stats: 171 MiB RSS\n",
			node: "n2",
		},
		{
			// Upstream test data of cockroach debug merge-logs
			// (pkg/cli/testdata/merge_logs_v2/2/2.logs): no header, the node
			// only in the tags.
			name:   "merge-logs test data",
			format: LogFormat,
			origin: forensics.Origin{Name: "cockroach.test-0002.ubuntu.2018-11-30T22_06_47Z.003959.log"},
			in: "I181130 22:14:49.706516 6152567 storage/split_queue.go:213  [n2,split,s2,r163/3:/Table/53/1/-36{84178…-35915…}]   initiating a split based on load at key /Table/53/1/-3661595080111255049\n" +
				"I181130 22:14:49.706563 6152567 storage/replica_command.go:342  [n2,split,s2,r163/3:/Table/53/1/-36{84178…-35915…}]   initiating a split of this range at key /Table/53/1/-3661595080111255049 [r586]\n" +
				"I181130 22:14:57.650774 499 server/status/runtime.go:465  [n2] runtime stats: 729 MiB RSS, 1127 goroutines, 416 MiB/91 MiB/584 MiB GO alloc/idle/total, 75 MiB/128 MiB CGO alloc/total, 111534.7 CGO/sec, 2013.0/232.3 %(u/s)time, 0.4 %gc (56x), 189 MiB/189 MiB (r/w)net\n",
			node: "n2",
		},
		{
			name:   "no header, no node tag: the host of the file name",
			format: LogFormat,
			origin: forensics.Origin{Name: "cockroach.roach-2.cockroach.2025-06-01T10_00_00Z.000042.log"},
			in:     "I250601 10:20:00.000001 1 1@cli/start.go:690 ⋮ [-] 1  starting cockroach node\n",
			node:   "roach-2",
		},
		{
			name:   "legacy v2.0 without header, tags only",
			format: LogFormat,
			origin: forensics.Origin{Name: "cockroach.log"},
			in:     "I180220 08:10:24.419597 1234 kv/dist_sender.go:1357  [client=127.0.0.1:35854,user=rk_user,n1] sending request to local server\n",
			node:   "n1",
		},
		{
			name:   "json header and node_id",
			format: JSONLogFormat,
			origin: forensics.Origin{Name: "cockroach.roach-1.cockroach.2024-05-02T08_00_00Z.000091.log"},
			in: `{"header":1,"timestamp":"1714636800.000000000","goroutine":1,"file":"util/log/file_sync_buffer.go","line":237,"redactable":1,"tags":{"config":""},"message":"binary: CockroachDB CCL v24.1.0 (x86_64-pc-linux-gnu, built 2024/05/13 16:50:38, go1.22.2 X:nocoverageredesign)"}` + "\n" +
				`{"channel_numeric":0,"channel":"DEV","timestamp":"1714636801.000000000","cluster_id":"6c3f5d9e","node_id":1,"severity_numeric":1,"severity":"INFO","goroutine":412,"file":"server/status/runtime.go","line":525,"entry_counter":12,"redactable":1,"tags":{"n":"1"},"message":"runtime stats"}` + "\n",
			release: "v24.1.0", node: "n1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.format.New(tc.origin)
			res := parsertest.Parse(tc.format, tc.origin, []byte(tc.in))
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			n := int64(0)
			for _, l := range splitLines(tc.in) {
				n++
				p.Line(n, []byte(l), func(*forensics.Event) {})
			}
			p.End(func(*forensics.Event) {})
			if got := p.(forensics.Releaser).Release(); got != tc.release {
				t.Errorf("release %q, want %q", got, tc.release)
			}
			if got := p.(interface{ Node() string }).Node(); got != tc.node {
				t.Errorf("node %q, want %q", got, tc.node)
			}
		})
	}
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

func TestHostFromName(t *testing.T) {
	for name, want := range map[string]string{
		"cockroach.roach-1.cockroach.2022-03-08T14_20_07Z.006104.log":         "roach-1",
		"cockroach-kv-exec.roach-2.cockroach.2025-10-09T12_00_04Z.004412.log": "roach-2",
		"cockroach-health.ip-10-0-1-7.root.2024-12-02T09_12_44Z.000873.log":   "ip-10-0-1-7",
		"cockroach.log":                         "",
		"cockroach.roach-1.cockroach.2022.log":  "",
		"memcached.log":                         "",
		"cockroach.roach-1.cockroach.ts.x1.log": "",
	} {
		if got := hostFromName(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// The node log parsers tell their release and node; ingest asks for both.
var (
	_ forensics.Releaser         = (*logParser)(nil)
	_ forensics.Releaser         = (*jsonParser)(nil)
	_ interface{ Node() string } = (*logParser)(nil)
	_ interface{ Node() string } = (*jsonParser)(nil)
)

// The release from every form a log names it in, on real lines: the
// header's binary: line of crdb-v1 and crdb-v2 (pkg/util/log/testdata/
// read_header), before v1.0 (cockroachdb/cockroach#13881), the v1.x start
// line (#20114), and the startup banner of v24.3+ whose build line is a
// continuation of "node startup completed:" (#136932).
func TestReleaseForms(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"crdb-v1 header", "I210621 19:01:01.426205 1 util/log/sync_buffer.go:195 ⋮ [config] binary: CockroachDB CCL v20.2.7 (x86_64-apple-darwin14, built 2021/03/29 17:56:44, go1.13.14)\n", "v20.2.7"},
		{"crdb-v2 header", "I210816 21:25:47.681135 1 util/log/file_sync_buffer.go:238 ⋮ [config]   binary: CockroachDB CCL v21.2.0-alpha.00000000-3306-g39d59f1fc9-dirty (x86_64-apple-darwin20.6.0, built , go1.16.6)\n", "v21.2.0-alpha.00000000-3306-g39d59f1fc9-dirty"},
		{"legacy header before v1.0", "I170302 08:35:06.866296 1 util/log/clog.go:999  [config] binary: CockroachDB CCL beta-20170223 (linux amd64, built 2017/02/23 16:30:53, go1.7.5)\n", "beta-20170223"},
		{"v1.x start line", "I171109 14:14:33.936738 1 cli/start.go:593  CockroachDB CCL v1.0.6 (linux amd64, built 2017/10/25 17:35:28, go1.8.3)\n", "v1.0.6"},
		{"v24.3 startup banner", "I241209 08:03:21.105967 70 1@cli/start.go:1287 ⋮ [T1,Vsystem,n1] 89  node startup completed:\n" +
			"I241209 08:03:21.105967 70 1@cli/start.go:1287 ⋮ [T1,Vsystem,n1] 89 +CockroachDB node starting at 2024-12-09 08:03:21.105899442 +0000 UTC m=+1.249499872 (took 1.1s)\n" +
			"I241209 08:03:21.105967 70 1@cli/start.go:1287 ⋮ [T1,Vsystem,n1] 89 +build:               CCL v24.3.0 @ 2024/11/21 17:04:13 (go1.22.8 X:nocoverageredesign)\n" +
			"I241209 08:03:21.105967 70 1@cli/start.go:1287 ⋮ [T1,Vsystem,n1] 89 +webui:               ‹http://mdzhlcrdb01:8080›\n", "v24.3.0"},
		{"a build line outside the banner", "I241209 08:03:21.105967 70 1@server/server.go:1 ⋮ [T1,Vsystem,n1] 90  build info:\n" +
			"I241209 08:03:21.105967 70 1@server/server.go:1 ⋮ [T1,Vsystem,n1] 90 +build:               CCL v99.1.0\n", ""},
	} {
		res := parsertest.Parse(LogFormat, forensics.Origin{Name: "excerpt.txt"}, []byte(tc.in))
		if len(res.Errors) > 0 {
			t.Errorf("%s: errors %v", tc.name, res.Errors)
		}
		q := LogFormat.New(forensics.Origin{Name: "excerpt.txt"})
		for i, l := range strings.Split(strings.TrimSuffix(tc.in, "\n"), "\n") {
			q.Line(int64(i+1), []byte(l), func(*forensics.Event) {})
		}
		q.End(func(*forensics.Event) {})
		if got := q.(forensics.Releaser).Release(); got != tc.want {
			t.Errorf("%s: release %q, want %q", tc.name, got, tc.want)
		}
	}
}
