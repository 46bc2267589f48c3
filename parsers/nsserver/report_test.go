package nsserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// A report of 7.0+ as ns_rebalance_observer writes it: the stages, the
// rebalance's id, nodes and master, its start, end and time taken, and
// ns_orchestrator's message (~p wraps a long exit reason over lines).
const failedReport = `{"stageInfo":{"data":{"totalProgress":12.5,"perNodeProgress":{"ns_1@10.20.0.11":0.25,"ns_1@10.20.0.12":0},"startTime":"2024-03-11T07:10:00.102-07:00","completedTime":false,"timeTaken":60214}},` +
	`"rebalanceId":"3b5e0c6f2d1a4e8f9c7b6a5d4e3f2a1b","nodesInfo":{"active_nodes":["ns_1@10.20.0.11","ns_1@10.20.0.12"],"keep_nodes":["ns_1@10.20.0.11","ns_1@10.20.0.12"],"eject_nodes":[],"delta_nodes":[],"failed_nodes":[]},` +
	`"masterNode":"ns_1@10.20.0.11","startTime":"2024-03-11T07:10:00.012-07:00","completedTime":"2024-03-11T07:11:02.345-07:00","timeTaken":62333,` +
	`"completionMessage":"Rebalance exited with reason {pre_rebalance_janitor_run_failed,\"travel-sample\",\n                                 {error,wait_for_memcached_failed,\n                                  ['ns_1@10.20.0.12']}}."}`

func TestRebalanceReport(t *testing.T) {
	o := forensics.Origin{Name: "rebalance_report_20240311T141102Z.json", Node: "ns_1@10.20.0.12"}
	checkReport(t, o, failedReport, []want{{
		kind: RebalanceEnd, line: 1, node: "ns_1@10.20.0.11", bucket: "travel-sample", time: "2024-03-11T14:11:02.345Z",
		attrs: a{"result": "failed", "reason_tag": "pre_rebalance_janitor_run_failed", "reason_nodes": "ns_1@10.20.0.12",
			"reason":       `{pre_rebalance_janitor_run_failed,"travel-sample",{error,wait_for_memcached_failed,['ns_1@10.20.0.12']}}`,
			"operation_id": "3b5e0c6f2d1a4e8f9c7b6a5d4e3f2a1b", "master_node": "ns_1@10.20.0.11", "time_taken": "62333", "via": "rebalance_report"},
	}})

	stopped := strings.Replace(failedReport, failedReport[strings.Index(failedReport, `"completionMessage"`):], `"completionMessage":"Rebalance stopped by user."}`, 1)
	checkReport(t, o, stopped, []want{{kind: RebalanceEnd, line: 1, node: "ns_1@10.20.0.11", attrs: a{"result": "stopped"}}})

	// ns_janitor's report for a rebalance that was no longer running has
	// the message alone: the time is the report's name.
	checkReport(t, o, `{"completionMessage":"Rebalance stopped by janitor."}`, []want{
		{kind: RebalanceEnd, line: 1, time: "2024-03-11T14:11:02Z", attrs: a{"result": "interrupted"}},
	})

	graceful := `{"stageInfo":{},"rebalanceId":"9d1e","masterNode":"ns_1@10.20.0.11","completedTime":"2024-03-11T07:20:00.000-07:00",` +
		`"completionMessage":"Graceful failover exited with reason {mover_crashed,\n                                       {unexpected_exit,normal}}."}`
	checkReport(t, o, graceful, []want{{kind: FailoverFailed, line: 1, node: "ns_1@10.20.0.11",
		attrs: a{"graceful": "true", "error": "exited with reason {mover_crashed,{unexpected_exit,normal}}.", "operation_id": "9d1e"}}})

	// The report of the rebalance under way (cbcollect_info's
	// rebalance_report_current.json) has not ended: no event.
	running := strings.Replace(failedReport, failedReport[strings.Index(failedReport, `,"completionMessage"`):], `}`, 1)
	checkReport(t, forensics.Origin{Name: "rebalance_report_current.json"}, running, nil)

	// The same report pretty-printed.
	pretty := strings.ReplaceAll(strings.ReplaceAll(stopped, `{"`, "{\n  \""), `,"`, ",\n  \"")
	checkReport(t, o, pretty, []want{{kind: RebalanceEnd, line: 1, node: "ns_1@10.20.0.11", attrs: a{"result": "stopped"}}})
}

// checkReport checks the events of a report and that it ends without error.
func checkReport(t *testing.T, o forensics.Origin, input string, wants []want) {
	t.Helper()
	if res := check(t, RebalanceReportFormat, o, input, wants); res.EndErr != nil {
		t.Errorf("end: %v", res.EndErr)
	}
}

// Reports of a 6.6 cluster on Kubernetes (couchbase/couchbase-fluent-bit
// test/logs/rebalance): the time is the last stage's end.
func TestRebalanceReportReal(t *testing.T) {
	dir := "../../testdata/field/couchbase/fluent-bit-test-logs"
	for _, c := range []struct {
		name string
		want want
	}{
		{"rebalance_report_2021-03-09T17:33:43Z.json", want{kind: RebalanceEnd, line: 1, node: "ns_1@cb-example-0000.cb-example.default.svc", time: "2021-03-09T17:33:43.781Z",
			attrs: a{"result": "completed", "operation_id": "996c45a172c13e3745a4814f8b4c16d8"}}},
		{"rebalance_report_2021-03-09T20:23:16Z.json", want{kind: FailoverEnd, line: 1, node: "ns_1@cb-example-0000.cb-example.default.svc", time: "2021-03-09T20:23:16.071Z",
			attrs: a{"completion_message": "Failover completed successfully.", "operation_id": "15a4b703cb334569b6884028a7f61144"}}},
	} {
		b, err := os.ReadFile(filepath.Join(dir, c.name))
		if err != nil {
			t.Fatal(err)
		}
		if got := detectReport(c.name, b[:min(len(b), 4096)]); got < 90 {
			t.Errorf("detect(%s) = %d", c.name, got)
		}
		checkReport(t, forensics.Origin{Name: c.name}, string(b), []want{c.want})
	}
}

func TestDetectReport(t *testing.T) {
	for _, c := range []struct {
		name, head string
		min, max   int
	}{
		{"rebalance_report_20240311T141102Z.json", failedReport, 95, 95},
		{"rebalance_report_current.json", failedReport[:200], 90, 100},
		{"report.json", failedReport, 70, 89},
		{"report.json", `{"completionMessage":"Rebalance stopped by janitor."}`, 0, 0},
		{"rebalance_report_x.json", `[1,2]`, 0, 0},
		{"tasks.json", `{"stageInfo":1}`, 0, 0},
	} {
		if got := detectReport(c.name, []byte(c.head)); got < c.min || got > c.max {
			t.Errorf("detect(%s, %.30q) = %d, want %d–%d", c.name, c.head, got, c.min, c.max)
		}
	}
	// A report that is not JSON is an error of its file, not a panic.
	res := parsertest.Parse(RebalanceReportFormat, forensics.Origin{Name: "rebalance_report_current.json"}, []byte(`{"stageInfo":{`))
	if res.EndErr == nil {
		t.Error("no error for a cut report")
	}
}
