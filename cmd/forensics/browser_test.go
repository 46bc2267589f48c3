package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"forensics"
	"forensics/parsers"
	"forensics/report"
)

// The HTML report is opened in a real browser, Debian's chromium, which
// runs the page's script: every finding's swimlanes must be drawn (one SVG
// group per lane, every evidence line as a marker), the script must report
// no error, and the page must make no network request. A screenshot of each
// page is kept: in $FORENSICS_ARTIFACTS when set, else in a temporary
// folder; the test logs where.
//
// Without chromium, or with -short, the test is skipped, unless
// FORENSICS_REQUIRE_CHROMIUM is set (CI sets it), when it runs or fails.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() && os.Getenv("FORENSICS_REQUIRE_CHROMIUM") == "" {
		t.Skip("-short: the browser test takes a few seconds")
	}
	bin := chromium(t)
	artifacts := os.Getenv("FORENSICS_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	} else if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()

	// The bundled incidents of each system, and one page with far more
	// events than are drawn one by one.
	pages := map[string]string{}
	for _, c := range []string{"couchbase/seed", "crdb/v2-node-log", "vitess/seed-reverse-failed"} {
		name := strings.ReplaceAll(c, "/", "-")
		pages[name] = caseReport(t, filepath.Join("../../testdata", c), work)
		// The same page with every folded part open (the sources read, the
		// evidence after the first lines), as a reader opens them: it too
		// must fit, with no time or name broken.
		pages[name+"-open"] = openDetails(t, pages[name])
	}
	pages["dense"] = denseReport(t, work)

	// A control page that makes a request (the image its policy allows) and
	// has a load blocked (its inline script): the checks must see both.
	control := filepath.Join(work, "control.html")
	err := os.WriteFile(control, []byte(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src http://127.0.0.1:9">`+
		`</head><body><img src="http://127.0.0.1:9/forensics-control.png"><script>document.title = "ran"</script></body></html>`), 0o644)
	if err != nil {
		t.Fatal(err)
	}

	// Chromium spends most of its few seconds waiting: run them all at once.
	runs := map[string]*browserRun{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := func(name, page, screenshot string, width int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := runChromium(bin, page, screenshot, work, name, width)
			mu.Lock()
			runs[name] = r
			mu.Unlock()
		}()
	}
	// Every page at a wide and a narrow window: the swimlanes and the
	// tables must fit both, and no two labels may overlap at either.
	for name, page := range pages {
		for _, width := range browserWidths {
			start(fmt.Sprintf("%s@%d", name, width), page, filepath.Join(artifacts, fmt.Sprintf("%s-%d.png", name, width)), width)
		}
	}
	start("control", control, "", 1400)
	wg.Wait()

	t.Run("control", func(t *testing.T) {
		r := runs["control"]
		if r.err != nil {
			t.Fatalf("chromium: %v\n%s", r.err, r.stderrTail())
		}
		if len(r.requests) != 1 || r.requests[0] != "http://127.0.0.1:9/forensics-control.png" {
			t.Errorf("the control page's request was not seen: %q", r.requests)
		}
		if !strings.Contains(strings.Join(r.console, "\n"), "Content Security Policy") {
			t.Errorf("the control page's blocked script left no console message: %q", r.console)
		}
	})
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, page := range names {
		for _, width := range browserWidths {
			name := fmt.Sprintf("%s@%d", page, width)
			t.Run(name, func(t *testing.T) {
				r := runs[name]
				if r.err != nil {
					t.Fatalf("chromium: %v\n%s", r.err, r.stderrTail())
				}
				checkRendered(t, pages[page], r.dom)
				checkLayout(t, page, r.dom)
				if len(r.requests) > 0 {
					t.Errorf("the page made network requests: %q", r.requests)
				}
				if len(r.console) > 0 {
					t.Errorf("the page wrote to the console (errors, blocked loads): %q", r.console)
				}
				png, err := os.ReadFile(r.screenshot)
				if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
					t.Errorf("no screenshot at %s: %v", r.screenshot, err)
				} else {
					t.Logf("screenshot: %s", r.screenshot)
				}
			})
		}
	}
}

// browserWidths are the window widths every page is checked at.
var browserWidths = []int{1400, 800}

// checkLayout checks what the page measured after drawing (with getBBox, in
// the browser's own text layout): labels shown, none overlapping another,
// the page no wider than the window, no time, rule name or id broken
// inside a word; and the story's moments drawn.
func checkLayout(t *testing.T, page, dom string) {
	t.Helper()
	if m := regexp.MustCompile(`<body[^>]*data-overflow="(\d+)"`).FindStringSubmatch(dom); m == nil || m[1] != "0" {
		t.Errorf("the page is wider than the window by %v px (tables must fit)", m)
	}
	body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	if n := attrOf(body, "data-broken"); n != "0" {
		t.Errorf("%s times, rule names or ids break inside a word: %s", n, attrOf(body, "data-broken-text"))
	}
	for _, loc := range svgOpen.FindAllString(dom, -1) {
		f := attrOf(loc, "data-finding")
		if n, _ := strconv.Atoi(attrOf(loc, "data-labels")); n == 0 {
			t.Errorf("finding %s: no labels measured", f)
		}
		if o := attrOf(loc, "data-label-overlaps"); o != "0" {
			t.Errorf("finding %s: %s pairs of labels overlap", f, o)
		}
	}
	if page == "couchbase-seed" {
		// restart, failover, and traffic never enabled.
		svg := svgOpen.FindString(dom)
		if n, _ := strconv.Atoi(attrOf(svg, "data-moments")); n < 3 {
			t.Errorf("the seed's swimlane draws %d moments, want restart, failover and traffic never enabled", n)
		}
		for _, label := range []string{">restart<", ">failover<", ">traffic never enabled →<"} {
			if !strings.Contains(dom, label) {
				t.Errorf("the seed's swimlane lacks the moment label %s", label)
			}
		}
		if !strings.Contains(dom, `class="salient-marks"`) {
			t.Errorf("no layer of rollback and failover markers on top")
		}
	}
	if page == "crdb-v2-node-log" && regexp.MustCompile(`<g class="lane[^"]*" data-lane="\d+" data-node="" `).MatchString(dom) {
		t.Errorf("a crdb lane without a node")
	}
}

// chromium returns the browser to run, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("FORENSICS_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("chromium is required (FORENSICS_REQUIRE_CHROMIUM is set) but %s is missing: apt-get install chromium", bin)
		}
		t.Skipf("%s not found: install Debian's chromium (apt-get install chromium) or set CHROMIUM to run the browser test of the HTML report", bin)
	}
	return bin
}

// caseReport analyzes a bundled case and writes its HTML report.
func caseReport(t *testing.T, dir, work string) string {
	t.Helper()
	abs, inputs := caseInputs(t, dir)
	name := filepath.Base(filepath.Dir(abs)) + "-" + filepath.Base(abs)
	args := []string{"analyze", "-q", "--db", filepath.Join(work, name+".db"), "--format", "html"}
	for _, in := range inputs {
		args = append(args, filepath.Join(abs, in))
	}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("forensics %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	page := filepath.Join(work, name+".html")
	if err := os.WriteFile(page, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

// openDetails writes a copy of a page whose <details> are open.
func openDetails(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	open := regexp.MustCompile(`<details( [^>]*)?>`).ReplaceAll(b, []byte("<details$1 open>"))
	if bytes.Equal(open, b) {
		t.Fatalf("%s has nothing folded", page)
	}
	out := strings.TrimSuffix(page, ".html") + "-open.html"
	if err := os.WriteFile(out, open, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// denseReport writes a report whose finding has 20,000 events in its
// window on three nodes: far more than are drawn one by one.
func denseReport(t *testing.T, work string) string {
	t.Helper()
	start := time.Date(2018, 2, 20, 8, 10, 24, 419545000, time.UTC)
	src := "cockroach-debug.zip!debug/nodes/1/logs/cockroach.log"
	f := forensics.Finding{
		ID: "d0d0d0d0d0d0", Rule: "crdb-nlhe-pingpong", Severity: forensics.Critical,
		Title: "r52: requests bounce between (n1,s1):1 and (n2,s2):3", Subject: forensics.FindingSubject{Range: 52, Details: forensics.Details{{Key: "redirects", Value: int64(20000)}}},
		Start: start, End: start.Add(2 * time.Second), Explanation: "Synthetic: 20,000 redirects in 2 s.",
		Evidence: []forensics.Evidence{{Path: src, Line: 1, Time: start, Node: "n1", Note: "first", Text: "first redirect"}},
	}
	var evs []forensics.Event
	for i := 0; i < 20000; i++ {
		evs = append(evs, forensics.Event{
			Stamp: forensics.Stamp{Time: start.Add(time.Duration(i) * 100 * time.Microsecond)}, Node: fmt.Sprintf("n%d", 1+i%3),
			Path: src, Line: int64(1 + i), Kind: []forensics.Kind{"distsender.nlhe", "distsender.rpc"}[i%2],
			Text: fmt.Sprintf("r52: application error: [NotLeaseHolderError] redirect %d", i),
		})
	}
	rep := &report.Report{Findings: []forensics.Finding{f}, Sources: []report.Source{{Path: src, Node: "n1", Format: "crdb-v1", Component: "cockroach", Lines: 20000, Events: 20000}}}
	var b bytes.Buffer
	if err := report.WriteHTML(context.Background(), &b, rep, report.HTMLOptions{Timeline: windowTimeline(evs), Kinds: parsers.Kinds()}); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(work, "dense.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

type browserRun struct {
	dom        string
	stderr     string
	requests   []string // URLs the page asked for
	console    []string // console messages
	screenshot string
	err        error
}

func (r *browserRun) stderrTail() string {
	if len(r.stderr) > 4000 {
		return "…" + r.stderr[len(r.stderr)-4000:]
	}
	return r.stderr
}

// runChromium loads a page in a fresh headless chromium, with the flags
// that keep it from any network access of its own, and returns the DOM
// after the page's script ran, the requests the page made (from the
// browser's net log) and what it wrote to the console.
func runChromium(bin, page, screenshot, work, name string, width int) *browserRun {
	r := &browserRun{screenshot: screenshot}
	profile, err := os.MkdirTemp(work, "profile-"+strings.ReplaceAll(name, "@", "-")+"-")
	if err != nil {
		r.err = err
		return r
	}
	netlog := filepath.Join(work, strings.ReplaceAll(name, "@", "-")+".netlog.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+profile,
		"--log-net-log="+netlog, "--enable-logging=stderr", "--v=0",
		"--hide-scrollbars", fmt.Sprintf("--window-size=%d,1400", width), "--dump-dom")
	if screenshot != "" {
		cmd.Args = append(cmd.Args, "--screenshot="+screenshot)
	}
	cmd.Args = append(cmd.Args, (&url.URL{Scheme: "file", Path: page}).String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r.err = cmd.Run()
	r.dom, r.stderr = stdout.String(), stderr.String()
	if r.err != nil {
		return r
	}
	r.console = consoleMessages(r.stderr)
	r.requests, r.err = pageRequests(netlog)
	return r
}

var consoleLine = regexp.MustCompile(`:CONSOLE[:(][^\]]*\] (.*)`)

func consoleMessages(stderr string) []string {
	var out []string
	for _, m := range consoleLine.FindAllStringSubmatch(stderr, -1) {
		out = append(out, m[1])
	}
	return out
}

// pageRequests reads a chromium net log and returns the URLs of the
// requests a page started. The browser's own requests (update checks and
// the like, which the flags reduce but do not stop) have no initiator; a
// page's requests have its origin as initiator ("null" for a file: page).
func pageRequests(netlog string) ([]string, error) {
	data, err := os.ReadFile(netlog)
	if err != nil {
		return nil, err
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return nil, fmt.Errorf("net log %s: %w", netlog, err)
	}
	startJob, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		return nil, fmt.Errorf("net log %s has no URL_REQUEST_START_JOB event type", netlog)
	}
	var out []string
	for _, e := range log.Events {
		if e.Type == startJob && e.Params.URL != "" && e.Params.Initiator != "not an origin" {
			out = append(out, e.Params.URL)
		}
	}
	return out, nil
}

var (
	svgOpen  = regexp.MustCompile(`<svg [^>]*class="lanes"[^>]*>`)
	attr     = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	laneTag  = regexp.MustCompile(`<g class="lane[ "]`)
	evidence = regexp.MustCompile(`data-evidence="(\d+)"`)
)

// checkRendered compares the DOM after the script ran with the data the
// page was written with: every finding has its SVG, with one group per
// lane, markers, and every evidence line drawn.
func checkRendered(t *testing.T, page, dom string) {
	t.Helper()
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dom, `data-rendered="ok"`) {
		t.Errorf("the page's script did not finish: %s", grab(dom, `<pre id="errors"`, 2000))
	}
	if !regexp.MustCompile(`<pre id="errors" hidden="">\s*</pre>`).MatchString(dom) {
		t.Errorf("the page reported errors: %s", grab(dom, `<pre id="errors"`, 2000))
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="forensics-data">(.*?)</script>`).FindSubmatch(html)
	if m == nil {
		t.Fatal("no data in the page")
	}
	var charts []struct {
		Finding string
		Lanes   []struct{ Node, Component string }
		Events  [][7]any
		Moments []struct{ Label string }
	}
	if err := json.Unmarshal(m[1], &charts); err != nil {
		t.Fatal(err)
	}
	if len(charts) == 0 {
		t.Fatal("the page has no findings to draw")
	}
	svgs := map[string]string{}
	for _, loc := range svgOpen.FindAllStringIndex(dom, -1) {
		attrs := map[string]string{}
		for _, a := range attr.FindAllStringSubmatch(dom[loc[0]:loc[1]], -1) {
			attrs[a[1]] = a[2]
		}
		end := strings.Index(dom[loc[1]:], "</svg>")
		if end < 0 {
			t.Fatal("an SVG is not closed")
		}
		svgs[attrs["data-finding"]] = dom[loc[0] : loc[1]+end]
	}
	for _, c := range charts {
		svg, ok := svgs[c.Finding]
		if !ok {
			t.Errorf("finding %s: no timeline drawn", c.Finding)
			continue
		}
		if !strings.Contains(dom, `id="f-`+c.Finding+`"`) {
			t.Errorf("finding %s: no section", c.Finding)
		}
		if n := len(laneTag.FindAllString(svg, -1)); n != len(c.Lanes) || !strings.Contains(svg, `data-lanes="`+strconv.Itoa(len(c.Lanes))+`"`) {
			t.Errorf("finding %s: %d lanes drawn, want %d", c.Finding, n, len(c.Lanes))
		}
		for _, l := range c.Lanes {
			if !strings.Contains(svg, `data-node="`+l.Node+`" data-component="`+l.Component+`"`) {
				t.Errorf("finding %s: no lane for %s %s", c.Finding, l.Node, l.Component)
			}
		}
		marks, _ := strconv.Atoi(attrOf(svg, "data-marks"))
		bands, _ := strconv.Atoi(attrOf(svg, "data-bands"))
		if marks+bands == 0 {
			t.Errorf("finding %s: no markers drawn", c.Finding)
		}
		want := map[string]bool{}
		for _, e := range c.Events {
			if n, _ := e[6].(float64); n > 0 {
				want[strconv.Itoa(int(n))] = true
			}
		}
		for _, m := range evidence.FindAllStringSubmatch(svg, -1) {
			delete(want, m[1])
		}
		if len(want) > 0 {
			t.Errorf("finding %s: evidence lines not drawn: %v", c.Finding, want)
		}
		// The timeline opens on the whole story: every evidence line and
		// every moment inside the view, none pinned to an edge.
		if n := attrOf(svg, "data-pinned"); n != "0" {
			t.Errorf("finding %s: %s evidence lines lie outside the initial view", c.Finding, n)
		}
		if n, _ := strconv.Atoi(attrOf(svg, "data-moments")); n != len(c.Moments) {
			t.Errorf("finding %s: %d of its %d moments inside the initial view", c.Finding, n, len(c.Moments))
		}
	}
}

func attrOf(tag, name string) string {
	m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

func grab(s, from string, n int) string {
	i := strings.Index(s, from)
	if i < 0 {
		return "(not found)"
	}
	return s[i:min(len(s), i+n)]
}

// windowTimeline serves the events of a slice in the query's window, in
// the slice's order.
type windowTimeline []forensics.Event

func (tl windowTimeline) Events(ctx context.Context, q forensics.Query) iter.Seq2[*forensics.Event, error] {
	return func(yield func(*forensics.Event, error) bool) {
		for i := range tl {
			if !tl[i].Time.Before(q.Since) && tl[i].Time.Before(q.Until) && !yield(&tl[i], nil) {
				return
			}
		}
	}
}
