package vreplerror

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/vitess"
	"forensics/rules/ruletest"
)

var formats = []forensics.Format{vitess.SnapshotFormat, vitess.VtctldLogFormat, vitess.VttabletLogFormat, vitess.VtorcLogFormat}

var mod = time.Date(2025, 6, 11, 12, 0, 0, 0, time.UTC)

// workflow is a Workflow show of commerce2customer with one stream per
// target shard, in the given state and message.
func workflow(state80, msg80 string) string {
	stream := func(id int, shard string, uid int, state, msg string) string {
		return `{"id": "` + strconv.Itoa(id) + `", "shard": "` + shard + `", "tablet": {"cell": "zone1", "uid": ` + strconv.Itoa(uid) + `},
          "binlog_source": {"keyspace": "commerce", "shard": "0", "filter": {"rules": [{"match": "corder", "filter": "select * from corder"}]}},
          "position": "MySQL56/7b1f2e9a-b0a6-11ef-9d3c-0a58a9feac02:1-48212",
          "state": "` + state + `", "db_name": "vt_customer", "message": ` + quote(msg) + `}`
	}
	return `{"workflows": [{"name": "commerce2customer", "source": {"keyspace": "commerce", "shards": ["0"]}, "target": {"keyspace": "customer", "shards": ["-80", "80-"]},
  "workflow_type": "MoveTables",
  "shard_streams": {
    "-80/zone1-0000000300": {"streams": [` + stream(1, "-80", 300, state80, msg80) + `], "tablet_controls": [], "is_primary_serving": true},
    "80-/zone1-0000000400": {"streams": [` + stream(1, "80-", 400, "Running", "") + `], "tablet_controls": [], "is_primary_serving": true}
  }}]}`
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

const unknownColumn = "Unknown column 'note' in 'field list' (errno 1054) (sqlstate 42S22) during query: insert into corder(order_id,note) values (1,'x')"

// vttablet of customer/-80's primary: retried while the source tablet was
// unreachable, then the schema error it does not retry.
var tabletLog = []string{
	"Log file created at: 2025/06/11 09:00:00",
	"I0611 09:10:00.100000       1 vplayer.go:130] Starting VReplication player id: 1, name: commerce2customer, startPos: MySQL56/7b1f2e9a-b0a6-11ef-9d3c-0a58a9feac02:1-48212, stop: ",
	"E0611 09:10:05.000000       1 controller.go:251] error in stream 1, retrying after 5s: rpc error: code = Unavailable desc = connection refused",
	"E0611 09:10:10.000000       1 controller.go:251] error in stream 1, retrying after 5s: rpc error: code = Unavailable desc = connection refused",
	"I0611 09:10:15.100000       1 tablet_picker.go:218] tablet picker: found 2 healthy tablets in cell zone1 for keyspace commerce shard 0",
	"E0611 09:10:20.000000       1 controller.go:292] vreplication stream 1 going into error state due to " + unknownColumn,
}

func TestStreamInError(t *testing.T) {
	tl := ruletest.Read(t, formats,
		ruletest.File{Path: "case/snapshot-20250611T093000Z/vttablet.INFO", Text: ruletest.Lines(tabletLog...), ModTime: mod},
		ruletest.File{Path: "case/snapshot-20250611T093000Z/workflow_commerce2customer.json", Text: workflow("Error", unknownColumn)})
	got := ruletest.Run(t, Rule, tl)
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	f := got[0]
	if got, want := ruletest.Subject(f), `{"keyspace":"customer","workflow":"commerce2customer","shard":"-80","stream":1}`; got != want {
		t.Errorf("subject %s, want %s", got, want)
	}
	for _, want := range []string{"It has failed since 09:10:05.000Z: vttablet retried it 2 times (every 5s) and gave up at 09:10:20.000Z.", "reports state Error", "schema"} {
		if !strings.Contains(f.Explanation, want) {
			t.Errorf("no %q in %s", want, f.Explanation)
		}
	}
	cmds := ruletest.Commands(f)
	if !strings.HasPrefix(cmds, "vtctldclient --server VTCTLD_HOST:15999 Workflow --keyspace customer show --workflow commerce2customer\n") ||
		!strings.Contains(cmds, "vtctldclient --server VTCTLD_HOST:15999 Workflow --keyspace customer start --workflow commerce2customer") {
		t.Errorf("%s", cmds)
	}
	if len(f.Evidence) != 3 {
		t.Errorf("%d evidence lines", len(f.Evidence))
	}
}

// Near miss: the stream failed and runs again; the Workflow show after it
// says Running.
func TestStreamRecovered(t *testing.T) {
	log := append(append([]string{}, tabletLog[:4]...),
		"I0611 09:10:15.100000       1 vplayer.go:130] Starting VReplication player id: 1, name: commerce2customer, startPos: MySQL56/7b1f2e9a-b0a6-11ef-9d3c-0a58a9feac02:1-48300, stop: ")
	tl := ruletest.Read(t, formats,
		ruletest.File{Path: "case/snapshot-20250611T093000Z/vttablet.INFO", Text: ruletest.Lines(log...), ModTime: mod},
		ruletest.File{Path: "case/snapshot-20250611T093000Z/workflow_commerce2customer.json", Text: workflow("Running", "")})
	if got := ruletest.Run(t, Rule, tl); len(got) != 0 {
		t.Errorf("%d findings: %s", len(got), got[0].Explanation)
	}
	// Without the Workflow show the log decides: started again, no finding.
	if got := ruletest.Run(t, Rule, ruletest.Read(t, formats, ruletest.File{Path: "case/vttablet.INFO", Text: ruletest.Lines(log...), ModTime: mod})); len(got) != 0 {
		t.Errorf("%d findings from the log alone", len(got))
	}
}

// A snapshot taken before the stream was started again is overruled by
// the later log line.
func TestErrorThenStartedAfterSnapshot(t *testing.T) {
	log := append(append([]string{}, tabletLog...),
		"I0611 09:40:00.000000       1 vplayer.go:130] Starting VReplication player id: 1, name: commerce2customer, startPos: x, stop: ")
	tl := ruletest.Read(t, formats,
		ruletest.File{Path: "case/vttablet.INFO", Text: ruletest.Lines(log...), ModTime: mod},
		ruletest.File{Path: "case/snapshot-20250611T093000Z/workflow_commerce2customer.json", Text: workflow("Error", unknownColumn)})
	if got := ruletest.Run(t, Rule, tl); len(got) != 0 {
		t.Errorf("%d findings", len(got))
	}
}

// The binary logs are gone: the fix recreates the workflow.
func TestBinlogsGone(t *testing.T) {
	msg := "Cannot replicate because the source purged required binary logs. Replicate the missing transactions from elsewhere, or provision a new replica from backup. (errno 1236) (sqlstate HY000)"
	got := ruletest.Run(t, Rule, ruletest.Read(t, formats,
		ruletest.File{Path: "case/snapshot-20250611T093000Z/workflow_commerce2customer.json", Text: workflow("Error", msg)}))
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	cmds := ruletest.Commands(got[0])
	if !strings.Contains(cmds, "vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer create --source-keyspace commerce --tables corder") {
		t.Errorf("%s", cmds)
	}
	if !strings.Contains(got[0].Explanation, "No vttablet log in the input shows when it started failing") {
		t.Errorf("%s", got[0].Explanation)
	}
}

// vitessio/vitess#15963: the status text vtctlclient printed, three
// streams in the error state on a table missing on the target.
func TestIssue15963Status(t *testing.T) {
	in := ruletest.Lines(
		"$ vtctlclient --server 127.0.0.1:15999 MoveTables cancel sites2023.hourlies",
		"E0521 02:12:46.851596 1603627 main.go:96] E0521 00:12:46.851158 vtctl.go:2196] ",
		"cannot remove tables since one or more do not exist in the denylist",
		"",
		"The following vreplication streams exist for workflow sites2023.hourlies:",
		"",
		"id=87 on -40/vic-eu-central-1-fakelive-0000000300: Status: Error: task error: failed inserting rows: Table 'vt_sites2023.logDataHourlyDeltas' doesn't exist (errno 1146) (sqlstate 42S02) during query: insert into logDataHourlyDeltas(idSite,`timestamp`,idDataAttribute,instance,valueFloat,lastUpdate) values (2441,1555932600,103,0,1.2,1555933525), etc",
		"id=87 on 40-80/vic-eu-central-1-fakelive-0000000301: Status: Error: task error: failed inserting rows: Table 'vt_sites2023.logDataHourlyDeltas' doesn't exist (errno 1146) (sqlstate 42S02) during query: insert into logDataHourlyDeltas(idSite,`timestamp`,idDataAttribute,instance,valueFloat,lastUpdate) values (2349,1637340300,101,0,0.109238,1637341230), etc",
	)
	got := ruletest.Run(t, Rule, ruletest.Read(t, formats, ruletest.File{Path: "case/snapshot-20240521T001500Z/cancel.txt", Text: in}))
	if len(got) != 2 {
		t.Fatalf("%d findings", len(got))
	}
	var shards []string
	for _, f := range got {
		if f.Subject.Workflow != "hourlies" || f.Subject.Keyspace != "sites2023" || f.Subject.Details.Int("stream") != 87 || !strings.Contains(f.Title, "schema mismatch") {
			t.Errorf("%+v %s", f.Subject, f.Title)
		}
		shards = append(shards, f.Subject.Shard)
	}
	if strings.Join(shards, ",") != "-40,40-80" && strings.Join(shards, ",") != "40-80,-40" {
		t.Errorf("shards %v", shards)
	}
	if !strings.Contains(ruletest.Commands(got[0]), "vtctldclient --server VTCTLD_HOST:15999 Workflow --keyspace sites2023 start --workflow hourlies") {
		t.Errorf("%s", ruletest.Commands(got[0]))
	}
}
