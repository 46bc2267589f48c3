package extract

import (
	"strings"
	"testing"
)

func TestRedactorText(t *testing.T) {
	r := &Redactor{names: map[string]string{"test3": "bucket1", "payment": "keyspace1", "cb.local": "host1.example", "default": "bucket2"}, ips: map[string]string{}}
	for n := range r.names {
		r.order = append(r.order, n)
	}
	for _, c := range []struct{ in, want string }{
		// The same IP, the same pseudonym; a version is not an address.
		{"ns_1@172.23.100.15 talks to 172.23.100.16, then 172.23.100.15 again; version 7.1.1.3175.2", "ns_1@192.0.2.1 talks to 192.0.2.2, then 192.0.2.1 again; version 7.1.1.3175.2"},
		// Names as tokens, inside the grammars that embed them.
		{"(test3) DCP (Producer) eq_dcpq:secidx:proj-test3-MAINT_STREAM", "(bucket1) DCP (Producer) eq_dcpq:secidx:proj-bucket1-MAINT_STREAM"},
		{"vt_payment payment_reverse mypayment payment2", "vt_keyspace1 keyspace1_reverse mypayment payment2"},
		{"babysitter_of_ns_1@cb.local", "babysitter_of_ns_1@host1.example"},
		// Couchbase's own scope keeps its name; the bucket "default" does not.
		{"bucket [default] scope _default", "bucket [bucket2] scope _default"},
		// goxdcr joins the target cluster's UUID to its names with "_"; 33 hex digits are not one.
		{"Try to fix Pipeline 5c7a1b0e9d2f4e6a8b3c1d0e9f8a7b6c/orders/orders. xmem_5c7a1b0e9d2f4e6a8b3c1d0e9f8a7b6c/orders/orders_10.50.0.12:11210 5c7a1b0e9d2f4e6a8b3c1d0e9f8a7b6c0",
			"Try to fix Pipeline 00000000000000000000000000000001/orders/orders. xmem_00000000000000000000000000000001/orders/orders_192.0.2.3:11210 5c7a1b0e9d2f4e6a8b3c1d0e9f8a7b6c0"},
		// Marked user data.
		{"key <ud>user::1234</ud> on ‹secret.example.com›", "key <ud>redacted</ud> on ‹redacted›"},
		// A transaction's short id stays; the key span it waits in does not.
		{"[n1,s1,r149/1:‹/Table/19{1-4}›] pusher ‹6a43640d›: finished waiting after 329.98s for pushee ‹fea211f7›",
			"[n1,s1,r149/1:‹redacted›] pusher ‹6a43640d›: finished waiting after 329.98s for pushee ‹fea211f7›"},
		{"‹6a43640d-user›", "‹redacted›"},
	} {
		r.sortOrder()
		if got := r.Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// The names and ids no system marks, learned from the texts an extract
// holds and replaced in all of them, paths included.
func TestRedactorLearns(t *testing.T) {
	r := &Redactor{names: map[string]string{}, ips: map[string]string{}}
	texts := []string{
		"I1207 10:00:00.000000 1 vtctld.go:42] Running on machine: example-zone1-vtctld-1d4dcad0-6f7c9d8b5-x2x9q",
		`{"alias": "zone1-0000000101", "hostname": "db-7.prod.internal", "cell": "zone1"}`,
		"logs/cockroach.crdb-east-2.tpcc-0012.2024-06-11T09_00_00Z.001903.log",
		"logs/cockroach-health.crdb-east-2.tpcc-0012.2024-06-11T09_00_00Z.001903.log",
		"vtctld.example-zone1-vtctld-1d4dcad0-6f7c9d8b5-x2x9q.vtuser.log.INFO.20250611-082207.2318711",
		"[n1] cluster ID 7b1f2e9a-b0a6-11ef-9d3c-0a58a9feac02 txn 7b1f2e9a user=rk_user password=hunter2 mac 02:1a:4f:3e:9c:11",
		"gtid 3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5 bucket uuid 2697a083784f9c05000893d8e0f8cd1b peer [fd00:1:2::17]:26257",
	}
	for _, s := range texts {
		r.Learn(s)
	}
	var out []string
	for _, s := range texts {
		out = append(out, r.Text(s))
	}
	all := strings.Join(out, "\n")
	for _, secret := range []string{"example-zone1-vtctld-1d4dcad0-6f7c9d8b5-x2x9q", "zone1", "db-7.prod.internal", "crdb-east-2", "tpcc-0012", "vtuser",
		"7b1f2e9a", "rk_user", "hunter2", "02:1a:4f:3e:9c:11", "3E11FA47-71CA-11E1-9E33-C80AA9429562", "2697a083784f9c05000893d8e0f8cd1b", "fd00:1:2::17"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q is left in:\n%s", secret, all)
		}
	}
	// The grammars stay: a tablet alias, a CockroachDB log file's name, a
	// GTID, an IPv6 address in brackets with its port.
	for _, want := range []string{"-0000000101", "cockroach.host", ".2024-06-11T09_00_00Z.001903.log", ":1-5", "[2001:db8::", "]:26257", "password=redacted"} {
		if !strings.Contains(all, want) {
			t.Errorf("%q is not in:\n%s", want, all)
		}
	}
	// The same name, the same pseudonym, in every text.
	if a, b := r.Text("zone1"), r.Text(`"cell": "zone1"`); !strings.Contains(b, a) {
		t.Errorf("zone1 is %q alone and %q in JSON", a, b)
	}
}

// Member names from a zip hold anything: the extract's file names hold no
// control character, no way out of the folder, are never empty, never the
// case's expect.json, and two sources never share one.
func TestExtractPaths(t *testing.T) {
	paths := []string{
		"names.zip!evil\x1b[2J\x07.log",
		"names.zip!evil\n.log",
		"names.zip!evil\r.log",
		"names.zip!evil\u202e\u200b.log",
		"names.zip!evil\xff.log",
		"names.zip!../../../tmp/escape/ns_server.indexer.log",
		"names.zip!/etc/ns_server.indexer.log",
		"names.zip!expect.json",
		"names.zip!",
		"other.zip!..",
	}
	rels := relPaths(paths)
	seen := map[string]string{}
	for _, p := range paths {
		rel := rels[p]
		if rel == "" || rel == "expect.json" || strings.Contains(rel, "..") || strings.HasPrefix(rel, "/") {
			t.Errorf("%q -> %q", p, rel)
		}
		for _, r := range rel {
			if r < 0x20 || r == 0x7f || r == '\u202e' || r == '\u200b' || r == '\ufffd' {
				t.Errorf("%q -> %q holds %U", p, rel, r)
			}
		}
		if other, ok := seen[rel]; ok {
			t.Errorf("%q and %q both -> %q", p, other, rel)
		}
		seen[rel] = p
	}
}
