package cbaudit

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// Records of couchbase/couchbase-fluent-bit test/logs/audit.log (memcached's
// select bucket, ns_server's REST request, eventing's), and of the other
// shapes the descriptors give: ns_server's with "remote" as an object and an
// offset in the time.
const fluentBitAudit = `{"bucket":"default","description":"The specified bucket was selected","id":20492,"name":"select bucket","peername":"127.0.0.1:56021","real_userid":{"domain":"local","user":"@ns_server"},"sockname":"127.0.0.1:11209","timestamp":"2021-03-09T20:12:17.445039Z"}
{"description":"An HTTP request was made to the API at /admin/stats.","httpMethod":"GET","httpResultCode":200,"id":28689,"name":"/admin/stats API request","real_userid":{"domain":"builtin","user":"@"},"remote":{"ip":"127.0.0.1","port":53465},"timestamp":"2021-03-09T20:12:17.489Z"}
{"context":"<nil>","description":"Eventing function draft definitions were read","id":32772,"name":"Fetch Drafts","real_userid":{"domain":"builtin","user":"@"},"timestamp":"2021-03-09T20:12:17.713Z"}
`

func TestRecords(t *testing.T) {
	in := fluentBitAudit + `{"timestamp":"2024-11-07T03:14:09.220-08:00","id":8201,"name":"failover nodes","description":"Failover nodes were initiated","node":"ns_1@10.1.2.4","real_userid":{"domain":"builtin","user":"Administrator"},"remote":{"ip":"10.1.2.200","port":51544}}` + "\n" +
		`{"timestamp":"2024-11-07T03:14:10.000Z","id":8201` + "\n" + // cut
		"\n"
	res := parsertest.Parse(Format, forensics.Origin{Name: "audit.log", Node: "ns_1@10.1.2.3"}, []byte(in))
	if len(res.Events) != 4 {
		t.Fatalf("%d events, want 4", len(res.Events))
	}
	want := []struct {
		id, name, user, remote, bucket, time string
	}{
		{"20492", "select bucket", "local:@ns_server", "127.0.0.1:56021", "default", "2021-03-09T20:12:17.445039Z"},
		{"28689", "/admin/stats API request", "builtin:@", "127.0.0.1:53465", "", "2021-03-09T20:12:17.489Z"},
		{"32772", "Fetch Drafts", "builtin:@", "", "", "2021-03-09T20:12:17.713Z"},
		{"8201", "failover nodes", "builtin:Administrator", "10.1.2.200:51544", "", "2024-11-07T11:14:09.22Z"},
	}
	for i, w := range want {
		e := res.Events[i]
		if e.Kind != Record || e.Attr(AttrID) != w.id || e.Attr(AttrName) != w.name || e.Attr(AttrUser) != w.user ||
			e.Attr(AttrRemote) != w.remote || e.Bucket != w.bucket || e.Time.UTC().Format("2006-01-02T15:04:05.999999Z07:00") != w.time {
			t.Errorf("record %d: %+v %v", i+1, e, e.Attrs)
		}
		if e.Attr(AttrDescription) == "" {
			t.Errorf("record %d: no description", i+1)
		}
	}
	if len(res.Errors) != 1 || res.Errors[0].Line != 5 {
		t.Errorf("errors %v, want the cut record on line 5", res.Errors)
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"audit.log", fluentBitAudit, true},
		{"cb1.dc1.example.com-2024-11-07T03-14-09-audit.log", fluentBitAudit, true},
		{"records.json", fluentBitAudit, true},
		{"audit.log", `{"timestamp":"2024-11-07T03:14:09.220Z","event_id":0,"component":"ns_server","description":"Service started","severity":"info"}` + "\n", false},
		{"audit.log", "[]\n", false},
		{"audit.log", "some text\n", false},
	} {
		if got := Format.Detect(tc.name, []byte(tc.head)) > 0; got != tc.want {
			t.Errorf("Detect(%s, %.30q) = %v, want %v", tc.name, tc.head, got, tc.want)
		}
	}
	if by, content := Format.Detect("audit.log", []byte(fluentBitAudit)), Format.Detect("x.json", []byte(fluentBitAudit)); by <= content {
		t.Errorf("the name adds nothing: %d, %d", by, content)
	}
}

func FuzzParse(f *testing.F) {
	for _, l := range strings.SplitAfter(fluentBitAudit, "\n") {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		parsertest.Check(t, Format, forensics.Origin{Name: "audit.log"}, input)
	})
}
