package store

import "testing"

func TestIncidentName(t *testing.T) {
	for _, c := range []struct {
		inputs []string
		want   string
	}{
		{[]string{"testdata/couchbase/seed/cbcollect_info_a", "testdata/couchbase/seed/cbcollect_info_b"}, "seed"},
		{[]string{"collectinfo-2022-07-22T004733-ns_1@10.1.2.3.zip"}, "collectinfo-2022-07-22T004733-ns_1@10.1.2.3"},
		{[]string{"a/snapshot-1.tar.gz", "b/x.log"}, "snapshot-1 +1"},
		{[]string{"/incidents/debug.zip/"}, "debug"},
	} {
		if got := IncidentName(c.inputs); got != c.want {
			t.Errorf("IncidentName(%q) = %q, want %q", c.inputs, got, c.want)
		}
	}
}
