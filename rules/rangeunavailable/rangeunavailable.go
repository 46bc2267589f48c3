// Package rangeunavailable holds the rule crdb-range-unavailable: a
// CockroachDB range that could not serve requests.
package rangeunavailable

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"forensics"
	"forensics/parsers/crdb"
	"forensics/rules/evidence"
	"forensics/shell"
)

// The details of a finding's subject (Rule.Details).
var (
	replicasDetail = forensics.Detail{Key: "replicas", Type: forensics.DetailList, Join: " ", Doc: "the range's replicas, as logged ((n1,s1):1)"}
	downDetail     = forensics.Detail{Key: "down", Type: forensics.DetailList, Join: " ", Doc: "the replicas reported down, as logged ((n3,s3):5)"}
)

// Rule flags a range that was unavailable.
var Rule = &forensics.Rule{
	Name: "crdb-range-unavailable",
	Doc: forensics.Doc{
		Title: "a range could not serve requests: proposals stuck, circuit breaker tripped",
		Detects: `A range whose replica tripped its circuit breaker ("breaker: tripped with error: replica unavailable: (n1,s1):1
unable to serve request to r84:… [replicas]: lost quorum (down: …)", v22.1+, after "have been waiting 60.50s for slow
proposal …"), or whose proposals waited and never finished in the logs (up to v21.2: "have been waiting 60.00s for
proposing command …", "range unavailable: have been waiting …", with their Non-live replicas), with which replicas
were down, since when, and when it recovered ("breaker: breaker reset", "slow command … finished after …"). One
finding per range and episode, across nodes and files. Severity critical.
Not flagged: a slow proposal that finished ("slow command … finished after …") with no breaker trip.`,
		Why: `A range serves writes only while a majority of its replicas can append to its Raft log. With a quorum down, every
write to the range (and every read that needs a lease) hangs; since v22.1 the circuit breaker fails them fast with
"replica unavailable" instead. Whatever table or index the range holds is unavailable until enough replicas return;
if the range is a system range (liveness, meta, jobs), the whole cluster suffers.`,
		Confirm: `In the DB Console, Replication → Unavailable ranges (ranges.unavailable), and the range report /#/reports/range/N
for its replicas and their Raft state. SELECT … FROM crdb_internal.ranges WHERE range_id = N shows its replicas; the
nodes named down should be dead or partitioned (cockroach node status).`,
		Inputs: `Node logs in any format, or a debug zip's debug/nodes/N/logs; slow proposals and breaker lines are in the main
cockroach.log (and cockroach-kv-distribution.log for some channels in newer releases).`,
		Fixes: `Bring the down replicas' nodes back (restart them, fix their disk or network). If they cannot return, the range
has lost quorum for good: follow the loss-of-quorum recovery procedure (cockroach debug recover, v22.2+) with support.`,
	},
	Kinds:   []forensics.Kind{crdb.KindProposalSlow, crdb.KindProposalFinished, crdb.KindProposalNonLive, crdb.KindBreakerTripped, crdb.KindBreakerReset},
	Details: []forensics.Detail{replicasDetail, downDetail},
	Run:     run,
}

const (
	// maxGap is the longest pause between the signs of one episode: slow
	// proposals repeat their warning each time a new one waits past the
	// threshold, and the breaker probes every few seconds.
	maxGap = 5 * time.Minute
	// recoveryWait is how long after an episode a recovery line is looked for.
	recoveryWait = 30 * time.Minute
)

func run(pass *forensics.Pass) error {
	signs, err := forensics.Collect(pass.Events(crdb.KindProposalSlow, crdb.KindBreakerTripped))
	if err != nil {
		return fmt.Errorf("read slow proposals and circuit breakers: %w", err)
	}
	eps := episodes(forensics.Distinct(signs))
	for _, ep := range eps {
		rec, err := forensics.Collect(pass.Query(forensics.Query{
			Kinds: []forensics.Kind{crdb.KindProposalFinished, crdb.KindBreakerReset, crdb.KindProposalNonLive},
			Range: ep.rng, Since: ep.signs[0].Time, Until: ep.last().Add(recoveryWait),
		}))
		if err != nil {
			return fmt.Errorf("read recoveries of r%d: %w", ep.rng, err)
		}
		ep.recover(forensics.Distinct(rec))
		if ep.flagged() {
			pass.Report(ep.finding())
		}
	}
	return nil
}

// episode is one stretch of unavailability of one range.
type episode struct {
	rng      int64
	signs    []*forensics.Event // slow proposals and breaker trips, in time order
	finished []*forensics.Event // slow commands that finished
	reset    *forensics.Event   // the breaker reset that ended it
	nonLive  []*forensics.Event // the replicas slow proposals could not reach (v20.1–v22.x)
}

func (ep *episode) last() time.Time { return ep.signs[len(ep.signs)-1].Time }

func (ep *episode) trips() []*forensics.Event  { return ep.of(crdb.KindBreakerTripped) }
func (ep *episode) slowed() []*forensics.Event { return ep.of(crdb.KindProposalSlow) }

func (ep *episode) of(k forensics.Kind) []*forensics.Event {
	var out []*forensics.Event
	for _, e := range ep.signs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// episodes groups the signs per range.
func episodes(evs []forensics.Event) []*episode {
	var out []*episode
	open := map[int64]*episode{}
	for i := range evs {
		e := &evs[i]
		if e.Range == 0 {
			continue
		}
		ep := open[e.Range]
		if ep == nil || e.Time.Sub(ep.last()) > maxGap {
			ep = &episode{rng: e.Range}
			open[e.Range] = ep
			out = append(out, ep)
		}
		ep.signs = append(ep.signs, e)
	}
	return out
}

// recover takes the recovery lines that belong to the episode: the
// finished slow commands of each node that logged a slow proposal, and the
// first breaker reset after the last trip.
func (ep *episode) recover(rec []forensics.Event) {
	lastTrip := time.Time{}
	if ts := ep.trips(); len(ts) > 0 {
		lastTrip = ts[len(ts)-1].Time
	}
	for i := range rec {
		e := &rec[i]
		switch e.Kind {
		case crdb.KindProposalFinished:
			ep.finished = append(ep.finished, e)
		case crdb.KindProposalNonLive:
			if !e.Time.After(ep.last()) {
				ep.nonLive = append(ep.nonLive, e)
			}
		case crdb.KindBreakerReset:
			if ep.reset == nil && !lastTrip.IsZero() && !e.Time.Before(lastTrip) {
				ep.reset = e
			}
		}
	}
}

// unfinished returns the slow proposals no later "finished" line of the
// same node and command answers.
func (ep *episode) unfinished() []*forensics.Event {
	var out []*forensics.Event
	used := map[*forensics.Event]bool{}
	for _, p := range ep.slowed() {
		done := false
		for _, f := range ep.finished {
			if !used[f] && f.Node == p.Node && !f.Time.Before(p.Time) && f.Attr(crdb.AttrCommand) == p.Attr(crdb.AttrCommand) {
				used[f] = true
				done = true
				break
			}
		}
		if !done {
			out = append(out, p)
		}
	}
	return out
}

func (ep *episode) flagged() bool {
	return len(ep.trips()) > 0 || len(ep.unfinished()) > 0
}

// start is when the range stopped serving, as far as the logs tell: the
// first slow proposal minus the time it had waited, or the first trip.
func (ep *episode) start() time.Time {
	start := ep.signs[0].Time
	for _, p := range ep.slowed() {
		if d, err := time.ParseDuration(p.Attr(crdb.AttrDuration)); err == nil {
			if t := p.Time.Add(-d); t.Before(start) {
				start = t
			}
		}
	}
	return start
}

// end is when it served again: the breaker reset, or the last slow command
// to finish; the last sign when it did not recover in the logs.
func (ep *episode) end() (time.Time, bool) {
	if ep.reset != nil {
		return ep.reset.Time, true
	}
	if len(ep.trips()) == 0 && len(ep.unfinished()) == 0 && len(ep.finished) > 0 {
		return ep.finished[len(ep.finished)-1].Time, true
	}
	return ep.last(), false
}

// replicas and down come from the breaker's error, which lists them, and
// down also from the slow proposals' Non-live replicas.
func (ep *episode) replicas() (all, down []string) {
	seenA, seenD := map[string]bool{}, map[string]bool{}
	addDown := func(e *forensics.Event) {
		for _, r := range split(e.Attr(crdb.AttrDown)) {
			if !seenD[r] {
				seenD[r] = true
				down = append(down, r)
			}
		}
	}
	for _, t := range ep.trips() {
		for _, r := range split(t.Attr(crdb.AttrReplicas)) {
			if !seenA[r] {
				seenA[r] = true
				all = append(all, r)
			}
		}
		addDown(t)
	}
	for _, p := range ep.slowed() {
		addDown(p)
	}
	for _, n := range ep.nonLive {
		addDown(n)
	}
	sort.Strings(all)
	sort.Strings(down)
	return all, down
}

// split splits "(n3,s3):5,(n2,s2):3" into replicas; the commas inside the
// parentheses do not separate.
func split(s string) []string {
	var out []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				if r := strings.TrimSpace(s[from:i]); r != "" {
					out = append(out, r)
				}
				from = i + 1
			}
		}
	}
	if r := strings.TrimSpace(s[from:]); r != "" {
		out = append(out, r)
	}
	return out
}

func (ep *episode) nodes() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range ep.signs {
		if e.Node != "" && !seen[e.Node] {
			seen[e.Node] = true
			out = append(out, e.Node)
		}
	}
	sort.Strings(out)
	return out
}

func (ep *episode) finding() forensics.Finding {
	all, down := ep.replicas()
	start := ep.start()
	end, recovered := ep.end()
	state := "not recovered in these logs"
	if recovered {
		state = "recovered after " + evidence.Round(end.Sub(start)).String()
	}
	title := fmt.Sprintf("r%d could not serve requests (%s)", ep.rng, state)
	switch {
	case len(down) > 0 && len(ep.trips()) > 0:
		title = fmt.Sprintf("r%d lost quorum with %s down (%s)", ep.rng, strings.Join(down, ", "), state)
	case len(down) > 0:
		title = fmt.Sprintf("r%d could not serve requests with %s not live (%s)", ep.rng, strings.Join(down, ", "), state)
	}
	f := forensics.Finding{
		Severity: forensics.Critical,
		Title:    title,
		Subject:  forensics.FindingSubject{Range: ep.rng, Details: forensics.Details{replicasDetail.List(all), downDetail.List(down)}},
		Start:    start,
		End:      end,
	}
	f.Explanation = ep.explain(all, down, start, end, recovered)
	f.Evidence = ep.evidence()
	f.Fixes = ep.fixes(down)
	return f
}

func (ep *episode) explain(all, down []string, start, end time.Time, recovered bool) string {
	var b strings.Builder
	r := "r" + strconv.FormatInt(ep.rng, 10)
	if ps := ep.slowed(); len(ps) > 0 {
		p := ps[0]
		fmt.Fprintf(&b, "At %s %s had been waiting %s for Raft to apply %s on %s (from about %s). ",
			evidence.Stamp(p.Time), p.Node, p.Attr(crdb.AttrDuration), p.Attr(crdb.AttrCommand), r, evidence.Clock(start))
		if len(ps) > 1 {
			fmt.Fprintf(&b, "%d slow proposals in all, logged by %s. ", len(ps), strings.Join(ep.nodes(), ", "))
		}
	}
	if ts := ep.trips(); len(ts) > 0 {
		t := ts[0]
		fmt.Fprintf(&b, "At %s the circuit breaker of %s on %s tripped: requests to %s now fail fast with \"replica unavailable\"", evidence.Stamp(t.Time), t.Attr(crdb.AttrReplica), t.Node, r)
		if len(all) > 0 {
			fmt.Fprintf(&b, ". The range's replicas are %s", strings.Join(all, ", "))
		}
		if len(down) > 0 {
			fmt.Fprintf(&b, "; %s %s down, leaving no quorum (%d of %d)", strings.Join(down, ", "), evidence.Plural(len(down), "is", "are"), len(all)-len(down), len(all))
		}
		b.WriteString(". ")
	}
	if len(ep.trips()) == 0 && len(down) > 0 {
		fmt.Fprintf(&b, "The proposals' messages name %s as not live. ", strings.Join(down, ", "))
	}
	if recovered {
		how := "the breaker reset"
		if ep.reset == nil {
			how = "the slow commands finished"
		}
		fmt.Fprintf(&b, "At %s %s: %s served again after %s.", evidence.Stamp(end), how, r, evidence.Round(end.Sub(start)))
	} else {
		fmt.Fprintf(&b, "No recovery is logged: the last sign of the outage is at %s, %s after it began.", evidence.Stamp(end), evidence.Round(end.Sub(start)))
		if u := ep.unfinished(); len(u) > 0 && len(ep.trips()) == 0 {
			fmt.Fprintf(&b, " %d slow proposals never finished in these logs.", len(u))
		}
	}
	return b.String()
}

func (ep *episode) evidence() []forensics.Evidence {
	var quoted evidence.Set
	add := quoted.Add
	if ps := ep.slowed(); len(ps) > 0 {
		add(ps[0], "a proposal has waited "+ps[0].Attr(crdb.AttrDuration))
		if len(ps) > 1 {
			add(ps[len(ps)-1], "still waiting: "+ps[len(ps)-1].Attr(crdb.AttrDuration))
		}
	}
	if ts := ep.trips(); len(ts) > 0 {
		note := "circuit breaker trips"
		if d := ts[0].Attr(crdb.AttrDown); d != "" {
			note += "; down: " + d
		}
		add(ts[0], note)
	}
	if len(ep.nonLive) > 0 {
		add(ep.nonLive[0], "the replicas that are not live: "+ep.nonLive[0].Attr(crdb.AttrDown))
	}
	if ep.reset != nil {
		add(ep.reset, "circuit breaker resets: the range serves again")
	}
	if len(ep.finished) > 0 {
		f := ep.finished[len(ep.finished)-1]
		add(f, "slow command finishes after "+f.Attr(crdb.AttrDuration))
	}
	return quoted.Sorted()
}

func (ep *episode) fixes(down []string) []forensics.Fix {
	id := strconv.FormatInt(ep.rng, 10)
	var downNodes []string
	seen := map[string]bool{}
	for _, r := range down {
		// "(n3,s3):5" → "3"
		if i := strings.Index(r, "(n"); i >= 0 {
			n := r[i+2:]
			if j := strings.IndexByte(n, ','); j > 0 && !seen[n[:j]] {
				seen[n[:j]] = true
				downNodes = append(downNodes, n[:j])
			}
		}
	}
	inspect := forensics.Fix{
		Title: "See r" + id + "'s replicas and which nodes are live",
		Steps: []string{"Open the range report /#/reports/range/" + id + " in the DB Console. Add your connection flags to the commands."},
		Commands: []string{
			shell.CockroachSQL("SELECT range_id, start_pretty, end_pretty, replicas, lease_holder FROM crdb_internal.ranges WHERE range_id = " + id),
			shell.Cockroach("node", "status"),
		},
	}
	back := forensics.Fix{
		Title: "Bring the down replicas' nodes back",
		Steps: []string{
			"Restart the nodes holding the down replicas, or fix what isolates them (disk, network); the range serves again as soon as a majority of its replicas is back.",
			"If they cannot come back, the range has lost quorum for good: plan a loss-of-quorum recovery (cockroach debug recover, v22.2+) with Cockroach Labs support; it can lose recent writes.",
		},
	}
	if len(downNodes) > 0 {
		back.Title = "Bring back n" + strings.Join(downNodes, ", n")
		for _, n := range downNodes {
			back.Commands = append(back.Commands, shell.Cockroach("node", "status", n))
		}
	}
	return []forensics.Fix{inspect, back}
}
