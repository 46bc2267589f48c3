package rulefile

import (
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/rules/ruletest"
	"forensics/shell"
)

var t0 = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

func at(s float64) forensics.Stamp {
	return forensics.Stamp{Time: t0.Add(time.Duration(s * float64(time.Second))), Zone: forensics.ZoneLogged}
}

func ev(kind forensics.Kind, node string, s float64, attrs ...string) forensics.Event {
	return ruletest.Event(kind, node, at(s), attrs...)
}

func mustRule(t *testing.T, src string) *forensics.Rule {
	t.Helper()
	f, err := Parse("test.yaml", []byte(src), vocab)
	if err != nil {
		t.Fatal(err)
	}
	return f.Rule
}

// head is the part every test rule shares.
const head = `rule: test-rule
doc: {title: a test rule, detects: what the test says}
severity: medium
title: '{count} events on {node}'
explanation: 'from {start|clock} to {end|clock}'
`

func slow(node string, s float64, op, d string) forensics.Event {
	return ev("test.slow", node, s, "opcode", op, "duration", d)
}

// A count in a sliding window: windows that overlap make one episode, a
// gap longer than the window starts another, and scattered events are a
// near-miss.
func TestCountWindow(t *testing.T) {
	r := mustRule(t, rule)
	var evs []forensics.Event
	for _, s := range []float64{0, 60, 120, 180, 240, 1000, 1060, 1120} {
		evs = append(evs, slow("n1", s, "GET", "2.5"))
	}
	// Scattered on another node: three, but never three within 5 minutes.
	for _, s := range []float64{0, 400, 800} {
		evs = append(evs, slow("n2", s, "SET", "3"))
	}
	evs = append(evs, slow("n1", 30, "GET", "0.2")) // too fast to count: where
	fs := ruletest.Run(t, r, evs)
	if len(fs) != 2 {
		t.Fatalf("want two episodes on n1, got %s", ruletest.Describe(fs))
	}
	if fs[0].Title != "5 slow operations on n1" || fs[1].Title != "3 slow operations on n1" {
		t.Errorf("titles %q, %q", fs[0].Title, fs[1].Title)
	}
	if !fs[0].Start.Equal(t0) || !fs[0].End.Equal(t0.Add(240*time.Second)) {
		t.Errorf("first episode %s – %s", fs[0].Start, fs[0].End)
	}
	if len(fs[0].Evidence) != 3 || fs[0].Evidence[0].Note != "GET took 2.5s" || !fs[0].Evidence[2].Time.Equal(t0.Add(240*time.Second)) {
		t.Errorf("evidence spread over the episode: %+v", fs[0].Evidence)
	}
	if got := ruletest.Commands(fs[0]); got != "ssh n1 uptime" {
		t.Errorf("commands %q", got)
	}
}

// A repetition: the same service restarted with three different pids in
// half an hour, grouped by an attribute; critical when it is memcached.
func TestRepetitionByAttribute(t *testing.T) {
	r := mustRule(t, strings.Replace(head, "severity: medium", `severity: high
escalate:
  - when: {service: memcached}
    severity: critical`, 1)+`
select:
  restart: {kinds: [test.restart]}
group: {by: [node, service]}
detect:
  count: {gte: 3}
  within: 30m
  distinct: pid
subject: {node: '{node}', service: '{service}'}
`)
	fs := ruletest.Run(t, r, []forensics.Event{
		ev("test.restart", "n1", 0, "service", "memcached", "pid", "10"),
		ev("test.restart", "n1", 60, "service", "memcached", "pid", "10"), // the same process logged twice
		ev("test.restart", "n1", 600, "service", "memcached", "pid", "11"),
		ev("test.restart", "n1", 900, "service", "indexer", "pid", "20"),
		ev("test.restart", "n1", 1200, "service", "memcached", "pid", "12"),
		ev("test.restart", "n2", 0, "service", "memcached", "pid", "30"),
		ev("test.restart", "n2", 600, "service", "memcached", "pid", "31"),
	})
	if len(fs) != 1 {
		t.Fatalf("want memcached on n1 only, got %s", ruletest.Describe(fs))
	}
	if f := fs[0]; f.Severity != forensics.Critical || f.Subject.Service != "memcached" || f.Subject.Node != "n1" || f.Title != "4 events on n1" {
		t.Errorf("got %s %q %+v", f.Severity, f.Title, f.Subject)
	}
}

// A sustained condition: lines no more than 30 s apart for 2 minutes or
// longer; a brief spike is a near-miss, and a clearing line ends a run.
func TestSustained(t *testing.T) {
	r := mustRule(t, head+`
select:
  slow: {kinds: [test.slow]}
  ok: {kinds: [test.ok]}
group: {by: [node]}
detect:
  sustained: 2m
  gap: 30s
  of: [slow]
  until: [ok]
`)
	var evs []forensics.Event
	for s := 0.0; s <= 180; s += 15 {
		evs = append(evs, slow("n1", s, "GET", "1"))
	}
	for s := 0.0; s <= 45; s += 15 {
		evs = append(evs, slow("n2", s, "GET", "1"))
	}
	// n3: two minutes, but cleared after one.
	for s := 0.0; s <= 120; s += 15 {
		if s == 60 {
			evs = append(evs, ev("test.ok", "n3", s, "service", "kv"))
			continue
		}
		evs = append(evs, slow("n3", s, "GET", "1"))
	}
	// n4: 45 seconds, then quiet; the all-clear ten minutes later does
	// not stretch the run it no longer belongs to.
	for s := 0.0; s <= 45; s += 15 {
		evs = append(evs, slow("n4", s, "GET", "1"))
	}
	evs = append(evs, ev("test.ok", "n4", 600, "service", "kv"))
	fs := ruletest.Run(t, r, evs)
	if len(fs) != 1 || fs[0].Title != "13 events on n1" {
		t.Fatalf("want n1 only, got %s", ruletest.Describe(fs))
	}
}

// A sequence: a restart then an ok within 10 minutes, with no slow line
// between; a slow line between is a near-miss.
func TestSequence(t *testing.T) {
	r := mustRule(t, head+`
select:
  restart: {kinds: [test.restart]}
  ok: {kinds: [test.ok]}
  slow: {kinds: [test.slow]}
group: {by: [node]}
detect:
  sequence: [restart, ok]
  within: 10m
  unless: slow
`)
	fs := ruletest.Run(t, r, []forensics.Event{
		ev("test.restart", "n1", 0, "service", "kv"),
		ev("test.ok", "n1", 120, "service", "kv"),
		ev("test.restart", "n2", 0, "service", "kv"),
		slow("n2", 60, "GET", "1"),
		ev("test.ok", "n2", 120, "service", "kv"),
		ev("test.restart", "n3", 0, "service", "kv"),
		ev("test.ok", "n3", 700, "service", "kv"), // too late
	})
	if len(fs) != 1 || fs[0].Title != "2 events on n1" {
		t.Fatalf("want n1 only, got %s", ruletest.Describe(fs))
	}
}

// An absence: a decommission started whose progress lines stop for 10
// minutes while the logs go on; one that goes on to completion, or logs
// that end before the 10 minutes, are near-misses.
func TestAbsence(t *testing.T) {
	r := mustRule(t, strings.Replace(head, "{count} events on {node}", "{node}: no progress for {duration|dur}", 1)+`
select:
  started: {kinds: [test.restart]}
  progress: {kinds: [test.slow]}
  done: {kinds: [test.ok]}
group: {by: [node]}
detect:
  absence: progress
  after: started
  for: 10m
  until: done
`)
	evs := []forensics.Event{
		ev("test.restart", "n1", 0, "service", "kv"),
		slow("n1", 60, "GET", "1"),
		ev("test.restart", "n2", 0, "service", "kv"),
		ev("test.restart", "n3", 1500, "service", "kv"), // the logs end 300 s later
		slow("n4", 1800, "GET", "1"),
	}
	for s := 120.0; s < 1800; s += 120 {
		evs = append(evs, slow("n2", s, "GET", "1"))
	}
	evs = append(evs, ev("test.ok", "n2", 1800, "service", "kv"))
	fs := ruletest.Run(t, r, evs)
	if len(fs) != 1 || fs[0].Title != "n1: no progress for 11m0s" {
		t.Fatalf("want n1 only, got %s", ruletest.Describe(fs))
	}
	if !fs[0].End.Equal(t0.Add(11 * time.Minute)) {
		t.Errorf("end %s", fs[0].End)
	}
}

// A lookup reads events of other kinds around the finding, joined on a
// group field, and can raise the severity and add evidence.
func TestNearby(t *testing.T) {
	r := mustRule(t, strings.Replace(rule, "severity: medium", `nearby:
  restarts:
    kinds: [test.restart]
    match: {node: node}
    after: 10m
severity: medium
escalate:
  - when: {restarts.count: {gt: 0}}
    severity: high`, 1)+`  - title: the restart
    steps: ['{restarts.first.service} restarted at {restarts.first.time|clock}']
`)
	var evs []forensics.Event
	for _, n := range []string{"n1", "n2"} {
		for _, s := range []float64{0, 60, 120} {
			evs = append(evs, slow(n, s, "GET", "2"))
		}
	}
	evs = append(evs, ev("test.restart", "n1", 400, "service", "memcached"), ev("test.restart", "n2", 3000, "service", "memcached"))
	fs := ruletest.Run(t, r, evs)
	if len(fs) != 2 {
		t.Fatalf("got %s", ruletest.Describe(fs))
	}
	// Both start at once: the driver orders them by id, so find each by node.
	n1, n2 := fs[0], fs[1]
	if n1.Subject.Node != "n1" {
		n1, n2 = n2, n1
	}
	if n1.Subject.Node != "n1" || n2.Subject.Node != "n2" {
		t.Fatalf("findings of %s and %s, want n1 and n2", n1.Subject.Node, n2.Subject.Node)
	}
	if n1.Severity != forensics.High || n1.Fixes[1].Steps[0] != "memcached restarted at 10:06:40.000Z" {
		t.Errorf("n1: %s %+v", n1.Severity, n1.Fixes)
	}
	if n2.Severity != forensics.Medium {
		t.Errorf("n2: the restart is too late to count: %s", n2.Severity)
	}
}

// Names from the evidence go into a command only quoted, and only after
// their check: a host that is not one becomes the placeholder, a bucket
// Couchbase would refuse leaves its command out.
func TestCommandsQuoteAndCheckNames(t *testing.T) {
	r := mustRule(t, head+`
select:
  slow: {kinds: [test.slow]}
group: {by: [node, bucket]}
fixes:
  - title: look
    commands:
      - run: [ssh, '{node|host|or:HOST}', {run: [ls, '/data/{bucket}']}]
      - run: [cbstats, '{node|host|or:HOST}:11210', -b, '{bucket|bucket}', all]
`)
	hostile := slow("ns_1@10.0.0.1;reboot", 0, "GET", "1")
	hostile.Bucket = "a'b $(id)"
	plain := slow("ns_1@10.0.0.2", 0, "GET", "1")
	plain.Bucket = "orders"
	fs := ruletest.Run(t, r, []forensics.Event{hostile, plain})
	if len(fs) != 2 {
		t.Fatalf("got %s", ruletest.Describe(fs))
	}
	got := map[string]string{}
	for _, f := range fs {
		got[f.Title] = ruletest.Commands(f)
	}
	want := map[string]string{
		"1 events on ns_1@10.0.0.1;reboot": shell.Command("ssh", "HOST", shell.Command("ls", "/data/a'b $(id)")),
		"1 events on ns_1@10.0.0.2":        "ssh 10.0.0.2 'ls /data/orders'\ncbstats 10.0.0.2:11210 -b orders all",
	}
	for title, cmds := range want {
		if got[title] != cmds {
			t.Errorf("%s:\n got %s\nwant %s", title, got[title], cmds)
		}
	}
}
