// The rule cb-disk-full is written as data (cb-disk-full.yaml); these are
// the tests of the Go rule it replaced, run on the rule file.
package diskfull_test

import (
	"testing"
	"time"

	"forensics"
	"forensics/parsers/memcached"
	"forensics/parsers/nsserver"
	"forensics/rules"
	"forensics/rules/ruletest"
)

var Rule, _ = rules.Lookup("cb-disk-full")

const (
	nsDiskAlert   = nsserver.DiskAlert
	mcWriteFailed = memcached.WriteFailed
)

var t0 = time.Date(2024, 6, 12, 17, 52, 3, 0, time.UTC)

func at(s float64) forensics.Stamp {
	return forensics.Stamp{Time: t0.Add(time.Duration(s * float64(time.Second))), Zone: forensics.ZoneLogged}
}

const (
	orch = "ns_1@10.40.1.21"
	n22  = "ns_1@10.40.1.22"
	dp   = "/opt/couchbase/var/lib/couchbase/data"
)

func alert(s float64, pct, src string) forensics.Event {
	e := ruletest.Event(nsDiskAlert, n22, at(s), "path", dp, "alert_host", "10.40.1.22", "percent", pct)
	e.Path = src
	return e
}

func failed(s float64, bucket string) forensics.Event {
	e := ruletest.Event(mcWriteFailed, n22, at(s), "system", "No space left on device", "store", "couchstore")
	e.Bucket = bucket
	return e
}

func TestAlertAndWrites(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{
		alert(0, "92", "a/diag.log"), alert(0, "92", "b/diag.log"), alert(0, "92", "c/ns_server.info.log"),
		alert(720, "96", "a/diag.log"),
		failed(1177, "orders"), failed(1184, "orders"),
	})
	if len(fs) != 1 {
		t.Fatalf("want one finding for the node and path, got %d", len(fs))
	}
	f := fs[0]
	if f.Severity != forensics.High || f.Subject.Node != n22 || f.Subject.Details.Text("path") != dp || f.Subject.Bucket != "orders" {
		t.Errorf("got %s %+v", f.Severity, f.Subject)
	}
	if f.Title != dp+" on "+n22+" is full (96%) and writes failed" {
		t.Errorf("title %q", f.Title)
	}
	want := "On 2024-06-12 at 17:52:03.000Z (UTC) ns_server warned that disk " + dp + " on " + n22 + " was about 92% used; it raised the alert 2 time(s), up to 96%."
	if got := f.Explanation[:len(want)]; got != want {
		t.Errorf("explanation starts %q", got)
	}
}

func TestAlertAloneIsMedium(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{alert(0, "91", "a/diag.log")})
	if len(fs) != 1 || fs[0].Severity != forensics.Medium {
		t.Fatalf("got %+v", fs)
	}
}

// Write failures on a node without an alert still fire, with the path unknown.
func TestWritesWithoutAlert(t *testing.T) {
	fs := ruletest.Run(t, Rule, []forensics.Event{failed(0, "orders"), failed(1, "carts")})
	if len(fs) != 1 || fs[0].Severity != forensics.High || fs[0].Subject.Details.Text("path") != "" || fs[0].Subject.Bucket != "" {
		t.Fatalf("got %+v", fs)
	}
	if len(fs[0].Fixes[0].Commands) != 3 { // df, then cbstats for each bucket
		t.Errorf("commands %q", fs[0].Fixes[0].Commands)
	}
}
