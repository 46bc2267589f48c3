package extract

import "testing"

func TestRedactorText(t *testing.T) {
	r := &Redactor{names: map[string]string{"test3": "bucket1", "payment": "keyspace1", "cb.local": "host1.example", "default": "bucket2"}, ips: map[string]string{}}
	for n := range r.names {
		r.order = append(r.order, n)
	}
	for _, c := range []struct{ in, want string }{
		// The same IP, the same pseudonym; a version is not an address.
		{"ns_1@172.23.100.15 talks to 172.23.100.16, then 172.23.100.15 again; version 7.1.1.3175.2", "ns_1@192.0.2.1 talks to 192.0.2.2, then 192.0.2.1 again; version 7.1.1.3175.2"},
		// Names as tokens, inside the grammars that embed them.
		{"(test3) DCP (Producer) eq_dcpq:secidx:proj-test3-MAINT_STREAM", "(bucket1) DCP (Producer) eq_dcpq:secidx:proj-bucket1-MAINT_STREAM"},
		{"vt_payment payment_reverse mypayment payment2", "vt_keyspace1 keyspace1_reverse mypayment payment2"},
		{"babysitter_of_ns_1@cb.local", "babysitter_of_ns_1@host1.example"},
		// Couchbase's own scope keeps its name; the bucket "default" does not.
		{"bucket [default] scope _default", "bucket [bucket2] scope _default"},
		// Marked user data.
		{"key <ud>user::1234</ud> on ‹secret.example.com›", "key <ud>redacted</ud> on ‹redacted›"},
	} {
		r.sortOrder()
		if got := r.Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
