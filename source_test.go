package forensics

import (
	"testing"
	"time"
)

func TestNodeFolder(t *testing.T) {
	for _, c := range []struct{ path, node, inside string }{
		{"testdata/seed/cbcollect_info_ns_1@172.23.100.19_20220722-004733/ns_server.indexer.log", "ns_1@172.23.100.19", "ns_server.indexer.log"},
		{"/abs/collectinfo-2022-07-22T004733-ns_1@10.0.0.1.zip!cbcollect_info_ns_1@10.0.0.1_20220722-004733/memcached.log", "ns_1@10.0.0.1", "memcached.log"},
		{"debug.zip!debug/nodes/3/logs/cockroach.log", "n3", "logs/cockroach.log"},
		{"bundle/debug/nodes/12/details.json", "n12", "details.json"},
		{"collectinfo-2022-07-22T004733-ns_1@10.0.0.1-redacted.zip!couchbase.log", "ns_1@10.0.0.1", "couchbase.log"},
		{"snapshot-20250611T091500Z/vtctld.log", "", "snapshot-20250611T091500Z/vtctld.log"},
		// The innermost folder that names a node wins.
		{"cbcollect_info_ns_1@a_20220722-004733/x/cbcollect_info_ns_1@b_20220722-004733/diag.log", "ns_1@b", "diag.log"},
		{"debug/nodes/x/logs/cockroach.log", "", "debug/nodes/x/logs/cockroach.log"},
	} {
		node, inside := NodeFolder(c.path)
		if node != c.node || inside != c.inside {
			t.Errorf("NodeFolder(%q) = %q, %q; want %q, %q", c.path, node, inside, c.node, c.inside)
		}
	}
}

func TestCollectedAt(t *testing.T) {
	for _, c := range []struct {
		path string
		want string // RFC 3339, "" for none
	}{
		{"/abs/collectinfo-2022-07-22T004733-ns_1@10.0.0.1.zip!cbcollect_info_ns_1@10.0.0.1_20220722-004733/memcached.log", "2022-07-22T00:47:33Z"},
		{"testdata/x/cbcollect_info_ns_1@cb-01.example.net_20251103-235959/ns_server.info.log", "2025-11-03T23:59:59Z"},
		// The innermost folder wins.
		{"cbcollect_info_ns_1@a_20220722-004733/cbcollect_info_ns_1@b_20230101-000000/diag.log", "2023-01-01T00:00:00Z"},
		{"cbcollect_info_ns_1@a_20221399-004733/diag.log", ""}, // no 13th month
		{"logs/ns_server.info.log", ""},
		{"debug.zip!debug/nodes/3/logs/cockroach.log", ""},
	} {
		got, ok := CollectedAt(c.path)
		if s := got.Format(time.RFC3339); ok != (c.want != "") || ok && s != c.want {
			t.Errorf("CollectedAt(%q) = %s, %v; want %q", c.path, s, ok, c.want)
		}
	}
}
