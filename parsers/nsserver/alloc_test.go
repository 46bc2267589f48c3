package nsserver

import (
	"testing"

	"forensics"
)

// Lines that are not events must cost no allocation: ns_server.debug.log
// runs to hundreds of megabytes.
func TestNoAllocForPlainLines(t *testing.T) {
	tests := []struct {
		f       forensics.Format
		origin  forensics.Origin
		prelude []string // fed once, to reach a section
		lines   []string // fed again and again
	}{
		{Format, origin15, nil, []string{
			"[ns_doctor:debug,2022-07-21T17:39:12.101-07:00,ns_1@172.23.100.15:ns_doctor<0.3120.0>:ns_doctor:handle_info:184]Current node statuses:",
			"[{'ns_1@172.23.100.15',",
			"     [{last_heard,-576460748224},",
			"[user:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:ns_vbucket_mover:init:124]Bucket \"test3\" rebalance does not seem to be swap rebalance",
			"[ns_server:debug,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:ns_rebalancer:wait_for_bucket:1052]Bucket \"test3\" became ready on nodes ['ns_1@172.23.100.15']",
			"[user:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:failover:deactivate_nodes:223]Deactivating failed over nodes ['ns_1@172.23.100.15']",
			"[ns_server:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:m:f:1]Setting vbucket 7 in \"eph\" on 'ns_1@10.0.0.2' to active.",
			"[ns_server:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:m:f:1]Node ('ns_1@10.0.0.2') is down",
			"[ns_server:info,2022-07-21T17:40:00.000-07:00,ns_1@172.23.100.15:<0.1.0>:m:f:1]Changed bucket \"x\" settings",
		}},
		{DiagFormat, diagOrigin, []string{"logs:", "-------------------------------"}, []string{
			"2022-07-21T17:45:00.000-07:00, ns_vbucket_mover:0:info:message(ns_1@172.23.100.19) - Bucket \"test3\" rebalance does not seem to be swap rebalance",
			"2022-07-21T17:45:00.000-07:00, menelaus_web:102:warning:client-side error report(ns_1@172.23.100.19) - Client-side error-report for user \"Administrator\"",
			"  continued",
		}},
		{DiagFormat, diagOrigin, []string{"logs:", "-------------------------------", "-------------------------------", "Event Logs:", "-------------------------------", "-------------------------------"}, []string{
			"per_node_diag(ns_1@172.23.100.16) =",
			"     [{version,[{kernel,\"8.1.3\"},",
		}},
		{MasterEventsFormat, masterOrigin, nil, []string{
			`{"bucket":"test3","connectionName":"replication:ns_1@172.23.100.16->ns_1@172.23.100.17:test3","opaque":18,"pid":"<0.4410.0>","side":"consumer","ts":1658450360.5,"type":"dcpAddStream","vbucket":141}`,
			`{"node":"ns_1@172.23.100.15","host":"172.23.100.15:11210","ts":1658450000,"type":"becameMaster"}`,
		}},
		{EventLogFormat, diagOrigin, nil, []string{"", "-------------------------------"}},
	}
	for _, tt := range tests {
		p := tt.f.New(tt.origin)
		emit := func(*forensics.Event) { t.Errorf("%s: unexpected event", tt.f.Name) }
		ls := make([][]byte, len(tt.lines))
		for i, l := range tt.lines {
			ls[i] = []byte(l)
		}
		n := int64(0)
		for _, l := range tt.prelude {
			n++
			p.Line(n, []byte(l), emit)
		}
		run := func() {
			for _, l := range ls {
				n++
				p.Line(n, l, emit)
			}
		}
		run() // buffers grow once
		if allocs := testing.AllocsPerRun(50, run); allocs != 0 {
			t.Errorf("%s: %.1f allocations per run of %d plain lines", tt.f.Name, allocs, len(ls))
		}
	}
}
