package nlhepingpong

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/crdb"
)

// The leases of the seed (cockroachdb/cockroach#22837): n2 reports the newer
// lease, which names n1 and has seq=0; n1 still reports the older one.
const (
	n1 = "(n1,s1):1"
	n2 = "(n2,s2):3"
	n3 = "(n3,s3):2"

	leaseNew = "repl=(n1,s1):1 seq=0 start=1519114215.919013222,0 epo=1 pro=1519114215.919015761,0"
	leaseOld = "repl=(n2,s2):3 seq=3 start=1519114118.566713425,0 epo=1 pro=1519114118.566716884,0"
	leaseN3  = "repl=(n3,s3):2 seq=4 start=1519114300.000000000,0 epo=1"
)

var t0 = time.Date(2018, 2, 20, 8, 10, 24, 413824000, time.UTC)

// timeline builds DistSender events the way the crdb parser emits them.
type timeline struct {
	evs  []forensics.Event
	line int64
}

func (tl *timeline) add(e forensics.Event) *forensics.Event {
	tl.line++
	if e.Path == "" {
		e.Path = "requests.txt"
	}
	e.Line = tl.line
	if e.Zone == 0 {
		e.Zone = forensics.ZoneAssumed
	}
	if e.VB == 0 {
		e.VB = forensics.NoVB
	}
	tl.evs = append(tl.evs, e)
	return &tl.evs[len(tl.evs)-1]
}

// nlhe adds a redirect: refuser refused a batch for rng and reported lease.
func (tl *timeline) nlhe(at time.Duration, trace, gateway string, rng int64, refuser, lease string) {
	e := forensics.Event{Kind: crdb.KindNLHE, Node: gateway}
	e.Time = t0.Add(at)
	e.Range = rng
	e.Set("replica", refuser)
	msg := fmt.Sprintf("application error: [NotLeaseHolderError] r%d: replica %s not lease holder; ", rng, refuser)
	if lease == "" {
		e.Set("holder_unknown", "true")
		msg += "lease holder unknown"
	} else {
		l, ok := crdb.ParseLease([]byte(lease))
		if !ok {
			panic("bad lease " + lease)
		}
		e.Set("lease_replica", l.Replica)
		for _, a := range [][2]string{{"lease_seq", l.Seq}, {"lease_start", l.Start}, {"lease_epoch", l.Epoch}, {"lease_exp", l.Expiration}, {"lease_pro", l.Proposed}} {
			if a[1] != "" {
				e.Set(forensics.AttrKey(a[0]), a[1])
			}
		}
		msg += "current lease is " + lease
	}
	e.Set("trace", trace)
	e.Set("gateway", gateway)
	e.Text = "[" + gateway + "] " + msg
	tl.add(e)
}

func (tl *timeline) event(kind forensics.Kind, at time.Duration, trace, gateway string, rng int64, text string, attrs ...string) {
	e := forensics.Event{Kind: kind, Node: gateway, Text: text}
	e.Time = t0.Add(at)
	e.Range = rng
	if trace != "" {
		e.Set("trace", trace)
	}
	if gateway != "" {
		e.Set("gateway", gateway)
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		e.Set(forensics.AttrKey(attrs[i]), attrs[i+1])
	}
	tl.add(e)
}

// pingpong adds n redirects alternating between n2 (naming n1 with the
// newer lease) and n1 (naming n2 with the older one), one every hop.
func (tl *timeline) pingpong(from time.Duration, n int, hop time.Duration, trace, gateway string, rng int64) time.Duration {
	at := from
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			tl.nlhe(at, trace, gateway, rng, n2, leaseNew)
		} else {
			tl.nlhe(at, trace, gateway, rng, n1, leaseOld)
		}
		at += hop
	}
	return at
}

// sorted returns the events in the timeline's order: time, source, line.
func (tl *timeline) sorted() []forensics.Event {
	out := slices.Clone(tl.evs)
	sort.SliceStable(out, func(i, j int) bool { return forensics.Before(&out[i], &out[j]) })
	return out
}

const (
	traceA = "2018/02/20 08:10:24.413824 kv.DistSender: sending partial batch"
	traceB = "2018/02/20 08:10:24.500001 kv.DistSender: sending partial batch"
	traceC = "2018/02/20 08:10:24.600002 sql txn"
)

func TestFlagged(t *testing.T) {
	tests := []struct {
		name      string
		build     func(*timeline)
		severity  forensics.Severity
		replicas  []string
		redirects int
	}{
		{
			name: "three full cycles in one request",
			build: func(tl *timeline) {
				tl.pingpong(0, 6, 3*time.Millisecond, traceA, "n1", 52)
			},
			severity: forensics.High, replicas: []string{n1, n2}, redirects: 6,
		},
		{
			name: "the seed: hundreds of hops for seconds",
			build: func(tl *timeline) {
				tl.pingpong(0, 400, 6*time.Millisecond, traceA, "n1", 52)
			},
			severity: forensics.Critical, replicas: []string{n1, n2}, redirects: 400,
		},
		{
			name: "two cycles lasting over a second (DistSender backoff between hops)",
			build: func(tl *timeline) {
				at := time.Duration(0)
				for i, hop := range []time.Duration{300, 400, 500, 0} {
					if i%2 == 0 {
						tl.nlhe(at, traceA, "n1", 52, n2, leaseNew)
					} else {
						tl.nlhe(at, traceA, "n1", 52, n1, leaseOld)
					}
					at += hop * time.Millisecond
				}
			},
			severity: forensics.Critical, replicas: []string{n1, n2}, redirects: 4,
		},
		{
			name: "three replicas in a loop",
			build: func(tl *timeline) {
				at := time.Duration(0)
				for i := 0; i < 9; i++ {
					switch i % 3 {
					case 0:
						tl.nlhe(at, traceA, "n1", 73, n1, leaseOld) // names n2
					case 1:
						tl.nlhe(at, traceA, "n1", 73, n2, leaseN3) // names n3
					case 2:
						tl.nlhe(at, traceA, "n1", 73, n3, leaseNew) // names n1
					}
					at += 4 * time.Millisecond
				}
			},
			severity: forensics.High, replicas: []string{n1, n2, n3}, redirects: 9,
		},
		{
			name: "a chain into the loop: a stale cache sends to n3 first",
			build: func(tl *timeline) {
				l := "repl=(n2,s2):3 seq=3 start=1519114118.566713425,0 epo=1"
				tl.nlhe(0, traceA, "n1", 52, n3, l)
				tl.pingpong(5*time.Millisecond, 6, 3*time.Millisecond, traceA, "n1", 52)
			},
			severity: forensics.High, replicas: []string{n1, n2}, redirects: 6,
		},
		{
			name: "two gateways see the same loop: one incident",
			build: func(tl *timeline) {
				tl.pingpong(0, 8, 3*time.Millisecond, traceA, "n1", 52)
				tl.pingpong(2*time.Millisecond, 8, 3*time.Millisecond, "n3,client=10.0.0.7:5000", "n3", 52)
			},
			severity: forensics.High, replicas: []string{n1, n2}, redirects: 16,
		},
		{
			name: "the same trace read from two saved pages counts once",
			build: func(tl *timeline) {
				tl.pingpong(0, 6, 3*time.Millisecond, traceA, "n1", 52)
				for _, e := range slices.Clone(tl.evs) {
					e.Path = "requests-bucket-10s.txt"
					tl.add(e)
				}
			},
			severity: forensics.High, replicas: []string{n1, n2}, redirects: 6,
		},
		{
			name: "the loop goes on across events the trace discarded",
			build: func(tl *timeline) {
				at := tl.pingpong(0, 160, 6*time.Millisecond, traceA, "n1", 52)
				tl.event(crdb.KindTraceDiscarded, at+12*time.Second, traceA, "", 0, "(6812 events discarded)", "count", "6812")
				tl.pingpong(at+12*time.Second+6*time.Millisecond, 160, 6*time.Millisecond, traceA, "n1", 52)
			},
			severity: forensics.Critical, replicas: []string{n1, n2}, redirects: 320,
		},
		{
			// v20.2+: DistSender retries the lagging replica with a backoff a
			// few times, moves on to another replica, which names the lagging
			// one again (the "power vacuum" after a lease transfer).
			name: "v20.2+ loop: retries with backoff on the lagging replica, then back",
			build: func(tl *timeline) {
				newer := "repl=(n2,s2):3 seq=7 start=1646750000.000000000,0 epo=3"
				older := "repl=(n3,s3):2 seq=6 start=1646740000.000000000,0 epo=3"
				at := time.Duration(0)
				for round, other := range []string{n3, n1, n3} {
					tl.nlhe(at, traceA, "n1", 73, other, newer)
					at += 2 * time.Millisecond
					b := 50 * time.Millisecond
					for i := 0; i < 4; i++ {
						tl.nlhe(at, traceA, "n1", 73, n2, older)
						tl.event(crdb.KindBackoff, at+time.Millisecond, traceA, "n1", 73, "backing off due to NotLeaseHolderErr with stale info")
						at += b
						b = min(2*b, time.Second)
					}
					_ = round
				}
			},
			severity: forensics.Critical, replicas: []string{n1, n2, n3}, redirects: 15,
		},
		{
			name: "requests of one gateway keep bouncing for over a second",
			build: func(tl *timeline) {
				at := time.Duration(0)
				for i := 0; i < 8; i++ {
					tr := fmt.Sprintf("client=127.0.0.1:%d,user=rk_user,n1", 35000+i)
					tl.pingpong(at, 2, 4*time.Millisecond, tr, "n1", 52)
					at += 200 * time.Millisecond
				}
			},
			severity: forensics.Critical, replicas: []string{n1, n2}, redirects: 16,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tl timeline
			tc.build(&tl)
			fs := findings(tl.sorted())
			if len(fs) != 1 {
				t.Fatalf("got %d findings, want 1: %s", len(fs), titles(fs))
			}
			f := fs[0]
			if f.Severity != tc.severity {
				t.Errorf("severity %s, want %s", f.Severity, tc.severity)
			}
			if !slices.Equal(f.Subject.Details.List("replicas"), tc.replicas) {
				t.Errorf("replicas %q, want %q", f.Subject.Details.List("replicas"), tc.replicas)
			}
			if f.Subject.Details.Int("redirects") != int64(tc.redirects) {
				t.Errorf("redirects %d, want %d", f.Subject.Details.Int("redirects"), tc.redirects)
			}
			if f.Subject.Range == 0 || len(f.Evidence) == 0 || len(f.Fixes) == 0 || f.Explanation == "" {
				t.Errorf("incomplete finding: %+v", f)
			}
			for i := 1; i < len(f.Evidence); i++ {
				if f.Evidence[i].Time.Before(f.Evidence[i-1].Time) {
					t.Errorf("evidence out of time order at %d", i)
				}
			}
		})
	}
}

func TestNotFlagged(t *testing.T) {
	tests := []struct {
		name  string
		build func(*timeline)
	}{
		{
			name: "a single redirect that succeeds on the next replica",
			build: func(tl *timeline) {
				tl.event(crdb.KindSend, 0, traceA, "n1", 52, "r52: sending batch 1 Put to (n2,s2):3", "replica", n2)
				tl.nlhe(5*time.Millisecond, traceA, "n1", 52, n2, leaseNew)
				tl.event(crdb.KindNextPeer, 5*time.Millisecond+50*time.Microsecond, traceA, "n1", 52, "trying next peer (n1,s1):1", "next", n1)
			},
		},
		{
			name: "a bounce A→B→A that resolves within a couple of RPCs",
			build: func(tl *timeline) {
				tl.pingpong(0, 3, 5*time.Millisecond, traceA, "n1", 52)
			},
		},
		{
			name: "two quick cycles",
			build: func(tl *timeline) {
				tl.pingpong(0, 4, 5*time.Millisecond, traceA, "n1", 52)
			},
		},
		{
			name: "A→B→A→B→A is two and a half cycles",
			build: func(tl *timeline) {
				tl.pingpong(0, 5, 5*time.Millisecond, traceA, "n1", 52)
			},
		},
		{
			name: "DistSender backs off on stale info and then succeeds, even after a long backoff",
			build: func(tl *timeline) {
				// n3 names n1 (new lease); n1 has not applied it and names n3 with the
				// old lease; DistSender retries n1 with a backoff instead of following.
				newer := "repl=(n1,s1):1 seq=7 start=1625804709.439980668,0 epo=1"
				older := "repl=(n3,s3):2 seq=6 start=1625800000.000000000,0 epo=1"
				tl.nlhe(0, traceA, "n1", 12, n3, newer)
				at := 3 * time.Millisecond
				for _, b := range []time.Duration{50, 100, 200, 400, 800} {
					tl.nlhe(at, traceA, "n1", 12, n1, older)
					tl.event(crdb.KindBackoff, at+time.Millisecond, traceA, "n1", 12, "backing off due to NotLeaseHolderErr with stale info")
					at += b * time.Millisecond
				}
			},
		},
		{
			name: "a chain A→B→C",
			build: func(tl *timeline) {
				tl.nlhe(0, traceA, "n1", 52, n3, leaseOld)                  // names n2
				tl.nlhe(5*time.Millisecond, traceA, "n1", 52, n2, leaseNew) // names n1, which serves
			},
		},
		{
			name: "lease holder unknown, round the replicas",
			build: func(tl *timeline) {
				for i := 0; i < 12; i++ {
					tl.nlhe(time.Duration(i)*200*time.Millisecond, traceA, "n1", 52, []string{n1, n2, n3}[i%3], "")
				}
			},
		},
		{
			name: "redirects of two ranges interleaved",
			build: func(tl *timeline) {
				for i := 0; i < 10; i++ {
					at := time.Duration(i) * 3 * time.Millisecond
					if i%2 == 0 {
						tl.nlhe(at, traceA, "n1", 52, n2, leaseNew)
					} else {
						tl.nlhe(at, traceA, "n1", 53, n1, leaseOld)
					}
				}
			},
		},
		{
			name: "concurrent requests each bounce once during a lease transfer",
			build: func(tl *timeline) {
				for i, tr := range []string{traceA, traceB, traceC, "client=127.0.0.1:40001,user=app,n1"} {
					tl.pingpong(time.Duration(i)*2*time.Millisecond, 2, 4*time.Millisecond, tr, "n1", 52)
				}
			},
		},
		{
			name: "a replica naming itself is no loop",
			build: func(tl *timeline) {
				self := "repl=(n2,s2):3 seq=3 start=1519114118.566713425,0 epo=1"
				for i := 0; i < 10; i++ {
					tl.nlhe(time.Duration(i)*3*time.Millisecond, traceA, "n1", 52, n2, self)
				}
			},
		},
		{
			name: "two bounces of one request minutes apart",
			build: func(tl *timeline) {
				tl.pingpong(0, 3, 5*time.Millisecond, traceA, "n1", 52)
				tl.pingpong(3*time.Minute, 3, 5*time.Millisecond, traceA, "n1", 52)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tl timeline
			tc.build(&tl)
			if fs := findings(tl.sorted()); len(fs) != 0 {
				t.Errorf("got %d findings, want none: %s", len(fs), titles(fs))
			}
		})
	}
}

// A loop that stops and starts again after a pause longer than maxGap,
// without the trace having lost events, is two episodes.
func TestEpisodesSplitOnPause(t *testing.T) {
	var tl timeline
	tl.pingpong(0, 8, 3*time.Millisecond, traceA, "n1", 52)
	tl.pingpong(30*time.Second, 8, 3*time.Millisecond, traceA, "n1", 52)
	fs := findings(tl.sorted())
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want 2: %s", len(fs), titles(fs))
	}
	if fs[0].Subject.Details.Int("redirects") != 8 || fs[1].Subject.Details.Int("redirects") != 8 {
		t.Errorf("redirects %d and %d, want 8 and 8", fs[0].Subject.Details.Int("redirects"), fs[1].Subject.Details.Int("redirects"))
	}
	if !fs[0].Start.Before(fs[1].Start) {
		t.Errorf("episodes out of order")
	}
}

func TestLagging(t *testing.T) {
	tests := []struct {
		name        string
		leaseN2     string // what n2 reports (naming n1)
		leaseN1     string // what n1 reports (naming n2)
		lagging     string
		wantInTitle string
	}{
		{"seq=0 is newer by start (the seed)", leaseNew, leaseOld, n1, "(n1,s1):1 has not applied"},
		{"higher sequence is newer", "repl=(n1,s1):1 seq=9 start=1600000000.000000000,0 epo=2", "repl=(n2,s2):3 seq=8 start=1600000100.000000000,0 epo=2", n1, "(n1,s1):1 has not applied"},
		{"the other way round", "repl=(n1,s1):1 seq=8 start=1600000000.000000000,0 epo=2", "repl=(n2,s2):3 seq=9 start=1600000100.000000000,0 epo=2", n2, "(n2,s2):3 has not applied"},
		{"leases that cannot be ordered", "repl=(n1,s1):1 seq=5", "repl=(n2,s2):3 seq=5", "", "Find out which replica of r52 is behind"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tl timeline
			at := time.Duration(0)
			for i := 0; i < 6; i++ {
				if i%2 == 0 {
					tl.nlhe(at, traceA, "n1", 52, n2, tc.leaseN2)
				} else {
					tl.nlhe(at, traceA, "n1", 52, n1, tc.leaseN1)
				}
				at += 3 * time.Millisecond
			}
			fs := findings(tl.sorted())
			if len(fs) != 1 {
				t.Fatalf("got %d findings, want 1", len(fs))
			}
			f := fs[0]
			if !strings.Contains(f.Fixes[0].Title, tc.wantInTitle) {
				t.Errorf("first fix %q, want it to contain %q", f.Fixes[0].Title, tc.wantInTitle)
			}
			if tc.lagging == "" {
				if strings.Contains(f.Explanation, "lagging:") {
					t.Errorf("explanation names a lagging replica: %s", f.Explanation)
				}
				return
			}
			if !strings.Contains(f.Explanation, tc.lagging+" is lagging") {
				t.Errorf("explanation does not name %s as lagging:\n%s", tc.lagging, f.Explanation)
			}
		})
	}
}

func TestSeedExplanation(t *testing.T) {
	var tl timeline
	tl.event(crdb.KindTraceStart, 0, traceA, "", 0, "2018/02/20 08:10:24.413824 13.750285 kv.DistSender: sending partial batch", "title", "kv.DistSender: sending partial batch", "elapsed", "13.750285")
	tl.event(crdb.KindSend, 229*time.Microsecond, traceA, "n1", 52, "r52: sending batch 2 CPut, 1 BeginTxn to (n2,s2):3", "replica", n2)
	at := tl.pingpong(5721*time.Microsecond, 166, 6*time.Millisecond, traceA, "n1", 52)
	tl.event(crdb.KindTraceDiscarded, at+12*time.Second, traceA, "", 0, "(6812 events discarded)", "count", "6812")
	tl.pingpong(at+12*time.Second+5*time.Millisecond, 166, 6*time.Millisecond, traceA, "n1", 52)
	tl.event(crdb.KindNextPeer, 5721*time.Microsecond+52*time.Microsecond, traceA, "n1", 52,
		"error: {(err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is "+leaseNew+") <nil>}; trying next peer (n1,s1):1", "next", n1)

	fs := findings(tl.sorted())
	if len(fs) != 1 {
		t.Fatalf("got %d findings, want 1", len(fs))
	}
	f := fs[0]
	for _, want := range []string{
		"r52", "(n1,s1):1 and (n2,s2):3", "332 redirects", "(n1,s1):1 is lagging",
		"started 2018-02-20 08:10:15.919013Z", "seq=0", "discarded 6812 events",
		"wording of v2.0", traceA,
	} {
		if !strings.Contains(f.Explanation, want) {
			t.Errorf("explanation lacks %q:\n%s", want, f.Explanation)
		}
	}
	if f.Severity != forensics.Critical {
		t.Errorf("severity %s, want critical", f.Severity)
	}
	var notes []string
	for _, e := range f.Evidence {
		notes = append(notes, e.Note)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"trace starts", "sent to (n2,s2):3", "the newer lease", "is lagging", "dropped 6812 events", "still redirected"} {
		if !strings.Contains(all, want) {
			t.Errorf("evidence notes lack %q:\n%s", want, all)
		}
	}
	fixes := fixText(f)
	for _, want := range []string{"/#/reports/range/52", "crdb_internal.ranges WHERE range_id = 52", "neither is known to work here", "restart the node of (n1,s1):1", "#32877", "#73697", "upgrading to v19.1 or later brings the backoff", "epo=1"} {
		if !strings.Contains(fixes, want) {
			t.Errorf("fixes lack %q:\n%s", want, fixes)
		}
	}
	// v2.0 has no ALTER RANGE … RELOCATE: it must not be offered as a command to run.
	for _, fx := range f.Fixes {
		for _, c := range fx.Commands {
			if strings.Contains(c, "RELOCATE") {
				t.Errorf("v2.0 evidence, yet the command %q is offered", c)
			}
		}
	}
}

// Where the version has ALTER RANGE … RELOCATE LEASE, the finding offers it,
// filled in with the store of a replica that applied the newer lease.
func TestRelocateByEra(t *testing.T) {
	for _, tc := range []struct {
		nextPeer, reason string
		command          string
	}{
		{"trying next peer (n1,s1):1", "lease held by different store", "cockroach sql --host=CRDB_HOST:26257 --certs-dir=CERTS_DIR -e 'ALTER RANGE 52 RELOCATE LEASE TO 2'"},
		{"error: (err: x) <nil>; trying next peer (n1,s1):1", "", ""},
		{"error: {(err: x) <nil>}; trying next peer (n1,s1):1", "", ""},
	} {
		var tl timeline
		tl.pingpong(0, 6, 3*time.Millisecond, traceA, "n1", 52)
		if tc.reason != "" {
			tl.evs[0].Set("reason", tc.reason)
		}
		tl.event(crdb.KindNextPeer, time.Millisecond, traceA, "n1", 52, tc.nextPeer)
		fs := findings(tl.sorted())
		if len(fs) != 1 {
			t.Fatalf("%q: %d findings", tc.nextPeer, len(fs))
		}
		var cmds []string
		for _, fx := range fs[0].Fixes {
			cmds = append(cmds, fx.Commands...)
		}
		has := slices.ContainsFunc(cmds, func(c string) bool { return strings.Contains(c, "RELOCATE") })
		switch {
		case tc.command == "" && has:
			t.Errorf("%q: offers %q on a version without it", tc.nextPeer, cmds)
		case tc.command != "" && !slices.Contains(cmds, tc.command):
			t.Errorf("%q: commands %q, want %q", tc.nextPeer, cmds, tc.command)
		}
	}
}

func TestEra(t *testing.T) {
	tests := []struct {
		nextPeer string
		reason   string
		want     era
	}{
		{"error: {(err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is x) <nil>}; trying next peer (n1,s1):1", "", eraV20},
		{"error: (err: [NotLeaseHolderError] r52: replica (n2,s2):3 not lease holder; current lease is x) <nil>; trying next peer (n1,s1):1", "", eraV21To201},
		{"trying next peer (n1,s1):1", "", eraV202},
		{"trying next peer (n1,s1):1", "lease held by different store", eraV211},
		{"", "", eraUnknown},
	}
	for _, tc := range tests {
		var tl timeline
		tl.pingpong(0, 6, 3*time.Millisecond, traceA, "n1", 52)
		if tc.reason != "" {
			tl.evs[0].Set("reason", tc.reason)
		}
		if tc.nextPeer != "" {
			tl.event(crdb.KindNextPeer, time.Millisecond, traceA, "n1", 52, tc.nextPeer)
		}
		evs := tl.sorted()
		eps := detect(evs)
		if len(eps) != 1 {
			t.Fatalf("%q: %d episodes", tc.nextPeer, len(eps))
		}
		if got := eraOf(eps[0], evs); got != tc.want {
			t.Errorf("%q, reason %q: era %s, want %s", tc.nextPeer, tc.reason, got, tc.want)
		}
	}
}

// The rule reads its events through the pass and reports through it.
func TestRun(t *testing.T) {
	var tl timeline
	tl.pingpong(0, 8, 3*time.Millisecond, traceA, "n1", 52)
	tl.event(crdb.KindNLHE, time.Hour, "", "n4", 0, "not a redirect of any range")
	tlq := &fakeTimeline{evs: tl.sorted()}
	var got []forensics.Finding
	pass := &forensics.Pass{Context: context.Background(), Rule: Rule, Timeline: tlq, Report: func(f forensics.Finding) { got = append(got, f) }}
	if err := Rule.Run(pass); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Subject.Range != 52 {
		t.Fatalf("got %s", titles(got))
	}
	for _, k := range Rule.Kinds {
		if !slices.Contains(tlq.kinds, k) {
			t.Errorf("kind %s is in Rule.Kinds but never queried (queried %v)", k, tlq.kinds)
		}
	}
	for _, k := range tlq.kinds {
		if !slices.Contains(Rule.Kinds, k) {
			t.Errorf("queried kind %s is not in Rule.Kinds", k)
		}
	}
}

type fakeTimeline struct {
	evs   []forensics.Event
	kinds []forensics.Kind
}

func (f *fakeTimeline) Events(ctx context.Context, q forensics.Query) iter.Seq2[*forensics.Event, error] {
	return forensics.Cursor(f.events(ctx, q))
}

func (f *fakeTimeline) events(_ context.Context, q forensics.Query) ([]forensics.Event, error) {
	f.kinds = append(f.kinds, q.Kinds...)
	var out []forensics.Event
	for _, e := range f.evs {
		if slices.Contains(q.Kinds, e.Kind) {
			out = append(out, e)
		}
	}
	return out, nil
}

func TestParseReplica(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want replicaID
	}{
		{"(n1,s1):1", replicaID{1, 1, 1, true}},
		{"(n12,s14):3LEARNER", replicaID{12, 14, 3, true}},
		{"n1", replicaID{}},
		{"(n1,s):1", replicaID{}},
	} {
		if got := parseReplica(tc.in); got != tc.want && (got.ok || tc.want.ok) {
			t.Errorf("parseReplica(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	rs := []string{"(n10,s10):2", "(n2,s2):3", "(n1,s1):1", "odd"}
	sortReplicas(rs)
	if want := []string{"(n1,s1):1", "(n2,s2):3", "(n10,s10):2", "odd"}; !slices.Equal(rs, want) {
		t.Errorf("sorted %q, want %q", rs, want)
	}
}

func titles(fs []forensics.Finding) string {
	var ts []string
	for _, f := range fs {
		ts = append(ts, f.Severity.String()+" "+f.Title)
	}
	return strings.Join(ts, "; ")
}

func fixText(f forensics.Finding) string {
	var b strings.Builder
	for _, fx := range f.Fixes {
		b.WriteString(fx.Title + "\n")
		for _, s := range fx.Steps {
			b.WriteString(s + "\n")
		}
		for _, c := range fx.Commands {
			b.WriteString(c + "\n")
		}
	}
	return b.String()
}
