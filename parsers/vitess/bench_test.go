package vitess

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// vtctldNoise are lines a busy vtctld and its tablets log all day
// (healthcheck.go, tablet_picker.go, grpc access, topo watches).
var vtctldNoise = []string{
	"I1202 %s       1 healthcheck.go:349] HealthCheckUpdate(Serving State): tablet: zone1-0000000%03d (dst-80-replica-%d) serving true => true for dst/-80 (REPLICA) reason: healthCheck update",
	"W1202 %s       1 healthcheck.go:349] health check stream error on tablet zone1-0000000%03d: rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp 10.0.%d.17:15999: connect: connection refused\"",
	"I1202 %s       1 tablet_picker.go:218] tablet picker: found %d healthy tablets in cell zone1 for keyspace dst shard -80",
	"I1202 %s       1 server.go:1142] Found tables to move: t%d,t2",
	"I1202 %s       1 keyspace_events.go:351] keyspace event resolved: dst/-80 is now consistent (serving: true) %d %d",
	"E1202 %s       1 vtctld.go:122] failed to refresh tablet zone1-0000000%03d: rpc error: code = Canceled desc = context canceled (attempt %d)",
	"I1202 %s       1 shard_sync.go:212] Updating shard record: primary_alias=zone1-0000000%03d, primary_term_start_time=%d",
}

// vtctldSteps are the lines of a traffic switch, about one in twenty.
var vtctldSteps = []string{
	"I1202 %s       1 server.go:3645] No previous journals were found. Proceeding normally.",
	"I1202 %s       1 server.go:3662] Stopping source writes",
	"I1202 %s       1 locks.go:165] Locking keyspace src for action SwitchWrites with options: {lockType:0 ttl:1m30s}",
	"I1202 %s       1 traffic_switcher.go:1324] Locking (and then immediately unlocking) the following tables on source keyspace dst: [t1 t2]",
	"E1202 %s       1 traffic_switcher.go:1146] Cancel migration failed: deadline exceeded: /vitess/global/keyspaces/dst/shards/-80/Shard",
}

func vtctldInput(size int) []byte {
	var b bytes.Buffer
	b.WriteString("Log file created at: 2024/12/02 16:40:00\nRunning on machine: vtctld-0\nBinary: Built with gc go1.23.3 for linux/amd64\n")
	b.WriteString("Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n")
	t := time.Date(2024, 12, 2, 16, 40, 0, 0, time.UTC)
	for i := 0; b.Len() < size; i++ {
		t = t.Add(1700 * time.Microsecond)
		stamp := t.Format("15:04:05.000000")
		if i%20 == 19 {
			fmt.Fprintf(&b, vtctldSteps[(i/20)%len(vtctldSteps)]+"\n", stamp)
			continue
		}
		fmt.Fprintf(&b, vtctldNoise[i%len(vtctldNoise)]+"\n", stamp, i%1000, i%7)
		if i%97 == 0 {
			b.WriteString("vitess.io/vitess/go/vt/vtctl/workflow.(*Server).switchWrites\n\t/vt/src/vitess.io/vitess/go/vt/vtctl/workflow/server.go:3557\n")
		}
	}
	return b.Bytes()
}

func BenchmarkVtctldLog(b *testing.B) {
	parsertest.Bench(b, VtctldLogFormat, forensics.Origin{Path: "vtctld.INFO", Name: "vtctld.INFO"}, vtctldInput(16<<20))
}

// BenchmarkSnapshot reads a session file of many documents, as a snapshot
// of a cluster with many shards and workflows gives.
func BenchmarkSnapshot(b *testing.B) {
	var in bytes.Buffer
	for in.Len() < 4<<20 {
		for _, d := range []string{getShardV22, getShardCamel, routingRulesReversed, srvKeyspaces, getKeyspaces, workflowShow, statusJSON} {
			in.WriteString("$ vtctldclient GetThings\n")
			in.WriteString(d)
			in.WriteString("\n")
		}
	}
	parsertest.Bench(b, SnapshotFormat, forensics.Origin{Path: "s/snapshot-2024-12-02T16:45:00Z/all.txt", Name: "all.txt"}, in.Bytes())
}

// The benchmark input must be what the parser reads: mostly plain lines,
// some events, no errors.
func TestBenchInput(t *testing.T) {
	res := parsertest.Parse(VtctldLogFormat, forensics.Origin{Name: "vtctld.INFO"}, vtctldInput(256<<10))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors[:1])
	}
	if n := len(res.Events); n == 0 || n > int(res.Lines)/5 {
		t.Errorf("%d events in %d lines", n, res.Lines)
	}
}

// vtctldJSONInput is vtctldInput as v24 logs it: one JSON object per entry
// (go/vt/log/flags.go), the glog header's file:line as the source.
func vtctldJSONInput(size int) []byte {
	var b bytes.Buffer
	var sl slogLine
	for _, l := range bytes.Split(vtctldInput(size), []byte("\n")) {
		h, st, _ := parseGlog(l)
		if st != goodHeader {
			continue // the file header and the stack traces: glog only
		}
		t := time.Date(2026, time.Month(h.month), h.day, h.hour, h.min, h.sec, h.micro*1000, time.UTC)
		caller := string(l[h.caller[0]:h.caller[1]])
		file, line, _ := strings.Cut(caller, ":")
		level := map[byte]string{'I': "INFO", 'W': "WARN", 'E': "ERROR"}[h.level]
		msg, _ := json.Marshal(string(l[h.msg:]))
		fmt.Fprintf(&b, `{"time":"%s","level":"%s","source":{"function":"vitess.io/vitess/go/vt/vtctl/workflow.(*Server).switchWrites","file":"/vt/src/vitess.io/vitess/go/vt/%s","line":%s},"msg":%s}`+"\n",
			t.Format("2006-01-02T15:04:05.000Z07:00"), level, file, line, msg)
	}
	if _, err := parseSlog(b.Bytes()[:bytes.IndexByte(b.Bytes(), '\n')], nil, &sl); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func BenchmarkVtctldJSONLog(b *testing.B) {
	parsertest.Bench(b, VtctldLogFormat, forensics.Origin{Path: "vtctld.log", Name: "vtctld.log"}, vtctldJSONInput(16<<20))
}

// One line in seven of the noise carries "context canceled", an event.
func TestBenchJSONInput(t *testing.T) {
	res := parsertest.Parse(VtctldLogFormat, forensics.Origin{Name: "vtctld.log"}, vtctldJSONInput(256<<10))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors[:1])
	}
	if n := len(res.Events); n == 0 || n > int(res.Lines)/3 {
		t.Errorf("%d events in %d lines", n, res.Lines)
	}
}

// BenchmarkVtgateLog reads a vtgate log whose noise is health check updates
// and whose events are its failed queries and buffering, as during an
// outage of a shard's replicas.
func BenchmarkVtgateLog(b *testing.B) {
	var in bytes.Buffer
	for in.Len() < 16<<20 {
		in.WriteString(vtgateLog)
	}
	parsertest.Bench(b, VtgateLogFormat, forensics.Origin{Path: "vtgate.INFO", Name: "vtgate.INFO"}, in.Bytes())
}
