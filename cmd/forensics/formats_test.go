package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"forensics/expect"
	"forensics/report"
	"forensics/report/sarifschema"
)

// Every bundled case's findings as Markdown and SARIF equal its want.md
// and want.sarif (rewritten with -update; TestScenariosSARIFSchema validates
// them). The SARIF output validates against the schema whole; its golden
// keeps the rules its results use (sarifGolden).
func TestScenariosFormats(t *testing.T) {
	forEachCase(t, func(t *testing.T, dir string) {
		abs, inputs := caseInputs(t, dir)
		t.Chdir(abs)
		db := filepath.Join(t.TempDir(), "timeline.db")
		md := analyzeFormat(t, db, "markdown", inputs)
		golden(t, "want.md", md)
		sarif := analyzeFormat(t, db, "sarif", inputs)
		if err := sarifschema.Validate(sarif); err != nil {
			t.Errorf("SARIF output does not validate against SARIF 2.1.0: %v", err)
		}
		golden(t, "want.sarif", sarifGolden(t, sarif))
	})
}

// sarifGolden is the SARIF log a case's want.sarif holds: the driver's
// rules cut down to those the results use, renumbered, so that a new rule
// changes the goldens of the cases it finds something in and no others.
// The log stays valid SARIF, its keys in the order forensics writes them.
func sarifGolden(t *testing.T, out []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		t.Fatalf("SARIF output: %v", err)
	}
	log, _ := v.(jsonObject)
	runs, _ := log.get("runs").([]any)
	for _, r := range runs {
		run, _ := r.(jsonObject)
		driver, _ := run.get("tool").(jsonObject).get("driver").(jsonObject)
		rules, _ := driver.get("rules").([]any)
		kept := []any{}
		index := map[any]int{}
		results, _ := run.get("results").([]any)
		for _, res := range results {
			res, _ := res.(jsonObject)
			id := res.get("ruleId")
			if _, ok := index[id]; !ok {
				for _, rule := range rules {
					if rule.(jsonObject).get("id") == id {
						index[id] = len(kept)
						kept = append(kept, rule)
					}
				}
			}
			i, ok := index[id]
			if !ok {
				t.Fatalf("SARIF result of rule %v: the driver has no such rule", id)
			}
			res.set("ruleIndex", json.Number(strconv.Itoa(i)))
		}
		driver.set("rules", kept)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jsonObject is a JSON object that keeps its keys' order.
type jsonObject []jsonMember

type jsonMember struct {
	key   string
	value any
}

func (o jsonObject) get(key string) any {
	for _, m := range o {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

func (o jsonObject) set(key string, v any) {
	for i := range o {
		if o[i].key == key {
			o[i].value = v
		}
	}
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(m.key); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := enc.Encode(m.value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeOrdered decodes the next JSON value, its objects as jsonObject.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := jsonObject{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, jsonMember{k.(string), v})
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// caseInputs returns a case folder's absolute path and its inputs relative
// to it, as the scenario test passes them.
func caseInputs(t *testing.T, dir string) (string, []string) {
	t.Helper()
	abs, _ := filepath.Abs(dir)
	c, err := expect.Load(abs)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := c.InputPaths()
	if err != nil {
		t.Fatal(err)
	}
	for i := range inputs {
		inputs[i], _ = filepath.Rel(abs, inputs[i])
	}
	return abs, inputs
}

func analyzeFormat(t *testing.T, db, format string, inputs []string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"analyze", "-q", "--db", db, "--format", format}, inputs...)
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("forensics %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes()
}

func TestFailOn(t *testing.T) {
	// The seed has one critical finding (and a high one, the rollback to
	// zero); hostnames-no-failover's one finding is high; traffic-before-stream
	// has none.
	cases := []struct {
		dir, failOn string
		code        int
	}{
		{"couchbase/seed", "critical", exitFindings},
		{"couchbase/hostnames-no-failover", "low", exitFindings},
		{"couchbase/seed", "", exitOK},
		{"couchbase/hostnames-no-failover", "critical", exitOK},
		{"couchbase/hostnames-no-failover", "high", exitFindings},
		{"couchbase/hostnames-no-failover", "warning", exitFindings}, // warning ranks with medium, below high
		{"couchbase/hostnames-no-failover", "MEDIUM", exitFindings},
		{"couchbase/traffic-before-stream", "low", exitOK},
	}
	tmp := t.TempDir()
	for _, c := range cases {
		t.Run(c.dir+"/"+c.failOn, func(t *testing.T) {
			abs, inputs := caseInputs(t, filepath.Join("../../testdata", c.dir))
			// One timeline per case: the later runs reuse what the first read.
			db := filepath.Join(tmp, strings.ReplaceAll(c.dir, "/", "-")+".db")
			var stdout, stderr bytes.Buffer
			args := []string{"analyze", "-q", "--db", db, "--format", "json"}
			if c.failOn != "" {
				args = append(args, "--fail-on", c.failOn)
			}
			for _, in := range inputs {
				args = append(args, filepath.Join(abs, in))
			}
			code := run(args, &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, stderr.String())
			}
			// The findings are written whatever the exit code.
			if !bytes.Contains(stdout.Bytes(), []byte(`"findings"`)) {
				t.Error("no output")
			}
			if code == exitFindings && !strings.Contains(stderr.String(), "--fail-on "+c.failOn+": 1 finding is at or above") {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"analyze", "--fail-on", "severe", "x.log"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("--fail-on severe: exit %d, want %d", code, exitUsage)
	}
	if code := run([]string{"analyze", "--format", "pdf", "x.log"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("--format pdf: exit %d, want %d", code, exitUsage)
	}
	stdout.Reset()
	run([]string{"analyze", "--help"}, &stdout, &stderr)
	if !strings.Contains(stdout.String(), "3 when --fail-on is given and a finding is at or above that") {
		t.Errorf("exit 3 is not documented in the help:\n%s", stdout.String())
	}
}

// forensics report writes the stored run's findings; analyze --format html
// writes the same page.
func TestReportCommand(t *testing.T) {
	abs, inputs := caseInputs(t, "../../testdata/couchbase/seed")
	t.Chdir(abs)
	tmp := t.TempDir()
	db := filepath.Join(tmp, "timeline.db")
	fromAnalyze := analyzeFormat(t, db, "html", inputs)

	out := filepath.Join(tmp, "incident.html")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "--db", db, "--html", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr.String())
	}
	if want := "Wrote the report of 2 findings to " + out + "\n"; stderr.String() != want {
		t.Errorf("report said %q, want %q", stderr.String(), want)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page, fromAnalyze) {
		t.Error("forensics report and analyze --format html wrote different pages for the same run")
	}
	for _, want := range []string{`id="f-849cb65fdd33"`, `<div class="chart" data-chart="0">`, "cbcollect_info_ns_1@172.23.100.15_20220722-004733/memcached.log:177"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	// --run names a run; the first one here is the analyze above.
	stdout.Reset()
	if code := run([]string{"report", "--db", db, "--run", "1", "--html", "-"}, &stdout, &stderr); code != exitOK || !bytes.Equal(stdout.Bytes(), page) {
		t.Errorf("report --run 1 --html -: exit %d, same page %v", code, bytes.Equal(stdout.Bytes(), page))
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"report", "--db", db}, exitUsage},
		{[]string{"report", "--db", db, "--run", "99", "--html", filepath.Join(tmp, "x.html")}, exitFailed},
		{[]string{"report", "--db", filepath.Join(tmp, "missing.db"), "--html", filepath.Join(tmp, "y.html")}, exitFailed},
	} {
		stderr.Reset()
		if code := run(c.args, &stdout, &stderr); code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, c.code, stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "x.html")); !os.IsNotExist(err) {
		t.Error("a failed report left a file behind")
	}
}

// Markdown, SARIF and HTML name the evidence relative to the folder the
// inputs were given in, however they were given (here by absolute paths,
// from elsewhere): a ticket does not carry the analyst's paths, and SARIF's
// uriBaseId INPUTS is that folder.
func TestReportsNameFilesRelativeToTheInputs(t *testing.T) {
	for _, c := range []string{"couchbase/seed", "crdb/debug-zip", "vitess/both-deny"} {
		t.Run(c, func(t *testing.T) {
			abs, inputs := caseInputs(t, filepath.Join("../../testdata", c))
			for i := range inputs {
				inputs[i] = filepath.Join(abs, inputs[i])
			}
			// The folder that holds every input.
			root := report.InputRoot(inputs)
			if root != abs && !strings.HasPrefix(root, abs+string(filepath.Separator)) {
				t.Fatalf("the inputs' folder is %s, not the case's %s", root, abs)
			}
			t.Chdir(t.TempDir())
			db := filepath.Join(t.TempDir(), "t.db")
			for _, format := range []string{"markdown", "sarif", "html"} {
				out := analyzeFormat(t, db, format, inputs)
				if bytes.Contains(out, []byte(abs)) {
					i := bytes.Index(out, []byte(abs))
					t.Errorf("%s names the absolute path of the inputs: …%s…", format, out[max(0, i-80):min(len(out), i+len(abs)+80)])
				}
				if format != "sarif" {
					continue
				}
				var log struct {
					Runs []struct {
						Artifacts []struct {
							Location struct{ URI, URIBaseID string } `json:"location"`
						} `json:"artifacts"`
					} `json:"runs"`
				}
				if err := json.Unmarshal(out, &log); err != nil {
					t.Fatal(err)
				}
				for _, a := range log.Runs[0].Artifacts {
					uri, err := url.PathUnescape(a.Location.URI)
					if err != nil || a.Location.URIBaseID != report.InputsBase {
						t.Errorf("artifact %+v: not relative to %s", a.Location, report.InputsBase)
						continue
					}
					file, _, _ := strings.Cut(uri, "!")
					if _, err := os.Stat(filepath.Join(root, file)); err != nil {
						t.Errorf("artifact %s is not a file under the inputs' folder %s: %v", uri, root, err)
					}
				}
			}
		})
	}
}
