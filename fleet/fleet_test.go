package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"forensics"
	"forensics/fleet"
	"forensics/store"
	"forensics/store/postgres"
	"forensics/store/postgres/pgtest"
	"forensics/store/sqlite"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// analyse writes a run of incident reading one source per key (n lines,
// every third an event) and the given findings, as ingest and analysis do.
func analyse(t *testing.T, db store.Backend, incident string, keys []string, n int, fs ...forensics.Finding) {
	t.Helper()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{incident})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	for k, key := range keys {
		if _, ok, err := w.Loaded(key); err != nil {
			t.Fatal(err)
		} else if ok {
			continue
		}
		src := &forensics.Source{Path: fmt.Sprintf("%s/n%d/memcached.log", incident, k), Node: fmt.Sprintf("n%d", k), Format: "memcached", Component: "memcached", Key: key}
		if err := w.BeginSource(src); err != nil {
			t.Fatal(err)
		}
		lb := w.LineBuffer()
		var evs []forensics.Event
		for i := 1; i <= n; i++ {
			at := t0.Add(time.Duration(i*(k+1)) * time.Millisecond)
			text := fmt.Sprintf("%s line %d key %s", incident, i, key)
			flags := store.LineFlags{CR: i%5 == 0}
			lb.Add(&store.NewLine{N: int64(i), Stamp: forensics.Stamp{Time: at}, Flags: flags, Text: []byte(text)})
			if lb.Full() {
				if err := w.AddLines(src.ID, lb.Batch()); err != nil {
					t.Fatal(err)
				}
			}
			if i%3 == 0 {
				evs = append(evs, forensics.Event{Stamp: forensics.Stamp{Time: at}, Path: src.Path, Line: int64(i), Node: src.Node, Kind: "memcached.thing",
					Subject: forensics.Subject{VB: forensics.NoVB, Bucket: "travel"}, Attrs: []forensics.Attr{{Key: "n", Value: fmt.Sprint(i)}}, Text: text})
			}
		}
		if !lb.Empty() {
			if err := w.AddLines(src.ID, lb.Batch()); err != nil {
				t.Fatal(err)
			}
		}
		lb.Release()
		if err := w.AddEvents(src.ID, evs); err != nil {
			t.Fatal(err)
		}
		src.Lines, src.Events, src.Plain = int64(n), int64(len(evs)), int64(n-len(evs))
		src.First, src.Last = t0, t0.Add(time.Duration(n*(k+1))*time.Millisecond)
		if err := w.EndSource(src); err != nil && !errors.Is(err, store.ErrLoaded) {
			t.Fatal(err)
		}
	}
	for i := range fs {
		fs[i].ID = fs[i].Fingerprint()
	}
	if err := w.SaveFindings(fs); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	sig, err := db.Signature(ctx, w.Run(), rulesID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetSignature(sig); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// rulesID stands for the rules and the build, as analysis names them.
const rulesID = "rules of this build"

// reanalyse starts a run of incident over the keys in db, as analysis does
// for content already stored, and returns the findings it would reuse.
func reanalyse(t *testing.T, db store.Backend, incident string, keys []string) ([]forensics.Finding, bool) {
	t.Helper()
	ctx := context.Background()
	w, err := db.NewRun(ctx, []string{incident})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Discard()
	if err := w.SetIncident(incident); err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		if _, ok, err := w.Loaded(key); err != nil || !ok {
			t.Fatalf("key %s: stored %v, %v", key, ok, err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	sig, err := db.Signature(ctx, w.Run(), rulesID)
	if err != nil {
		t.Fatal(err)
	}
	fs, ok, err := db.PriorFindings(ctx, w.Run(), sig)
	if err != nil {
		t.Fatal(err)
	}
	return fs, ok
}

func finding(rule string, sev forensics.Severity, start time.Time, subject forensics.FindingSubject, title string) forensics.Finding {
	return forensics.Finding{Rule: rule, Severity: sev, Start: start, End: start.Add(time.Minute), Subject: subject, Title: title,
		Explanation: "The explanation of " + title + ".", Evidence: []forensics.Evidence{}, Fixes: []forensics.Fix{}}
}

// local builds a SQLite timeline of three incidents.
func local(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "timeline.db")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	analyse(t, db, "acme-2026-01", []string{"a1", "a2"}, 5000,
		finding("cb-dcp-rollback-to-zero", forensics.High, t0, forensics.FindingSubject{Node: "n0", Bucket: "travel", VBuckets: []int{1, 2}}, "Rollback to zero on travel"),
		finding("cb-oom-kill", forensics.Critical, t0.Add(time.Hour), forensics.FindingSubject{Node: "n1", Service: "memcached", Details: forensics.Details{{Key: "pid", Value: int64(7)}}}, "memcached killed"))
	analyse(t, db, "globex-2026-02", []string{"g1"}, 300,
		finding("cb-dcp-rollback-to-zero", forensics.High, t0.Add(48*time.Hour), forensics.FindingSubject{Node: "n0", Bucket: "beer", VBuckets: []int{9}}, "Rollback to zero on beer"),
		finding("cb-dcp-rollback-to-zero", forensics.Medium, t0.Add(49*time.Hour), forensics.FindingSubject{Bucket: "beer"}, "Rollback, no vbuckets <&>"))
	// A second run of the first incident: the same content and one more source.
	analyse(t, db, "acme-2026-01", []string{"a1", "a2", "a3"}, 5000,
		finding("cb-dcp-rollback-to-zero", forensics.High, t0, forensics.FindingSubject{Node: "n0", Bucket: "travel", VBuckets: []int{1, 2}}, "Rollback to zero on travel"))
	db.Close()
	return path
}

func TestPushAndFleet(t *testing.T) {
	for _, e := range pgtest.Engines {
		t.Run(e.Name, func(t *testing.T) { testPushAndFleet(t, e) })
	}
}

func testPushAndFleet(t *testing.T, eng pgtest.Engine) {
	ctx := context.Background()
	path := local(t)
	from, err := sqlite.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer from.Close()
	dsn := eng.Database(t)
	to, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer to.Close()

	p, err := fleet.Push(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if p.Runs != 3 || p.Present != 0 || p.Sources != 4 || p.Reused != 2 {
		t.Fatalf("first push: %+v, want 3 runs, 4 sources copied, 2 reused", p)
	}
	p, err = fleet.Push(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if p.Runs != 0 || p.Present != 3 || p.Sources != 0 {
		t.Fatalf("second push: %+v, want nothing copied", p)
	}

	// Analysing the same content again in the store the runs were pushed
	// to reuses their findings, as it would have in the timeline pushed.
	fs, ok := reanalyse(t, to, "globex-2026-02", []string{"g1"})
	if !ok || len(fs) != 2 || fs[0].Title != "Rollback to zero on beer" {
		t.Fatalf("reanalysis of a pushed run: reused %v, %+v", ok, fs)
	}
	if fs, ok := reanalyse(t, to, "acme-2026-01", []string{"a1", "a2", "a3"}); !ok || len(fs) != 1 {
		t.Fatalf("reanalysis of a pushed run: reused %v, %+v", ok, fs)
	}
	if _, ok := reanalyse(t, to, "acme-2026-01", []string{"a1"}); ok {
		t.Fatal("other content reused findings")
	}

	// The copy reads as the original: sources, events, lines, findings, run by run.
	fromIncs, _ := from.Incidents(ctx)
	toIncs, err := to.Incidents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(toIncs) != len(fromIncs) {
		t.Fatalf("%d incidents pushed, want %d", len(toIncs), len(fromIncs))
	}
	for i := range fromIncs {
		a, b := fromIncs[i], toIncs[i]
		if a.Name != b.Name || len(a.Runs) != len(b.Runs) || a.Sources != b.Sources || a.Findings != b.Findings {
			t.Fatalf("incident %d: %+v pushed as %+v", i, a, b)
		}
		for j := range a.Runs {
			compareRuns(t, from, a.Runs[j], to, b.Runs[j])
		}
	}

	// Fleet findings: the server's filter and the generic one agree.
	filters := []fleet.Filter{
		{},
		{Rules: []string{"cb-dcp-rollback-to-zero"}},
		{MinRank: forensics.Critical.Rank()},
		{Nodes: []string{"n0"}},
		{Since: t0.Add(47 * time.Hour)},
		{Until: t0.Add(30 * time.Minute)},
		{Text: "BEER"},
		{Text: "NO VBUCKETS <&>."}, // in the explanation, which the stored JSON escapes
		{Text: "explanation of rollback to zero on TRAVEL"},
		{Incidents: []string{"globex-2026-02"}, Limit: 1},
	}
	for _, f := range filters {
		want, err := fleet.Findings(ctx, readerOnly{from}, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fleet.Findings(ctx, to, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 && (f.Rules != nil || f.Text != "") {
			t.Errorf("%+v: nothing found in SQLite", f)
		}
		if ids(got) != ids(want) {
			t.Errorf("%+v: postgres %s, generic %s", f, ids(got), ids(want))
		}
	}
	all, _ := fleet.Findings(ctx, to, fleet.Filter{})
	// The latest run of acme has one finding, globex two.
	if ids(all) != ids(must(fleet.Findings(ctx, readerOnly{from}, fleet.Filter{}))) || len(all) != 3 {
		t.Fatalf("all findings: %s", ids(all))
	}

	// Similar: the rollback with vbuckets on acme was seen on globex, and
	// only the one with the same subject shape.
	var travel fleet.Finding
	for _, f := range all {
		if f.Incident == "acme-2026-01" {
			travel = f
		}
	}
	for _, r := range []store.Reader{to, readerOnly{from}} {
		own, sim, err := fleet.Similar(ctx, r, travel.ID[:8])
		if err != nil {
			t.Fatal(err)
		}
		if own.Incident != "acme-2026-01" || len(sim) != 1 || sim[0].Incident != "globex-2026-02" || sim[0].Title != "Rollback to zero on beer" {
			t.Fatalf("similar to %s in %T: %+v", own.ID, r, sim)
		}
	}

	// Grep across incidents, with a window and a rule.
	re := regexp.MustCompile(`line 30\d key`)
	for _, tc := range []struct {
		f    fleet.GrepFilter
		want int
	}{
		{fleet.GrepFilter{Regexp: re}, 1 + 30}, // globex: line 300 of 300; acme's latest run: 300-309 of 3 sources
		{fleet.GrepFilter{Regexp: re, Incidents: []string{"acme-2026-01"}}, 30},
		{fleet.GrepFilter{Regexp: re, Since: t0.Add(305 * time.Millisecond), Until: t0.Add(310 * time.Millisecond)}, 5}, // 305-309 of the source a line a millisecond
		{fleet.GrepFilter{Regexp: re, Rules: []string{"cb-oom-kill"}}, 0},                                               // the latest acme run no longer has it
		// acme's rollback window (t0, a minute) holds all its lines; globex's (two days later) none of them.
		{fleet.GrepFilter{Regexp: re, Rules: []string{"cb-dcp-rollback-to-zero"}}, 30},
		{fleet.GrepFilter{Regexp: re, Rules: []string{"cb-dcp-rollback-to-zero"}, Since: t0.Add(305 * time.Millisecond), Until: t0.Add(310 * time.Millisecond)}, 5},
	} {
		for _, r := range []store.Reader{to, readerOnly{from}} {
			n := 0
			err := fleet.Grep(ctx, r, tc.f, func(string, *store.Line) bool { n++; return true })
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want {
				t.Errorf("grep %+v in %T: %d lines, want %d", tc.f, r, n, tc.want)
			}
		}
	}
}

// readerOnly hides a backend's own Finder, to run the generic path.
type readerOnly struct{ store.Reader }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ids(fs []fleet.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Incident+"/"+f.ID)
	}
	return fmt.Sprint(out)
}

func compareRuns(t *testing.T, a store.Reader, ra int64, b store.Reader, rb int64) {
	t.Helper()
	ctx := context.Background()
	sa, _ := a.Sources(ctx, ra)
	sb, err := b.Sources(ctx, rb)
	if err != nil {
		t.Fatal(err)
	}
	clean := func(ss []forensics.Source) []forensics.Source {
		out := slices.Clone(ss)
		for i := range out {
			out[i].ID = 0
		}
		return out
	}
	if fmt.Sprint(clean(sa)) != fmt.Sprint(clean(sb)) {
		t.Fatalf("sources of run %d: %v\npushed as %v", ra, clean(sa), clean(sb))
	}
	var ea, eb []string
	for e, err := range a.Events(ctx, store.EventFilter{Run: ra}) {
		if err != nil {
			t.Fatal(err)
		}
		ea = append(ea, fmt.Sprint(*e))
	}
	for e, err := range b.Events(ctx, store.EventFilter{Run: rb}) {
		if err != nil {
			t.Fatal(err)
		}
		eb = append(eb, fmt.Sprint(*e))
	}
	if !slices.Equal(ea, eb) || len(ea) == 0 {
		t.Fatalf("events of run %d differ: %d and %d", ra, len(ea), len(eb))
	}
	line := func(l *store.Line) string {
		return fmt.Sprint(l.Path, l.Node, l.N, l.Time, l.Offset, l.Flags, l.Text, l.Kinds)
	}
	var la, lb []string
	for l, err := range a.Lines(ctx, store.LineFilter{Run: ra}) {
		if err != nil {
			t.Fatal(err)
		}
		la = append(la, line(l))
	}
	for l, err := range b.Lines(ctx, store.LineFilter{Run: rb}) {
		if err != nil {
			t.Fatal(err)
		}
		lb = append(lb, line(l))
	}
	if !slices.Equal(la, lb) || len(la) == 0 {
		t.Fatalf("lines of run %d differ: %d and %d", ra, len(la), len(lb))
	}
	fa, _ := a.Findings(ctx, ra)
	fb, err := b.Findings(ctx, rb)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fb {
		fb[i].Run = 0
	}
	for i := range fa {
		fa[i].Run = 0
	}
	if fmt.Sprint(fa) != fmt.Sprint(fb) {
		t.Fatalf("findings of run %d: %v\npushed as %v", ra, fa, fb)
	}
}
