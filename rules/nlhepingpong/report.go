package nlhepingpong

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

// claim is the lease one replica of the loop reported.
type claim struct {
	replica string
	lease   crdb.Lease
	first   *redirect // its first redirect in the episode
}

// leases works out which replica is lagging: the one that reports an older
// lease than another replica of the loop. The newer lease is decided by
// crdb.CompareLeases (sequence, then start: the seed's newer lease has seq=0).
type leases struct {
	claims  []claim
	newest  int   // index in claims of the newest lease; -1 when none is newer than the rest
	lagging []int // indexes in claims of the replicas reporting an older lease
}

func leasesOf(ep *episode) leases {
	var l leases
	idx := map[string]int{}
	for _, r := range ep.redirects() {
		i, ok := idx[r.refuser]
		if !ok {
			idx[r.refuser] = len(l.claims)
			l.claims = append(l.claims, claim{replica: r.refuser, lease: r.lease, first: r})
			continue
		}
		l.claims[i].lease = r.lease // the latest report counts
	}
	sort.SliceStable(l.claims, func(i, j int) bool { return lessReplica(l.claims[i].replica, l.claims[j].replica) })
	l.newest = -1
	for i := range l.claims {
		if l.newest < 0 || crdb.CompareLeases(l.claims[i].lease, l.claims[l.newest].lease) > 0 {
			l.newest = i
		}
	}
	for i := range l.claims {
		if i != l.newest && crdb.CompareLeases(l.claims[i].lease, l.claims[l.newest].lease) < 0 {
			l.lagging = append(l.lagging, i)
		}
	}
	if len(l.lagging) == 0 {
		l.newest = -1
	}
	return l
}

func (l leases) isLagging(i int) bool {
	for _, j := range l.lagging {
		if i == j {
			return true
		}
	}
	return false
}

// whyNewer says on what the comparison of the newest lease with another was
// decided, in the words an operator checks it by.
func whyNewer(newer, older crdb.Lease) string {
	ns, nok := newer.Sequence()
	os, ook := older.Sequence()
	if nok && ook && ns > 0 && os > 0 && ns != os {
		return fmt.Sprintf("its sequence %d is higher than %d", ns, os)
	}
	later := "it started later"
	nt, nok2 := hlcTime(newer.Start)
	ot, ook2 := hlcTime(older.Start)
	if nok2 && ook2 {
		later = "it started " + fmtDuration(nt.Sub(ot)) + " later"
	}
	if nok && ook && ns != os {
		return fmt.Sprintf("%s; seq=0 means no sequence was recorded, so seq=%d and seq=%d do not order them", later, ns, os)
	}
	return later
}

// describeLease prints the lease as CockroachDB does, with its start as a
// wall-clock time when it reads.
func describeLease(l crdb.Lease) string {
	var parts []string
	for _, f := range [...]struct{ k, v string }{
		{"repl", l.Replica}, {"seq", l.Seq}, {"start", l.Start}, {"epo", l.Epoch}, {"term", l.Term}, {"exp", l.Expiration},
	} {
		if f.v != "" {
			parts = append(parts, f.k+"="+f.v)
		}
	}
	s := strings.Join(parts, " ")
	if t, ok := hlcTime(l.Start); ok {
		s += " (started " + evidence.Stamp(t) + ")"
	}
	return s
}

func hlcTime(s string) (time.Time, bool) {
	h, ok := crdb.ParseHLC(s)
	if !ok || h.WallTime == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, h.WallTime).UTC(), true
}

// finding turns an episode into what the user reads.
func finding(ep *episode, evs []forensics.Event) forensics.Finding {
	rs := ep.redirects()
	ls := leasesOf(ep)
	e := eraOf(ep, evs)
	traces, clients, gateways := affected(ep, evs)
	discarded := discardedCount(ep)

	sev := forensics.High
	if ep.duration() > longDuration {
		sev = forensics.Critical
	}
	members := append([]string(nil), ep.members...)
	f := forensics.Finding{
		Severity: sev,
		Title: fmt.Sprintf("r%d: requests bounce between %s, each naming %s as leaseholder (%d redirects in %s)",
			ep.rng, joinAnd(members), other(len(members)), len(rs), fmtDuration(ep.duration())),
		Subject: forensics.FindingSubject{
			Range:   ep.rng,
			Details: forensics.Details{replicasDetail.List(members), redirectsDetail.Int(int64(len(rs)))},
		},
		Start: ep.start,
		End:   ep.end,
	}
	f.Explanation = explain(ep, rs, ls, e, traces, clients, gateways, discarded)
	f.Evidence = quote(ep, rs, ls, evs)
	f.Fixes = fixes(ep, ls, e)
	return f
}

func explain(ep *episode, rs []*redirect, ls leases, e era, traces, clients, gateways []string, discarded int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From %s to %s (%s%s), DistSender on %s sent requests for r%d back and forth between %s: each refused them with a NotLeaseHolderError naming %s as leaseholder. ",
		fmtTime(ep.start, time.Time{}), fmtTime(ep.end, ep.start), fmtDuration(ep.duration()), zoneNote(rs[0].ev.Zone),
		joinAnd(gateways), ep.rng, joinAnd(ep.members), other(len(ep.members)))
	fmt.Fprintf(&b, "%d redirects were seen, one per RPC: %d full cycles, %d in the longest single request. ",
		len(rs), ep.cycles, ep.maxCycles)
	for _, c := range ls.claims {
		fmt.Fprintf(&b, "%s reports the lease %s. ", c.replica, describeLease(c.lease))
	}
	if ls.newest >= 0 {
		n := ls.claims[ls.newest]
		var lagging []string
		for _, i := range ls.lagging {
			lagging = append(lagging, ls.claims[i].replica)
		}
		fmt.Fprintf(&b, "The lease reported by %s is the newer (%s), so %s %s lagging: ",
			n.replica, whyNewer(n.lease, ls.claims[ls.lagging[0]].lease), joinAnd(lagging), evidence.Plural(len(lagging), "is", "are"))
		if len(lagging) == 1 && lagging[0] == n.lease.Replica {
			fmt.Fprintf(&b, "the newer lease makes %s the leaseholder, but it has not applied that lease yet and still redirects to the old holder; until it does, no replica serves r%d. ", lagging[0], ep.rng)
		} else {
			fmt.Fprintf(&b, "%s not applied the newer lease yet and still %s to the old holder. ", evidence.Plural(len(lagging), "it has", "they have"), redirectVerb(len(lagging)))
		}
	} else {
		b.WriteString("The leases they report cannot be ordered (no sequence or start to compare), so which replica is lagging is not known from these lines. ")
	}
	if discarded > 0 {
		fmt.Fprintf(&b, "The trace discarded %d events in the middle of the loop, so the real number of redirects is higher. ", discarded)
	}
	if has, known := e.hasBackoff(); known && !has {
		fmt.Fprintf(&b, "The lines have the wording of %s, which retries at once on every redirect, without backoff. ", e)
	}
	b.WriteString("Requests affected: ")
	b.WriteString(listSome(traces, 5))
	if len(clients) > 0 {
		fmt.Fprintf(&b, " (client %s)", strings.Join(clients, ", "))
	}
	b.WriteString(".")
	return b.String()
}

func zoneNote(z forensics.Zone) string {
	switch z {
	case forensics.ZoneUTC:
		return "; times in UTC"
	case forensics.ZoneAssumed:
		// Every output says its times are UTC, and these are read as UTC
		// (forensics.ZoneAssumed); the server's local time may differ.
		return "; times read as UTC: the lines carry no zone"
	}
	return ""
}

func other(n int) string {
	if n == 2 {
		return "the other"
	}
	return "another"
}

func redirectVerb(n int) string {
	if n == 1 {
		return "redirects"
	}
	return "redirect"
}

// affected lists the requests (traces, spans or the logging tags that
// group a request's lines), clients and gateways of the episode.
func affected(ep *episode, evs []forensics.Event) (traces, clients, gateways []string) {
	seenT, seenC, seenG := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range ep.redirects() {
		if t := r.trace; !seenT[t] {
			seenT[t] = true
			traces = append(traces, describeTrace(t, evs))
		}
		if c := r.ev.Attr(crdb.AttrClient); c != "" && !seenC[c] {
			seenC[c] = true
			clients = append(clients, c)
		}
		if g := r.gateway; !seenG[g] {
			seenG[g] = true
			if g == "" {
				g = "an unknown node"
			}
			gateways = append(gateways, g)
		}
	}
	return traces, clients, gateways
}

// describeTrace names a request the way its source does: a /debug/requests
// trace by its start and title, a recorded span by its operation, a log's
// request by its tags.
func describeTrace(key string, evs []forensics.Event) string {
	if key == "" {
		return "requests without trace or tags"
	}
	for i := range evs {
		e := &evs[i]
		if e.Kind != crdb.KindTraceStart || e.Attr(crdb.AttrTrace) != key {
			continue
		}
		if e.Attr(crdb.AttrTitle) != "" {
			return "the trace " + strconv.Quote(key)
		}
		if op := e.Attr(crdb.AttrOperation); op != "" {
			return "the span " + strconv.Quote(op) + " (" + key + ")"
		}
	}
	return "the requests tagged [" + key + "]"
}

func discardedCount(ep *episode) int {
	n := 0
	seen := map[*forensics.Event]bool{}
	for _, s := range ep.segments {
		for _, d := range s.discarded {
			if seen[d] {
				continue
			}
			seen[d] = true
			c, _ := strconv.Atoi(d.Attr(crdb.AttrCount))
			n += c
		}
	}
	return n
}

// quote picks the lines that show the loop, in time order: the start
// of the first request, its first send, each replica's first refusal (the
// lease it claims), the first backoff, where the trace lost events, and the
// last redirect.
func quote(ep *episode, rs []*redirect, ls leases, evs []forensics.Event) []forensics.Evidence {
	var quoted evidence.Set
	add := quoted.Add
	first := rs[0]
	if tr := traceStart(first, evs); tr != nil {
		note := "the request's trace starts"
		if el := tr.Attr(crdb.AttrElapsed); el != "" {
			note += "; it ran " + el + " s"
		}
		add(tr, note)
	}
	if s := firstSend(first, evs); s != nil {
		add(s, "the batch for r"+strconv.FormatInt(ep.rng, 10)+" is sent to "+s.Attr(crdb.AttrReplica))
	}
	for i, c := range ls.claims {
		note := fmt.Sprintf("%s refuses and names %s", c.replica, c.first.target)
		switch {
		case i == ls.newest:
			note += ": the newer lease"
		case ls.isLagging(i):
			note += ": an older lease, so " + c.replica + " is lagging"
		}
		add(c.first.ev, note)
	}
	if b := firstBackoff(ep, evs); b != nil {
		add(b, "DistSender backs off before retrying")
	}
	for _, s := range ep.segments {
		for _, d := range s.discarded {
			add(d, "the trace dropped "+d.Attr(crdb.AttrCount)+" events here; the loop goes on after the gap")
		}
	}
	last := rs[len(rs)-1]
	add(last.ev, fmt.Sprintf("still redirected %s after the first redirect", fmtDuration(ep.duration())))
	return quoted.Sorted()
}

func traceStart(r *redirect, evs []forensics.Event) *forensics.Event {
	if r.trace == "" {
		return nil
	}
	for i := range evs {
		e := &evs[i]
		if e.Kind == crdb.KindTraceStart && e.Attr(crdb.AttrTrace) == r.trace && !e.Time.After(r.at) {
			return e
		}
	}
	return nil
}

// firstSend is the last "rN: sending batch" of the request before its first
// redirect of the episode.
func firstSend(r *redirect, evs []forensics.Event) *forensics.Event {
	var found *forensics.Event
	for i := range evs {
		e := &evs[i]
		if e.Time.After(r.at) {
			break
		}
		if e.Kind == crdb.KindSend && e.Range == r.rng && e.Attr(crdb.AttrTrace) == r.trace && gatewayOf(e) == r.gateway {
			found = e
		}
	}
	return found
}

func firstBackoff(ep *episode, evs []forensics.Event) *forensics.Event {
	traces := map[string]bool{}
	for _, s := range ep.segments {
		traces[s.trace] = true
	}
	for i := range evs {
		e := &evs[i]
		if e.Kind == crdb.KindBackoff && traces[e.Attr(crdb.AttrTrace)] && !e.Time.Before(ep.start) && !e.Time.After(ep.end) {
			return e
		}
	}
	return nil
}

func fixes(ep *episode, ls leases, e era) []forensics.Fix {
	rng := strconv.FormatInt(ep.rng, 10)
	var out []forensics.Fix

	// What to look at.
	look := forensics.Fix{
		Title:    "Find out which replica of r" + rng + " is behind, and why",
		Commands: []string{shell.CockroachSQL("SELECT * FROM crdb_internal.ranges WHERE range_id = " + rng)},
	}
	lag := ""
	if ls.newest >= 0 {
		lag = ls.claims[ls.lagging[0]].replica
		look.Title = "Find out why " + lag + " has not applied the newer lease of r" + rng
	}
	subject := "each replica of the loop"
	if lag != "" {
		subject = lag
	}
	look.Steps = []string{
		"Open the range report of r" + rng + " in the Admin UI (/#/reports/range/" + rng + ") and compare the Raft state of " + subject +
			" (applied and commit index, pending proposals) with the other replicas: a replica that is behind in applying the Raft log does not see its new lease.",
		"In a cockroach debug zip the same state is in debug/nodes/<node id>/ranges/" + rng + ".json for each node (without .json in v2.0 zips).",
		"On the node of " + subject + ", look for what slows applying the log: disk latency, a snapshot or a long Raft log being applied, CPU or Go runtime stress in its log.",
	}
	out = append(out, look)

	// The way out: move the lease to a replica that knows the newer lease.
	if ls.newest >= 0 {
		to := ls.claims[ls.newest].replica
		store := parseReplica(to).store
		mv := forensics.Fix{Title: "Move the lease of r" + rng + " to " + to + ", which has applied the newer lease"}
		st := strconv.FormatInt(store, 10)
		relocate := "ALTER RANGE " + rng + " RELOCATE LEASE TO " + st + ";"
		switch {
		case !parseReplica(to).ok:
		case e == eraV1 || e == eraV20:
			mv.Steps = append(mv.Steps, "These lines have the wording of "+e.String()+": ALTER RANGE … RELOCATE LEASE exists from v22.1 and ALTER TABLE … EXPERIMENTAL_RELOCATE LEASE is documented from v2.1, so neither is known to work here.")
		default:
			mv.Steps = append(mv.Steps,
				"v22.1 and later: "+relocate,
				"v2.1 to v21.2: ALTER TABLE <table> EXPERIMENTAL_RELOCATE LEASE SELECT "+st+", <primary key of a row in r"+rng+
					">; the table and a key of r"+rng+" are not in these lines: SELECT * FROM crdb_internal.ranges WHERE range_id = "+rng+" shows them.")
			if e == eraV211 || e == eraV202 || e == eraUnknown {
				mv.Commands = []string{shell.CockroachSQL(strings.TrimSuffix(relocate, ";"))}
			}
		}
		newest := ls.claims[ls.newest].lease
		switch {
		case newest.Epoch != "":
			mv.Steps = append(mv.Steps, "If moving the lease hangs in the same loop, or cannot be done on this version, restart the node of "+
				newest.Replica+": the newer lease is an epoch lease (epo="+newest.Epoch+"), and the restart ends that epoch, so another replica can take the lease.")
		case newest.Expiration != "":
			mv.Steps = append(mv.Steps, "The newer lease is an expiration lease: it ends at exp="+newest.Expiration+", after which another replica can take it.")
		}
		out = append(out, mv)
	}

	// Upstream fixes.
	up := forensics.Fix{Title: "Check whether upgrading helps"}
	up.Steps = append(up.Steps,
		"DistSender backs off on a NotLeaseHolderError that looks like a lease transfer from v19.1 (cockroachdb/cockroach#32877); from v20.2 it retries a replica that returned stale lease information a bounded number of times instead of following it (#52837). Both turn a tight loop into a slow one; neither makes the lagging replica apply its lease sooner.",
		"Later versions ignore the stale lease information that lagging replicas return (#73697, v22.1 as far as known: the release is not confirmed).")
	switch has, known := e.hasBackoff(); {
	case known && !has:
		up.Steps = append(up.Steps, "These lines have the wording of "+e.String()+": upgrading to v19.1 or later brings the backoff.")
	case known && has:
		up.Steps = append(up.Steps, "These lines have the wording of "+e.String()+", which already has the backoff: the loop persists because a replica stays behind, so look at that replica first.")
	default:
		up.Steps = append(up.Steps, "The version cannot be told from these lines ("+e.String()+" wording): check it with SELECT version(); and compare it with the versions above.")
	}
	out = append(out, up)
	return out
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	case 2:
		return xs[0] + " and " + xs[1]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func listSome(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// fmtTime writes t with its date unless it is the day of ref.
func fmtTime(t, ref time.Time) string {
	if !ref.IsZero() && evidence.Day(t) == evidence.Day(ref) {
		return evidence.Clock(t)
	}
	return evidence.Stamp(t)
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d >= time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}
