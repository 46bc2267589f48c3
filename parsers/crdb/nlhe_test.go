package crdb

import (
	"testing"
)

// Lease texts of the seed (cockroachdb/cockroach#22837, v2.0-alpha): n2
// reports the newer lease, with seq=0; n1 the older one, with seq=3.
const (
	seedLeaseN1 = "repl=(n1,s1):1 seq=0 start=1519114215.919013222,0 epo=1 pro=1519114215.919015761,0"
	seedLeaseN2 = "repl=(n2,s2):3 seq=3 start=1519114118.566713425,0 epo=1 pro=1519114118.566716884,0"
)

func TestParseNLHE(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want NLHE
	}{
		{
			name: "v2.0 seed",
			in:   "[NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1,
			want: NLHE{RangeID: 52, Replica: "(n2,s2):3", Lease: Lease{Replica: "(n1,s1):1", Seq: "0",
				Start: "1519114215.919013222,0", Epoch: "1", Proposed: "1519114215.919015761,0"}},
		},
		{
			name: "v2.0 seed retry line wraps it in {(err: …) <nil>}",
			in:   "error: {(err: [NotLeaseHolderError] r52: replica (n1,s1):1 not lease holder; current lease is " + seedLeaseN2 + ") <nil>}; trying next peer (n2,s2):3",
			want: NLHE{RangeID: 52, Replica: "(n1,s1):1", Lease: Lease{Replica: "(n2,s2):3", Seq: "3",
				Start: "1519114118.566713425,0", Epoch: "1", Proposed: "1519114118.566716884,0"}},
		},
		{
			name: "v2.1–v20.1 retry line: (err: …) <nil>",
			in:   "error: (err: [NotLeaseHolderError] r58: replica (n2,s2):2 not lease holder; current lease is repl=(n1,s1):1 seq=4 start=1551787200.123456789,0 epo=2 pro=1551787200.223456789,0) <nil>; trying next peer (n1,s1):1",
			want: NLHE{RangeID: 58, Replica: "(n2,s2):2", Lease: Lease{Replica: "(n1,s1):1", Seq: "4",
				Start: "1551787200.123456789,0", Epoch: "2", Proposed: "1551787200.223456789,0"}},
		},
		{
			name: "v1.1 and earlier: range N:, lease holder unknown",
			in:   "application error: [NotLeaseHolderError] range 22: replica (n1,s1):1 not lease holder; lease holder unknown",
			want: NLHE{RangeID: 22, Replica: "(n1,s1):1", HolderUnknown: true},
		},
		{
			name: "holder known without its lease: replica X is",
			in:   "[NotLeaseHolderError] r12: replica (n1,s1):1 not lease holder; replica (n2,s2):2 is",
			want: NLHE{RangeID: 12, Replica: "(n1,s1):1", Holder: "(n2,s2):2"},
		},
		{
			// Real client output of a v24.1 cluster, with a custom reason
			// before the range and two more wrappers.
			name: "v21.1+ custom reason, inside ambiguous result error",
			in:   "Error: pq: result is ambiguous: error=ba: Put [/Table/106/1/400/0], EndTxn(parallel commit) [/Table/106/1/400/0], [txn: 2cce471c] RPC error: grpc: error reading from server: read tcp 127.0.0.1:54952->127.0.0.1:26258: read: connection reset by peer [code 14/Unavailable] [exhausted] (last error: routing information detected to be stale: [NotLeaseHolderError] lease held by different store; r73: replica (n3,s3):2 not lease holder; current lease is repl=(n2,s2):3 seq=3 start=1777135826.439980668,0 epo=1 pro=1777135826.450045745,0)",
			want: NLHE{Reason: "lease held by different store", RangeID: 73, Replica: "(n3,s3):2",
				Lease: Lease{Replica: "(n2,s2):3", Seq: "3", Start: "1777135826.439980668,0", Epoch: "1", Proposed: "1777135826.450045745,0"}},
		},
		{
			// Real crdb-v2 log of v21.1.5: the whole error is a redacted value.
			name: "v21.1 redaction markers around the error",
			in:   "could not gossip system config: ‹[NotLeaseHolderError] lease acquisition attempt lost to another lease; r6: replica (n1,s1):1 not lease holder; lease holder unknown›",
			want: NLHE{Reason: "lease acquisition attempt lost to another lease", RangeID: 6, Replica: "(n1,s1):1", HolderUnknown: true},
		},
		{
			// roachpb errors_test.go TestNotLeaseholderError.
			name: "newest: no replica, min-exp and acq",
			in:   "[NotLeaseHolderError] r1: replica not lease holder; current lease is repl=(n1,s1):1 seq=2 start=0.000000002,0 epo=1 min-exp=0.000000003,0 pro=0.000000001,0 acq=Transfer",
			want: NLHE{RangeID: 1, Lease: Lease{Replica: "(n1,s1):1", Seq: "2", Start: "0.000000002,0", Epoch: "1",
				MinExpiration: "0.000000003,0", Proposed: "0.000000001,0", Acquisition: "Transfer"}},
		},
		{
			name: "newest: lease holder unknown",
			in:   "[NotLeaseHolderError] r0: replica not lease holder; lease holder unknown",
			want: NLHE{HolderUnknown: true},
		},
		{
			name: "expiration-based lease",
			in:   "[NotLeaseHolderError] r2: replica (n3,s3):3 not lease holder; current lease is repl=(n1,s1):1 seq=1 start=0,0 exp=1600000009.000000000,0 pro=1600000000.000000000,0",
			want: NLHE{RangeID: 2, Replica: "(n3,s3):3", Lease: Lease{Replica: "(n1,s1):1", Seq: "1", Start: "0,0",
				Expiration: "1600000009.000000000,0", Proposed: "1600000000.000000000,0"}},
		},
		{
			name: "sending to all replicas failed wraps the last one",
			in:   "failed to send RPC: sending to all 3 replicas failed; last error: (err: [NotLeaseHolderError] r52: replica (n3,s3):2 not lease holder; lease holder unknown) <nil>",
			want: NLHE{RangeID: 52, Replica: "(n3,s3):2", HolderUnknown: true},
		},
		{
			name: "v2.0–v20.2 custom message replaces the text",
			in:   "error: (err: [NotLeaseHolderError] lease held by different store) <nil>; trying next peer (n1,s1):1",
			want: NLHE{Reason: "lease held by different store"},
		},
		{
			name: "redacted replica values",
			in:   "[NotLeaseHolderError] r9: replica ‹(n2,s2):2› not lease holder; current lease is repl=‹(n1,s1):1› seq=7 start=1700000000.000000001,2? epo=4",
			want: NLHE{RangeID: 9, Replica: "(n2,s2):2", Lease: Lease{Replica: "(n1,s1):1", Seq: "7", Start: "1700000000.000000001,2?", Epoch: "4"}},
		},
		{
			name: "empty lease",
			in:   "[NotLeaseHolderError] r9: replica (n2,s2):2 not lease holder; current lease is <empty>",
			want: NLHE{RangeID: 9, Replica: "(n2,s2):2"},
		},
		{
			name: "cut short after the replica",
			in:   "[NotLeaseHolderError] r9: replica (n2,s2):2 not le",
			want: NLHE{RangeID: 9, Replica: "(n2,s2):2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseNLHE([]byte(tc.in))
			if !ok {
				t.Fatalf("ParseNLHE(%q) found no error", tc.in)
			}
			if got != tc.want {
				t.Errorf("ParseNLHE(%q)\n got %+v\nwant %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestLeaseIsZero(t *testing.T) {
	for in, zero := range map[string]bool{
		"[NotLeaseHolderError] r9: replica (n2,s2):2 not lease holder; current lease is <empty>":              true,
		"[NotLeaseHolderError] r9: replica (n2,s2):2 not lease holder; lease holder unknown":                  true,
		"[NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1:      false,
		"[NotLeaseHolderError] r9: replica (n2,s2):2 not lease holder; current lease is repl=(n1,s1):1 seq=1": false,
	} {
		e, _ := ParseNLHE([]byte(in))
		if e.Lease.IsZero() != zero {
			t.Errorf("%q: IsZero = %v", in, !zero)
		}
	}
}

func TestParseNLHEMisses(t *testing.T) {
	for _, in := range []string{
		"",
		"application error: TransactionRetryWithProtoRefreshError: TransactionRetryError: retry txn (RETRY_SERIALIZABLE)",
		"[RangeNotFoundError] r52 was not found on s1",
		"the replica is not lease holder any more",
		"NotLeaseHolderError",
	} {
		if got, ok := ParseNLHE([]byte(in)); ok {
			t.Errorf("ParseNLHE(%q) = %+v, want no error", in, got)
		}
	}
}

func TestNLHETarget(t *testing.T) {
	for in, want := range map[string]string{
		"[NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1: "(n1,s1):1",
		"[NotLeaseHolderError] r12: replica (n1,s1):1 not lease holder; replica (n2,s2):2 is":            "(n2,s2):2",
		"[NotLeaseHolderError] r6: replica (n1,s1):1 not lease holder; lease holder unknown":             "",
	} {
		e, _ := ParseNLHE([]byte(in))
		if got := e.Target(); got != want {
			t.Errorf("Target of %q = %q, want %q", in, got, want)
		}
	}
}

func TestParseLease(t *testing.T) {
	l, ok := ParseLease([]byte("repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1 pro=1625804709.450045745,0 following repl=(n3,s3):2"))
	if !ok || l.Replica != "(n2,s2):3" || l.Proposed != "1625804709.450045745,0" {
		t.Errorf("ParseLease stopped wrong: %+v %v", l, ok)
	}
	// Leader leases print a Raft term [I: wording of the newest versions].
	l, ok = ParseLease([]byte("repl=(n1,s1):1VOTER_INCOMING seq=5 start=1700000000.000000000,0 term=7 min-exp=1700000006.000000000,0 pro=1700000000.000000000,0"))
	if !ok || l.Replica != "(n1,s1):1VOTER_INCOMING" || l.Term != "7" || l.MinExpiration != "1700000006.000000000,0" {
		t.Errorf("leader lease: %+v %v", l, ok)
	}
	for _, in := range []string{"", "<empty>", "seq=1 start=0,0", "repl=n1 seq=1"} {
		if l, ok := ParseLease([]byte(in)); ok {
			t.Errorf("ParseLease(%q) = %+v, want none", in, l)
		}
	}
}

func TestParseHLC(t *testing.T) {
	tests := []struct {
		in      string
		wall    int64
		logical int32
		ok      bool
	}{
		{"1519114215.919013222,0", 1519114215919013222, 0, true},
		{"1519114118.566713425,3", 1519114118566713425, 3, true},
		{"0,0", 0, 0, true},
		{"0.000000002,0", 2, 0, true},
		{"1700000000.000000001,2?", 1700000000000000001, 2, true},
		{"1519114215.919013222", 0, 0, false},
		{"1519114215.919013222,", 0, 0, false},
		{",0", 0, 0, false},
		{"99999999999999999999.0,0", 0, 0, false},
		{"1.5,0 extra", 0, 0, false},
	}
	for _, tc := range tests {
		h, ok := ParseHLC(tc.in)
		if ok != tc.ok || ok && (h.WallTime != tc.wall || h.Logical != tc.logical) {
			t.Errorf("ParseHLC(%q) = %+v, %v; want {%d %d}, %v", tc.in, h, ok, tc.wall, tc.logical, tc.ok)
		}
	}
}

func TestCompareLeases(t *testing.T) {
	lease := func(s string) Lease {
		l, ok := ParseLease([]byte(s))
		if !ok {
			t.Fatalf("bad lease %q", s)
		}
		return l
	}
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"seed: the seq=0 lease started later and is newer", seedLeaseN1, seedLeaseN2, 1},
		{"seed, the other way round", seedLeaseN2, seedLeaseN1, -1},
		{"higher sequence wins over start", "repl=(n2,s2):2 seq=8 start=1600000000.000000000,0 epo=1", "repl=(n1,s1):1 seq=7 start=1600000005.000000000,0 epo=1", 1},
		{"same sequence: later start", "repl=(n1,s1):1 seq=7 start=1600000000.000000000,0 epo=1", "repl=(n1,s1):1 seq=7 start=1600000000.000000000,1 epo=1", -1},
		{"no sequence logged (≤ v1.1): start decides", "repl=(n1,s1):1 start=1500000010.000000000,0 epo=1", "repl=(n2,s2):2 start=1500000000.000000000,0 epo=1", 1},
		{"the same lease", seedLeaseN2, seedLeaseN2, 0},
	}
	for _, tc := range tests {
		if got := CompareLeases(lease(tc.a), lease(tc.b)); got != tc.want {
			t.Errorf("%s: CompareLeases = %d, want %d", tc.name, got, tc.want)
		}
	}
}
