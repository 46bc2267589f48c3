package crdb

import (
	"strings"
	"testing"

	"forensics"
)

// Leases and NotLeaseHolderErrors as v24.1–v25.4 print them
// (pkg/roachpb/data.go Lease.SafeFormat: "repl=%s seq=%d start=%s", then
// "exp=%s" for expiration leases, "epo=%d min-exp=%s" for epoch leases,
// "term=%d min-exp=%s" for leader leases (v24.3+), then " pro=%s" always
// and " acq=%s" when the acquisition type is known; pkg/kv/kvpb/errors.go
// NotLeaseHolderError.printError; the expected text of
// pkg/kv/kvpb/errors_test.go TestNotLeaseholderError).
const (
	v24EpochLease   = "repl=(n1,s1):1 seq=2 start=0.000000002,0 epo=1 min-exp=0.000000003,0 pro=0.000000001,0 acq=Transfer"
	v24ExpLease     = "repl=(n3,s3):4 seq=6 start=1733140000.123456789,0 exp=1733140006.123456789,0 pro=1733140000.123450000,0 acq=Transfer"
	v25LeaderLeaseA = "repl=(n2,s2):2 seq=7 start=1760011800.412000000,0 term=9 min-exp=1760011806.412000000,0 pro=1760011800.411000000,0 acq=Request"
	v25LeaderLeaseB = "repl=(n1,s1):1 seq=6 start=1760011700.100000000,0 term=8 min-exp=1760011706.100000000,0 pro=1760011700.099000000,0 acq=Transfer"
)

func TestParseLeaseV24(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Lease
	}{
		{v24EpochLease, Lease{Replica: "(n1,s1):1", Seq: "2", Start: "0.000000002,0", Epoch: "1",
			MinExpiration: "0.000000003,0", Proposed: "0.000000001,0", Acquisition: "Transfer"}},
		{v24ExpLease, Lease{Replica: "(n3,s3):4", Seq: "6", Start: "1733140000.123456789,0", Expiration: "1733140006.123456789,0",
			Proposed: "1733140000.123450000,0", Acquisition: "Transfer"}},
		{v25LeaderLeaseA, Lease{Replica: "(n2,s2):2", Seq: "7", Start: "1760011800.412000000,0", Term: "9",
			MinExpiration: "1760011806.412000000,0", Proposed: "1760011800.411000000,0", Acquisition: "Request"}},
		// A copy with redaction markers (a trace of v20.2+) reads the same.
		{"‹repl=(n2,s2):2 seq=7› start=1760011800.412000000,0 term=9 min-exp=1760011806.412000000,0 pro=1760011800.411000000,0 acq=Request",
			Lease{Replica: "(n2,s2):2", Seq: "7", Start: "1760011800.412000000,0", Term: "9",
				MinExpiration: "1760011806.412000000,0", Proposed: "1760011800.411000000,0", Acquisition: "Request"}},
	} {
		got, ok := ParseLease([]byte(tc.in))
		if !ok || got != tc.want {
			t.Errorf("%q:\n got %+v (%v)\nwant %+v", tc.in, got, ok, tc.want)
		}
	}
}

func TestParseNLHEV24(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want NLHE
	}{
		{
			name: "v24.1 errors_test: no replica, epoch lease with min-exp and acq",
			in:   "[NotLeaseHolderError] r1: replica not lease holder; current lease is " + v24EpochLease,
			want: NLHE{RangeID: 1, Lease: Lease{Replica: "(n1,s1):1", Seq: "2", Start: "0.000000002,0", Epoch: "1",
				MinExpiration: "0.000000003,0", Proposed: "0.000000001,0", Acquisition: "Transfer"}},
		},
		{
			// pkg/kv/kvserver/leases/status.go: a follower cannot tell whether a
			// leader lease of another replica is still valid; the replica
			// redirects with this custom message (replica_range_lease.go).
			name: "v24.3+ leader lease not held locally",
			in:   "application error: [NotLeaseHolderError] leader lease is not held locally, cannot determine validity; r412: replica (n1,s1):1 not lease holder; current lease is " + v25LeaderLeaseA,
			want: NLHE{Reason: "leader lease is not held locally, cannot determine validity", RangeID: 412, Replica: "(n1,s1):1",
				Lease: Lease{Replica: "(n2,s2):2", Seq: "7", Start: "1760011800.412000000,0", Term: "9",
					MinExpiration: "1760011806.412000000,0", Proposed: "1760011800.411000000,0", Acquisition: "Request"}},
		},
		{
			name: "v25 redactable log: markers around the custom message only",
			in:   "application error: [NotLeaseHolderError] ‹leader lease is not held locally, cannot determine validity›; r412: replica (n1,s1):1 not lease holder; current lease is " + v25LeaderLeaseA,
			want: NLHE{Reason: "leader lease is not held locally, cannot determine validity", RangeID: 412, Replica: "(n1,s1):1",
				Lease: Lease{Replica: "(n2,s2):2", Seq: "7", Start: "1760011800.412000000,0", Term: "9",
					MinExpiration: "1760011806.412000000,0", Proposed: "1760011800.411000000,0", Acquisition: "Request"}},
		},
		{
			name: "v24 expiration lease after a transfer",
			in:   "[NotLeaseHolderError] lease transferred; r88: replica (n1,s1):2 not lease holder; current lease is " + v24ExpLease,
			want: NLHE{Reason: "lease transferred", RangeID: 88, Replica: "(n1,s1):2",
				Lease: Lease{Replica: "(n3,s3):4", Seq: "6", Start: "1733140000.123456789,0", Expiration: "1733140006.123456789,0",
					Proposed: "1733140000.123450000,0", Acquisition: "Transfer"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseNLHE([]byte(tc.in))
			if !ok || got != tc.want {
				t.Errorf("\n got %+v (%v)\nwant %+v", got, ok, tc.want)
			}
		})
	}
}

// Lease comparison orders every form: sequence first, then start; a lease
// and its own extension (the same sequence and start, a later min-exp or
// term) are the same lease.
func TestCompareLeasesV24(t *testing.T) {
	mustLease := func(s string) Lease {
		l, ok := ParseLease([]byte(s))
		if !ok {
			t.Fatalf("not a lease: %q", s)
		}
		return l
	}
	a, b := mustLease(v25LeaderLeaseA), mustLease(v25LeaderLeaseB)
	if CompareLeases(a, b) != 1 || CompareLeases(b, a) != -1 {
		t.Errorf("leader lease seq=7 must be newer than seq=6")
	}
	// An epoch lease promoted from an expiration lease keeps its sequence
	// and start (cockroachdb/cockroach#117840): not newer, not older.
	exp := mustLease("repl=(n2,s2):2 seq=7 start=1760011800.412000000,0 exp=1760011806.412000000,0 pro=1760011800.411000000,0 acq=Transfer")
	epo := mustLease("repl=(n2,s2):2 seq=7 start=1760011800.412000000,0 epo=3 min-exp=1760011806.412000000,0 pro=1760011801.000000000,0 acq=Transfer")
	if c := CompareLeases(exp, epo); c != 0 {
		t.Errorf("promotion compares %d, want 0", c)
	}
	// Against the v2.0 seed forms: the start decides when a sequence is 0.
	old := mustLease(seedLeaseN2)
	if CompareLeases(a, old) != 1 {
		t.Errorf("a 2025 lease must be newer than a 2018 one")
	}
}

// v25.4 logs DistSender on the KV_EXEC channel (the 15@ prefix) in the
// kv-exec file group; the line grammar is crdb-v2's.
func TestKVExecChannel(t *testing.T) {
	const name = "cockroach-kv-exec.roach-2.cockroach.2025-10-09T12_00_04Z.004412.log"
	in := "I251009 12:00:04.100000 1 util/log/file_sync_buffer.go:237 ⋮ [config]   binary: CockroachDB CCL v25.4.1 (x86_64-pc-linux-gnu, built 2025/11/03 16:21:31, go1.23.12 X:nocoverageredesign)\n" +
		"W251009 12:10:41.882731 90442 15@kv/kvclient/kvcoord/dist_sender.go:2854 ⋮ [T1,Vsystem,n2,client=10.0.1.7:52218,hostssl,user=app] 1204  slow replica RPC: have been waiting 12.31s (1 attempts) for RPC Put [/Table/106/1/‹400›/0,/Min), EndTxn(parallel commit) [/Table/106/1/‹400›/0], [txn: 2cce471c] to replica (n3,s3):4; resp: ‹(err: context deadline exceeded)›\n" +
		"I251009 12:10:41.902001 90442 15@kv/kvclient/kvcoord/dist_sender.go:2721 ⋮ [T1,Vsystem,n2,client=10.0.1.7:52218,hostssl,user=app] 1205  r412: sending batch ‹1 Put› to (n3,s3):4\n"
	p := LogFormat.New(forensics.Origin{Name: name})
	var evs []forensics.Event
	for i, l := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
		if _, err := p.Line(int64(i+1), []byte(l), func(e *forensics.Event) {
			c := *e
			c.Attrs = append([]forensics.Attr(nil), e.Attrs...)
			evs = append(evs, c)
		}); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	if len(evs) != 2 || evs[0].Kind != KindSlowRPC || evs[1].Kind != KindSend {
		t.Fatalf("events %+v", evs)
	}
	checkEvent(t, evs[0], want{KindSlowRPC, 0, "n2", map[string]string{
		"seconds": "12.31", "attempts": "1", "replica": "(n3,s3):4",
		"batch": "Put [/Table/106/1/400/0,/Min), EndTxn(parallel commit) [/Table/106/1/400/0], [txn: 2cce471c]",
		"resp":  "(err: context deadline exceeded)",
		"trace": "T1,Vsystem,n2,client=10.0.1.7:52218,hostssl,user=app", "gateway": "n2", "client": "10.0.1.7:52218"}})
	if evs[1].Range != 412 {
		t.Errorf("send range %d", evs[1].Range)
	}
	r := p.(forensics.Releaser).Release()
	if r != "v25.4.1" {
		t.Errorf("release %q", r)
	}
	if n := p.(interface{ Node() string }).Node(); n != "n2" {
		t.Errorf("node %q", n)
	}
}
