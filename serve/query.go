package serve

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/store"
)

// view is what a request selects: an incident's run and the filters the
// page combines (search, nodes, components, files, kinds, system keys,
// time range). The URL of the page holds the same parameters.
type view struct {
	inc     store.Incident
	lines   store.LineFilter
	query   forensics.Query // kinds and system keys: the listing is of events
	text    string          // the search as typed
	mode    string          // literal, fold or regexp
	byEvent bool            // a kind or system key is chosen: only events match
	key     string          // the view's parameters, for the cache
}

// viewParams are the parameters of a view.
var viewParams = []string{"incident", "q", "mode", "node", "component", "file", "kind", "since", "until", "bucket", "vb", "range", "keyspace", "table"}

// maxValues bounds how many values one filter takes.
const maxValues = 200

func (s *Server) incident(ctx context.Context, name string) (store.Incident, error) {
	incs, err := s.db.Incidents(ctx)
	if err != nil {
		return store.Incident{}, err
	}
	if len(incs) == 0 {
		return store.Incident{}, fmt.Errorf("%w: %s holds no analysis yet", errNotFound, s.db.Name())
	}
	if name == "" {
		return incs[len(incs)-1], nil
	}
	for _, inc := range incs {
		if inc.Name == name {
			return inc, nil
		}
	}
	return store.Incident{}, fmt.Errorf("%w: no incident %q", errNotFound, name)
}

func (s *Server) view(ctx context.Context, q url.Values) (*view, error) {
	inc, err := s.incident(ctx, q.Get("incident"))
	if err != nil {
		return nil, err
	}
	v := &view{inc: inc, text: q.Get("q"), mode: q.Get("mode")}
	key := url.Values{}
	for _, p := range viewParams {
		if vals, ok := q[p]; ok {
			key[p] = vals
		}
	}
	v.key = key.Encode()
	v.lines.Run = inc.Latest
	for _, name := range []string{"node", "component", "file", "kind"} {
		if len(q[name]) > maxValues {
			return nil, bad("more than %d values of %s", maxValues, name)
		}
	}
	v.lines.Nodes, v.lines.Components, v.lines.Paths = q["node"], q["component"], q["file"]
	for _, k := range q["kind"] {
		v.query.Kinds = append(v.query.Kinds, forensics.Kind(k))
	}
	if v.lines.Since, err = timeParam(q, "since"); err != nil {
		return nil, err
	}
	if v.lines.Until, err = timeParam(q, "until"); err != nil {
		return nil, err
	}
	v.query.Bucket, v.query.Keyspace, v.query.Table = q.Get("bucket"), q.Get("keyspace"), q.Get("table")
	if r := q.Get("range"); r != "" {
		if v.query.Range, err = strconv.ParseInt(r, 10, 64); err != nil || v.query.Range <= 0 {
			return nil, bad("range %q is not a range id", r)
		}
	}
	if vb := q.Get("vb"); vb != "" {
		n, err := strconv.Atoi(vb)
		if err != nil || n < 0 {
			return nil, bad("vb %q is not a vbucket", vb)
		}
		v.query.VB = &n
	}
	v.byEvent = len(v.query.Kinds) > 0 || v.query.Bucket != "" || v.query.Keyspace != "" || v.query.Table != "" || v.query.Range != 0 || v.query.VB != nil
	if len(v.text) > 1000 {
		return nil, bad("the search is longer than 1000 characters")
	}
	switch v.mode {
	case "", "literal":
		v.lines.Text = v.text
	case "fold":
		v.lines.Text, v.lines.Fold = v.text, true
	case "regexp":
		if v.text != "" {
			re, err := regexp.Compile(v.text)
			if err != nil {
				return nil, bad("the search is not a regular expression: %v", err)
			}
			v.lines.Regexp = re
		}
	default:
		return nil, bad("mode %q: literal, fold or regexp", v.mode)
	}
	return v, nil
}

func timeParam(q url.Values, name string) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	if ns, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(0, ns).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, bad("%s %q: a time in RFC 3339 (2024-01-02T15:04:05Z) or unix nanoseconds", name, v)
	}
	return t.UTC(), nil
}

// eventFilter is the view as a filter of events.
func (v *view) eventFilter() store.EventFilter {
	f := store.EventFilter{Query: v.query, Run: v.lines.Run, Paths: v.lines.Paths, Components: v.lines.Components}
	f.Nodes, f.Since, f.Until = v.lines.Nodes, v.lines.Since, v.lines.Until
	if !v.lines.Fold {
		f.Text = v.lines.Text
	}
	return f
}

// matchEvent applies what an event filter cannot say: a search in either
// case or by regular expression.
func (v *view) matchEvent(e *forensics.Event) bool {
	switch {
	case v.lines.Regexp != nil:
		return v.lines.Regexp.MatchString(e.Text)
	case v.lines.Fold && v.lines.Text != "":
		return strings.Contains(strings.ToLower(e.Text), strings.ToLower(v.lines.Text))
	}
	return true
}

// line is a line of the merged timeline as the page gets it.
type line struct {
	Time   time.Time `json:"time"`
	NS     int64     `json:"ns"`
	Offset int32     `json:"offset"` // seconds east of UTC as the node logged it
	Zone   string    `json:"zone"`
	Node   string    `json:"node"`
	Path   string    `json:"path"`
	N      int64     `json:"line"`
	Kinds  []string  `json:"kinds,omitempty"`
	Text   string    `json:"text"`
	Pos    string    `json:"pos"` // where the line is: before=pos pages back from it
}

func newLine(l *store.Line) line {
	out := line{Time: l.Time.UTC(), NS: l.Time.UnixNano(), Offset: l.Offset, Zone: l.Flags.Zone.String(), Node: l.Node, Path: l.Path, N: l.N, Text: l.Text}
	for _, k := range l.Kinds {
		out.Kinds = append(out.Kinds, string(k))
	}
	out.Pos = pos{out.NS, l.Path, l.N}.String()
	return out
}

func eventLine(e *forensics.Event) line {
	out := line{Time: e.Time.UTC(), NS: e.Time.UnixNano(), Offset: e.Offset, Zone: e.Zone.String(), Node: e.Node, Path: e.Path, N: e.Line, Text: e.Text, Kinds: []string{string(e.Kind)}}
	out.Pos = pos{out.NS, e.Path, e.Line}.String()
	return out
}

// pos is a line's place on the timeline, for paging backwards from it.
type pos struct {
	ns   int64
	path string
	n    int64
}

func (p pos) String() string {
	b := binary.AppendVarint(nil, p.ns)
	b = binary.AppendVarint(b, p.n)
	return base64.RawURLEncoding.EncodeToString(append(b, p.path...))
}

func parsePos(s string) (pos, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	var p pos
	var k int
	if err == nil {
		if p.ns, k = binary.Varint(b); k > 0 {
			b = b[k:]
			if p.n, k = binary.Varint(b); k > 0 {
				p.path = string(b[k:])
				return p, nil
			}
		}
	}
	return pos{}, bad("before %q is not a line's pos", s)
}

// before reports whether p comes before l on the timeline.
func (p pos) before(l *line) bool {
	return p.compare(l) < 0
}

// after reports whether l comes before p on the timeline; a pos without
// a path is a time, and comes after every line earlier than it.
func (p pos) after(l *line) bool {
	switch {
	case p.path == "" && p.n == 0:
		return l.NS < p.ns
	case l.NS != p.ns:
		return l.NS < p.ns
	case l.Path != p.path:
		return l.Path < p.path
	}
	return l.N < p.n
}

// is reports whether l is the line at p.
func (p pos) is(l *line) bool { return p.path != "" && l.Path == p.path && l.N == p.n }

func (p pos) compare(l *line) int {
	return cmp.Or(cmp.Compare(p.ns, l.NS), strings.Compare(p.path, l.Path), cmp.Compare(p.n, l.N))
}

// page is a page of the merged timeline.
type page struct {
	Lines []line `json:"lines"`
	// Next continues after the last line (as after=); "" at the end.
	Next string `json:"next"`
	// More says there are lines before the first (before=its pos).
	More bool `json:"more"`
	// Search says how the store's index read the timeline for the search.
	Search *store.SearchStats `json:"search,omitempty"`
}

const (
	defaultPage = 200
	maxPage     = 1000
)

// lines answers a page of the merged timeline: forward from after= (a
// page's next) or from at= (a time), or backward from before= (a line's
// pos). With a kind or a system key chosen, the page lists events.
func (s *Server) lines(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	v, err := s.view(ctx, q)
	if err != nil {
		return nil, err
	}
	limit := defaultPage
	if l := q.Get("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil || limit <= 0 || limit > maxPage {
			return nil, bad("limit %q: 1 to %d", l, maxPage)
		}
	}
	at, err := timeParam(q, "at")
	if err != nil {
		return nil, err
	}
	var from *pos // forward from a line's place, after it
	if b := q.Get("from"); b != "" {
		p, err := parsePos(b)
		if err != nil {
			return nil, err
		}
		from, at = &p, time.Unix(0, p.ns).UTC()
	}
	if b := q.Get("before"); b != "" {
		p, err := parsePos(b)
		if err != nil {
			return nil, err
		}
		return s.backward(ctx, v, p, limit)
	}
	if b := q.Get("upto"); b != "" { // the lines before a time, as before= a place
		t, err := timeParam(q, "upto")
		if err != nil {
			return nil, err
		}
		return s.backward(ctx, v, pos{ns: t.UnixNano()}, limit)
	}
	if v.byEvent {
		return s.eventPage(ctx, v, q.Get("after"), at, from, limit)
	}
	srch := store.Search{LineFilter: v.lines, After: q.Get("after"), Limit: limit}
	if !at.IsZero() && srch.After == "" && at.After(srch.Since) {
		srch.Since = at
	}
	out := &page{Lines: []line{}}
	if from != nil {
		srch.Limit = 0 // counted here, from the line after from
	}
	passed := from == nil
	res, err := s.db.Search(ctx, srch, func(l *store.Line) bool {
		ln := newLine(l)
		if !passed {
			// The lines up to from itself, in the listing's order; a line
			// later in time than from passes too, should from be gone.
			passed = from.is(&ln) || ln.NS > from.ns
			if from.is(&ln) {
				return true
			}
		}
		if passed {
			out.Lines = append(out.Lines, ln)
		}
		return len(out.Lines) < limit
	})
	if err != nil {
		return nil, err
	}
	out.Next = res.Next
	if v.lines.Text != "" || v.lines.Regexp != nil {
		out.Search = &res.Stats
	}
	return out, nil
}

// backward reads the lines just before p, a window of time at a time,
// widening it until it holds a page or reaches the start: it keeps the
// last limit lines only, so memory stays a page whatever it reads.
func (s *Server) backward(ctx context.Context, v *view, p pos, limit int) (*page, error) {
	lower := v.lines.Since
	if lower.IsZero() {
		first, _, err := s.span(ctx, v.inc.Latest)
		if err != nil {
			return nil, err
		}
		lower = first
	}
	until := time.Unix(0, p.ns+1).UTC()
	ring := make([]line, 0, limit)
	for width := 10 * time.Second; ; width *= 8 {
		since := time.Unix(0, p.ns).Add(-width).UTC()
		last := !since.After(lower)
		if last {
			since = lower
		}
		ring = ring[:0]
		full := false
		keep := func(l line) {
			if v.byEvent && !p.after(&l) {
				return
			}
			if len(ring) == limit {
				copy(ring, ring[1:])
				ring = ring[:limit-1]
				full = true
			}
			ring = append(ring, l)
		}
		if v.byEvent {
			f := v.eventFilter()
			f.Since, f.Until = since, until
			for e, err := range s.db.Events(ctx, f) {
				if err != nil {
					return nil, err
				}
				if v.matchEvent(e) {
					keep(eventLine(e))
				}
			}
		} else {
			// The lines in the order a forward page gives them (a file
			// whose clock goes back keeps its order), up to p itself.
			f := v.lines
			f.Since, f.NoKinds = since, false
			end := p.ns + int64(width)
			_, err := s.db.Search(ctx, store.Search{LineFilter: f}, func(l *store.Line) bool {
				ln := newLine(l)
				if p.is(&ln) || p.path == "" && ln.NS >= p.ns || ln.NS > end {
					return false
				}
				keep(ln)
				return true
			})
			if err != nil {
				return nil, err
			}
		}
		if len(ring) == limit || last {
			return &page{Lines: ring, More: full || !last}, nil
		}
	}
}

// eventPage lists the events the view selects, a page at a time: after=
// is then "e", the time the listing started from and how many it gave.
func (s *Server) eventPage(ctx context.Context, v *view, after string, at time.Time, from *pos, limit int) (*page, error) {
	f := v.eventFilter()
	skip := 0
	if after != "" {
		from, n, ok := strings.Cut(strings.TrimPrefix(after, "e"), ".")
		ns, err1 := strconv.ParseInt(from, 10, 64)
		k, err2 := strconv.Atoi(n)
		if !ok || !strings.HasPrefix(after, "e") || err1 != nil || err2 != nil || k < 0 {
			return nil, bad("after %q is not where a page of events ended", after)
		}
		at, skip = time.Time{}, k
		if ns != 0 {
			at = time.Unix(0, ns).UTC()
		}
	}
	if !at.IsZero() && at.After(f.Since) {
		f.Since = at
	}
	out := &page{Lines: []line{}}
	seen := 0
	for e, err := range s.db.Events(ctx, f) {
		if err != nil {
			return nil, err
		}
		if !v.matchEvent(e) {
			continue
		}
		seen++
		if seen <= skip {
			continue
		}
		if len(out.Lines) == limit {
			from := int64(0)
			if !f.Since.IsZero() {
				from = f.Since.UnixNano()
			}
			out.Next = fmt.Sprintf("e%d.%d", from, seen-1)
			break
		}
		if ln := eventLine(e); from == nil || from.before(&ln) {
			out.Lines = append(out.Lines, ln)
		}
	}
	return out, nil
}

// span is the first and last time of a run's lines.
func (s *Server) span(ctx context.Context, run int64) (first, last time.Time, err error) {
	srcs, err := s.db.Sources(ctx, run)
	if err != nil {
		return first, last, err
	}
	for _, src := range srcs {
		if !src.First.IsZero() && (first.IsZero() || src.First.Before(first)) {
			first = src.First
		}
		if src.Last.After(last) {
			last = src.Last
		}
	}
	return first.UTC(), last.UTC(), nil
}
