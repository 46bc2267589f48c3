package rules_test

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules"
	"forensics/rules/ruletest"
)

// cb-connection-limit names the clients that opened the most connections
// (their HELO) before and during the refusals of user connections, and
// names none when memcached logged no HELO or only system connections are
// short.
func TestConnectionLimitNamesClients(t *testing.T) {
	r, ok := rules.Lookup("cb-connection-limit")
	if !ok {
		t.Fatal("cb-connection-limit is not a rule")
	}
	const node = "ns_1@10.40.1.22"
	base := time.Date(2025, 11, 3, 17, 4, 0, 0, time.UTC)
	at := func(d time.Duration) forensics.Stamp { return forensics.Stamp{Time: base.Add(d)} }
	refusals := func(typ string) []forensics.Event {
		var evs []forensics.Event
		for i := range 5 {
			evs = append(evs, ruletest.Event(memcached.ConnRejected, node, at(time.Duration(i)*30*time.Second),
				"conn_type", typ, "connections", "60001", "limit", "60000"))
		}
		return evs
	}
	hellos := func() []forensics.Event {
		var evs []forensics.Event
		for i := range 30 {
			ip := "10.9.7.41"
			if i%5 == 0 {
				ip = "10.9.7.42"
			}
			evs = append(evs, ruletest.Event(memcached.Hello, node, at(-8*time.Minute+time.Duration(i)*15*time.Second),
				"agent", "couchbase-java-client/3.7.4", "client_ip", ip))
		}
		return evs
	}
	alert := ruletest.Event(nsserver.ConnectionsAlert, "ns_1@10.40.1.21", at(-10*time.Minute),
		"alert_node", node, "conn_type", "system", "used", "4612", "threshold_pct", "90", "limit", "5000")
	const named = "the most came from 10.9.7.41 (24), 10.9.7.42 (6), as couchbase-java-client/3.7.4 (30)"
	tests := []struct {
		name  string
		evs   []forensics.Event
		named bool
	}{
		{"user refusals after a flood", append(refusals("user"), hellos()...), true},
		{"no HELO logged", refusals("user"), false},
		{"system connections", append([]forensics.Event{alert}, hellos()...), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := ruletest.Run(t, r, tc.evs)
			if len(fs) != 1 {
				t.Fatalf("%d findings, want 1:\n%s", len(fs), ruletest.Describe(fs))
			}
			f := fs[0]
			if got := strings.Contains(f.Explanation, named); got != tc.named {
				t.Errorf("clients named: %v, want %v:\n%s", got, tc.named, f.Explanation)
			}
			if !tc.named && strings.Contains(f.Explanation, "HELO") {
				t.Errorf("HELOs mentioned:\n%s", f.Explanation)
			}
		})
	}
}
