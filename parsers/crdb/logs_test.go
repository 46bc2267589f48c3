package crdb

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// want describes the one event a line must produce.
type want struct {
	kind  forensics.Kind
	rng   int64
	node  string
	attrs map[string]string
}

// checkEvent compares an event with w: every attr of w must be there with
// its value, and w must name every attr the event has.
func checkEvent(t *testing.T, e forensics.Event, w want) {
	t.Helper()
	if e.Kind != w.kind || e.Range != w.rng || e.Node != w.node {
		t.Errorf("event %s range %d node %q; want %s range %d node %q", e.Kind, e.Range, e.Node, w.kind, w.rng, w.node)
	}
	for k, v := range w.attrs {
		if got := e.Attr(forensics.AttrKey(k)); got != v {
			t.Errorf("%s: attr %s = %q, want %q", e.Kind, k, got, v)
		}
	}
	for _, a := range e.Attrs {
		if _, ok := w.attrs[a.Key]; !ok {
			t.Errorf("%s: unexpected attr %s=%q", e.Kind, a.Key, a.Value)
		}
	}
	if e.VB != forensics.NoVB {
		t.Errorf("%s: vb %d", e.Kind, e.VB)
	}
}

func TestLogLines(t *testing.T) {
	const seedNLHE = "[NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is " + seedLeaseN1
	seedLease := map[string]string{
		"replica": "(n2,s2):3", "lease_replica": "(n1,s1):1", "lease_seq": "0", "lease_start": "1519114215.919013222,0",
		"lease_epoch": "1", "lease_pro": "1519114215.919015761,0",
	}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name string
		line string
		at   time.Time
		want *want
		// redirect is the distsender.nlhe a retry line that embeds the
		// whole error gives before its distsender.next_peer.
		redirect *want
	}{
		{
			// Real v1.0 line (blog post on log tags, 2017).
			name: "legacy v1.0 send, to range N",
			line: "I170312 15:17:12.602218 149 kv/dist_sender.go:1142  [client=127.0.0.1:52149,user=root,n1] sending batch 1 CPut, 1 BeginTxn, 1 EndTxn to range 22",
			at:   time.Date(2017, 3, 12, 15, 17, 12, 602218000, time.UTC),
			want: &want{KindSend, 22, "n1", map[string]string{"batch": "1 CPut, 1 BeginTxn, 1 EndTxn",
				"trace": "client=127.0.0.1:52149,user=root,n1", "gateway": "n1", "client": "127.0.0.1:52149"}},
		},
		{
			name: "legacy v1.1 send, to rN",
			line: "I171020 09:12:44.001220 2211 kv/dist_sender.go:1172  [n3,client=10.0.0.9:40000,user=root] sending batch 1 Get to r7",
			at:   time.Date(2017, 10, 20, 9, 12, 44, 1220000, time.UTC),
			want: &want{KindSend, 7, "n3", map[string]string{"batch": "1 Get",
				"trace": "n3,client=10.0.0.9:40000,user=root", "gateway": "n3", "client": "10.0.0.9:40000"}},
		},
		{
			name: "no tags: the node of the source",
			line: "I171020 09:12:44.001220 2211 kv/dist_sender.go:1172  sending batch 1 Get to r7",
			at:   time.Date(2017, 10, 20, 9, 12, 44, 1220000, time.UTC),
			want: &want{KindSend, 7, "n9", map[string]string{"batch": "1 Get", "gateway": "n9"}},
		},
		{
			name: "legacy v1.1 retry has no target",
			line: "I171020 09:12:44.003001 2211 kv/dist_sender.go:1363  [n3,client=10.0.0.9:40000,user=root] error, trying next peer",
			at:   time.Date(2017, 10, 20, 9, 12, 44, 3001000, time.UTC),
			want: &want{KindNextPeer, 0, "n3", map[string]string{
				"trace": "n3,client=10.0.0.9:40000,user=root", "gateway": "n3", "client": "10.0.0.9:40000"}},
		},
		{
			name: "legacy v2.0 application error (--vmodule=dist_sender=2)",
			line: "I180220 08:10:24.419545 1234 kv/dist_sender.go:1306  [client=127.0.0.1:35854,user=rk_user,n1] application error: " + seedNLHE,
			at:   time.Date(2018, 2, 20, 8, 10, 24, 419545000, time.UTC),
			want: &want{KindNLHE, 52, "n1", with(seedLease, "trace", "client=127.0.0.1:35854,user=rk_user,n1", "gateway", "n1", "client", "127.0.0.1:35854")},
		},
		{
			name: "legacy v2.0 retry line",
			line: "I180220 08:10:24.419597 1234 kv/dist_sender.go:1357  [client=127.0.0.1:35854,user=rk_user,n1] error: {(err: " + seedNLHE + ") <nil>}; trying next peer (n1,s1):1",
			at:   time.Date(2018, 2, 20, 8, 10, 24, 419597000, time.UTC),
			want: &want{KindNextPeer, 52, "n1", map[string]string{"next": "(n1,s1):1", "nlhe": "true",
				"trace": "client=127.0.0.1:35854,user=rk_user,n1", "gateway": "n1", "client": "127.0.0.1:35854"}},
			redirect: &want{KindNLHE, 52, "n1", map[string]string{"replica": "(n2,s2):3", "lease_replica": "(n1,s1):1",
				"lease_seq": "0", "lease_start": "1519114215.919013222,0", "lease_epoch": "1", "lease_pro": "1519114215.919015761,0",
				"trace": "client=127.0.0.1:35854,user=rk_user,n1", "gateway": "n1", "client": "127.0.0.1:35854"}},
		},
		{
			name: "legacy v19.2 retry line and transaction tag",
			line: "I191111 16:30:20.070532 331 kv/dist_sender.go:1535  [n1,client=127.0.0.1:50611,user=root,txn=9dfb9bb2] error: (err: [NotLeaseHolderError] r58: replica (n2,s2):2 not lease holder; lease holder unknown) <nil>; trying next peer (n3,s3):3",
			at:   time.Date(2019, 11, 11, 16, 30, 20, 70532000, time.UTC),
			want: &want{KindNextPeer, 58, "n1", map[string]string{"next": "(n3,s3):3", "nlhe": "true",
				"trace": "n1,client=127.0.0.1:50611,user=root,txn=9dfb9bb2", "gateway": "n1", "client": "127.0.0.1:50611", "txn": "9dfb9bb2"}},
			redirect: &want{KindNLHE, 58, "n1", map[string]string{"replica": "(n2,s2):2", "holder_unknown": "true",
				"trace": "n1,client=127.0.0.1:50611,user=root,txn=9dfb9bb2", "gateway": "n1", "client": "127.0.0.1:50611", "txn": "9dfb9bb2"}},
		},
		{
			// The line of cockroachdb/cockroach#23543 (v2.1-alpha, June 2018):
			// a ts= tag whose value holds a comma.
			name: "issue 23543 retry line",
			line: "I180616 05:52:17.728179 20503404 kv/dist_sender.go:1317  [client=10.142.0.54:39264,user=root,txn=61557e35,ts=1529128299.977196718,4,n12] error: (err: [NotLeaseHolderError] r55752: replica (n30,s30):5 not lease holder; current lease is repl=(n16,s16):1 seq=0 start=1529128337.569175562,0 epo=9 pro=1529128337.569181772,0) <nil>; trying next peer (n16,s16):1",
			at:   time.Date(2018, 6, 16, 5, 52, 17, 728179000, time.UTC),
			want: &want{KindNextPeer, 55752, "n12", map[string]string{"next": "(n16,s16):1", "nlhe": "true",
				"trace": "client=10.142.0.54:39264,user=root,txn=61557e35,ts=1529128299.977196718,4,n12", "gateway": "n12", "client": "10.142.0.54:39264", "txn": "61557e35"}},
			redirect: &want{KindNLHE, 55752, "n12", map[string]string{"replica": "(n30,s30):5", "lease_replica": "(n16,s16):1",
				"lease_seq": "0", "lease_start": "1529128337.569175562,0", "lease_epoch": "9", "lease_pro": "1529128337.569181772,0",
				"trace": "client=10.142.0.54:39264,user=root,txn=61557e35,ts=1529128299.977196718,4,n12", "gateway": "n12", "client": "10.142.0.54:39264", "txn": "61557e35"}},
		},
		{
			name: "v19.1–v20.1 backoff names lease sequences",
			line: "I200301 10:00:00.000100 88 kv/dist_sender.go:1600  [n2,client=10.1.1.1:5000,user=app] backing off due to NotLeaseHolderErr at LeaseSequence 4 <= 4",
			at:   time.Date(2020, 3, 1, 10, 0, 0, 100000, time.UTC),
			want: &want{KindBackoff, 0, "n2", map[string]string{"lease_seq": "4", "max_seen_seq": "4", "reason": "lease sequence already seen",
				"trace": "n2,client=10.1.1.1:5000,user=app", "gateway": "n2", "client": "10.1.1.1:5000"}},
		},
		{
			name: "crdb-v1 (v20.2, debug zip) with marker and redacted batch",
			line: "I201102 10:00:00.123456 567 kv/kvclient/kvcoord/dist_sender.go:1957 ⋮ [n1,client=127.0.0.1:50611,hostssl,user=root,txn=9dfb9bb2] r37: sending batch ‹1 Get› to (n2,s2):2",
			at:   time.Date(2020, 11, 2, 10, 0, 0, 123456000, time.UTC),
			want: &want{KindSend, 37, "n1", map[string]string{"batch": "1 Get", "replica": "(n2,s2):2",
				"trace": "n1,client=127.0.0.1:50611,hostssl,user=root,txn=9dfb9bb2", "gateway": "n1", "client": "127.0.0.1:50611", "txn": "9dfb9bb2"}},
		},
		{
			name: "crdb-v2 application error with custom reason and counter",
			line: "I210709 04:25:09.833547 83961 kv/kvclient/kvcoord/dist_sender.go:2097 ⋮ [n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22] 5831  application error: [NotLeaseHolderError] lease held by different store; r73: replica (n3,s3):2 not lease holder; current lease is repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1 pro=1625804709.450045745,0",
			at:   time.Date(2021, 7, 9, 4, 25, 9, 833547000, time.UTC),
			want: &want{KindNLHE, 73, "n1", map[string]string{"reason": "lease held by different store", "replica": "(n3,s3):2",
				"lease_replica": "(n2,s2):3", "lease_seq": "3", "lease_start": "1625804709.439980668,0", "lease_epoch": "1", "lease_pro": "1625804709.450045745,0",
				"trace": "n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22", "gateway": "n1", "client": "127.0.0.1:53480", "txn": "5d1c7a22"}},
		},
		{
			name: "crdb-v2 v22.2+ tenant tags and redacted values",
			line: "I250407 20:22:58.997928 731936 kv/kvclient/kvcoord/dist_sender.go:2683 ⋮ [T1,Vsystem,n1,client=127.0.0.1:53480,hostssl,user=‹roachprod›,txn=‹5d1c7a22›] 15  trying next peer (n2,s2):2",
			at:   time.Date(2025, 4, 7, 20, 22, 58, 997928000, time.UTC),
			want: &want{KindNextPeer, 0, "n1", map[string]string{"next": "(n2,s2):2",
				"trace": "T1,Vsystem,n1,client=127.0.0.1:53480,hostssl,user=roachprod,txn=5d1c7a22", "gateway": "n1", "client": "127.0.0.1:53480", "txn": "5d1c7a22"}},
		},
		{
			name: "crdb-v2 lease holder unknown",
			line: "I250407 20:22:58.997001 731936 kv/kvclient/kvcoord/dist_sender.go:2712 ⋮ [T1,Vsystem,n1,client=127.0.0.1:53480,hostssl,user=‹roachprod›] 14  application error: [NotLeaseHolderError] r9: replica (n3,s3):4 not lease holder; lease holder unknown",
			at:   time.Date(2025, 4, 7, 20, 22, 58, 997001000, time.UTC),
			want: &want{KindNLHE, 9, "n1", map[string]string{"replica": "(n3,s3):4", "holder_unknown": "true",
				"trace": "T1,Vsystem,n1,client=127.0.0.1:53480,hostssl,user=roachprod", "gateway": "n1", "client": "127.0.0.1:53480"}},
		},
		{
			name: "crdb-v2 backoff with stale info",
			line: "I220101 00:00:01.000001 9 kv/kvclient/kvcoord/dist_sender.go:2245 ⋮ [n4,client=10.0.0.1:1234,hostssl,user=app] 77  backing off due to NotLeaseHolderErr with stale info",
			at:   time.Date(2022, 1, 1, 0, 0, 1, 1000, time.UTC),
			want: &want{KindBackoff, 0, "n4", map[string]string{"reason": "stale info",
				"trace": "n4,client=10.0.0.1:1234,hostssl,user=app", "gateway": "n4", "client": "10.0.0.1:1234"}},
		},
		{
			name: "crdb-v2 node dialer, local",
			line: "I220101 00:00:01.000002 9 rpc/nodedialer/nodedialer.go:165 ⋮ [n4,client=10.0.0.1:1234,hostssl,user=app] 78  sending request to local client",
			at:   time.Date(2022, 1, 1, 0, 0, 1, 2000, time.UTC),
			want: &want{KindRPC, 0, "n4", map[string]string{"target": "local client",
				"trace": "n4,client=10.0.0.1:1234,hostssl,user=app", "gateway": "n4", "client": "10.0.0.1:1234"}},
		},
		{
			name: "crdb-v2 node dialer, redacted address",
			line: "I220101 00:00:01.000003 9 rpc/nodedialer/nodedialer.go:172 ⋮ [n4] 79  sending request to ‹roach-2.example:26257›",
			at:   time.Date(2022, 1, 1, 0, 0, 1, 3000, time.UTC),
			want: &want{KindRPC, 0, "n4", map[string]string{"target": "roach-2.example:26257", "trace": "n4", "gateway": "n4"}},
		},
		{
			name: "crdb-v2 new lease on a replica",
			line: "I210709 04:25:10.000001 1234 kv/kvserver/replica_proposal.go:234 ⋮ [n2,s2,r73/3:‹/Table/5{3-4}›] 5900  new range lease repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1 pro=1625804709.450045745,0 following repl=(n3,s3):2 seq=2 start=1625800000.000000000,0 epo=1 pro=1625800000.000000001,0",
			at:   time.Date(2021, 7, 9, 4, 25, 10, 1000, time.UTC),
			want: &want{KindNewLease, 73, "n2", map[string]string{
				"lease_replica": "(n2,s2):3", "lease_seq": "3", "lease_start": "1625804709.439980668,0", "lease_epoch": "1", "lease_pro": "1625804709.450045745,0",
				"prev_lease_replica": "(n3,s3):2", "prev_lease_seq": "2", "prev_lease_start": "1625800000.000000000,0", "prev_lease_epoch": "1", "prev_lease_pro": "1625800000.000000001,0",
				"trace": "n2,s2,r73/3:/Table/5{3-4}"}},
		},
		{
			name: "legacy v2.0 new lease with physicalTime",
			line: "I180220 08:10:15.919100 412 storage/replica_proposal.go:214  [n1,s1,r52/1:/Table/51/1/{23-48}] new range lease repl=(n1,s1):1 seq=0 start=1519114215.919013222,0 epo=1 pro=1519114215.919015761,0 following repl=(n2,s2):3 seq=3 start=1519114118.566713425,0 epo=1 pro=1519114118.566716884,0 [physicalTime=2018-02-20 08:10:15.9190813 +0000 UTC]",
			at:   time.Date(2018, 2, 20, 8, 10, 15, 919100000, time.UTC),
			want: &want{KindNewLease, 52, "n1", map[string]string{
				"lease_replica": "(n1,s1):1", "lease_seq": "0", "lease_start": "1519114215.919013222,0", "lease_epoch": "1", "lease_pro": "1519114215.919015761,0",
				"prev_lease_replica": "(n2,s2):3", "prev_lease_seq": "3", "prev_lease_start": "1519114118.566713425,0", "prev_lease_epoch": "1", "prev_lease_pro": "1519114118.566716884,0",
				"trace": "n1,s1,r52/1:/Table/51/1/{23-48}"}},
		},
		// Lines that are not events.
		{
			name: "v20.2+ bare error line before application error",
			line: "I210709 04:25:09.833540 83961 kv/kvclient/kvcoord/dist_sender.go:2063 ⋮ [n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22] 5830  [NotLeaseHolderError] lease held by different store; r73: replica (n3,s3):2 not lease holder; current lease is repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1 pro=1625804709.450045745,0",
			at:   time.Date(2021, 7, 9, 4, 25, 9, 833540000, time.UTC),
		},
		{
			// Real v21.1.5 line: the NotLeaseHolderError of a gossip attempt, not a redirect.
			name: "NotLeaseHolderError outside DistSender",
			line: "W210709 04:25:09.833547 83961 kv/kvserver/store.go:1690 ⋮ [n1,s1,r6/1:‹/Table/{SystemCon…-11}›] 5826  could not gossip system config: ‹[NotLeaseHolderError] lease acquisition attempt lost to another lease; r6: replica (n1,s1):1 not lease holder; lease holder unknown›",
			at:   time.Date(2021, 7, 9, 4, 25, 9, 833547000, time.UTC),
		},
		{
			name: "application error that is not a NotLeaseHolderError",
			line: "I210709 04:25:09.900000 83961 kv/kvclient/kvcoord/dist_sender.go:2097 ⋮ [n1] 5840  application error: TransactionRetryWithProtoRefreshError: TransactionRetryError: retry txn (RETRY_SERIALIZABLE)",
			at:   time.Date(2021, 7, 9, 4, 25, 9, 900000000, time.UTC),
		},
		{
			name: "continuation of a multi-line entry",
			line: "W210709 04:25:09.833547 83961 kv/kvserver/store.go:1690 ⋮ [n1,s1,r6/1:‹/Table/{SystemCon…-11}›] 5826 +(1) ‹application error: [NotLeaseHolderError] r6: replica (n1,s1):1 not lease holder; lease holder unknown›",
			at:   time.Date(2021, 7, 9, 4, 25, 9, 833547000, time.UTC),
		},
		{
			name: "structured entry",
			line: "I210116 21:49:17.080713 14 1@util/log/event_log.go:32 ⋮ [-] 32 ={\"Timestamp\":1610833757080706620,\"EventType\":\"node_restart\"}",
			at:   time.Date(2021, 1, 16, 21, 49, 17, 80713000, time.UTC),
		},
		{
			name: "crdb-v2 sink header",
			line: "I210709 02:36:56.398991 29 util/log/file_sync_buffer.go:238 ⋮ [config]   log format (utf8=✓): crdb-v2",
			at:   time.Date(2021, 7, 9, 2, 36, 56, 398991000, time.UTC),
		},
		{
			name: "crdb-v2 without marker, empty tags",
			line: "I210709 02:36:56.322726 1 util/log/flags.go:180  [-] 1  stderr capture started",
			at:   time.Date(2021, 7, 9, 2, 36, 56, 322726000, time.UTC),
		},
		{
			name: "crdb-v1 test data: no goroutine, no tags, counter",
			line: "I000101 00:00:12.300000 456 2@somefile.go:136  2 foo",
			at:   time.Date(2000, 1, 1, 0, 0, 12, 300000000, time.UTC),
		},
		{
			name: "gostd file prefix",
			line: "I210116 21:49:17.073282 14 (gostd) net/http/server.go:3088 ⋮ [T1] 23  http: TLS handshake error",
			at:   time.Date(2021, 1, 16, 21, 49, 17, 73282000, time.UTC),
		},
		{
			name: "legacy multi-line continuation",
			line: "goroutine 1 [running]:",
		},
		{
			name: "vitess glog line",
			line: "E0102 10:00:05.007319    8086 traffic_switcher.go:1187] Cancel migration failed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := parsertest.Parse(LogFormat, forensics.Origin{Node: "n9"}, []byte(tc.line+"\n"))
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			st := res.Stamps[0]
			if !st.Time.Equal(tc.at) || !tc.at.IsZero() && st.Zone != forensics.ZoneUTC {
				t.Errorf("stamp %v (%v), want %v UTC", st.Time, st.Zone, tc.at)
			}
			if tc.want == nil {
				if len(res.Events) > 0 {
					t.Fatalf("want no event, got %s %v", res.Events[0].Kind, res.Events[0].Attrs)
				}
				return
			}
			if tc.redirect != nil {
				if len(res.Events) != 2 {
					t.Fatalf("want a redirect and an event, got %d events", len(res.Events))
				}
				checkEvent(t, res.Events[0], *tc.redirect)
				res.Events = res.Events[1:]
			}
			if len(res.Events) != 1 {
				t.Fatalf("want one event, got %d", len(res.Events))
			}
			e := res.Events[0]
			checkEvent(t, e, *tc.want)
			if e.Line != 1 || e.Text != tc.line || !e.Time.Equal(tc.at) {
				t.Errorf("line %d time %v text %q", e.Line, e.Time, e.Text)
			}
		})
	}
}

// The sink header of v21.1+ names the node; lines without a node tag take it.
func TestLogHeaderNode(t *testing.T) {
	in := "I210709 02:36:56.323807 1 util/log/file_sync_buffer.go:238 ⋮ [T1,config]   file created at: 2021/07/09 02:36:56\n" +
		"I210709 02:36:56.323816 1 util/log/file_sync_buffer.go:238 ⋮ [T1,config]   nodeID: n4\n" +
		"I210709 02:36:56.323832 1 util/log/file_sync_buffer.go:238 ⋮ [T1,config]   log format (utf8=✓): crdb-v2\n" +
		"I210709 04:25:09.833600 83961 kv/kvclient/kvcoord/dist_sender.go:2245 ⋮ [-] 5833  backing off due to NotLeaseHolderErr with stale info\n"
	res := parsertest.Parse(LogFormat, forensics.Origin{Node: "n9"}, []byte(in))
	if len(res.Events) != 1 || res.Events[0].Node != "n4" || res.Events[0].Attr("gateway") != "n4" || res.Events[0].Attr("trace") != "" {
		t.Fatalf("events %+v", res.Events)
	}
}

func TestLogErrors(t *testing.T) {
	for _, line := range []string{
		"I211399 25:61:17.073282 14 server/node.go:464 ⋮ [-] 23  bad date",
		"I210116 21:49:17.073282 14 nofileline",
		"I210116 21:49:1",
		"W210116 21:49:17.073282x14 server/node.go:464 ⋮ [-] 23  msg",
	} {
		res := parsertest.Parse(LogFormat, forensics.Origin{}, []byte(line))
		if len(res.Errors) != 1 || !res.Stamps[0].IsZero() || len(res.Events) > 0 {
			t.Errorf("%q: errors %v stamps %v events %d; want one error", line, res.Errors, res.Stamps, len(res.Events))
		}
	}
}

// A redirect loop seen in a node log (v20.2+ wording): the next_peer and
// backoff lines, which do not name the range, take it from their trace.
func TestLogRedirectSequence(t *testing.T) {
	const tags = "[n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22]"
	const other = "[n1,client=127.0.0.1:60000,hostssl,user=root,txn=aaaaaaaa]"
	in := strings.Join([]string{
		"I210709 04:25:09.830000 83961 kv/kvclient/kvcoord/dist_sender.go:1957 ⋮ " + tags + " 5829  r73: sending batch ‹1 Put› to (n3,s3):2",
		"I210709 04:25:09.830100 83961 kv/kvclient/kvcoord/dist_sender.go:1957 ⋮ " + other + " 5830  r12: sending batch ‹1 Get› to (n1,s1):1",
		"I210709 04:25:09.833540 83961 kv/kvclient/kvcoord/dist_sender.go:2063 ⋮ " + tags + " 5831  [NotLeaseHolderError] r73: replica (n3,s3):2 not lease holder; current lease is repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1",
		"I210709 04:25:09.833547 83961 kv/kvclient/kvcoord/dist_sender.go:2097 ⋮ " + tags + " 5832  application error: [NotLeaseHolderError] r73: replica (n3,s3):2 not lease holder; current lease is repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1",
		"I210709 04:25:09.833600 83961 kv/kvclient/kvcoord/dist_sender.go:2245 ⋮ " + tags + " 5833  backing off due to NotLeaseHolderErr with stale info",
		"I210709 04:25:09.883600 83961 kv/kvclient/kvcoord/dist_sender.go:1990 ⋮ " + tags + " 5834  trying next peer (n2,s2):3",
		"I210709 04:25:09.883700 83961 kv/kvclient/kvcoord/dist_sender.go:1990 ⋮ " + other + " 5835  trying next peer (n2,s2):2",
	}, "\n")
	res := parsertest.Parse(LogFormat, forensics.Origin{}, []byte(in))
	got := res.Kinds()
	wantKinds := []forensics.Kind{KindSend, KindSend, KindNLHE, KindBackoff, KindNextPeer, KindNextPeer}
	if len(got) != len(wantKinds) {
		t.Fatalf("kinds %v, want %v", got, wantKinds)
	}
	for i := range got {
		if got[i] != wantKinds[i] {
			t.Fatalf("kinds %v, want %v", got, wantKinds)
		}
	}
	for i, r := range []int64{73, 12, 73, 73, 73, 12} {
		if res.Events[i].Range != r {
			t.Errorf("event %d (%s, line %d): range %d, want %d", i, res.Events[i].Kind, res.Events[i].Line, res.Events[i].Range, r)
		}
	}
}

func TestDetectLog(t *testing.T) {
	v2 := "I210709 02:36:56.323807 1 util/log/file_sync_buffer.go:238 ⋮ [config]   file created at: 2021/07/09 02:36:56\n" +
		"I210709 02:36:56.323832 1 util/log/file_sync_buffer.go:238 ⋮ [config]   log format (utf8=✓): crdb-v2\n" +
		"W210709 02:36:56.323474 1 1@cli/start.go:992 ⋮ [-] 1  ALL SECURITY CONTROLS HAVE BEEN DISABLED!\n"
	legacy := "I170312 15:17:12.602218 149 kv/dist_sender.go:1142  [client=127.0.0.1:52149,user=root,n1] sending batch 1 CPut to range 22\n" +
		"I170312 15:17:12.602300 149 kv/dist_sender.go:1142  [client=127.0.0.1:52149,user=root,n1] sending batch 1 Get to range 22\n" +
		"I170312 15:17:12.602400 150 storage/replica.go:2011  [n1,s1,r22/1:/Table/51/1/{23-48}] applied\n"
	glog := "I0102 10:00:05.007319    8086 traffic_switcher.go:1187] Switch writes\nE0102 10:00:05.007319    8086 traffic_switcher.go:1187] Cancel migration failed\n"
	if s := detectLog("cockroach.log", []byte(v2)); s < 90 {
		t.Errorf("crdb-v2 header scored %d", s)
	}
	if s := detectLog("x", []byte(legacy)); s < 80 {
		t.Errorf("legacy log scored %d", s)
	}
	for name, head := range map[string]string{"glog": glog, "seed": "2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch\n", "json": `{"t":"1.0"}` + "\n"} {
		if s := detectLog("x", []byte(head)); s != 0 {
			t.Errorf("%s scored %d", name, s)
		}
	}
}
