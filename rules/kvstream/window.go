package kvstream

import (
	"fmt"
	"sort"
	"time"

	"forensics"
	"forensics/parsers/memcached"
	"forensics/parsers/projector"
)

// A busy cluster logs DCP stream answers by the hundred thousand, and a
// bundle may hold hundreds of restarts: held whole, the high-volume kinds
// took 734 MB at 4,000 restart episodes. run holds only what a finding can
// use: the rare kinds (restarts, warmup, traffic, failovers), and the
// high-volume kinds of one window at a time, around the restarts that can
// make a finding (a killed memcached, not a clean restart), read a slice of
// time at a time and kept only when the rule can look at them, without
// their text (read back for the lines a finding quotes).

func run(p *forensics.Pass) error {
	var rare, frequent []forensics.Kind
	for _, k := range p.Rule.Kinds {
		if highVolume[k] {
			frequent = append(frequent, k)
		} else {
			rare = append(rare, k)
		}
	}
	evs, err := forensics.Collect(p.Events(rare...))
	if err != nil {
		return err
	}
	all := index(evs).restarts()
	if len(all) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for i := range evs {
		seen[evs[i].Node] = true
	}
	topics := map[string]*forensics.Event{}
	text := func(e *forensics.Event) (string, error) { return lineText(p, e) }
	var found []pending
	for _, w := range windows(all) {
		s := slide{evs: evs, pending: w.restarts, topics: topics, text: text}
		keep := keeper(w.restarts)
		err := scan(p, frequent, w.from, w.to, func(e *forensics.Event) error {
			seen[e.Node] = true
			if keep(e) {
				s.near = append(s.near, slim(e))
			}
			return s.advance(e.Time, &found)
		})
		if err == nil {
			err = s.finish(&found)
		}
		if err != nil {
			return err
		}
	}
	var nodes []string
	for n := range seen {
		if n != "" {
			nodes = append(nodes, n)
		}
	}
	sort.Strings(nodes)
	for _, f := range found {
		p.Report(f.finish(nodes))
	}
	return nil
}

// window is a stretch of the timeline read at once: the restarts whose
// looks (lookBefore each signal to lookAfter it) overlap.
type window struct {
	from, to time.Time
	restarts []*restart
}

func (w *window) holds(r *restart) bool {
	for _, o := range w.restarts {
		if o.node == r.node && o.at.Equal(r.at) {
			return true
		}
	}
	return false
}

// look is the stretch of the timeline a restart's analysis reads the
// high-volume kinds of.
func look(r *restart) (from, to time.Time) {
	from, to = r.at.Add(-lookBefore), r.at.Add(lookAfter)
	for _, s := range r.signals {
		if t := s.Time.Add(lookAfter); t.After(to) {
			to = t
		}
	}
	return from, to
}

// windows merges the looks of the restarts (in time order) into windows.
func windows(rs []*restart) []*window {
	var out []*window
	for _, r := range rs {
		from, to := look(r)
		if n := len(out); n > 0 && !from.After(out[n-1].to) {
			w := out[n-1]
			if to.After(w.to) {
				w.to = to
			}
			w.restarts = append(w.restarts, r)
			continue
		}
		out = append(out, &window{from: from, to: to, restarts: []*restart{r}})
	}
	return out
}

// scan reads the events of kinds in [from, to) in timeline order, through
// one cursor, until each returns an error. The event passed to each is
// valid during the call.
func scan(p *forensics.Pass, kinds []forensics.Kind, from, to time.Time, each func(*forensics.Event) error) error {
	for e, err := range p.Query(forensics.Query{Kinds: kinds, Since: from, Until: to}) {
		if err != nil {
			return fmt.Errorf("read stream events from %s: %w", from.UTC().Format(time.RFC3339), err)
		}
		if err := each(e); err != nil {
			return err
		}
	}
	return nil
}

// slide holds the high-volume events of a window as they are read, and
// analyses its restarts as the reading passes the end of their looks,
// dropping then what no restart still to analyse can look at. Restarts
// every few minutes merge a whole bundle into one window; held whole, its
// events grew with the bundle.
type slide struct {
	evs     []forensics.Event // the rare kinds, whole
	near    []forensics.Event // the high-volume kinds read and kept, in timeline order
	pending []*restart        // the window's restarts not analysed yet, in time order
	held    int               // len(near) after the last analysis
	topics  map[string]*forensics.Event
	text    func(*forensics.Event) (string, error)
}

// slideBatch is how many events a slide holds at least before it analyses
// the restarts whose looks have ended: analysing indexes all it holds, so
// it waits until what it holds has doubled, for a cost linear in the events.
var slideBatch = 1 << 14

// advance is called with the time of each event read.
func (s *slide) advance(now time.Time, found *[]pending) error {
	if len(s.near) < slideBatch || len(s.near) < 2*s.held {
		return nil
	}
	return s.analyse(func(r *restart) bool {
		_, to := look(r)
		return !now.Before(to)
	}, found)
}

// finish analyses the restarts left once the window is read.
func (s *slide) finish(found *[]pending) error {
	return s.analyse(func(*restart) bool { return true }, found)
}

func (s *slide) analyse(done func(*restart) bool, found *[]pending) error {
	var now, rest []*restart
	for _, r := range s.pending {
		if done(r) {
			now = append(now, r)
		} else {
			rest = append(rest, r)
		}
	}
	if len(now) == 0 {
		s.held = len(s.near)
		return nil
	}
	ix := index(s.evs, s.near)
	ix.topics, ix.text = s.topics, s.text
	// The restarts as the whole timeline tells them (each one's next
	// restart on the node), for those analysed now.
	w := window{restarts: now}
	var rs []*restart
	for _, r := range ix.restarts() {
		if w.holds(r) {
			rs = append(rs, r)
		}
	}
	*found = append(*found, ix.analyze(rs)...)
	if ix.err != nil {
		return ix.err
	}
	s.pending = rest
	if len(rest) > 0 {
		from, _ := look(rest[0]) // the earliest: looks start a fixed time before their restart
		i := sort.Search(len(s.near), func(i int) bool { return !s.near[i].Time.Before(from) })
		s.near = append(s.near[:0], s.near[i:]...)
	}
	s.held = len(s.near)
	return nil
}

// keeper says which high-volume events of a window the rule can look at for
// its restarts; it drops the rest as they are read. It follows what
// analyze.go and finding.go read of each kind:
//
//   - the node's own answers (memcached's stream creations and rollbacks,
//     the projector's rollbacks and posted responses), of the restarted
//     nodes only; ns_server's replication streams are never answers;
//   - rollbacks on other nodes and replica→active transitions, for the
//     second rollback after a failover (aftermath);
//   - the indexer's stream begins, ends and rollbacks, of any node (they
//     name the KV node by host, and pair with each other by line);
//   - the projector's stream ends of the restarted nodes (skew.go).
func keeper(rs []*restart) func(*forensics.Event) bool {
	nodes := map[string]bool{}
	for _, r := range rs {
		nodes[r.node] = true
	}
	return func(e *forensics.Event) bool {
		switch e.Kind {
		case mcCreated:
			return nodes[e.Node] && e.Bucket != "" && e.VB != forensics.NoVB && !isReplication(e)
		case mcRollback:
			return e.Bucket != "" && e.VB != forensics.NoVB && !isReplication(e)
		case mcVBState:
			return e.Attr(memcached.AttrFrom) == "replica" && e.Attr(memcached.AttrTo) == "active"
		case prRollback, prStreamEnd:
			return nodes[e.Node]
		case prResponse:
			return nodes[e.Node] && e.VB != forensics.NoVB && e.Attr(projector.AttrStatus) == "SUCCESS" && e.Attr(projector.AttrStage) == "posted"
		}
		return true
	}
}

// used are the attributes the rule reads of high-volume events.
var used = map[string]bool{
	"consumer": true, "consumer_kind": true, "consumer_short": true, "start_seqno": true, "rollback_seqno": true,
	"seqno": true, "topic": true, "status": true, "stage": true, "kv_host": true, "keyspace": true, "stream": true,
	"from": true, "to": true,
}

// slim copies an event without its text and with only the attributes the
// rule reads: a stream creation's line and attributes are most of its
// memory, and the rule quotes few of them (lineText reads those back).
func slim(e *forensics.Event) forensics.Event {
	out := *e
	out.Text = ""
	out.Attrs = nil
	for _, a := range e.Attrs {
		if used[a.Key] {
			out.Attrs = append(out.Attrs, a)
		}
	}
	return out
}

// lineText reads back the text of an event slim dropped it from.
func lineText(p *forensics.Pass, e *forensics.Event) (string, error) {
	q := forensics.Query{Kinds: []forensics.Kind{e.Kind}, Since: e.Time, Until: e.Time.Add(time.Nanosecond)}
	if e.Node != "" {
		q.Nodes = []string{e.Node}
	}
	for o, err := range p.Query(q) {
		if err != nil {
			return "", fmt.Errorf("read %s:%d again: %w", e.Path, e.Line, err)
		}
		if o.Path == e.Path && o.Line == e.Line {
			return o.Text, nil
		}
	}
	return "", nil
}
