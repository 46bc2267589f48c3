package crdb

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// FuzzParse reads any input with every format of the package and checks the
// parser invariants; it also reads it as a NotLeaseHolderError and a lease.
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte("2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch\n" +
		"08:10:24.414053 . 227 ... [client=127.0.0.1:35854,user=rk_user,n1] r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3\n" +
		"08:10:24.419545 . 5473 ... [client=127.0.0.1:35854,user=rk_user,n1] application error: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1 + "\n" +
		"08:10:24.419597 . 52 ... [client=127.0.0.1:35854,user=rk_user,n1] error: {(err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1 + ") <nil>}; trying next peer (n1,s1):1\n"))
	f.Add([]byte("I210709 04:25:09.833547 83961 kv/kvclient/kvcoord/dist_sender.go:2097 ⋮ [n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22] 5831  application error: " + nlhe73 + "\n" +
		"I210709 04:25:09.833600 83961 kv/kvclient/kvcoord/dist_sender.go:2245 ⋮ [n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22] 5832  backing off due to NotLeaseHolderErr with stale info\n" +
		"W210709 02:36:56.323474 1 1@cli/start.go:992 ⋮ [-] 1 +This mode is intended for non-production testing only.\n"))
	f.Add([]byte("I170312 15:17:12.602218 149 kv/dist_sender.go:1142  [client=127.0.0.1:52149,user=root,n1] sending batch 1 CPut, 1 BeginTxn, 1 EndTxn to range 22\ngoroutine 1 [running]:\n"))
	f.Add([]byte(`{"c":0,"t":"1625804709.833547000","N":3,"s":1,"g":9,"f":"kv/kvclient/kvcoord/dist_sender.go","l":1990,"n":7,"r":0,"tags":{"n":"3"},"message":"trying next peer (n2,s2):3"}` + "\n"))
	f.Add([]byte(traceTxt))
	f.Add([]byte(traceJSON))
	f.Add([]byte(traceJaeger))
	f.Add([]byte(requestsHTML))
	f.Add([]byte("[NotLeaseHolderError] r1: replica not lease holder; current lease is repl=(n1,s1):1 seq=2 start=0.000000002,0 epo=1 min-exp=0.000000003,0 pro=0.000000001,0 acq=Transfer"))
	f.Add([]byte("application error: [NotLeaseHolderError] leader lease is not held locally, cannot determine validity; r412: replica (n1,s1):1 not lease holder; current lease is " + v25LeaderLeaseA))
	f.Add([]byte(requestsTable))
	f.Add([]byte(zipkinTrace))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range Formats {
			format.Detect("x", data)
			parsertest.Check(t, format, forensics.Origin{Node: "n1"}, data)
			// Without a node from the path, the parser learns it from the
			// lines or the file name.
			parsertest.Check(t, format, forensics.Origin{Name: "cockroach-kv-exec.roach-1.cockroach.2025-10-09T14_20_07Z.000001.log"}, data)
		}
		var leases []Lease
		if e, ok := ParseNLHE(data); ok {
			leases = append(leases, e.Lease)
			e.Target()
		}
		for _, b := range [][]byte{data, data[len(data)/2:]} {
			if l, ok := ParseLease(b); ok {
				leases = append(leases, l)
			}
		}
		// The order of leases decides which redirect is stale: it must
		// not depend on which lease is asked about first.
		for _, a := range leases {
			if c := CompareLeases(a, a); c != 0 {
				t.Errorf("lease %+v compares %d with itself", a, c)
			}
			for _, b := range leases {
				ab, ba := CompareLeases(a, b), CompareLeases(b, a)
				if ab < -1 || ab > 1 || ab != -ba {
					t.Errorf("CompareLeases(%+v, %+v) = %d, swapped %d", a, b, ab, ba)
				}
			}
		}
		ParseHLC(string(data))
	})
}
