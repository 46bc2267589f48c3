package lines

import (
	"fmt"
	"strings"
	"testing"
)

func TestFindPrefix(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []Prefix
		first string // the first line without the outermost prefix
	}{
		{"grep -H (couchbase/java-dcp-client#41)", []string{
			"memcached.log.000006.txt:2017-05-15T11:31:14.428065Z WARNING (default) DCP (Producer) eq_dcpq:dcp-java-d3f5a811 - (vb 239) Stream request failed because the snap start seqno (1894) <= start seqno (1893) <= snap end seqno (1894) is required",
			"memcached.log.000006.txt:2017-05-15T11:31:17.172729Z WARNING (default) DCP (Producer) eq_dcpq:dcp-java-57f1b7ba - (vb 197) Stream request failed because a stream already exists for this vbucket",
		}, []Prefix{Grep, Time}, "2017-05-15T11:31:14.428065Z WARNING (default) DCP (Producer) eq_dcpq:dcp-java-d3f5a811 - (vb 239) Stream request failed because the snap start seqno (1894) <= start seqno (1893) <= snap end seqno (1894) is required"},
		{"grep -Hn with context", []string{
			"cockroach.log-122-I230801 10:00:00.000001 1 server/server.go:1 ⋮ [n1] 1  before",
			"cockroach.log:123:I230801 10:00:00.000002 1 server/server.go:1 ⋮ [n1] 2  match",
			"--",
			"cockroach.log:200:I230801 10:00:01.000002 1 server/server.go:1 ⋮ [n1] 3  match",
		}, []Prefix{Grep}, "I230801 10:00:00.000001 1 server/server.go:1 ⋮ [n1] 1  before"},
		{"grep -n", []string{
			"12:I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY",
			"13:I1201 13:30:45.257402    1575 tm_state.go:186] done",
		}, []Prefix{Grep}, "I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY"},
		{"kubectl logs --prefix", []string{
			"[pod/vttablet-zone1-0000000100-abc/vttablet] I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY",
		}, []Prefix{Kubectl}, "I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY"},
		{"kubectl logs --timestamps", []string{
			"2017-05-18T18:16:07.094861927Z I0518 18:16:07.094000       1 vtorc.go:10] started",
		}, []Prefix{Time}, "I0518 18:16:07.094000       1 vtorc.go:10] started"},
		{"logcli", []string{
			`2024-03-12T10:15:30Z {app="vttablet", pod="vttablet-0"} I0312 10:15:30.123456       1 tm_state.go:185] Changing Tablet Type: PRIMARY`,
		}, []Prefix{Time}, "I0312 10:15:30.123456       1 tm_state.go:185] Changing Tablet Type: PRIMARY"},
		{"grafana text download", []string{
			`Common labels: {"app":"vttablet"}`,
			`Line limit: "1000 (12 returned)"`,
			"",
			"",
			"2024-03-12 11:15:30.123\tI0312 10:15:30.123456       1 tm_state.go:185] Changing Tablet Type: PRIMARY",
		}, []Prefix{Time}, `Common labels: {"app":"vttablet"}`},
		{"docker desktop (vitessio/vitess#11868)", []string{
			"2022-12-01 14:30:45 I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY",
		}, []Prefix{Time}, "I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY"},
		{"bracketed (vitessio/vitess#10145)", []string{
			"[2022-03-28 16:57:25.392780] E0328 16:57:25.392079 3564410 tm_state.go:265] SetServingType(serving=false) failed",
		}, []Prefix{Time}, "E0328 16:57:25.392079 3564410 tm_state.go:265] SetServingType(serving=false) failed"},
		{"dcos (cockroachdb/cockroach#20114)", []string{
			"2017-11-09 14:14:33: I171109 14:14:33.936738 1 cli/start.go:593  CockroachDB CCL v1.0.6 (linux amd64, built 2017/10/25 17:35:28, go1.8.3)",
		}, []Prefix{Time}, "I171109 14:14:33.936738 1 cli/start.go:593  CockroachDB CCL v1.0.6 (linux amd64, built 2017/10/25 17:35:28, go1.8.3)"},
		// Logs whose own lines look like a prefix at first sight.
		{"ale", []string{"[ns_server:info,2021-03-09T17:31:57.548Z,nonode@nohost:<0.118.0>:ns_server:init_logging:151]Started & configured logging"}, nil, ""},
		{"glog", []string{"I1201 13:30:45.257301    1575 tm_state.go:185] Changing Tablet Type: PRIMARY"}, nil, ""},
		{"crdb-v2", []string{"I241209 08:03:21.105967 70 1@cli/start.go:1287 ⋮ [T1,Vsystem,n1] 89  node startup completed:"}, nil, ""},
		{"diag", []string{"2024-11-07T03:14:09.220Z, ns_orchestrator:0:info:message(ns_1@10.112.190.101) - Starting failover"}, nil, ""},
		{"json", []string{`{"description":"An HTTP request was made to the API at /admin/stats.","id":28689}`}, nil, ""},
		{"dates and dashes", []string{"2017-05-15 starts", "2018-06-01 goes on"}, nil, ""},
	} {
		head := []byte(strings.Join(tc.lines, "\n") + "\n")
		st := NewStripper(head)
		var got []Prefix
		if st != nil {
			got = st.Layers()
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: layers %v, want %v", tc.name, got, tc.want)
			continue
		}
		if st != nil {
			if s := string(st.Depth(1).Strip([]byte(tc.lines[0]))); s != tc.first {
				t.Errorf("%s: Strip = %q, want %q", tc.name, s, tc.first)
			}
		}
	}
	st := NewStripper([]byte("memcached.log.000006.txt:2017-05-15T11:31:14.428065Z WARNING (default) x\n"))
	if f := st.File(); f != "memcached.log.000006.txt" {
		t.Errorf("File = %q", f)
	}
}

func TestStripContextLines(t *testing.T) {
	head := "cockroach.log-122-I230801 10:00:00.000001 1 server/server.go:1 ⋮ [n1] 1  before\n" +
		"cockroach.log:123:I230801 10:00:00.000002 1 server/server.go:1 ⋮ [n1] 2  match\n" +
		"--\n"
	st := NewStripper([]byte(head))
	if st == nil {
		t.Fatal("no prefix found")
	}
	for in, want := range map[string]string{
		"cockroach.log-122-I230801 10:00:00.000001 1 server/server.go:1 ⋮ [n1] 1  before": "I230801 10:00:00.000001 1 server/server.go:1 ⋮ [n1] 1  before",
		"--":               "--",
		"":                 "",
		"cockroach.log:9:": "",
	} {
		if got := string(st.Strip([]byte(in))); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzStripper: whatever the head and the line, a stripper finds at most
// maxLayers prefixes and strips only a prefix of the line.
func FuzzStripper(f *testing.F) {
	f.Fuzz(func(t *testing.T, head, line []byte) {
		st := NewStripper(head)
		if st == nil {
			return
		}
		if len(st.Layers()) > maxLayers {
			t.Fatalf("%d layers", len(st.Layers()))
		}
		for n := 0; n <= len(st.Layers()); n++ {
			got := st.Depth(n).Strip(line)
			if !strings.HasSuffix(string(line), string(got)) {
				t.Fatalf("Strip(%q) = %q, not a suffix", line, got)
			}
			st.Depth(n).StripHead(head)
		}
	})
}
