package forensics

import "testing"

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
