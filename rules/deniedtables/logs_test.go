package deniedtables

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The vtctld logs of the cases under testdata/vitess are written from the
// scripts below: the lines of the traffic switches as vtctld logs them
// (go/vt/vtctl/workflow server.go and traffic_switcher.go, topo/locks.go,
// topotools/keyspace.go and rebuild_keyspace.go), among the lines a vtctld
// logs all day long (status polls, keyspace rebuilds, tablet refreshes).
// TestVtctldLogs fails when a committed log no longer matches its script;
// -update rewrites them.

var update = flag.Bool("update", false, "rewrite the vtctld logs of testdata/vitess from their scripts")

func TestVtctldLogs(t *testing.T) {
	for _, c := range logCases {
		path := filepath.Join("..", "..", "testdata", "vitess", c.path)
		got := c.render()
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./rules/deniedtables -run TestVtctldLogs -update)", err)
		}
		if string(want) != got {
			t.Errorf("%s differs from its script in logs_test.go (run go test ./rules/deniedtables -run TestVtctldLogs -update and review the diff)", path)
		}
	}
}

// glogFile is one vtctld log file: its glog header, then entries in time order.
type glogFile struct {
	path    string // under testdata/vitess
	host    string
	goVer   string
	pid     int
	created time.Time
	prevLog bool // glog ≥ 1.1 writes a "Previous log:" line
	entries []entry
}

type entry struct {
	at    time.Time
	level byte
	call  string // file:line
	msg   string // lines after the first are continuation lines
}

func (f *glogFile) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Log file created at: %s\n", f.created.Format("2006/01/02 15:04:05"))
	fmt.Fprintf(&b, "Running on machine: %s\n", f.host)
	fmt.Fprintf(&b, "Binary: Built with gc %s for linux/amd64\n", f.goVer)
	if f.prevLog {
		b.WriteString("Previous log: <none>\n")
	}
	b.WriteString("Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n")
	es := append([]entry(nil), f.entries...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].at.Before(es[j].at) })
	for _, e := range es {
		fmt.Fprintf(&b, "%c%s %7d %s] %s\n", e.level, e.at.Format("0102 15:04:05.000000"), f.pid, e.call, strings.TrimRight(e.msg, "\n"))
	}
	return b.String()
}

// script collects entries at times relative to a start, in order.
type script struct {
	at time.Time
	es []entry
}

func (s *script) after(d time.Duration) *script { s.at = s.at.Add(d); return s }

func (s *script) log(level byte, call, format string, args ...any) *script {
	s.es = append(s.es, entry{at: s.at, level: level, call: call, msg: fmt.Sprintf(format, args...)})
	return s
}

func (s *script) info(call, format string, args ...any) *script {
	return s.log('I', call, format, args...)
}

// poll adds a line every period (with jitter) between from and to: a
// monitoring job running `MoveTables status`, which logs the migration id
// each time vtctld builds the traffic switcher.
func poll(rng *rand.Rand, from, to time.Time, period time.Duration, line func(time.Time) []entry) []entry {
	var out []entry
	for t := from; t.Before(to); t = t.Add(period + time.Duration(rng.Int64N(int64(period/5)))) {
		out = append(out, line(t.Add(time.Duration(rng.Int64N(int64(time.Second)))))...)
	}
	return out
}

// allDay is what a vtctld logs all day long around the switches: a
// dashboard polling MoveTables status (vtctld logs the workflow's migration
// id each time it builds the traffic switcher) and the operator rebuilding
// the keyspace graphs after reparents (topo/locks.go, rebuild_keyspace.go).
// Call sites are the release's; timings the deployment's.
type allDay struct {
	wf                   string
	id                   int64
	idCall               string // server.go:N, where the release logs the migration id
	polls                [2]time.Time
	pollEvery            time.Duration
	rebuilds             [2]time.Time
	rebuildEvery         time.Duration
	keyspaces            []string
	lockCall, unlockCall string
	lockOpt              string // the lock's options where the release logs them; "" where it does not (v19)
	rebuildAt            time.Duration
	cells                []cellUpdate
	unlockAt, next       time.Duration // the unlock, and the next keyspace's lock, after the lock
}

// cellUpdate is the serving graph of a keyspace rebuilt in one cell, at
// its time after the lock.
type cellUpdate struct {
	cell string
	at   time.Duration
}

func (f *glogFile) allDay(rng *rand.Rand, d allDay) {
	f.entries = append(f.entries, poll(rng, d.polls[0], d.polls[1], d.pollEvery, func(t time.Time) []entry {
		return []entry{{at: t, level: 'I', call: d.idCall, msg: fmt.Sprintf("Migration ID for workflow %s: %d", d.wf, d.id)}}
	})...)
	f.entries = append(f.entries, poll(rng, d.rebuilds[0], d.rebuilds[1], d.rebuildEvery, func(t time.Time) []entry {
		var out []entry
		for _, ks := range d.keyspaces {
			lock := "Locking keyspace " + ks + " for action RebuildKeyspace"
			if d.lockOpt != "" {
				lock += " " + d.lockOpt
			}
			out = append(out,
				entry{at: t, level: 'I', call: d.lockCall, msg: lock},
				entry{at: t.Add(d.rebuildAt), level: 'I', call: "rebuild_keyspace.go:66", msg: "rebuildKeyspace " + ks})
			for _, c := range d.cells {
				out = append(out, entry{at: t.Add(c.at), level: 'I', call: "rebuild_keyspace.go:177", msg: fmt.Sprintf("updating keyspace serving graph in cell %s for %s", c.cell, ks)})
			}
			out = append(out, entry{at: t.Add(d.unlockAt), level: 'I', call: d.unlockCall, msg: fmt.Sprintf("Unlocking keyspace %s for successful action RebuildKeyspace", ks)})
			t = t.Add(d.next)
		}
		return out
	})...)
}

func span(from, to string) [2]time.Time { return [2]time.Time{at(from), at(to)} }

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000000", s)
	if err != nil {
		panic(err)
	}
	return t
}

// refresh is RefreshTabletsByShard over the shards' tablets (topotools keyspace.go).
func refresh(s *script, call1, call2 string, timeout time.Duration, shards map[string][]string) {
	names := slices.Sorted(maps.Keys(shards))
	for _, sh := range names {
		s.after(213*time.Microsecond).info(call1, "RefreshTabletsByShard called on shard %s", sh)
	}
	for _, sh := range names {
		for _, tablet := range shards[sh] {
			s.after(1187*time.Microsecond).info(call2, "Calling RefreshState on tablet %s with a timeout of %v", tablet, timeout)
			timeout -= 1187 * time.Microsecond
		}
	}
}

var logCases = []*glogFile{seedLog(), bothDenyLog(), fullySwitchedLog(), readsSwitchedLog()}

// seedLog is vitessio/vitess#17326: vtctld built from main (v22.0.0-SNAPSHOT,
// December 2024) in a Kubernetes pod (pid 1). commerce2customer was switched
// at 14:02; at 16:41 a ReverseTraffic ran into a tablet roll of customer/80-:
// LOCK TABLES hung until the client's deadline, and the cancel, run on the
// same expired context, failed.
func seedLog() *glogFile {
	const (
		wf      = "commerce2customer"
		id      = 7405839224312487115
		idRev   = 1851136237624719302
		lockOpt = "with options: {lockType:0 ttl:0}"
	)
	f := &glogFile{
		path: "seed-reverse-failed/snapshot-20241202T164500Z/vtctld.log",
		host: "example-zone1-vtctld-1d4dcad0-6f7c9d8b5-x2x9q", goVer: "go1.23.3", pid: 1, prevLog: true,
		created: at("2024-12-02 09:12:40.000000"),
	}
	rng := rand.New(rand.NewPCG(17326, 1))
	s := &script{at: at("2024-12-02 09:12:40.118821")}
	s.info("grpc_server.go:325", "Listening for gRPC calls on port 15999")

	tablets := map[string][]string{
		"commerce/0":   {"zone1-0000000100", "zone1-0000000101", "zone1-0000000102"},
		"customer/-80": {"zone1-0000000300", "zone1-0000000301", "zone1-0000000302"},
		"customer/80-": {"zone1-0000000400", "zone1-0000000401", "zone1-0000000402"},
	}

	// 14:01:58 SwitchTraffic, all tablet types, goes through.
	s.at = at("2024-12-02 14:01:58.120407")
	s.info("server.go:2906", "Migration ID for workflow %s: %d", wf, id)
	s.after(111*time.Millisecond).info("server.go:3367", "Switching reads: customer.%s tablet types: primary,rdonly,replica, cells: , workflow state: Reads Not Switched. Writes Not Switched", wf)
	s.after(13*time.Millisecond).info("locks.go:228", "Locking keyspace commerce for action SwitchReads %s", lockOpt)
	s.after(147*time.Millisecond).info("locks.go:273", "Unlocking keyspace commerce for successful action SwitchReads")
	s.after(11*time.Millisecond).info("locks.go:228", "Locking keyspace commerce for action SwitchWrites %s", lockOpt)
	s.after(15*time.Millisecond).info("locks.go:228", "Locking keyspace customer for action SwitchWrites %s", lockOpt)
	s.after(112*time.Millisecond).info("server.go:3540", "No previous journals were found. Proceeding normally.")
	s.after(2*time.Millisecond).info("server.go:3556", "Stopping streams")
	s.after(2*time.Millisecond).info("server.go:3568", "Stopping source writes")
	refresh(s, "keyspace.go:48", "keyspace.go:90", 29993*time.Millisecond, tablets)
	s.after(361*time.Millisecond).info("server.go:3576", "Executing LOCK TABLES on source tables 2 times")
	s.after(2108*time.Millisecond).info("server.go:3594", "Waiting for streams to catchup")
	pos := map[string]string{"-80": "MySQL56/7b1f2e9a-b0a6-11ef-9d3c-0a58a9feac02:1-48212", "80-": "MySQL56/7b1f2e9a-b0a6-11ef-9d3c-0a58a9feac02:1-48212"}
	for i, sh := range []string{"-80", "80-"} {
		s.after(5*time.Millisecond).info("traffic_switcher.go:973", "Before Catchup: waiting for keyspace:shard: customer:%s to reach source position %s, uid %d", sh, pos[sh], i+1)
	}
	for i, sh := range []string{"-80", "80-"} {
		s.after(61*time.Millisecond).info("traffic_switcher.go:978", "After catchup: target keyspace:shard: customer:%s, source position %s, uid %d", sh, pos[sh], i+1)
		s.after(1*time.Millisecond).info("traffic_switcher.go:980", "After catchup: position for keyspace:shard: customer:%s reached, uid %d", sh, i+1)
	}
	s.after(19*time.Millisecond).info("traffic_switcher.go:995", "After catchup, position for target primary zone1-0000000300, MySQL56/9c4e0a1d-b0a6-11ef-8f2e-0a58a9feac05:1-7331")
	s.after(1*time.Millisecond).info("traffic_switcher.go:995", "After catchup, position for target primary zone1-0000000400, MySQL56/a02b5e77-b0a6-11ef-b4c1-0a58a9feac06:1-7402")
	s.after(3*time.Millisecond).info("server.go:3602", "Migrating streams")
	s.after(2*time.Millisecond).info("server.go:3609", "Resetting sequences")
	s.after(9*time.Millisecond).info("server.go:3616", "Creating reverse streams")
	s.after(88*time.Millisecond).info("traffic_switcher.go:749", `Creating journal: id:%d migration_type:TABLES tables:"corder" tables:"customer" local_position:"%s" shard_gtids:{keyspace:"customer" shard:"-80" gtid:"MySQL56/9c4e0a1d-b0a6-11ef-8f2e-0a58a9feac05:1-7331"} shard_gtids:{keyspace:"customer" shard:"80-" gtid:"MySQL56/a02b5e77-b0a6-11ef-b4c1-0a58a9feac06:1-7402"} participants:{keyspace:"commerce" shard:"0"} source_workflows:"%s"`, id, pos["-80"], wf)
	for _, t := range []string{"corder", "customer"} {
		s.after(4*time.Millisecond).info("traffic_switcher.go:824", "Deleted routing: customer.%s", t)
		s.after(1*time.Microsecond*40).info("traffic_switcher.go:827", "Added routing: %s commerce.%s", t, t)
	}
	for range 2 {
		s.after(17*time.Millisecond).info("traffic_switcher.go:1197", "Marking target streams frozen for workflow %s db_name vt_customer", wf)
	}
	s.after(31*time.Millisecond).info("locks.go:273", "Unlocking keyspace customer for successful action SwitchWrites")
	s.after(9*time.Millisecond).info("locks.go:273", "Unlocking keyspace commerce for successful action SwitchWrites")
	f.entries = append(f.entries, s.es...)

	// 16:41:57 ReverseTraffic, all tablet types, on commerce2customer_reverse.
	s = &script{at: at("2024-12-02 16:41:57.902114")}
	s.info("server.go:2906", "Migration ID for workflow %s: %d", wf, id)
	s.after(56*time.Millisecond).info("server.go:2906", "Migration ID for workflow %s_reverse: %d", wf, idRev)
	s.after(52*time.Millisecond).info("server.go:3367", "Switching reads: commerce.%s_reverse tablet types: primary,rdonly,replica, cells: , workflow state: All Reads Switched. Writes Switched", wf)
	s.after(13*time.Millisecond).info("locks.go:228", "Locking keyspace customer for action SwitchReads %s", lockOpt)
	s.after(147*time.Millisecond).info("locks.go:273", "Unlocking keyspace customer for successful action SwitchReads")
	s.after(11*time.Millisecond).info("locks.go:228", "Locking keyspace customer for action SwitchWrites %s", lockOpt)
	s.after(15*time.Millisecond).info("locks.go:228", "Locking keyspace commerce for action SwitchWrites %s", lockOpt)
	s.at = at("2024-12-02 16:42:01.388211")
	s.info("server.go:3540", "No previous journals were found. Proceeding normally.")
	s.after(2*time.Millisecond).info("server.go:3556", "Stopping streams")
	s.at = at("2024-12-02 16:42:01.531502")
	s.info("server.go:3568", "Stopping source writes")
	refresh(s, "keyspace.go:48", "keyspace.go:90", 29996*time.Millisecond, tablets)
	s.at = at("2024-12-02 16:42:02.118460")
	s.info("server.go:3576", "Executing LOCK TABLES on source tables 2 times")
	s.at = at("2024-12-02 16:42:32.901388")
	s.log('E', "server.go:3581", "Failed to execute LOCK TABLES (attempt 1 of 2) on sources: Code: DEADLINE_EXCEEDED\nrpc error: code = DeadlineExceeded desc = context deadline exceeded")
	s.after(3*time.Millisecond).log('E', "traffic_switcher.go:1161", "Cancel migration failed: could not revert denied tables / shard access: deadline exceeded: keyspaces/customer/shards/80-/Shard")
	s.after(1*time.Millisecond).log('E', "traffic_switcher.go:1175", "Cancel migration failed: could not restart vreplication: rpc error: code = DeadlineExceeded desc = context deadline exceeded")
	s.after(1*time.Millisecond).log('E', "traffic_switcher.go:1180", "Cancel migration failed: could not delete revers vreplication entries: rpc error: code = DeadlineExceeded desc = context deadline exceeded")
	s.after(2*time.Millisecond).info("locks.go:271", "Unlocking keyspace commerce for action SwitchWrites with error Code: DEADLINE_EXCEEDED\nrpc error: code = DeadlineExceeded desc = context deadline exceeded")
	s.after(9*time.Millisecond).info("locks.go:271", "Unlocking keyspace customer for action SwitchWrites with error Code: DEADLINE_EXCEEDED\nrpc error: code = DeadlineExceeded desc = context deadline exceeded")
	f.entries = append(f.entries, s.es...)

	// All day: a dashboard polls MoveTables status, the operator rebuilds
	// the keyspace graphs after reparents.
	f.allDay(rng, allDay{
		wf: wf, id: id, idCall: "server.go:2906",
		polls: span("2024-12-02 09:13:05.000000", "2024-12-02 16:48:30.000000"), pollEvery: time.Minute,
		rebuilds: span("2024-12-02 09:20:00.000000", "2024-12-02 16:48:30.000000"), rebuildEvery: 47 * time.Minute,
		keyspaces: []string{"commerce", "customer"}, lockCall: "locks.go:228", unlockCall: "locks.go:273", lockOpt: lockOpt,
		rebuildAt: 4 * time.Millisecond, cells: []cellUpdate{{"zone1", 9 * time.Millisecond}},
		unlockAt: 23 * time.Millisecond, next: 31 * time.Millisecond,
	})
	return f
}

// bothDenyLog: vtctld v22.0.1 on a VM, June 2025. legacy2payments had its
// reads switched at 08:40; at 09:02 the writes switch added the denial on
// legacy/0, removed it on two of the four payments shards, and lost the
// other two to an etcd leader change; the cancel's topo writes timed out.
func bothDenyLog() *glogFile {
	const (
		wf      = "legacy2payments"
		id      = 3318861604178412902
		lockOpt = "with options: {lockType:0 ttl:0}"
	)
	f := &glogFile{
		path: "both-deny/snapshot-20250611T091500Z/vtctld.vtctld-01.vitess.log.INFO.20250611-082207.2318711",
		host: "vtctld-01", goVer: "go1.24.3", pid: 2318711, prevLog: true,
		created: at("2025-06-11 08:22:07.000000"),
	}
	rng := rand.New(rand.NewPCG(2025, 611))
	s := &script{at: at("2025-06-11 08:22:07.004133")}
	s.info("grpc_server.go:325", "Listening for gRPC calls on port 15999")

	tablets := map[string][]string{
		"legacy/0":       {"zone1-0000000101", "zone1-0000000102", "zone2-0000000201"},
		"payments/-40":   {"zone1-0000001100", "zone1-0000001101", "zone2-0000002100"},
		"payments/40-80": {"zone1-0000001200", "zone1-0000001201", "zone2-0000002200"},
		"payments/80-c0": {"zone1-0000001300", "zone1-0000001301", "zone2-0000002300"},
		"payments/c0-":   {"zone1-0000001400", "zone1-0000001401", "zone2-0000002400"},
	}
	source := map[string][]string{"legacy/0": tablets["legacy/0"]}
	targets := map[string][]string{"payments/-40": tablets["payments/-40"], "payments/40-80": tablets["payments/40-80"]}

	// 08:40:12 SwitchTraffic for reads.
	s.at = at("2025-06-11 08:40:12.603318")
	s.info("server.go:3021", "Migration ID for workflow %s: %d", wf, id)
	s.after(97*time.Millisecond).info("server.go:3499", "Switching reads: payments.%s tablet types: rdonly,replica, cells: , workflow state: Reads Not Switched. Writes Not Switched", wf)
	s.after(14*time.Millisecond).info("locks.go:228", "Locking keyspace legacy for action SwitchReads %s", lockOpt)
	s.after(160*time.Millisecond).info("locks.go:273", "Unlocking keyspace legacy for successful action SwitchReads")

	// 09:02:09 SwitchTraffic for writes.
	s.at = at("2025-06-11 09:02:09.214670")
	s.info("server.go:3021", "Migration ID for workflow %s: %d", wf, id)
	s.after(11*time.Millisecond).info("locks.go:228", "Locking named payments/%s for action WorkflowSwitchTraffic with options: {lockType:2 ttl:0}", wf)
	s.after(21*time.Millisecond).info("locks.go:228", "Locking keyspace legacy for action SwitchWrites %s", lockOpt)
	s.after(16*time.Millisecond).info("locks.go:228", "Locking keyspace payments for action SwitchWrites %s", lockOpt)
	s.after(131*time.Millisecond).info("server.go:3712", "No previous journals were found. Proceeding normally.")
	s.after(2*time.Millisecond).info("server.go:3728", "Stopping streams")
	s.at = at("2025-06-11 09:02:10.040187")
	s.info("server.go:3736", "Stopping source writes")
	refresh(s, "keyspace.go:48", "keyspace.go:90", 29998*time.Millisecond, source)
	refresh(s, "keyspace.go:48", "keyspace.go:90", 29994*time.Millisecond, targets)
	s.at = at("2025-06-11 09:02:11.901552")
	s.log('W', "traffic_switcher.go:1121", "Error in switchDeniedTables: etcdserver: leader changed")
	s.after(71*time.Microsecond).log('W', "traffic_switcher.go:1044", "Error stopping writes on migration sources: Code: UNKNOWN\netcdserver: leader changed")
	s.after(402*time.Microsecond).info("traffic_switcher.go:1206", "cancelMigration (%s): starting", wf)
	s.after(18*time.Microsecond).info("traffic_switcher.go:1217", "cancelMigration (%s): adding denied tables to target", wf)
	s.at = at("2025-06-11 09:02:18.905820")
	s.log('W', "traffic_switcher.go:1121", "Error in switchDeniedTables: etcdserver: request timed out")
	s.after(44*time.Microsecond).log('E', "traffic_switcher.go:1227", "Cancel migration failed (%s): could not revert denied tables / shard access: Code: UNKNOWN\netcdserver: request timed out", wf)
	s.after(30*time.Microsecond).info("traffic_switcher.go:1235", "cancelMigration (%s): restarting vreplication workflows", wf)
	s.after(9*time.Millisecond).info("traffic_switcher.go:1247", "cancelMigration (%s): deleting reverse vreplication workflows", wf)
	s.after(14*time.Millisecond).log('E', "traffic_switcher.go:1254", "Cancel migration failed for %s, manual cleanup work may be necessary: Code: UNKNOWN\ncould not revert denied tables / shard access: Code: UNKNOWN\netcdserver: request timed out", wf)
	s.after(80*time.Microsecond).log('E', "server.go:3640", "Code: UNKNOWN\netcdserver: leader changed\n\nfailed to stop writes in the legacy keyspace")
	s.after(1*time.Millisecond).info("locks.go:271", "Unlocking keyspace payments for action SwitchWrites with error failed to stop writes in the legacy keyspace: etcdserver: leader changed")
	s.after(5*time.Millisecond).info("locks.go:271", "Unlocking keyspace legacy for action SwitchWrites with error failed to stop writes in the legacy keyspace: etcdserver: leader changed")
	s.after(3*time.Millisecond).info("locks.go:271", "Unlocking named payments/%s for action WorkflowSwitchTraffic with error failed to stop writes in the legacy keyspace: etcdserver: leader changed", wf)
	f.entries = append(f.entries, s.es...)

	f.allDay(rng, allDay{
		wf: wf, id: id, idCall: "server.go:3021",
		polls: span("2025-06-11 08:23:00.000000", "2025-06-11 09:16:40.000000"), pollEvery: 20 * time.Second,
		rebuilds: span("2025-06-11 08:31:00.000000", "2025-06-11 09:16:40.000000"), rebuildEvery: 13 * time.Minute,
		keyspaces: []string{"legacy", "payments"}, lockCall: "locks.go:228", unlockCall: "locks.go:273", lockOpt: lockOpt,
		rebuildAt: 3 * time.Millisecond, cells: []cellUpdate{{"zone1", 8 * time.Millisecond}, {"zone2", 8 * time.Millisecond}},
		unlockAt: 27 * time.Millisecond, next: 35 * time.Millisecond,
	})
	return f
}

// fullySwitchedLog: vtctld v19.0.4 (statefulset pod, pid 7), May 2024. A
// first SwitchTraffic of main2users timed out waiting for the streams to
// catch up and was cancelled cleanly; the second went through.
func fullySwitchedLog() *glogFile {
	const (
		wf = "main2users"
		id = 5982271036613058017
	)
	f := &glogFile{
		path: "fully-switched/snapshot-20240521T120000Z/vtctld.INFO",
		host: "vtctld-0", goVer: "go1.22.2", pid: 7,
		created: at("2024-05-21 06:00:03.000000"),
	}
	rng := rand.New(rand.NewPCG(19, 4))
	s := &script{at: at("2024-05-21 06:00:03.417700")}
	s.info("grpc_server.go:322", "Listening for gRPC calls on port 15999")

	// Before v21 a writes switch denies the tables on the source only, and
	// allows them on the target once the journal is written.
	source := map[string][]string{"main/0": {"cell1-0000000100", "cell1-0000000101", "cell1-0000000102"}}
	targets := map[string][]string{
		"users/-80": {"cell1-0000000300", "cell1-0000000301"},
		"users/80-": {"cell1-0000000400", "cell1-0000000401"},
	}
	writes := func(s *script, ok bool) {
		s.info("server.go:2511", "Migration ID for workflow %s: %d", wf, id)
		s.after(101*time.Millisecond).info("server.go:2962", "Switching reads: users.%s tablet types: primary,rdonly,replica, cells: , workflow state: Reads Not Switched. Writes Not Switched", wf)
		s.after(12*time.Millisecond).info("locks.go:212", "Locking keyspace main for action SwitchReads")
		s.after(150*time.Millisecond).info("locks.go:255", "Unlocking keyspace main for successful action SwitchReads")
		s.after(10*time.Millisecond).info("locks.go:212", "Locking keyspace main for action SwitchWrites")
		s.after(14*time.Millisecond).info("locks.go:212", "Locking keyspace users for action SwitchWrites")
		s.after(118*time.Millisecond).info("server.go:3104", "No previous journals were found. Proceeding normally.")
		s.after(2*time.Millisecond).info("server.go:3118", "Stopping streams")
		s.after(2*time.Millisecond).info("server.go:3130", "Stopping source writes")
		refresh(s, "keyspace.go:48", "keyspace.go:88", 29995*time.Millisecond, source)
		s.after(302*time.Millisecond).info("server.go:3138", "Executing LOCK TABLES on source tables 2 times")
		s.after(2104*time.Millisecond).info("server.go:3156", "Waiting for streams to catchup")
		if !ok {
			s.after(30*time.Second).log('E', "server.go:3158", "waitForCatchup failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded")
			s.after(9*time.Millisecond).info("keyspace.go:48", "RefreshTabletsByShard called on shard main/0")
			s.after(2*time.Millisecond).info("keyspace.go:88", "Calling RefreshState on tablet cell1-0000000100 with a timeout of 29.998811s")
			s.after(402*time.Millisecond).info("locks.go:253", "Unlocking keyspace users for action SwitchWrites with error rpc error: code = DeadlineExceeded desc = context deadline exceeded")
			s.after(8*time.Millisecond).info("locks.go:253", "Unlocking keyspace main for action SwitchWrites with error rpc error: code = DeadlineExceeded desc = context deadline exceeded")
			return
		}
		s.after(1311*time.Millisecond).info("server.go:3164", "Migrating streams")
		s.after(2*time.Millisecond).info("server.go:3171", "Resetting sequences")
		s.after(12*time.Millisecond).info("server.go:3178", "Creating reverse streams")
		s.after(96*time.Millisecond).info("traffic_switcher.go:731", `Creating journal: id:%d migration_type:TABLES tables:"user" tables:"user_email" tables:"user_extra" local_position:"MySQL56/4c1d8e02-1721-11ef-a1f4-02a3c8c00e11:1-901733" shard_gtids:{keyspace:"users" shard:"-80" gtid:"MySQL56/5e2b7f10-1721-11ef-8c3b-02a3c8c00e21:1-120418"} shard_gtids:{keyspace:"users" shard:"80-" gtid:"MySQL56/6a0d99c4-1721-11ef-b7d0-02a3c8c00e31:1-118977"} participants:{keyspace:"main" shard:"0"} source_workflows:"%s"`, id, wf)
		refresh(s, "keyspace.go:48", "keyspace.go:88", 29997*time.Millisecond, targets)
		for _, t := range []string{"user", "user_email", "user_extra"} {
			s.after(3*time.Millisecond).info("traffic_switcher.go:806", "Deleted routing: users.%s", t)
			s.after(40*time.Microsecond).info("traffic_switcher.go:809", "Added routing: %s main.%s", t, t)
		}
		for range 2 {
			s.after(16*time.Millisecond).info("traffic_switcher.go:1118", "Marking target streams frozen for workflow %s db_name vt_users", wf)
		}
		s.after(29*time.Millisecond).info("locks.go:255", "Unlocking keyspace users for successful action SwitchWrites")
		s.after(8*time.Millisecond).info("locks.go:255", "Unlocking keyspace main for successful action SwitchWrites")
	}
	s.at = at("2024-05-21 11:20:31.025166")
	writes(s, false)
	s.at = at("2024-05-21 11:41:07.630492")
	writes(s, true)
	f.entries = append(f.entries, s.es...)

	f.allDay(rng, allDay{
		wf: wf, id: id, idCall: "server.go:2511",
		polls: span("2024-05-21 06:01:00.000000", "2024-05-21 12:03:00.000000"), pollEvery: 2 * time.Minute,
		rebuilds: span("2024-05-21 06:30:00.000000", "2024-05-21 12:03:00.000000"), rebuildEvery: time.Hour,
		keyspaces: []string{"main", "users"}, lockCall: "locks.go:212", unlockCall: "locks.go:255", lockOpt: "",
		rebuildAt: 4 * time.Millisecond, cells: []cellUpdate{{"cell1", 9 * time.Millisecond}},
		unlockAt: 22 * time.Millisecond, next: 30 * time.Millisecond,
	})
	return f
}

// readsSwitchedLog: vtctld v21.0.1 in a pod, November 2024. ecommerce2sales
// was created at 10:02 (v21 denies the tables on the target from Create)
// and its reads were switched at 13:37; writes were not.
func readsSwitchedLog() *glogFile {
	const (
		wf      = "ecommerce2sales"
		id      = 8840019326571208446
		lockOpt = "with options: {lockType:0 ttl:0}"
	)
	f := &glogFile{
		path: "reads-switched-v21/snapshot-20241119T140500Z/vtctld-5d9c8b7f4-kb2xz.INFO",
		host: "vtctld-5d9c8b7f4-kb2xz", goVer: "go1.23.2", pid: 1, prevLog: true,
		created: at("2024-11-19 09:47:52.000000"),
	}
	rng := rand.New(rand.NewPCG(21, 1119))
	s := &script{at: at("2024-11-19 09:47:52.231090")}
	s.info("grpc_server.go:325", "Listening for gRPC calls on port 15999")

	s.at = at("2024-11-19 13:37:44.518209")
	s.info("server.go:2960", "Migration ID for workflow %s: %d", wf, id)
	s.after(9*time.Millisecond).info("locks.go:228", "Locking named sales/%s for action WorkflowSwitchTraffic with options: {lockType:2 ttl:0}", wf)
	s.after(88*time.Millisecond).info("server.go:3401", "Switching reads: sales.%s tablet types: rdonly,replica, cells: , workflow state: Reads Not Switched. Writes Not Switched", wf)
	s.after(13*time.Millisecond).info("locks.go:228", "Locking keyspace ecommerce for action SwitchReads %s", lockOpt)
	s.after(171*time.Millisecond).info("locks.go:273", "Unlocking keyspace ecommerce for successful action SwitchReads")
	s.after(4*time.Millisecond).info("locks.go:273", "Unlocking named sales/%s for successful action WorkflowSwitchTraffic", wf)
	f.entries = append(f.entries, s.es...)

	f.allDay(rng, allDay{
		wf: wf, id: id, idCall: "server.go:2960",
		polls: span("2024-11-19 10:05:00.000000", "2024-11-19 14:06:10.000000"), pollEvery: 90 * time.Second,
		rebuilds: span("2024-11-19 09:55:00.000000", "2024-11-19 14:06:10.000000"), rebuildEvery: 31 * time.Minute,
		keyspaces: []string{"ecommerce", "sales"}, lockCall: "locks.go:228", unlockCall: "locks.go:273", lockOpt: lockOpt,
		rebuildAt: 3 * time.Millisecond, cells: []cellUpdate{{"us_east_1a", 8 * time.Millisecond}, {"us_east_1b", 9 * time.Millisecond}},
		unlockAt: 25 * time.Millisecond, next: 33 * time.Millisecond,
	})
	return f
}
