package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers"
)

func writeFixtureHTML(t *testing.T, opts HTMLOptions) string {
	t.Helper()
	if opts.Kinds == nil {
		opts.Kinds = parsers.Kinds()
	}
	var b bytes.Buffer
	if err := WriteHTML(context.Background(), &b, fixtureReport(), opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// pageData returns the swimlane data embedded in a page.
func pageData(t *testing.T, page string) []swimlaneJSON {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="forensics-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data element in the page")
	}
	var out []swimlaneJSON
	if err := json.Unmarshal([]byte(m[1]), &out); err != nil {
		t.Fatalf("embedded data: %v", err)
	}
	return out
}

type swimlaneJSON struct {
	Finding      string
	Since, Until int64
	Start, End   int64
	Node         string
	Lanes        []lane
	Kinds        []kindInfo
	Sources      []string
	Events       [][7]any
	Bands        [][5]float64
	Total        int
	Evidence     int
	Notes        []string
}

var (
	scriptOrStyle = regexp.MustCompile(`(?is)(<(script|style)\b[^>]*>)(.*?)(</(?:script|style)>)`)
	tag           = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	// externalAttr is an attribute that makes a browser fetch, unless its
	// value is a fragment.
	externalAttr = regexp.MustCompile(`(?i)\s(?:src|href|action|srcset|poster|data|formaction|background)\s*=\s*["']?\s*[^"'#\s>]`)
	// externalCode is a way for a script or style to fetch.
	externalCode = regexp.MustCompile(`url\(\s*["']?\s*[^"'#\s)]|@import|\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|new Image|\bimport\(|\.src\s*=`)
)

// externalRefs lists what in a page would make a browser fetch: attributes
// of its tags (log text is escaped, so every "<" outside the script and
// style elements opens a real tag), and fetching code in its script and style.
func externalRefs(page string) []string {
	var out []string
	markup := scriptOrStyle.ReplaceAllStringFunc(page, func(m string) string {
		parts := scriptOrStyle.FindStringSubmatch(m)
		out = append(out, externalCode.FindAllString(parts[3], -1)...)
		return parts[1] + parts[4]
	})
	for _, t := range tag.FindAllString(markup, -1) {
		out = append(out, externalAttr.FindAllString(t, -1)...)
	}
	return out
}

func TestHTMLSelfContained(t *testing.T) {
	page := writeFixtureHTML(t, HTMLOptions{Timeline: sliceTimeline(fixtureEvents())})
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`) {
		t.Error("no content security policy that forbids loading anything")
	}
	if refs := externalRefs(page); len(refs) > 0 {
		t.Errorf("the page refers to outside resources: %q", refs)
	}
	for _, el := range []string{"<link", "<iframe", "<object", "<embed", "<img", "<base", "<frame", "<audio", "<video"} {
		if strings.Contains(page, el) {
			t.Errorf("the page holds a %s element", el)
		}
	}
	// The check catches what it must.
	for _, bad := range []string{
		`<p><img src="http://x/a.png"></p>`, `<script src=//cdn.example/x.js></script>`, `<link rel="stylesheet" href="style.css">`,
		`<style>body { background: url(https://x/y) }</style>`, `<style>@import "x.css";</style>`, `<script>fetch("/x")</script>`,
	} {
		if len(externalRefs(bad)) == 0 {
			t.Errorf("the check misses %q", bad)
		}
	}
	if refs := externalRefs(`<a href="#f-1">x</a><p>&lt;img src=x&gt;</p><script>var data = 1; el.setAttribute('clip-path', 'url(#c)');</script>`); len(refs) > 0 {
		t.Errorf("the check flags what loads nothing: %q", refs)
	}
}

// Log lines and rule text are shown as text: nothing in them becomes markup
// or ends the script element that holds the data.
func TestHTMLEscapes(t *testing.T) {
	page := writeFixtureHTML(t, HTMLOptions{Timeline: sliceTimeline(fixtureEvents())})
	for _, bad := range []string{"<script>alert(1)</script>", "<img src=x", "<b>tags</b>", "</script><b>x</b>", "\x1b", "b<script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page carries %q as markup", bad)
		}
	}
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("%d </script> in the page, want 2 (the data and the script)", n)
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"A title with *stars*, _underscores_, `ticks`, &lt;b&gt;tags&lt;/b&gt; and | pipes",
		`\x1b[31mred\x1b[0m \xff`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestHTMLContent(t *testing.T) {
	r := fixtureReport()
	page := writeFixtureHTML(t, HTMLOptions{Timeline: sliceTimeline(fixtureEvents())})
	for _, f := range r.Findings {
		if !strings.Contains(page, `<section class="finding" id="f-`+f.ID+`" data-finding="`+f.ID+`">`) {
			t.Errorf("no section for finding %s", f.ID)
		}
		if !strings.Contains(page, `<span class="badge sev-`+f.Severity.String()+`">`+strings.ToUpper(f.Severity.String())+`</span>`) {
			t.Errorf("no %s badge for %s", f.Severity, f.ID)
		}
	}
	for _, want := range []string{
		// Inputs and nodes.
		"<tr><td>ns_1@172.23.100.15</td><td>3</td><td>memcached, ns_server</td>",
		"<tr><td>n2</td><td>2</td><td>cockroach</td>",
		"Skipped 2 files: not a log format forensics reads",
		"archive cut short, members after this point lost: unexpected EOF <strong>(content lost)</strong>",
		// A command with its copy button.
		`<div class="cmd"><pre><code>cbstats 172.23.100.15:11210 -u Administrator -p PASSWORD -b test3 warmup</code></pre><button type="button" class="copy" title="Copy the command">Copy</button></div>`,
		// Evidence with its note, and the way to it on the timeline.
		`<div class="note">the indexer lost vb 141&#39;s stream when memcached died</div>`,
		`<button type="button" class="locate" data-chart="0" data-evidence="1"`,
		`<div class="chart" data-chart="2">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if got := len(pageData(t, page)); got != len(r.Findings) {
		t.Errorf("%d timelines for %d findings", got, len(r.Findings))
	}
	// Without an event reader there are no timelines, and no buttons that need one.
	plain := writeFixtureHTML(t, HTMLOptions{})
	if strings.Contains(plain, `class="chart"`) || strings.Contains(plain, `class="locate"`) {
		t.Error("timeline elements without events")
	}
}

func TestSwimlanes(t *testing.T) {
	page := writeFixtureHTML(t, HTMLOptions{Timeline: sliceTimeline(fixtureEvents())})
	data := pageData(t, page)
	kv := data[0]
	if kv.Finding != "849cb65fdd33" {
		t.Fatalf("first timeline is for %s", kv.Finding)
	}
	// The window: from the first evidence (before the finding's start) to
	// the end, with a fifth of that as margin (7.19s / 5 = 1.438s, so 2s).
	if want := at("2022-07-22T00:39:10.111Z").UnixMicro(); kv.Since != want {
		t.Errorf("since %d, want %d", kv.Since, want)
	}
	if want := at("2022-07-22T00:39:21.301Z").UnixMicro(); kv.Until != want {
		t.Errorf("until %d, want %d", kv.Until, want)
	}
	// Lanes: the subject's node first, in component order, then the other nodes.
	var lanes []string
	for _, l := range kv.Lanes {
		lanes = append(lanes, l.Node+" "+l.Component)
	}
	want := "ns_1@172.23.100.15 ns_server,ns_1@172.23.100.15 memcached,ns_1@172.23.100.19 indexer"
	if strings.Join(lanes, ",") != want {
		t.Errorf("lanes %v, want %s", lanes, want)
	}
	// Every event in the window is a marker; the diag.log evidence line is
	// not an event but is drawn too, in its node's lane for its source's
	// component; the events outside the window are not.
	if kv.Total != 7 || len(kv.Events) != 8 || len(kv.Bands) != 0 {
		t.Errorf("total %d, %d markers, %d bands; want 7, 8, 0", kv.Total, len(kv.Events), len(kv.Bands))
	}
	evidence := map[int]bool{}
	for _, e := range kv.Events {
		if n := int(e[6].(float64)); n > 0 {
			evidence[n] = true
		}
		if text := e[5].(string); strings.Contains(text, "far outside") || strings.Contains(text, "VBucket::setState") {
			t.Errorf("an event outside the window: %s", text)
		}
	}
	if len(evidence) != 5 {
		t.Errorf("evidence lines drawn: %v, want 1 to 5", evidence)
	}
	for i := 1; i < len(kv.Events); i++ {
		if kv.Events[i][0].(float64) < kv.Events[i-1][0].(float64) {
			t.Errorf("markers not in time order at %d", i)
		}
	}
	if len(kv.Notes) != 5 || kv.Notes[0] != "the indexer lost vb 141's stream when memcached died" {
		t.Errorf("notes %q", kv.Notes)
	}
	for _, k := range kv.Kinds {
		if k.Category == "" || k.Label == "" {
			t.Errorf("kind %s has no style", k.Kind)
		}
	}
}

// A dense run over MaxEvents is drawn as bands with counts, keeping the
// evidence one by one; under it, every event is a marker.
func TestSwimlanesDense(t *testing.T) {
	pingpong := func(max int) swimlaneJSON {
		page := writeFixtureHTML(t, HTMLOptions{Timeline: sliceTimeline(fixtureEvents()), MaxEvents: max})
		return pageData(t, page)[1]
	}
	// 700 redirects, and the trace.txt evidence line, which is no event.
	all := pingpong(0)
	if all.Total != 700 || len(all.Events) != 701 || len(all.Bands) != 0 {
		t.Errorf("default: total %d, %d markers, %d bands; want 700, 701, 0", all.Total, len(all.Events), len(all.Bands))
	}
	// Redirects are a story category: with room for 300, 300 are kept and
	// the other 400 counted into bands; the evidence line (line 31) is kept.
	dense := pingpong(300)
	counted := 0
	for _, b := range dense.Bands {
		counted += int(b[3])
		if b[1] > b[2] {
			t.Errorf("band from %v to %v", b[1], b[2])
		}
	}
	if dense.Total != 700 || len(dense.Events)+counted != 701 || len(dense.Events) != 301 {
		t.Errorf("max 300: total %d, %d markers, %d counted in %d bands", dense.Total, len(dense.Events), counted, len(dense.Bands))
	}
	kept := false
	for _, e := range dense.Events {
		if e[6].(float64) == 1 {
			kept = true
		}
	}
	if !kept {
		t.Error("the evidence line was counted into a band")
	}
	// The page stays small: 700 events with their text.
	page := writeFixtureHTML(t, HTMLOptions{Timeline: sliceTimeline(fixtureEvents())})
	if len(page) > 400<<10 {
		t.Errorf("page of %d bytes", len(page))
	}
}

// Thousands of routine events over MaxEvents: the evidence is kept, the
// rest is counted, and the data stays bounded.
func TestSwimlanesBounded(t *testing.T) {
	f := fixtureReport().Findings[1]
	var evs []forensics.Event
	for i := 0; i < 20000; i++ {
		ts := f.Start.Add(time.Duration(i) * 3 * time.Microsecond)
		evs = append(evs, forensics.Event{Stamp: forensics.Stamp{Time: ts}, Node: fmt.Sprintf("n%d", 1+i%3), Path: crdbLog, Line: int64(31 + i), Kind: "distsender.rpc", Text: "sending request to local client"})
	}
	sl, err := buildSwimlanes(context.Background(), nil, f, nil, kindDocs(parsers.Kinds()), HTMLOptions{Timeline: sliceTimeline(evs), MaxEvents: 1000})
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, b := range sl.Bands {
		counted += b.Count
	}
	if sl.Total != 20000 || len(sl.Events)+counted != 20000+1 {
		// +1: the trace.txt evidence line is not among the events and is drawn on its own.
		t.Errorf("total %d, %d markers + %d counted", sl.Total, len(sl.Events), counted)
	}
	if len(sl.Bands) > 3*bandBuckets {
		t.Errorf("%d bands for 3 lanes", len(sl.Bands))
	}
	if len(sl.Events) != 2 {
		t.Errorf("%d markers, want the 2 evidence lines", len(sl.Events))
	}
}

func TestWindow(t *testing.T) {
	f := forensics.Finding{Start: at("2024-12-02T16:42:01Z"), End: at("2024-12-02T16:45:00Z")}
	since, until := Window(f, 0)
	if want := 179 * time.Second / 5; f.Start.Sub(since) != want || until.Sub(f.End) != want {
		t.Errorf("margin %s/%s, want %s", f.Start.Sub(since), until.Sub(f.End), want)
	}
	long := forensics.Finding{Start: at("2024-12-02T10:00:00Z"), End: at("2024-12-02T16:00:00Z")}
	if since, _ := Window(long, 0); long.Start.Sub(since) != 5*time.Minute {
		t.Errorf("margin %s for a 6h finding, want the 5m cap", long.Start.Sub(since))
	}
	if since, until := Window(f, time.Second); f.Start.Sub(since) != time.Second || until.Sub(f.End) != time.Second {
		t.Error("an explicit margin is not used as given")
	}
}

// An event goes in the lane of the component its kind's doc names, else of
// its source's component.
func TestLaneComponent(t *testing.T) {
	b := newLaneBuilder(forensics.Finding{}, time.Time{}, time.Time{},
		map[string]string{"mc.log": "memcached", "ns.log": "ns_server", "cr.log": "cockroach", "q.log": "query", "vt.log": "vttablet"},
		kindDocs(parsers.Kinds()))
	for _, c := range []struct{ kind, source, want string }{
		{"memcached.stream_rollback", "mc.log", "memcached"},
		{"nsserver.failover_start", "ns.log", "ns_server"},
		{"indexer.rollback", "ns.log", "indexer"},
		{"cbstats.bucket_quota", "mc.log", "cbstats"},
		{"distsender.nlhe", "cr.log", "distsender"},
		{"trace.start", "cr.log", "trace"},
		{"liveness.heartbeat_failed", "cr.log", "liveness"},
		{"vtctld.cancel_failed", "vt.log", "vtctld"},
		{"vttablet.vreplication_error", "vt.log", "vttablet"},
		{"vitess.shard", "", "topo"},
		{"query.undeclared", "q.log", "query"},
		{"", "", "log"},
	} {
		e := &forensics.Event{Kind: forensics.Kind(c.kind), Path: c.source}
		if got := b.laneComponent(e); got != c.want {
			t.Errorf("lane of %q from %q = %q, want %q", c.kind, c.source, got, c.want)
		}
	}
}

// A kind is drawn as its doc says; one without a doc is "other".
func TestKindStyle(t *testing.T) {
	b := newLaneBuilder(forensics.Finding{}, time.Time{}, time.Time{}, nil, kindDocs(parsers.Kinds()))
	for kind, want := range map[forensics.Kind]markStyle{
		"memcached.stream_rollback":  {"rollback", "stream request answered with a rollback"},
		"nsserver.service_exited":    {"process", "service exited, restarting"},
		"memcached.traffic_enabled":  {"traffic", "traffic enabled"},
		"distsender.nlhe":            {"redirect", "NotLeaseHolderError: redirect"},
		"vtctld.cancel_failed":       {"error", "cancel failed"},
		"vitess.routing_rules":       {"topo", "topology snapshot: routing rules"},
		"evidence":                   {"evidence", "evidence line"},
		"memcached.some_future_kind": {"other", "some future kind"},
	} {
		if got := b.style(kind); got != want {
			t.Errorf("%s: %+v, want %+v", kind, got, want)
		}
	}
}

// The page draws every category a kind can have: each has a colour in the
// style sheet and a place in the legend.
func TestEveryCategoryIsDrawn(t *testing.T) {
	css, _ := htmlFiles.ReadFile("html/report.css")
	js, _ := htmlFiles.ReadFile("html/report.js")
	legend := regexp.MustCompile(`\[('evidence'(?:, '[a-z]+')*)\]\.forEach`).FindSubmatch(js)
	if legend == nil {
		t.Fatal("no legend list in report.js")
	}
	for _, c := range forensics.Categories {
		if !bytes.Contains(css, []byte(".c-"+string(c)+" {")) {
			t.Errorf("category %s has no colour in report.css", c)
		}
		if !bytes.Contains(legend[1], []byte("'"+string(c)+"'")) {
			t.Errorf("category %s is not in the legend", c)
		}
	}
}

// A report of many findings shares the events drawn one by one between them.
func TestHTMLManyFindings(t *testing.T) {
	r := fixtureReport()
	one := r.Findings[1]
	r.Findings = nil
	for i := 0; i < 150; i++ {
		f := one
		f.ID = fmt.Sprintf("%012d", i)
		r.Findings = append(r.Findings, f)
	}
	var b bytes.Buffer
	if err := WriteHTML(context.Background(), &b, r, HTMLOptions{Timeline: sliceTimeline(fixtureEvents()), Kinds: parsers.Kinds()}); err != nil {
		t.Fatal(err)
	}
	data := pageData(t, b.String())
	if len(data) != 150 {
		t.Fatalf("%d timelines", len(data))
	}
	for _, d := range data {
		// 300 of the 700 redirects, and the trace.txt evidence line.
		if d.Total != 700 || len(d.Events) != minEventsPerFinding+1 {
			t.Fatalf("finding %s: %d events, %d drawn one by one", d.Finding, d.Total, len(d.Events))
		}
	}
}

// A finding's section says what to do before its evidence, and folds a
// long evidence list after the first few lines, numbered on where it left
// off, each line keeping its anchor.
func TestHTMLFixesBeforeLongEvidence(t *testing.T) {
	r := fixtureReport()
	f := r.Findings[0]
	if len(f.Fixes) == 0 {
		t.Fatal("the fixture's first finding has no fixes")
	}
	base := f.Evidence[0]
	f.Evidence = nil
	for i := range 26 {
		e := base
		e.Line = base.Line + int64(i)
		f.Evidence = append(f.Evidence, e)
	}
	r.Findings = []forensics.Finding{f}
	var b bytes.Buffer
	if err := WriteHTML(context.Background(), &b, r, HTMLOptions{Timeline: sliceTimeline(fixtureEvents()), Kinds: parsers.Kinds()}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	fixes, evidence := strings.Index(page, "<h3>What to do</h3>"), strings.Index(page, "<h3>Evidence</h3>")
	if fixes < 0 || evidence < 0 || fixes > evidence {
		t.Errorf("what to do at %d, evidence at %d: the fixes must come first", fixes, evidence)
	}
	fold := strings.Index(page, `<details class="more-evidence">`)
	if fold < 0 || !strings.Contains(page[fold:], "<summary>18 more evidence lines</summary>\n<ol class=\"evidence\" start=\"9\">") {
		t.Fatalf("the evidence after the 8th line is not folded: %s", page[evidence:min(len(page), evidence+300)])
	}
	for i := 1; i <= 26; i++ {
		at := strings.Index(page, fmt.Sprintf(`<li id="f-%s-e%d"`, f.ID, i))
		if at < 0 || (i <= 8) != (at < fold) {
			t.Errorf("evidence %d at %d, the fold at %d", i, at, fold)
		}
	}
	// A short list stays whole.
	if strings.Contains(writeFixtureHTML(t, HTMLOptions{}), `<details class="more-evidence">`) {
		t.Error("a short evidence list is folded")
	}
}
