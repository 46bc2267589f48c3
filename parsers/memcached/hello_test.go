package memcached

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// hello_packet_executor.cc's line in the 7.x and 8.0 grammars: the SDKs'
// JSON key, a plain key, no key at all, and a service's connection.
func TestHello(t *testing.T) {
	o := forensics.Origin{Name: "memcached.log", Node: "ns_1@10.40.1.21"}
	tests := []struct {
		name  string
		line  string
		attrs map[string]string // nil: no event
	}{
		{"7.6 sdk", `2025-11-03T11:04:17.221840-05:00 INFO 5210: HELO [{"a":"gocbcore/v10.3.1 gocb/v2.7.1","i":"5d1b8f2e9c0a4b7d/0b7e1f2a3c4d5e6f"}] TCPNODELAY, XATTR, XERROR, SELECT_BUCKET, Snappy, JSON, Duplex, AltRequestSupport, SyncReplication, Collections, PreserveTtl [ {"ip":"10.9.3.213","port":62485} - {"ip":"10.40.1.22","port":11210} (not authenticated) ]`,
			map[string]string{"agent": "gocbcore/v10.3.1 gocb/v2.7.1", "client_ip": "10.9.3.213", "conn_id": "5210", "peer": `{"ip":"10.9.3.213","port":62485}`, "user": "-"}},
		{"7.6 plain key", `2025-11-03T11:04:17.221840-05:00 INFO 61: HELO [regular] Collections [ {"ip":"127.0.0.1","port":52314} - {"ip":"127.0.0.1","port":11209} (System, <ud>@ns_server</ud>) ]`,
			map[string]string{"agent": "regular", "client_ip": "127.0.0.1", "user": "System, <ud>@ns_server</ud>"}},
		{"7.6 no key", `2025-11-03T11:04:17.221840-05:00 INFO 62: HELO XATTR, Snappy [ {"ip":"10.9.0.2","port":40000} - {"ip":"10.40.1.22","port":11210} (not authenticated) ]`,
			map[string]string{"agent": "-", "client_ip": "10.9.0.2"}},
		{"8.0 sdk", `2025-11-03T17:04:11.002120+00:00 INFO HELO {"conn_id":9121,"client":{"a":"couchbase-java/3.7.2 (Linux 5.15.0-1057-aws amd64; OpenJDK 64-Bit Server VM 17.0.11+9)","i":"2a1c07e9f1d34c55/00000000a1b2c3d4"},"features":["TCP nodelay","Collections","Duplex","Snappy"],"description":{"peer":{"ip":"10.9.2.135","port":55606},"socket":{"ip":"10.40.1.21","port":11210},"user":{"name":"orders-app","domain":"local"}}}`,
			map[string]string{"agent": "couchbase-java/3.7.2 (Linux 5.15.0-1057-aws amd64; OpenJDK 64-Bit Server VM 17.0.11+9)", "client_ip": "10.9.2.135", "conn_id": "9121", "user": "orders-app"}},
		{"8.0 escaped", `2025-11-03T17:04:11.002120+00:00 INFO HELO {"conn_id":9123,"client":{"a":"my \"app\" 1.0","i":"x"},"features":[],"description":{"peer":{"ip":"10.9.2.7","port":1},"socket":{"ip":"10.40.1.21","port":11210},"user":null}}`,
			map[string]string{"agent": `my "app" 1.0`, "client_ip": "10.9.2.7", "user": "-"}},
		{"8.0 no description", `2025-11-03T17:04:11.002120+00:00 INFO HELO {"conn_id":9122,"client":{"a":"x"},"features":[]}`,
			map[string]string{"agent": "x", "client_ip": "-"}},
		{"6.6", `2021-03-09T17:32:02.761301+00:00 INFO 49: HELO [regular] [ 127.0.0.1:48253 - 127.0.0.1:11209 (<ud>@ns_server</ud>) ]`,
			map[string]string{"agent": "regular", "client_ip": "127.0.0.1", "peer": "127.0.0.1:48253", "user": "<ud>@ns_server</ud>"}},
		{"6.6 ipv6", `2021-03-09T17:32:02.761301+00:00 INFO 50: HELO [regular] [ [::1]:48254 - [::1]:11209 (<ud>@ns_server</ud>) ]`,
			map[string]string{"client_ip": "::1"}},
		// Not a HELO: refused, cut, or the words elsewhere.
		{"7.6 cut", `2025-11-03T11:04:17.221840-05:00 INFO 5210: HELO [{"a":"gocbcore/v10.3.1"}] TCPNODELAY [ {"ip":"10.9.3.2`, nil},
		{"7.6 changing", `2025-11-03T11:04:17.221840-05:00 INFO 5210: [ {"ip":"10.9.3.213","port":62485} - {"ip":"10.40.1.22","port":11210} (not authenticated) ] Changing options via HELO is not possible with multiple commands in flight`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := parsertest.Parse(Format, o, []byte(tc.line+"\n"))
			got := r.OfKind(Hello)
			if tc.attrs == nil {
				if len(got) != 0 {
					t.Fatalf("got %v, want no HELO", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d HELOs, want 1: %v (errors %v)", len(got), r.Events, r.Errors)
			}
			checkAttrs(t, got[0], tc.attrs)
			parsertest.Check(t, Format, o, []byte(tc.line+"\n"))
		})
	}
}
