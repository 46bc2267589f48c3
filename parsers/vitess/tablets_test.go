package vitess

import (
	"os"
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// What GetTablets and GetVSchema print, as published (testdata/field/vitess/
// tablets-and-vschema/SOURCE.md): text, grpcurl's JSON, and a session of the
// lookup Vindex guide; and GetTablets --format json with its enums as
// numbers and snake_case names (vtctldclient v24).
func TestTabletsAndVSchema(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../../testdata/field/vitess/tablets-and-vschema/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	v24 := `[
  {"alias": {"cell": "zone1", "uid": 100}, "hostname": "10.0.0.10", "keyspace": "commerce", "shard": "-80", "type": 2, "mysql_hostname": "10.0.0.10", "mysql_port": 3306},
  {"alias": {"cell": "zone1", "uid": 101}, "hostname": "10.0.0.11", "keyspace": "commerce", "shard": "-80", "type": 1, "mysql_hostname": "10.0.0.11", "mysql_port": 3306, "primary_term_start_time": {"seconds": "1749600000", "nanoseconds": 0}}
]
`
	for _, tc := range []struct {
		name, input string
		want        []string // alias type shard, per tablet, of each tablets event
		vschema     string   // keyspace: tables
	}{
		{"get_tablets.txt", read("get_tablets.txt"), []string{"zone1-0000000100 REPLICA 0,zone1-0000000101 PRIMARY 0,zone1-0000000102 RDONLY 0,zone1-0000000200 PRIMARY 0,zone1-0000000201 REPLICA 0,zone1-0000000202 RDONLY 0"}, ""},
		{"get_tablets_grpc.json", read("get_tablets_grpc.json"), []string{"zone1-0000000100 PRIMARY 0"}, ""},
		{"tablets.json", v24, []string{"zone1-0000000100 REPLICA -80,zone1-0000000101 PRIMARY -80"}, ""},
		{"lookup-vindex-session.txt", read("lookup-vindex-session.txt"), []string{"zone1-0000000300 PRIMARY -80,zone1-0000000301 REPLICA -80,zone1-0000000302 RDONLY -80,zone1-0000000400 PRIMARY 80-,zone1-0000000401 REPLICA 80-,zone1-0000000402 RDONLY 80-"}, "customer: corder,customer"},
		{"vschema_customer.json", read("lookup-vindex-session.txt")[len("$ vtctldclient GetVSchema customer\n"):strings.Index(read("lookup-vindex-session.txt"), "\n\n$")], nil, "customer: corder,customer"},
	} {
		if SnapshotFormat.Detect(tc.name, []byte(tc.input)) == 0 {
			t.Errorf("%s: not detected", tc.name)
			continue
		}
		res := parsertest.Parse(SnapshotFormat, forensics.Origin{Name: tc.name, Path: "case/snapshot-20250611T091500Z/" + tc.name}, []byte(tc.input))
		if len(res.Errors) > 0 || res.EndErr != nil {
			t.Errorf("%s: errors %v %v", tc.name, res.Errors, res.EndErr)
		}
		var got []string
		vschema := ""
		for i := range res.Events {
			e := &res.Events[i]
			switch e.Kind {
			case KindTablets:
				d, err := DecodeTablets(e)
				if err != nil {
					t.Fatal(err)
				}
				var ts []string
				for _, tb := range d.Tablets {
					ts = append(ts, tb.Alias+" "+tb.Type+" "+tb.Shard)
				}
				got = append(got, strings.Join(ts, ","))
			case KindVSchema:
				d, err := DecodeVSchema(e)
				if err != nil {
					t.Fatal(err)
				}
				vschema = d.Keyspace + ": " + strings.Join(d.Tables, ",")
				if !d.Sharded {
					t.Errorf("%s: vschema not sharded", tc.name)
				}
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || vschema != tc.vschema {
			t.Errorf("%s: tablets %q, vschema %q; want %q, %q", tc.name, got, vschema, tc.want, tc.vschema)
		}
	}
	// Lines that only look like a tablet list are not one.
	for _, s := range []string{
		"zone1-0000000100 commerce 0 primary\n",
		"host-1 is down, see ticket 42 [] <null>\n",
	} {
		if got := SnapshotFormat.Detect("notes.txt", []byte(s)); got != 0 {
			t.Errorf("Detect(%q) = %d", s, got)
		}
	}
}
