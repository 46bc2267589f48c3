package rulefile

import (
	"fmt"
	"strings"
	"testing"

	"forensics"
)

// vocab is a small vocabulary for the tests: two kinds and their attributes.
var vocab = Vocabulary{
	"test.slow":    {"opcode", "duration", "host"},
	"test.restart": {"service", "status", "pid"},
	"test.ok":      {"service"},
}

// rule is a valid rule; the tests replace parts of it.
const rule = `rule: test-slow-storm
doc:
  title: slow operations in a burst
  detects: many slow operations in a short time on one node
select:
  slow:
    kinds: [test.slow]
    where: {duration: {gte: 1}}
group:
  by: [node]
detect:
  count: {gte: 3}
  within: 5m
values:
  worst: {max: duration}
severity: medium
title: '{count} slow operations on {node}'
explanation: 'From {start|clock} to {end|clock}: the worst took {worst}s.'
subject: {node: '{node}'}
evidence:
  - of: slow
    pick: spread
    limit: 3
    note: '{opcode} took {duration}s'
fixes:
  - title: Look at {node|host|or:HOST}
    commands:
      - run: [ssh, '{node|host|or:HOST}', {run: [uptime]}]
`

func parseRule(t *testing.T, src string) (*File, error) {
	t.Helper()
	return Parse("team/slow.yaml", []byte(src), vocab)
}

func TestValidRuleLoads(t *testing.T) {
	f, err := parseRule(t, rule)
	if err != nil {
		t.Fatal(err)
	}
	if f.Rule.Name != "test-slow-storm" || len(f.Rule.Kinds) != 1 || f.Rule.Doc.Title != "slow operations in a burst" {
		t.Errorf("got %+v", f.Rule)
	}
}

// Every problem is reported with the file, line and column, and the field.
func TestBadRuleFiles(t *testing.T) {
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"unknown top field", "severity: medium", "severity: medium\nsevrity: high", []string{"team/slow.yaml:17:1: ", `unknown field "sevrity"`}},
		{"unknown nested field", "    pick: spread", "    pick: spread\n    limits: 3", []string{"team/slow.yaml:23:5: evidence[0]: ", `unknown field "limits"`}},
		{"bad regexp", "where: {duration: {gte: 1}}", "where: {opcode: {matches: 'GET(('}}", []string{"team/slow.yaml:8:31: select.slow.where.opcode.matches: bad regexp"}},
		{"huge regexp", "where: {duration: {gte: 1}}", "where: {opcode: {matches: '((((a{100}){100}){100}){100})'}}", []string{"select.slow.where.opcode.matches: bad regexp", "repeat count"}},
		{"large program", "where: {duration: {gte: 1}}", "where: {opcode: {matches: '(?:ab|cd|ef|gh|ij|kl|mn|op|qr|st){1000}'}}", []string{"compiles to", "instructions"}},
		{"template naming a missing field", "'{count} slow operations on {node}'", "'{count} slow operations on {nodes}'", []string{"team/slow.yaml:17:8: title: ", `"nodes" names nothing`}},
		{"missing attribute of the event", "note: '{opcode} took {duration}s'", "note: '{opcode} took {latency}s'", []string{"evidence[0].note", `"latency" names nothing`}},
		{"attribute the kind does not declare", "where: {duration: {gte: 1}}", "where: {service: memcached}", []string{"select.slow.where.service", "not a field of the event nor an attribute of test.slow"}},
		{"unknown kind", "kinds: [test.slow]", "kinds: [test.slw]", []string{"team/slow.yaml:7:13: select.slow.kinds[0]: ", `no parser or format emits the kind "test.slw"`}},
		{"filter on the wrong type", "{start|clock}", "{node|clock}", []string{"team/slow.yaml:18:14: explanation: ", "the filter clock does not take text"}},
		{"unknown filter", "{start|clock}", "{start|clok}", []string{`no filter "clok"`}},
		{"program from the evidence", "run: [ssh,", "run: ['{node}',", []string{"fixes[0].commands[0].run[0]", "the program of a command is written out"}},
		{"command as a string", "- run: [ssh, '{node|host|or:HOST}', {run: [uptime]}]", "- run: 'ssh {node} uptime'", []string{"a command is a list of words"}},
		{"unknown subject field", "subject: {node: '{node}'}", "subject: {host: '{node}'}", []string{`"host" is neither a field every subject shares`}},
		{"two modes", "  count: {gte: 3}", "  sustained: 2m\n  count: {gte: 3}", []string{"give one of count, sustained, sequence and absence"}},
		{"bad duration", "within: 5m", "within: 5 min", []string{"detect.within", `"5 min" is not a duration`}},
		{"bad severity", "severity: medium", "severity: severe", []string{"severity", `unknown severity "severe"`}},
		{"bad name", "rule: test-slow-storm", "rule: Test Slow", []string{"team/slow.yaml:1:7: rule: ", "is not a rule name"}},
		{"unclosed brace", "'{count} slow operations on {node}'", "'{count slow operations on node'", []string{"team/slow.yaml:17:8: title: ", "is not closed"}},
		{"format file given as a rule", "rule: test-slow-storm", "format: goxdcr\nrule: test-slow-storm", []string{`unknown field "format"`, "--formats-dir"}},
		{"group field a selection cannot give", "by: [node]", "by: [node, service]", []string{`the selection "slow" gives no service`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(rule, c.from) {
				t.Fatalf("the base rule has no %q", c.from)
			}
			_, err := parseRule(t, strings.Replace(rule, c.from, c.to, 1))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// All the problems of a file are reported at once, each at its place.
func TestEveryProblemReported(t *testing.T) {
	src := strings.NewReplacer("severity: medium", "severity: severe", "{opcode} took", "{opcodes} took", "within: 5m", "within: 5x").Replace(rule)
	_, err := parseRule(t, src)
	var lines []string
	for _, e := range errs(err) {
		lines = append(lines, fmt.Sprint(e.Line))
	}
	if len(lines) != 3 {
		t.Errorf("want 3 problems, got %v: %v", lines, err)
	}
}

func errs(err error) []struct{ Line int } {
	var out []struct{ Line int }
	for _, l := range strings.Split(fmt.Sprint(err), "\n") {
		var line int
		fmt.Sscanf(l[strings.Index(l, ":")+1:], "%d", &line)
		out = append(out, struct{ Line int }{line})
	}
	return out
}

// A YAML bomb of aliases is refused before it expands, and so is a file
// larger than a rule can reasonably be.
func TestBombsAndSizes(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x]\n")
	for i := 'b'; i <= 'j'; i++ {
		fmt.Fprintf(&b, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("rule: bomb\n")
	_, err := Parse("bomb.yaml", []byte(b.String()), vocab)
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Errorf("billion laughs: %v", err)
	}
	big := rule + "# " + strings.Repeat("x", 10<<20) + "\n"
	_, err = Parse("big.yaml", []byte(big), vocab)
	if err == nil || !strings.Contains(err.Error(), "big.yaml: the file is larger than 1024 KiB") {
		t.Errorf("10 MB file: %v", err)
	}
	// A few aliases are fine: a rule may share its fixes' steps.
	shared := strings.Replace(rule, "    commands:", "    steps: &steps [one, two]\n    commands:", 1)
	if _, err := parseRule(t, shared); err != nil {
		t.Errorf("anchors: %v", err)
	}
}

var _ = forensics.Info
