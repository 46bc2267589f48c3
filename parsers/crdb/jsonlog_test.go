package crdb

import (
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

func TestJSONLogLines(t *testing.T) {
	const nlhe = `application error: [NotLeaseHolderError] lease held by different store; r73: replica (n3,s3):2 not lease holder; current lease is repl=(n2,s2):3 seq=3 start=1625804709.439980668,0 epo=1 pro=1625804709.450045745,0`
	nlheAttrs := map[string]string{"reason": "lease held by different store", "replica": "(n3,s3):2",
		"lease_replica": "(n2,s2):3", "lease_seq": "3", "lease_start": "1625804709.439980668,0", "lease_epoch": "1", "lease_pro": "1625804709.450045745,0"}
	with := func(kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range nlheAttrs {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	at := time.Date(2021, 7, 9, 4, 25, 9, 833547000, time.UTC)
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
			name: "json",
			line: `{"channel_numeric":0,"channel":"DEV","timestamp":"1625804709.833547000","cluster_id":"fed66a44-872b-4ca2-ab75-c7821390fcec","node_id":1,"severity_numeric":1,"severity":"INFO","goroutine":83961,"file":"kv/kvclient/kvcoord/dist_sender.go","line":2097,"entry_counter":5831,"redactable":1,"tags":{"n":"1","client":"127.0.0.1:53480","hostssl":"","user":"root","txn":"5d1c7a22"},"message":"` + nlhe + `"}`,
			at:   at,
			want: &want{KindNLHE, 73, "n1", with("trace", "n1,client=127.0.0.1:53480,hostssl,user=root,txn=5d1c7a22", "gateway", "n1", "client", "127.0.0.1:53480", "txn", "5d1c7a22")},
		},
		{
			name: "json-fluent-compact, tenant and node ids",
			line: `{"tag":"cockroach.dev","c":0,"t":"1625804709.833547000","x":"fed66a44-872b-4ca2-ab75-c7821390fcec","N":2,"T":1,"s":1,"sev":"I","g":83961,"f":"kv/kvclient/kvcoord/dist_sender.go","l":2097,"n":5831,"r":1,"tags":{"T":"1","V":"system","n":"2","client":"‹10.0.0.7:40404›"},"message":"` + nlhe + `"}`,
			at:   at,
			want: &want{KindNLHE, 73, "n2", with("trace", "T1,Vsystem,n2,client=10.0.0.7:40404", "gateway", "n2", "client", "10.0.0.7:40404")},
		},
		{
			// v25.4: DistSender on the KV_EXEC channel, a leader lease.
			name: "json v25 KV_EXEC leader lease redirect",
			line: `{"channel_numeric":15,"channel":"KV_EXEC","timestamp":"1625804709.833547000","cluster_id":"fed66a44-872b-4ca2-ab75-c7821390fcec","node_id":1,"tenant_id":1,"tenant_name":"system","severity_numeric":3,"severity":"ERROR","goroutine":55120,"file":"kv/kvclient/kvcoord/dist_sender.go","line":2803,"entry_counter":126,"redactable":1,"tags":{"T":"1","V":"system","n":"1","client":"‹10.0.1.7:52004›","hostssl":"","user":"‹app›"},"message":"application error: [NotLeaseHolderError] leader lease is not held locally, cannot determine validity; r1187: replica (n1,s1):1 not lease holder; current lease is ` + v25LeaderLeaseA + `"}`,
			at:   at,
			want: &want{KindNLHE, 1187, "n1", map[string]string{"replica": "(n1,s1):1", "lease_replica": "(n2,s2):2", "lease_seq": "7",
				"lease_start": "1760011800.412000000,0", "lease_term": "9", "lease_min_exp": "1760011806.412000000,0", "lease_pro": "1760011800.411000000,0", "lease_acq": "Request",
				"reason": "leader lease is not held locally, cannot determine validity",
				"trace":  "T1,Vsystem,n1,client=10.0.1.7:52004,hostssl,user=app", "gateway": "n1", "client": "10.0.1.7:52004"}},
		},
		{
			name: "json-compact without node tag takes node_id",
			line: `{"c":0,"t":"1625804709.833547000","N":3,"s":1,"sev":"I","g":9,"f":"kv/kvclient/kvcoord/dist_sender.go","l":1990,"n":7,"r":0,"message":"trying next peer (n2,s2):3"}`,
			at:   at,
			want: &want{KindNextPeer, 0, "n3", map[string]string{"next": "(n2,s2):3", "gateway": "n3"}},
		},
		{
			name:     "escaped message",
			line:     `{"c":0,"t":"1625804709.833547000","N":3,"s":1,"g":9,"f":"kv/kvclient/kvcoord/dist_sender.go","l":1990,"n":7,"r":0,"tags":{"n":"3"},"message":"error: (err: [NotLeaseHolderError] r5: replica (n1,s1):1 not lease holder; lease holder unknown) \u003cnil\u003e; trying next peer (n2,s2):2"}`,
			at:       at,
			want:     &want{KindNextPeer, 5, "n3", map[string]string{"next": "(n2,s2):2", "nlhe": "true", "trace": "n3", "gateway": "n3"}},
			redirect: &want{KindNLHE, 5, "n3", map[string]string{"replica": "(n1,s1):1", "holder_unknown": "true", "trace": "n3", "gateway": "n3"}},
		},
		// Real lines of pkg/util/log/testdata/json: not events.
		{
			name: "json test data",
			line: `{"channel_numeric":1,"channel":"OPS","timestamp":"1136214245.654321000","severity_numeric":2,"severity":"WARNING","goroutine":11,"file":"util/log/format_json_test.go","line":123,"entry_counter":0,"redactable":0,"tags":{"noval":"","s":"1","long":"2"},"message":"hello world"}`,
			at:   time.Date(2006, 1, 2, 15, 4, 5, 654321000, time.UTC),
		},
		{
			name: "structured event",
			line: `{"tag":"log_test.dev","c":0,"t":"1136214245.654321000","s":1,"sev":"I","g":11,"f":"util/log/format_json_test.go","l":123,"n":0,"r":1,"tags":{"noval":"","s":"‹1›","long":"‹2›"},"event":{"Timestamp":123,"EventType":"rename_database","DatabaseName":"‹hello›","NewDatabaseName":"‹world›"}}`,
			at:   time.Date(2006, 1, 2, 15, 4, 5, 654321000, time.UTC),
		},
		{
			name: "sink header",
			line: `{"header":1,"timestamp":"1625804709.833547000","goroutine":1,"file":"util/log/file_sync_buffer.go","line":237,"redactable":1,"tags":{"config":""},"message":"log format (utf8=✓): json"}`,
			at:   at,
		},
		{
			name: "the bare error line of v20.2+",
			line: `{"c":0,"t":"1625804709.833547000","N":3,"s":1,"g":9,"f":"kv/kvclient/kvcoord/dist_sender.go","l":2063,"n":7,"r":0,"message":"[NotLeaseHolderError] r5: replica (n1,s1):1 not lease holder; lease holder unknown"}`,
			at:   at,
		},
		{
			name: "not JSON",
			line: `not a json line`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := parsertest.Parse(JSONLogFormat, forensics.Origin{}, []byte(tc.line+"\n"))
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			if st := res.Stamps[0]; !st.Time.Equal(tc.at) {
				t.Errorf("stamp %v, want %v", st.Time, tc.at)
			}
			if tc.want == nil {
				if len(res.Events) > 0 {
					t.Fatalf("want no event, got %s", res.Events[0].Kind)
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
			checkEvent(t, res.Events[0], *tc.want)
			if res.Events[0].Text != tc.line || res.Events[0].Zone != forensics.ZoneUTC {
				t.Errorf("text %q zone %v", res.Events[0].Text, res.Events[0].Zone)
			}
		})
	}
}

func TestJSONLogErrors(t *testing.T) {
	for _, line := range []string{
		`{"c":0,"s":1,"message":"no time"}`,
		`{"c":0,"t":"yesterday","message":"bad time"}`,
		`{"c":0,"t":"1625804709.833547000","message":"trying next peer (n2,s2):3", "cut`,
	} {
		res := parsertest.Parse(JSONLogFormat, forensics.Origin{}, []byte(line))
		if len(res.Errors) != 1 || len(res.Events) > 0 {
			t.Errorf("%s: errors %v events %d; want one error", line, res.Errors, len(res.Events))
		}
	}
}

func TestDetectJSONLog(t *testing.T) {
	for _, head := range []string{
		`{"channel_numeric":1,"channel":"OPS","timestamp":"1136214245.654321000","severity_numeric":2,"severity":"WARNING","goroutine":11,"file":"util/log/format_json_test.go","line":123,"entry_counter":0,"redactable":0,"message":"hello world"}`,
		`{"tag":"log_test.ops","c":1,"t":"1136214245.654321000","s":2,"sev":"W","g":11,"f":"util/log/format_json_test.go","l":123,"n":0,"r":0,"message":"hello world"}`,
	} {
		if s := detectJSONLog("cockroach.json", []byte(head+"\n")); s < 80 {
			t.Errorf("scored %d: %s", s, head)
		}
	}
	for _, head := range []string{
		`{"data":[{"traceID":"1","spans":[]}]}`,
		`{"timestamp":"2022-07-22T00:47:33Z","event_id":19,"component":"ns_server"}`,
		`I210709 02:36:56.322726 1 util/log/flags.go:180  [-] 1  stderr capture started`,
	} {
		if s := detectJSONLog("x.json", []byte(head+"\n")); s != 0 {
			t.Errorf("scored %d: %s", s, head)
		}
	}
}
