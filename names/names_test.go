package names

import (
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		check func(string) error
		name  string
		ok    bool
	}{
		{Bucket, "test3", true},
		{Bucket, "travel-sample", true},
		{Bucket, "a_b.c%d", true},
		{Bucket, ".hidden", false},
		{Bucket, "te`id`st3", false},
		{Bucket, "a b", false},
		{Bucket, "", false},
		{Host, "172.23.100.16", true},
		{Host, "cb-01.prod.example.net", true},
		{Host, "::1", true},
		{Host, "\x1b[2J10.9.9.5", false},
		{Host, "-bad.example", false},
		{Host, "a..b", false},
		{Host, "h;id", false},
		{Keyspace, "commerce", true},
		{Keyspace, "customer_2", true},
		{Keyspace, "a/b", false},
		{Keyspace, "ks$(id)", false},
		{Shard, "-80", true},
		{Shard, "80-", true},
		{Shard, "40-80", true},
		{Shard, "-", true},
		{Shard, "0", true},
		{Shard, "-8G", false},
		{Shard, "0;id", false},
		{Table, "corder", true},
		{Table, "user_audit$2", true},
		{Table, "commandé", true},
		{Table, "refund;id", false},
		{Table, "a`b", false},
		{DeniedTable, "/^legacy_.*$/", true},
		{DeniedTable, "/a,b/", false},
		{DeniedTable, "invoice", true},
		{Workflow, "commerce2customer", true},
		{Workflow, "legacy2payments$(touch${IFS}PWNED)", false},
	} {
		err := tc.check(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err = %v, want ok = %v", tc.name, err, tc.ok)
		}
	}
}

func TestHostPort(t *testing.T) {
	for in, want := range map[string]string{"10.1.2.3": "10.1.2.3:8091", "::1": "[::1]:8091", "[fe80::1]": "[fe80::1]:8091", "cb-01": "cb-01:8091"} {
		if got := HostPort(in, "8091"); got != want {
			t.Errorf("HostPort(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestHostBrackets(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{{"[fd00::12]", true}, {"fd00::12", true}, {"[fd00::12", false}, {"fd00::12]", false}, {"[10.0.0.1]", false}, {"[]", false}} {
		if err := Host(tc.in); (err == nil) != tc.ok {
			t.Errorf("Host(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}

// A name a check refuses becomes the placeholder the reader fills in.
func TestPlaceholders(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.1": "10.0.0.1", "cb-01.prod.example.net": "cb-01.prod.example.net", "[fd00::12]": "[fd00::12]", "a;b": "HOST", "$(x)": "HOST", "": "HOST", "cb'01": "HOST"} {
		if got := HostOr(in); got != want {
			t.Errorf("HostOr(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"travel-sample": "travel-sample", "50%": "50%", "../x": "BUCKET", ".hidden": "BUCKET", "x'y": "BUCKET", "": "BUCKET"} {
		if got := BucketOr(in); got != want {
			t.Errorf("BucketOr(%q) = %q, want %q", in, got, want)
		}
	}
	if err := Each(Shard, []string{"-80", "80-"}); err != nil {
		t.Errorf("Each(Shard, good) = %v", err)
	}
	if err := Each(Shard, []string{"-80", "x;y", "80-"}); err == nil || !strings.Contains(err.Error(), "x;y") {
		t.Errorf("Each(Shard, bad) = %v, want the bad one named", err)
	}
}
