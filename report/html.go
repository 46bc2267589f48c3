package report

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"forensics"
)

//go:embed html/report.html.tmpl html/report.css html/report.js
var htmlFiles embed.FS

// htmlPage is parsed when a report is first written as HTML, not when the
// program starts: parsing took 0.6 ms of every command.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
		"utc":          func(t time.Time) string { return t.UTC().Format(TimeFormat) },
		"duration":     Duration,
		"subject":      SubjectLine,
		"apart":        detailsApart,
		"placeholders": placeholders,
		"clean":        Escape,
		"lines":        func(s string) string { return escapeLines(clipRaw(s, 20000)) },
		"upper":        strings.ToUpper,
		"paras": func(s string) []string {
			var out []string
			for _, p := range strings.Split(strings.TrimSpace(s), "\n") {
				if strings.TrimSpace(p) != "" {
					out = append(out, p)
				}
			}
			return out
		},
		"inc":    func(i int) int { return i + 1 },
		"sub":    func(a, b int) int { return a - b },
		"anchor": func(id string) string { return "f-" + id },
		"foldAt": evidenceFold,
	}).ParseFS(htmlFiles, "html/report.html.tmpl"))
})

// evidenceFold is the index of the first evidence line a finding's section
// folds away (-1: none): the first few stay in view, and a long list (a
// storm's 26 lines) no longer pushes what to do down the page.
func evidenceFold(n int) int {
	const shown = 8
	if n <= shown+2 {
		return -1
	}
	return shown
}

// HTMLOptions says where the swimlanes read their events from, and how much
// of the timeline around each finding they show.
type HTMLOptions struct {
	// Timeline is where the swimlanes read the events around each finding
	// (store.Timeline of the run reported). nil: the report has no
	// swimlanes, only the findings.
	Timeline forensics.Timeline
	// Kinds says what each kind means (parsers.Kinds()): the category and
	// label of its markers and the component whose lane it goes in. A kind
	// not listed is drawn as "other" in the lane of its source's component.
	Kinds     []forensics.KindDoc
	Margin    time.Duration // context before and after each finding; 0: a fifth of its length, at least 2s and at most 5m
	MaxEvents int           // events drawn one by one per finding; more are drawn as bands with a count. 0: DefaultMaxEvents
}

// DefaultMaxEvents keeps a report with many dense findings to a few
// megabytes and the page responsive.
const DefaultMaxEvents = 3000

// maxTotalEvents bounds the events drawn one by one in a whole report
// (about 10 MB of page), and minEventsPerFinding is what each finding keeps
// however many there are.
const (
	maxTotalEvents      = 30000
	minEventsPerFinding = 300
)

// maxEventText is how much of a line a marker carries for its tooltip and
// the detail panel; the evidence list shows evidence lines in full.
const maxEventText = 400

// bandBuckets is the resolution of the counts drawn for events beyond
// MaxEvents: each lane's window is cut into this many slices.
const bandBuckets = 800

// WriteHTML writes the report as one self-contained HTML page: no network
// access, every style, script and image inline. It shows the inputs and
// nodes, the findings with their explanation, evidence and fixes (with copy
// buttons for the commands), and for each finding a zoomable swimlane
// timeline of the events around it, one lane per node and component, drawn
// by the page's script from data embedded in the page.
func WriteHTML(ctx context.Context, w io.Writer, r *Report, opts HTMLOptions) error {
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = DefaultMaxEvents
	}
	// A report of many findings shares maxTotalEvents between them, so the
	// page stays a size a browser opens quickly.
	if n := len(r.Findings); n > 0 && maxTotalEvents/n < opts.MaxEvents {
		opts.MaxEvents = max(maxTotalEvents/n, minEventsPerFinding)
	}
	components := map[string]string{}
	for _, s := range r.Sources {
		components[s.Path] = s.Component
	}
	page := htmlData{Report: r, Nodes: nodeRows(r.Sources), Counts: severityCounts(r.Findings), Skipped: skippedCounts(r.Skipped)}
	page.First, page.Last = span(r.Sources)
	docs := kindDocs(opts.Kinds)
	charts := []*swimlanes{}
	for _, f := range r.Findings {
		if opts.Timeline == nil {
			break
		}
		sl, err := buildSwimlanes(ctx, r, f, components, docs, opts)
		if err != nil {
			return fmt.Errorf("timeline of finding %s: %w", f.ID, err)
		}
		charts = append(charts, sl)
	}
	data, err := json.Marshal(charts) // escapes <, > and & so the data cannot end its script element
	if err != nil {
		return err
	}
	css, _ := htmlFiles.ReadFile("html/report.css")
	js, _ := htmlFiles.ReadFile("html/report.js")
	page.CSS = template.CSS(css)
	page.Script = template.JS(js)
	page.Data = template.JS(data)
	page.Timelines = opts.Timeline != nil
	return htmlPage().Execute(w, page)
}

type htmlData struct {
	Report    *Report // its Root: paths are shown relative to it (Rel)
	Nodes     []nodeRow
	Skipped   []skippedCount
	Counts    string
	First     time.Time
	Last      time.Time
	Timelines bool
	CSS       template.CSS
	Script    template.JS
	Data      template.JS
}

type skippedCount struct {
	Reason string
	Count  int
}

func skippedCounts(ss []Skipped) []skippedCount {
	counts := map[string]int{}
	for _, s := range ss {
		counts[s.Reason]++
	}
	var out []skippedCount
	for r, n := range counts {
		out = append(out, skippedCount{r, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// nodeRow is one node analysed: what was read from it, and when it logged.
type nodeRow struct {
	Node        string
	Sources     int
	Components  string
	Lines       int64
	Events      int64
	First, Last time.Time
}

func nodeRows(srcs []Source) []nodeRow {
	byNode := map[string]*nodeRow{}
	comps := map[string]map[string]bool{}
	var order []string
	for _, s := range srcs {
		n := s.Node
		row := byNode[n]
		if row == nil {
			row = &nodeRow{Node: n}
			byNode[n] = row
			comps[n] = map[string]bool{}
			order = append(order, n)
		}
		row.Sources++
		row.Lines += s.Lines
		row.Events += s.Events
		comps[n][s.Component] = true
		if s.First != nil {
			if row.First.IsZero() || s.First.Before(row.First) {
				row.First = *s.First
			}
			if s.Last.After(row.Last) {
				row.Last = *s.Last
			}
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if (order[i] == "") != (order[j] == "") {
			return order[j] == ""
		}
		return order[i] < order[j]
	})
	var out []nodeRow
	for _, n := range order {
		row := byNode[n]
		var cs []string
		for c := range comps[n] {
			cs = append(cs, c)
		}
		sort.Strings(cs)
		row.Components = strings.Join(cs, ", ")
		out = append(out, *row)
	}
	return out
}

// swimlanes is the data the page's script draws one finding's timeline
// from. Times are microseconds: Since and Until since the Unix epoch, the
// rest relative to Since, which keeps them exact in a JavaScript number.
type swimlanes struct {
	Finding  string     `json:"finding"`
	Since    int64      `json:"since"`
	Until    int64      `json:"until"`
	Start    int64      `json:"start"`
	End      int64      `json:"end"`
	Node     string     `json:"node,omitempty"` // the subject's node, whose lanes are emphasised
	Lanes    []lane     `json:"lanes"`
	Kinds    []kindInfo `json:"kinds"`
	Sources  []string   `json:"sources"`
	Events   []mark     `json:"events"`
	Bands    []band     `json:"bands"`
	Total    int        `json:"total"`    // events in the window
	Evidence int        `json:"evidence"` // evidence lines of the finding
	Notes    []string   `json:"notes"`    // what each evidence line shows
	Moments  []moment   `json:"moments"`  // the instants the rule's reasoning rests on, drawn as labelled rules
}

// moment is an instant a finding's reasoning depends on (the restart,
// traffic enabled, the failover), from its first evidence line of that
// kind. Never marks a moment the finding says did not come (traffic never
// enabled): it is drawn at the end of the finding's window.
type moment struct {
	T     int64  `json:"t"`
	Label string `json:"label"`
	Never bool   `json:"never,omitempty"`
}

// momentKinds name the moments by the kinds of evidence that show them.
// A moment is a beat of the story a finding tells ("restart", then
// "traffic enabled"), and several kinds, from different parsers, mark the
// same beat; what a kind means stays on its KindDoc, how the report groups
// kinds into the beats of its findings is the report's to say. A kind
// left out is drawn all the same, only not named as a moment.
var momentKinds = map[string]string{
	"nsserver.service_exited":   "restart",
	"nsserver.port_exited":      "restart",
	"memcached.start":           "restart",
	"memcached.traffic_enabled": "traffic enabled",
	"nsserver.bucket_warmed":    "traffic enabled",
	"nsserver.traffic_enabling": "traffic enabled",
	"nsserver.failover_start":   "failover",
	"nsserver.autofailover":     "failover",
	"vtctld.switch_start":       "switch began",
	"vtctld.stop_source_writes": "source writes stopped",
	"vtctld.switch_failed":      "switch failed",
	"vtctld.cancel_failed":      "cancel failed",
}

// moments picks the first evidence line of each moment. For
// kv-stream-before-traffic, whose reasoning is "before traffic was
// enabled", a restart without a traffic moment is marked "traffic never
// enabled" at the window's end.
func (b *laneBuilder) moments() []moment {
	out := []moment{}
	seen := map[string]bool{}
	for _, m := range b.sl.Events {
		if m.Evidence == 0 {
			continue
		}
		label, ok := momentKinds[b.sl.Kinds[m.Kind].Kind]
		if !ok || seen[label] {
			continue
		}
		seen[label] = true
		out = append(out, moment{T: m.T, Label: label})
	}
	if b.finding.Rule == "kv-stream-before-traffic" && seen["restart"] && !seen["traffic enabled"] {
		out = append(out, moment{T: b.sl.End, Label: "traffic never enabled", Never: true})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// adoptNodeless gives lanes without a node (a statement trace, which names
// none) the node of every other lane when there is only one, so "trace"
// stands beside "n1 trace" no more.
func (b *laneBuilder) adoptNodeless() {
	only := ""
	for _, l := range b.sl.Lanes {
		if l.Node == "" {
			continue
		}
		if only != "" && l.Node != only {
			return
		}
		only = l.Node
	}
	if only == "" {
		return
	}
	merged := map[laneKey]int{}
	renumber := make([]int, len(b.sl.Lanes))
	var lanes []lane
	for i, l := range b.sl.Lanes {
		if l.Node == "" {
			l.Node = only
		}
		k := laneKey{l.Node, l.Component}
		if j, ok := merged[k]; ok {
			lanes[j].Events += l.Events
			renumber[i] = j
			continue
		}
		merged[k] = len(lanes)
		renumber[i] = len(lanes)
		lanes = append(lanes, l)
	}
	b.sl.Lanes = lanes
	for i := range b.sl.Events {
		b.sl.Events[i].Lane = renumber[b.sl.Events[i].Lane]
	}
	buckets := map[[2]int]*band{}
	for k, bd := range b.buckets {
		bd.Lane = renumber[bd.Lane]
		nk := [2]int{bd.Lane, k[1]}
		if prev := buckets[nk]; prev != nil {
			prev.Count += bd.Count
			prev.From, prev.To = min(prev.From, bd.From), max(prev.To, bd.To)
			continue
		}
		buckets[nk] = bd
	}
	b.buckets = buckets
}

type lane struct {
	Node      string `json:"node"`
	Component string `json:"component"`
	Events    int    `json:"events"`
}

type kindInfo struct {
	Kind     string `json:"kind"`
	Category string `json:"cat"`
	Label    string `json:"label"`
}

// mark is one event drawn on its own; it is written as an array to keep
// the page small: [t, lane, kind, source, line, text, evidence], evidence
// being the 1-based number of the evidence line or 0.
type mark struct {
	T        int64
	Lane     int
	Kind     int
	Source   int
	Line     int64
	Text     string
	Evidence int
}

func (m mark) MarshalJSON() ([]byte, error) {
	return json.Marshal([7]any{m.T, m.Lane, m.Kind, m.Source, m.Line, m.Text, m.Evidence})
}

// band counts events drawn together: [lane, from, to, count, kind], kind
// being the first event's.
type band struct {
	Lane     int
	From, To int64
	Count    int
	Kind     int
}

func (b band) MarshalJSON() ([]byte, error) {
	return json.Marshal([5]any{b.Lane, b.From, b.To, b.Count, b.Kind})
}

// Window returns the stretch of timeline a finding's swimlanes show: the
// finding and its evidence, with margin before and after (0: a fifth of
// the finding's length, at least 2s and at most 5m).
func Window(f forensics.Finding, margin time.Duration) (since, until time.Time) {
	since, until = f.Start, f.End
	for _, e := range f.Evidence {
		if e.Time.IsZero() {
			continue
		}
		if e.Time.Before(since) {
			since = e.Time
		}
		if e.Time.After(until) {
			until = e.Time
		}
	}
	if until.Before(since) {
		until = since
	}
	if margin <= 0 {
		margin = min(max(until.Sub(since)/5, 2*time.Second), 5*time.Minute)
	}
	return since.Add(-margin), until.Add(margin)
}

// Swimlane returns the data of a finding's swimlane as WriteHTML embeds it
// (JSON), for another page that draws it with the report's script
// (forensicsSwimlane in HTMLAsset("report.js")). components names the
// component of each source path; root is the inputs' folder (InputRoot),
// which the swimlane names files relative to, as the report does.
func Swimlane(ctx context.Context, f forensics.Finding, components map[string]string, root string, opts HTMLOptions) (any, error) {
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = DefaultMaxEvents
	}
	return buildSwimlanes(ctx, &Report{Root: root}, f, components, kindDocs(opts.Kinds), opts)
}

// HTMLAsset returns the report page's script or style sheet, by name
// (report.js, report.css).
func HTMLAsset(name string) ([]byte, error) {
	return htmlFiles.ReadFile("html/" + path.Base(name))
}

// buildSwimlanes reads the events in a finding's window. When there are
// more than opts.MaxEvents, it reads them again, keeping the evidence and
// the events that tell the story (every category but "other" and
// "request") one by one while there is room, and counting the rest into
// bands.
func buildSwimlanes(ctx context.Context, r *Report, f forensics.Finding, components map[string]string, docs map[forensics.Kind]forensics.KindDoc, opts HTMLOptions) (*swimlanes, error) {
	since, until := Window(f, opts.Margin)
	b := newLaneBuilder(f, since, until, components, docs)
	b.report = r
	if opts.Timeline != nil {
		q := forensics.Query{Since: since, Until: until}
		tooMany := false
		for e, err := range opts.Timeline.Events(ctx, q) {
			if err != nil {
				return nil, err
			}
			if b.sl.Total >= opts.MaxEvents {
				tooMany = true
				break
			}
			b.add(e, true)
		}
		if tooMany {
			b = newLaneBuilder(f, since, until, components, docs)
			b.report = r
			kept := 0
			for e, err := range opts.Timeline.Events(ctx, q) {
				if err != nil {
					return nil, err
				}
				keep := b.isEvidence(e) || (kept < opts.MaxEvents && storyCategory(b.style(e.Kind).Category))
				if keep {
					kept++
				}
				b.add(e, keep)
			}
		}
	}
	b.addMissingEvidence()
	return b.finish(), nil
}

type laneKey struct{ node, component string }

type laneBuilder struct {
	report     *Report // whose Root the paths are shown relative to
	sl         *swimlanes
	finding    forensics.Finding
	components map[string]string
	docs       map[forensics.Kind]forensics.KindDoc
	lanes      map[laneKey]int
	kinds      map[string]int
	sources    map[string]int
	evidence   map[evidenceLine]int
	seen       map[evidenceLine]bool
	buckets    map[[2]int]*band
}

type evidenceLine struct {
	source string
	line   int64
}

func newLaneBuilder(f forensics.Finding, since, until time.Time, components map[string]string, docs map[forensics.Kind]forensics.KindDoc) *laneBuilder {
	b := &laneBuilder{
		sl: &swimlanes{
			Finding: f.ID, Since: since.UnixMicro(), Until: until.UnixMicro(),
			Node: f.Subject.Node, Evidence: len(f.Evidence),
			Lanes: []lane{}, Kinds: []kindInfo{}, Sources: []string{}, Events: []mark{}, Bands: []band{},
		},
		finding: f, components: components, docs: docs,
		lanes: map[laneKey]int{}, kinds: map[string]int{}, sources: map[string]int{},
		evidence: map[evidenceLine]int{}, seen: map[evidenceLine]bool{}, buckets: map[[2]int]*band{},
	}
	b.sl.Start = f.Start.UnixMicro() - b.sl.Since
	b.sl.End = f.End.UnixMicro() - b.sl.Since
	for i, e := range f.Evidence {
		k := evidenceLine{e.Path, e.Line}
		if _, ok := b.evidence[k]; !ok {
			b.evidence[k] = i + 1
		}
		b.sl.Notes = append(b.sl.Notes, e.Note)
	}
	if b.sl.Notes == nil {
		b.sl.Notes = []string{}
	}
	return b
}

func (b *laneBuilder) isEvidence(e *forensics.Event) bool {
	_, ok := b.evidence[evidenceLine{e.Path, e.Line}]
	return ok
}

// add places an event in its lane, drawn on its own when keep is set and
// counted into a band otherwise.
func (b *laneBuilder) add(e *forensics.Event, keep bool) {
	b.sl.Total++
	li := b.lane(e.Node, b.laneComponent(e))
	ki := b.kind(string(e.Kind))
	t := e.Time.UnixMicro() - b.sl.Since
	b.sl.Lanes[li].Events++
	if !keep {
		span := b.sl.Until - b.sl.Since
		slot := 0
		if span > 0 {
			slot = int(min(max(t*bandBuckets/span, 0), bandBuckets-1))
		}
		bd := b.buckets[[2]int{li, slot}]
		if bd == nil {
			bd = &band{Lane: li, From: t, To: t, Kind: ki}
			b.buckets[[2]int{li, slot}] = bd
		}
		bd.Count++
		bd.From, bd.To = min(bd.From, t), max(bd.To, t)
		return
	}
	k := evidenceLine{e.Path, e.Line}
	ev := b.evidence[k]
	if ev > 0 {
		b.seen[k] = true
	}
	b.sl.Events = append(b.sl.Events, mark{
		T: t, Lane: li, Kind: ki, Source: b.source(e.Path), Line: e.Line,
		Text: escapeLines(clipRaw(e.Text, maxEventText)), Evidence: ev,
	})
}

// addMissingEvidence draws the evidence lines that are not events in the
// window (a line kept without an event, or one outside the query) as
// markers of their own, so every evidence line is on the chart.
func (b *laneBuilder) addMissingEvidence() {
	for i, e := range b.finding.Evidence {
		k := evidenceLine{e.Path, e.Line}
		if b.seen[k] || b.evidence[k] != i+1 {
			continue
		}
		comp := b.components[e.Path]
		if comp == "" {
			comp = "log"
		}
		li := b.lane(e.Node, comp)
		b.sl.Lanes[li].Events++
		b.sl.Events = append(b.sl.Events, mark{
			T: e.Time.UnixMicro() - b.sl.Since, Lane: li, Kind: b.kind(evidenceKind), Source: b.source(e.Path), Line: e.Line,
			Text: escapeLines(clipRaw(e.Text, maxEventText)), Evidence: i + 1,
		})
	}
}

// evidenceKind stands for an evidence line that is not an event.
const evidenceKind = "evidence"

func (b *laneBuilder) lane(node, component string) int {
	k := laneKey{node, component}
	if i, ok := b.lanes[k]; ok {
		return i
	}
	b.lanes[k] = len(b.sl.Lanes)
	b.sl.Lanes = append(b.sl.Lanes, lane{Node: node, Component: component})
	return b.lanes[k]
}

func (b *laneBuilder) kind(k string) int {
	if i, ok := b.kinds[k]; ok {
		return i
	}
	b.kinds[k] = len(b.sl.Kinds)
	st := b.style(forensics.Kind(k))
	b.sl.Kinds = append(b.sl.Kinds, kindInfo{Kind: k, Category: st.Category, Label: st.Label})
	return b.kinds[k]
}

func (b *laneBuilder) source(path string) int {
	if i, ok := b.sources[path]; ok {
		return i
	}
	b.sources[path] = len(b.sl.Sources)
	b.sl.Sources = append(b.sl.Sources, b.report.rel(path))
	return b.sources[path]
}

// finish orders the lanes (by node, the subject's first, then by
// component in the order the systems' stories run) and renumbers the
// events and bands to match.
func (b *laneBuilder) finish() *swimlanes {
	b.adoptNodeless()
	b.sl.Moments = b.moments()
	sl := b.sl
	order := make([]int, len(sl.Lanes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, c := sl.Lanes[order[i]], sl.Lanes[order[j]]
		if a.Node != c.Node {
			switch {
			case a.Node == sl.Node:
				return true
			case c.Node == sl.Node:
				return false
			case a.Node == "" || c.Node == "":
				return c.Node == ""
			}
			return a.Node < c.Node
		}
		ra, rc := componentRank(a.Component), componentRank(c.Component)
		if ra != rc {
			return ra < rc
		}
		return a.Component < c.Component
	})
	renumber := make([]int, len(order))
	lanes := make([]lane, len(order))
	for newIdx, old := range order {
		renumber[old] = newIdx
		lanes[newIdx] = sl.Lanes[old]
	}
	sl.Lanes = lanes
	for i := range sl.Events {
		sl.Events[i].Lane = renumber[sl.Events[i].Lane]
	}
	sort.SliceStable(sl.Events, func(i, j int) bool { return sl.Events[i].T < sl.Events[j].T })
	for _, bd := range b.buckets {
		bd.Lane = renumber[bd.Lane]
		sl.Bands = append(sl.Bands, *bd)
	}
	sort.Slice(sl.Bands, func(i, j int) bool {
		if sl.Bands[i].Lane != sl.Bands[j].Lane {
			return sl.Bands[i].Lane < sl.Bands[j].Lane
		}
		return sl.Bands[i].From < sl.Bands[j].From
	})
	return sl
}

// laneComponent names the lane an event is drawn in: the component its
// kind's doc names (DistSender events get their own lane beside the node's
// traces), or the component of the source it came from.
func (b *laneBuilder) laneComponent(e *forensics.Event) string {
	if d, ok := b.docs[e.Kind]; ok && d.Component != "" {
		return d.Component
	}
	if c := b.components[e.Path]; c != "" {
		return c
	}
	return "log"
}

// componentOrder is the order lanes are stacked in: the cluster manager
// above the data service above its consumers, the way an operator reads an
// incident top-down. It is a layout, not a fact of the components, so the
// report keeps it; a component not listed gets its lanes after these.
var componentOrder = []string{"ns_server", "memcached", "projector", "indexer", "distsender", "trace", "cockroach", "vtctld", "topo"}

func componentRank(c string) int {
	for i, o := range componentOrder {
		if o == c {
			return i
		}
	}
	return len(componentOrder)
}

// markStyle is how a kind of event is drawn: its category (which sets the
// marker's colour and shape) and a short label for tooltips.
type markStyle struct {
	Category string
	Label    string
}

func kindDocs(docs []forensics.KindDoc) map[forensics.Kind]forensics.KindDoc {
	m := make(map[forensics.Kind]forensics.KindDoc, len(docs))
	for _, d := range docs {
		m[d.Kind] = d
	}
	return m
}

// style is how the kind's doc says to draw it. A kind without a doc is
// "other", labelled by its name.
func (b *laneBuilder) style(kind forensics.Kind) markStyle {
	if kind == evidenceKind {
		return markStyle{evidenceKind, "evidence line"}
	}
	if d, ok := b.docs[kind]; ok && d.Category != "" {
		return markStyle{string(d.Category), d.Label}
	}
	_, what, _ := strings.Cut(string(kind), ".")
	label := strings.ReplaceAll(what, "_", " ")
	if label == "" {
		label = string(kind)
	}
	return markStyle{string(forensics.CategoryOther), label}
}

// storyCategory reports whether events of a category are kept one by one
// when a window has too many events: all but routine requests and the
// uncategorised.
func storyCategory(c string) bool {
	return c != string(forensics.CategoryOther) && c != string(forensics.CategoryRequest)
}

// Rel writes a display path relative to the folder the inputs were given in.
func (d htmlData) Rel(path string) string { return d.Report.rel(path) }
