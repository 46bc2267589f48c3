package nsserver

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// FuzzParse feeds the same bytes to every format of the package: each must
// keep the parser invariants whatever it is given.
func FuzzParse(f *testing.F) {
	f.Add([]byte(diagInput))
	f.Add([]byte(masterInput))
	f.Add([]byte(failedReport))
	f.Add(debugLog(4 << 10))
	f.Add([]byte("[user:info,2022-07-21T17:39:12.120-07:00,ns_1@172.23.100.15:<0.2271.0>:ns_log:consume_log:76]Service 'memcached' exited with status 137. Restarting. Messages:\n2022-07-21T17:39:11.998812-07:00 WARNING (test3) x\n"))
	f.Add([]byte("[ns_server:info,2022-07-21T17:39:18.910-07:00,ns_1@172.23.100.16:<0.4410.0>:ns_memcached:do_handle_call:591]Changed vbucket state \n[{140,active,{[{topology,[[<<\"ns_1@172.23.100.16\">>,null]]}]}},\n {512,replica,undefined}]\n"))
	f.Add([]byte("[ns_server:info,2022-07-21T17:39:22.111-07:00,ns_1@172.23.100.16:ns_doctor<0.3120.0>:ns_doctor:update_status:309]The following buckets became ready on node 'ns_1@172.23.100.17': [\"beer-sample\",\n     \"default\"]\n"))
	f.Add([]byte("logs:\n-------------------------------\n2022-07-21T17:39:18.234-07:00, failover:0:info:message(ns_1@172.23.100.15) - Starting failing over ['ns_1@172.23.100.15']\n"))
	f.Add([]byte(`{"timestamp":"2022-07-22T00:39:21.004Z","event_id":8199,"component":"data","description":"Bucket online","severity":"info","node":"172.23.100.15","otp_node":"ns_1@172.23.100.15","uuid":"3f2d7c1b","extra_attributes":{"bucket":"test3","warmup_time":8}}` + "\n"))
	f.Add([]byte("[ns_server:info,2022-07-21T17:39:99.120-07:00,x]\n[a:info,\n\xff\xfe[user:info,2022-07-21T17:39:12.120Z,n:<0.1.0>:m:f:1]Node ('n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fm := range []forensics.Format{Format, DiagFormat, EventLogFormat, MasterEventsFormat, RebalanceReportFormat} {
			parsertest.Check(t, fm, origin15, data)
		}
	})
}
