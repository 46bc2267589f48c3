package formatfile

import (
	"os"
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

// format is a valid format file for a goxdcr-like log; the tests change
// parts of it.
const format = `format: team-xdcr
component: goxdcr
files: ["goxdcr.log", "goxdcr.log.*"]
line: '^(?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[-+]\d\d:\d\d) (?P<level>[A-Z]+) (?P<logger>\S+): (?P<message>.*)$'
time: {field: time, layout: "2006-01-02T15:04:05.000-07:00", zone: logged}
message: message
kinds:
  - kind: xdcr.pipeline_restart
    category: error
    label: pipeline restarted
    doc: goxdcr restarts a replication's pipeline after errors
    attrs:
      - {key: pipeline, type: text, doc: the replication}
      - {key: errors, type: text, doc: the errors that made it restart}
messages:
  - kind: xdcr.pipeline_restart
    match: '(?s)Try to fix Pipeline (?P<pipeline>\S+)\. Current error\(s\)=(?P<errors>.*)'
    subject: {bucket: '{pipeline}'}
samples:
  - name: goxdcr.log
    line: '2024-06-12T17:52:03.123-04:00 ERRO GOXDCR.PipelineMgr: Try to fix Pipeline abc/orders/orders. Current error(s)=connection refused'
    kind: xdcr.pipeline_restart
    attrs: {pipeline: abc/orders/orders, errors: connection refused}
  - line: '2024-06-12T17:52:04.000-04:00 INFO GOXDCR.PipelineMgr: nothing to see'
`

var known = []forensics.KindDoc{{Kind: "nsserver.disk_alert", Attrs: []forensics.AttrDoc{attrDoc("path", forensics.AttrText, "")}}}

func parse(t *testing.T, src string) (*File, error) {
	t.Helper()
	return Parse("team/xdcr.yaml", []byte(src), known)
}

func TestFormatReadsLines(t *testing.T) {
	f, err := parse(t, format)
	if err != nil {
		t.Fatal(err)
	}
	text := "2024-06-12T17:52:03.123-04:00 ERRO GOXDCR.PipelineMgr: Try to fix Pipeline abc/orders/orders. Current error(s)=dial tcp 10.0.0.9:11210:\n" +
		"  connection refused\n" +
		"2024-06-12T17:52:09.001-04:00 INFO GOXDCR.PipelineMgr: a line of no kind\n" +
		"not a line of the format\n"
	res := parsertest.Parse(f.Format, forensics.Origin{Name: "goxdcr.log", Node: "ns_1@10.0.0.1"}, []byte(text))
	if len(res.Errors) > 0 || len(res.Events) != 1 {
		t.Fatalf("errors %v, events %+v", res.Errors, res.Events)
	}
	e := res.Events[0]
	if e.Kind != "xdcr.pipeline_restart" || e.Line != 1 || e.Bucket != "abc/orders/orders" || e.Offset != -4*3600 || e.Zone != forensics.ZoneLogged ||
		e.Attr("errors") != "dial tcp 10.0.0.9:11210:\n  connection refused" || !strings.HasSuffix(e.Text, "\n  connection refused") {
		t.Errorf("got %+v", e)
	}
	if got := res.Stamps[1]; !got.IsZero() {
		t.Errorf("a continuation line has no time of its own: %v", got)
	}
	// Detection: the name and the first line.
	for _, c := range []struct {
		name, head string
		want       int
	}{
		{"goxdcr.log", text, scoreNamed},
		{"goxdcr.log.3", text, scoreNamed},
		{"memcached.log", text, 0},
		{"goxdcr.log", "# forensics report\n\n    " + text, 0}, // a report quoting the lines is not the log
		{"goxdcr.log", "\n\n" + text, scoreNamed},
	} {
		if got := f.Format.Detect(c.name, []byte(c.head)); got != c.want {
			t.Errorf("Detect(%q, %.20q) = %d, want %d", c.name, c.head, got, c.want)
		}
	}
}

func TestBadFormatFiles(t *testing.T) {
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"unknown field", "message: message", "message: message\nmesage: x", []string{"team/xdcr.yaml:7:1: ", `unknown field "mesage"`}},
		{"bad regexp", `match: '(?s)Try to fix`, `match: '(?s)(Try to fix`, []string{"team/xdcr.yaml:17:12: messages[0].match: bad regexp"}},
		{"huge regexp", `match: '(?s)Try to fix`, `match: '(?s)(?:ab|cd|ef|gh|ij|kl|mn|op|qr|st){1000}Try to fix`, []string{"compiles to", "instructions"}},
		{"missing capture", "time: {field: time,", "time: {field: when,", []string{"team/xdcr.yaml:5:15: time.field: ", "the line regexp has no capture (?P<when>"}},
		{"template naming a missing capture", "subject: {bucket: '{pipeline}'}", "subject: {bucket: '{source}'}", []string{"messages[0].subject.bucket", `no capture is named "source"`}},
		{"attribute the kind does not declare", "subject: {bucket: '{pipeline}'}", "attrs: {target: '{pipeline}'}", []string{`xdcr.pipeline_restart declares no attribute "target"`}},
		{"layout without its zone", `layout: "2006-01-02T15:04:05.000-07:00"`, `layout: "2006-01-02T15:04:05.000"`, []string{"time.zone", "has no UTC offset"}},
		{"not a layout", `layout: "2006-01-02T15:04:05.000-07:00"`, `layout: "%Y-%m-%d"`, []string{"time.layout", "is not a Go time layout"}},
		{"a sample that does not parse as it says", "attrs: {pipeline: abc/orders/orders, errors: connection refused}", "attrs: {pipeline: abc}", []string{"samples[0].attrs.pipeline", `the sample's pipeline is "abc/orders/orders", not "abc"`}},
		{"a sample of the wrong kind", "  - line: '2024-06-12T17:52:04.000-04:00 INFO GOXDCR.PipelineMgr: nothing to see'", "  - line: '2024-06-12T17:52:04.000-04:00 INFO GOXDCR.PipelineMgr: nothing to see'\n    kind: xdcr.pipeline_restart", []string{"samples[1].kind", "the sample makes no event"}},
		{"a sample not detected", "  - name: goxdcr.log", "  - name: xdcr.txt", []string{"samples[0].name", "is not detected as team-xdcr"}},
		{"redeclaring a kind of the parsers", "  - kind: xdcr.pipeline_restart\n    category", "  - kind: nsserver.disk_alert\n    category", []string{"nsserver.disk_alert is a kind forensics' parsers declare"}},
		{"bad category", "category: error", "category: errors", []string{"kinds[0].category", `"errors" is not a category`}},
		{"a rule file given as a format", "format: team-xdcr", "rule: team-xdcr\nformat: team-xdcr", []string{"this is a rule file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(format, c.from) {
				t.Fatalf("the base format has no %q", c.from)
			}
			_, err := parse(t, strings.Replace(format, c.from, c.to, 1))
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

// A format may emit a kind of the program's parsers, with their attributes.
func TestFormatEmitsAKnownKind(t *testing.T) {
	src := strings.Replace(format, `  - kind: xdcr.pipeline_restart
    match:`, `  - kind: nsserver.disk_alert
    match: 'disk (?P<path>\S+) is full'
  - kind: xdcr.pipeline_restart
    match:`, 1)
	src += "  - line: '2024-06-12T17:52:05.000-04:00 WARN GOXDCR.Disk: disk /data is full'\n    kind: nsserver.disk_alert\n    attrs: {path: /data}\n"
	f, err := parse(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Format.Kinds) != 2 || f.Format.Kinds[1].Kind != "nsserver.disk_alert" {
		t.Errorf("kinds %+v", f.Format.Kinds)
	}
}

// Any file either loads or is refused with positioned errors, and a format
// that loads reads any text without failing.
func FuzzParse(f *testing.F) {
	f.Add([]byte(format), []byte("2024-06-12T17:52:03.123-04:00 ERRO GOXDCR.PipelineMgr: Try to fix Pipeline a. Current error(s)=x\n"))
	if data, err := os.ReadFile("../../testdata/datarules/ns-http-access.yaml"); err == nil {
		f.Add(data, []byte(`10.40.1.55 - - [12/Jun/2024:17:52:03 -0400] "GET /pools/default HTTP/1.1" 401 0 - "x" 2`+"\n"))
	}
	f.Fuzz(func(t *testing.T, data, text []byte) {
		file, err := Parse("fuzz.yaml", data, known)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		file.Format.Detect("x.log", text)
		parsertest.Parse(file.Format, forensics.Origin{Name: "x.log"}, text)
	})
}
