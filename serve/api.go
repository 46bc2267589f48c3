package serve

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/report"
	"forensics/store"
)

func (s *Server) incidents(ctx context.Context, r *http.Request) (any, error) {
	incs, err := s.db.Incidents(ctx)
	if incs == nil {
		incs = []store.Incident{}
	}
	return incs, err
}

// count is a value of a filter and how many lines or events have it.
type count struct {
	Name string `json:"name"`
	N    int64  `json:"n"`
}

// summary is what the page's filters offer, with their counts.
type summary struct {
	Incident   store.Incident     `json:"incident"`
	Timeline   string             `json:"timeline"`
	Root       string             `json:"root"` // the folder the inputs were given in: paths are shown from there
	First      time.Time          `json:"first"`
	Last       time.Time          `json:"last"`
	Nodes      []count            `json:"nodes"`      // lines
	Components []count            `json:"components"` // lines
	Files      []count            `json:"files"`      // lines; the largest maxFiles
	MoreFiles  int                `json:"more_files"` // files not listed
	Kinds      []count            `json:"kinds"`      // events in the view
	Keys       map[string][]count `json:"keys"`       // events in the view by bucket, vb, range, keyspace, table
	Events     int64              `json:"events"`     // events in the view
}

const (
	maxFiles = 300
	maxKeys  = 100
)

// summary counts the lines of the incident's sources by node, component
// and file, and the events the view selects by kind and system key.
func (s *Server) summary(ctx context.Context, r *http.Request) (any, error) {
	v, err := s.view(ctx, r.URL.Query())
	if err != nil {
		return nil, err
	}
	srcs, err := s.db.Sources(ctx, v.inc.Latest)
	if err != nil {
		return nil, err
	}
	out := summary{Incident: v.inc, Timeline: s.db.Name(), Root: displayRoot(v.inc.Inputs), Keys: map[string][]count{}}
	nodes, comps, files := map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, src := range srcs {
		nodes[src.Node] += src.Lines
		comps[src.Component] += src.Lines
		files[src.Path] += src.Lines
		if !src.First.IsZero() && (out.First.IsZero() || src.First.Before(out.First)) {
			out.First = src.First.UTC()
		}
		if src.Last.After(out.Last) {
			out.Last = src.Last.UTC()
		}
	}
	out.Nodes, out.Components, out.Files = counts(nodes, 0), counts(comps, 0), counts(files, maxFiles)
	out.MoreFiles = len(files) - len(out.Files)

	t, err := s.tally(ctx, v, defaultBars)
	if err != nil {
		return nil, err
	}
	out.Events = t.events
	out.Kinds = counts(t.kinds, 0)
	for k, m := range t.keys {
		out.Keys[k] = counts(m, maxKeys)
	}
	return out, nil
}

// displayRoot is the folder that holds the inputs, as given: the
// timeline's paths begin with it, and the page names files from there, as
// the reports do (report.InputRoot): a folder given, seed/, keeps its name
// (seed/cbcollect_info_…/memcached.log).
func displayRoot(inputs []string) string {
	root := ""
	for i, in := range inputs {
		d := filepath.Dir(filepath.Clean(in))
		if i == 0 {
			root = d
			continue
		}
		for root != d && !strings.HasPrefix(d, root+"/") {
			if root = filepath.Dir(root); root == "." || root == "/" {
				return ""
			}
		}
	}
	if root == "." {
		return ""
	}
	return root
}

// counts lists a tally, the largest first, at most max of them (0: all).
func counts(m map[string]int64, max int) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		out = append(out, count{k, n})
	}
	slices.SortFunc(out, func(a, b count) int {
		if c := cmp.Compare(b.N, a.N); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

// histogram is the view's events (or, with a search, its matching lines)
// over time, one band per node, each bar stacked by component or by the
// category of the event's kind.
type histogram struct {
	Of     string    `json:"of"` // events or lines
	By     string    `json:"by"` // component or category
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	Width  int64     `json:"width_ns"` // of a bar
	Bars   int       `json:"bars"`
	Series []series  `json:"series"`
}

type series struct {
	Node   string  `json:"node"`
	Key    string  `json:"key"` // the component or category
	Counts []int64 `json:"counts"`
}

func (s *Server) histogram(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	v, err := s.view(ctx, q)
	if err != nil {
		return nil, err
	}
	bars := defaultBars
	if b := q.Get("bars"); b != "" {
		if bars, err = strconv.Atoi(b); err != nil || bars < 1 || bars > 1000 {
			return nil, bad("bars %q: 1 to 1000", b)
		}
	}
	h := histogram{Of: "events", By: cmp.Or(q.Get("by"), "component"), Bars: bars, Series: []series{}}
	if h.By != "component" && h.By != "category" {
		return nil, bad("by %q: component or category", h.By)
	}
	if (v.lines.Text == "" && v.lines.Regexp == nil) || v.byEvent {
		t, err := s.tally(ctx, v, bars)
		if err != nil {
			return nil, err
		}
		h.Since, h.Until, h.Width = t.since, t.until, t.width
		if h.By == "component" {
			h.Series = t.byComponent.series
		} else {
			h.Series = t.byCategory.series
		}
		return h, nil
	}
	// The lines a search matches, by component.
	h.Of = "lines"
	fr, err := s.frame(ctx, v, bars)
	if err != nil || fr.width == 0 {
		return h, err
	}
	h.Since, h.Until, h.Width = fr.since, fr.until, fr.width
	b := bands{frame: fr}
	f := v.lines
	f.Since, f.Until, f.NoKinds = fr.since, fr.until, true
	if _, err := s.db.Search(ctx, store.Search{LineFilter: f}, func(l *store.Line) bool {
		b.add(l.Time, l.Node, fr.component[l.Path])
		return true
	}); err != nil {
		return nil, err
	}
	h.Series = b.sorted()
	return h, nil
}

const defaultBars = 120

// frame is the time a histogram spans and how wide its bars are.
type frame struct {
	since, until time.Time
	width        int64 // ns; 0 when the view spans no time
	bars         int
	component    map[string]string // of each source path
}

func (s *Server) frame(ctx context.Context, v *view, bars int) (frame, error) {
	fr := frame{bars: bars, component: map[string]string{}}
	srcs, err := s.db.Sources(ctx, v.inc.Latest)
	if err != nil {
		return fr, err
	}
	for _, src := range srcs {
		fr.component[src.Path] = src.Component
		if !src.First.IsZero() && (fr.since.IsZero() || src.First.Before(fr.since)) {
			fr.since = src.First.UTC()
		}
		if src.Last.After(fr.until) {
			fr.until = src.Last.UTC()
		}
	}
	if !v.lines.Since.IsZero() {
		fr.since = v.lines.Since
	}
	if !v.lines.Until.IsZero() {
		fr.until = v.lines.Until
	}
	fr.until = fr.until.Add(time.Nanosecond) // the last line is in the last bar
	if span := fr.until.Sub(fr.since); span > 0 {
		fr.width = (int64(span) + int64(bars) - 1) / int64(bars)
	}
	return fr, nil
}

// bands counts into bars, one series per node and key.
type bands struct {
	frame
	index  map[[2]string]int
	series []series
}

// maxSeries bounds a histogram's series (nodes times components).
const maxSeries = 500

func (b *bands) add(t time.Time, node, key string) {
	if b.width == 0 {
		return
	}
	i := int(t.Sub(b.since) / time.Duration(b.width))
	if i < 0 || i >= b.bars {
		return
	}
	k := [2]string{node, key}
	j, ok := b.index[k]
	if !ok {
		if len(b.series) >= maxSeries {
			return
		}
		if b.index == nil {
			b.index = map[[2]string]int{}
		}
		j = len(b.series)
		b.index[k] = j
		b.series = append(b.series, series{Node: node, Key: key, Counts: make([]int64, b.bars)})
	}
	b.series[j].Counts[i]++
}

func (b *bands) sorted() []series {
	slices.SortFunc(b.series, func(x, y series) int {
		return cmp.Or(strings.Compare(x.Node, y.Node), strings.Compare(x.Key, y.Key))
	})
	if b.series == nil {
		b.series = []series{}
	}
	return b.series
}

// eventTally is one read of the events a view selects: what the filters
// count and what the histogram draws, shared by both and by every page
// that asks within a minute.
type eventTally struct {
	events                  int64
	kinds                   map[string]int64
	keys                    map[string]map[string]int64
	since, until            time.Time
	width                   int64
	byComponent, byCategory bands
}

func (s *Server) tally(ctx context.Context, v *view, bars int) (*eventTally, error) {
	val, err := s.once(ctx, fmt.Sprintf("tally %d %d %s", v.inc.Latest, bars, v.key), func() (any, error) {
		fr, err := s.frame(ctx, v, bars)
		if err != nil {
			return nil, err
		}
		t := &eventTally{kinds: map[string]int64{}, keys: map[string]map[string]int64{}, since: fr.since, until: fr.until, width: fr.width,
			byComponent: bands{frame: fr}, byCategory: bands{frame: fr}}
		category := map[forensics.Kind]string{}
		for _, d := range s.opts.Kinds {
			category[d.Kind] = string(d.Category)
		}
		add := func(key, val string) {
			if val == "" {
				return
			}
			m := t.keys[key]
			if m == nil {
				m = map[string]int64{}
				t.keys[key] = m
			}
			if _, ok := m[val]; ok || len(m) < 10*maxKeys {
				m[val]++
			}
		}
		for e, err := range s.db.Events(ctx, v.eventFilter()) {
			if err != nil {
				return nil, err
			}
			if !v.matchEvent(e) {
				continue
			}
			t.events++
			t.kinds[string(e.Kind)]++
			add("bucket", e.Bucket)
			if e.VB != forensics.NoVB {
				add("vb", strconv.Itoa(e.VB))
			}
			if e.Range != 0 {
				add("range", strconv.FormatInt(e.Range, 10))
			}
			add("keyspace", e.Keyspace)
			add("table", e.Table)
			t.byComponent.add(e.Time, e.Node, fr.component[e.Path])
			t.byCategory.add(e.Time, e.Node, cmp.Or(category[e.Kind], "other"))
		}
		t.byComponent.sorted()
		t.byCategory.sorted()
		return t, nil
	})
	if err != nil {
		return nil, err
	}
	return val.(*eventTally), nil
}

// context answers the lines of a line's own file around it.
func (s *Server) context(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	inc, err := s.incident(ctx, q.Get("incident"))
	if err != nil {
		return nil, err
	}
	path := q.Get("path")
	n, err := strconv.ParseInt(q.Get("line"), 10, 64)
	if err != nil || n < 1 || path == "" {
		return nil, bad("path and line (a number) say which line")
	}
	t, err := timeParam(q, "t")
	if err != nil || t.IsZero() {
		return nil, bad("t: the line's time")
	}
	around := int64(10)
	if a := q.Get("n"); a != "" {
		if around, err = strconv.ParseInt(a, 10, 64); err != nil || around < 1 || around > 200 {
			return nil, bad("n %q: 1 to 200", a)
		}
	}
	out := []line{}
	// The file's lines near the line's time: a file's clock may go back,
	// so the window is wide and the lines are picked by number.
	f := store.LineFilter{Run: inc.Latest, Paths: []string{path}, Since: t.Add(-10 * time.Minute), Until: t.Add(10 * time.Minute)}
	for l, err := range s.db.Lines(ctx, f) {
		if err != nil {
			return nil, err
		}
		if l.Path == path && l.N >= n-around && l.N <= n+around {
			out = append(out, newLine(l))
			if len(out) > int(2*around+1) {
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b line) int { return cmp.Compare(a.N, b.N) })
	return out, nil
}

// findingItem is a finding in the list.
type findingItem struct {
	ID       string    `json:"id"`
	Rule     string    `json:"rule"`
	Severity string    `json:"severity"`
	Title    string    `json:"title"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Evidence int       `json:"evidence"`
}

func (s *Server) findings(ctx context.Context, r *http.Request) (any, error) {
	inc, err := s.incident(ctx, r.URL.Query().Get("incident"))
	if err != nil {
		return nil, err
	}
	fs, err := s.db.Findings(ctx, inc.Latest)
	if err != nil {
		return nil, err
	}
	out := make([]findingItem, 0, len(fs))
	for _, f := range fs {
		out = append(out, findingItem{f.ID, f.Rule, f.Severity.String(), f.Title, f.Start.UTC(), f.End.UTC(), len(f.Evidence)})
	}
	slices.SortStableFunc(out, func(a, b findingItem) int {
		sa, _ := forensics.ParseSeverity(a.Severity)
		sb, _ := forensics.ParseSeverity(b.Severity)
		return cmp.Compare(sb, sa)
	})
	return out, nil
}

// findingPage is a finding with its swimlane's data.
type findingPage struct {
	forensics.Finding
	Swimlane any `json:"swimlane,omitempty"`
}

func (s *Server) finding(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	id := q.Get("id")
	if !findingID.MatchString(id) {
		return nil, bad("id %q is not a finding id (12 hex digits)", id)
	}
	inc, err := s.incident(ctx, q.Get("incident"))
	if err != nil {
		return nil, err
	}
	f, err := s.db.FindingIn(ctx, inc.Latest, id)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotFound, err)
	}
	srcs, err := s.db.Sources(ctx, inc.Latest)
	if err != nil {
		return nil, err
	}
	components := map[string]string{}
	for _, src := range srcs {
		components[src.Path] = src.Component
	}
	out := findingPage{Finding: f.Finding}
	out.Swimlane, err = report.Swimlane(ctx, f.Finding, components, report.InputRoot(inc.Inputs), report.HTMLOptions{Timeline: store.Timeline(s.db, inc.Latest), Kinds: s.opts.Kinds})
	return out, err
}

var findingID = regexp.MustCompile(`^[0-9a-f]{4,12}$`)

// kindDoc is what the page shows of an event kind.
type kindDoc struct {
	Category string `json:"category"`
	Label    string `json:"label"`
}

func (s *Server) kinds(ctx context.Context, r *http.Request) (any, error) {
	out := map[string]kindDoc{}
	for _, d := range s.opts.Kinds {
		out[string(d.Kind)] = kindDoc{string(d.Category), d.Label}
	}
	return out, nil
}
