package deniedtables

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/vitess"
)

// timeline serves constructed events the way the store does: filtered by
// kind, in time order, then source, then line.
type timeline []forensics.Event

func (tl timeline) Events(ctx context.Context, q forensics.Query) iter.Seq2[*forensics.Event, error] {
	return forensics.Cursor(tl.events(ctx, q))
}

func (tl timeline) events(_ context.Context, q forensics.Query) ([]forensics.Event, error) {
	var out []forensics.Event
	for _, e := range tl {
		if len(q.Kinds) == 0 || slices.Contains(q.Kinds, e.Kind) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return out, nil
}

func runRule(t *testing.T, events []forensics.Event) []forensics.Finding {
	t.Helper()
	var got []forensics.Finding
	pass := &forensics.Pass{
		Context:  context.Background(),
		Rule:     Rule,
		Timeline: timeline(events),
		Report:   func(f forensics.Finding) { got = append(got, f) },
	}
	if err := Rule.Run(pass); err != nil {
		t.Fatal(err)
	}
	return got
}

// snap builds the documents of one snapshot.
type snap struct {
	name   string
	time   time.Time
	line   int64
	events []forensics.Event
}

func newSnap(name string) *snap {
	ts, err := time.Parse("20060102T150405Z", strings.TrimPrefix(name, "snapshot-"))
	if err != nil {
		panic(err)
	}
	return &snap{name: name, time: ts}
}

func (s *snap) doc(kind forensics.Kind, file string, doc any, sub forensics.Subject) *snap {
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	s.line++
	s.events = append(s.events, forensics.Event{
		Stamp:   forensics.Stamp{Time: s.time, Zone: forensics.ZoneUTC},
		Path:    s.name + "/" + file,
		Line:    1,
		Kind:    kind,
		Subject: sub,
		Attrs:   []forensics.Attr{{Key: "snapshot", Value: s.name}, {Key: "doc", Value: string(b)}},
		Text:    "{",
	})
	return s
}

func (s *snap) rules(pairs ...string) *snap {
	r := vitess.RoutingRules{Rules: map[string]string{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Rules[pairs[i]] = pairs[i+1]
	}
	return s.doc(vitess.KindRoutingRules, "routing_rules.json", r, forensics.Subject{})
}

// movedRules returns the routing rules MoveTables keeps for tables in a
// state (FORMATS.md C2): where the writes and the reads go.
func movedRules(src, dst, writes, reads string, tables ...string) []string {
	var out []string
	for _, t := range tables {
		out = append(out, t, writes+"."+t)
		if writes == dst {
			out = append(out, src+"."+t, dst+"."+t)
		} else {
			out = append(out, dst+"."+t, src+"."+t)
		}
		for _, tt := range []string{"@replica", "@rdonly"} {
			out = append(out, t+tt, reads+"."+t, src+"."+t+tt, reads+"."+t, dst+"."+t+tt, reads+"."+t)
		}
	}
	return out
}

func (s *snap) shard(ks, name, primary string, controls ...vitess.TabletControl) *snap {
	if controls == nil {
		controls = []vitess.TabletControl{}
	}
	d := vitess.Shard{Keyspace: ks, Name: name, KeyRange: name, PrimaryAlias: primary, PrimaryServing: true, TabletControls: controls}
	return s.doc(vitess.KindShard, "shard_"+ks+"_"+name+".json", d, forensics.Subject{Keyspace: ks, Shard: name})
}

func primaryDenies(tables ...string) vitess.TabletControl {
	return vitess.TabletControl{TabletType: "PRIMARY", Cells: []string{}, DeniedTables: tables}
}

func (s *snap) workflow(name, src, dst string, message string, tables ...string) *snap {
	d := vitess.Workflow{Name: name, Source: src, Target: dst, Tables: tables}
	for _, sh := range []string{"-80", "80-"} {
		if dst == "commerce" {
			sh = "0"
		}
		d.Shards = append(d.Shards, vitess.WorkflowShard{Shard: sh, Streams: []vitess.Stream{{ID: 1, Shard: sh, State: "Running", Message: message}}})
		if dst == "commerce" {
			break
		}
	}
	return s.doc(vitess.KindWorkflow, "workflow_"+name+".json", d, forensics.Subject{Keyspace: dst})
}

func (s *snap) status(ks, wf, state string) *snap {
	d := vitess.WorkflowStatus{Keyspace: ks, Workflow: wf, TrafficState: state}
	return s.doc(vitess.KindWorkflowStatus, "status_"+wf+".json", d, forensics.Subject{Keyspace: ks})
}

// logLine builds a vtctld log event.
func logLine(kind forensics.Kind, at string, line int64, text string, attrs ...string) forensics.Event {
	ts, err := time.Parse("2006-01-02 15:04:05.000", at)
	if err != nil {
		panic(err)
	}
	e := forensics.Event{
		Stamp: forensics.Stamp{Time: ts, Zone: forensics.ZoneAssumed},
		Path:  "vtctld.INFO",
		Line:  line,
		Kind:  kind,
		Text:  text,
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		e.Attrs = append(e.Attrs, forensics.Attr{Key: attrs[i], Value: attrs[i+1]})
	}
	return e
}

// reverseFailedLog is the seed's ReverseTraffic: denied tables switched,
// LOCK TABLES cut off by the client's deadline, the cancel failing too.
func reverseFailedLog() []forensics.Event {
	wf := []string{"workflow", "commerce2customer_reverse", "keyspace", "commerce"}
	return []forensics.Event{
		logLine(vitess.KindSwitchStart, "2024-12-02 16:41:58.102", 10, "I1202 16:41:58.102113       1 server.go:3367] Switching reads: commerce.commerce2customer_reverse tablet types: primary,rdonly,replica", wf...),
		logLine(vitess.KindStopStreams, "2024-12-02 16:42:01.388", 20, "I1202 16:42:01.388211       1 traffic_switcher.go:1044] Stopping streams"),
		logLine(vitess.KindStopSourceWrites, "2024-12-02 16:42:01.531", 21, "I1202 16:42:01.531502       1 traffic_switcher.go:1052] Stopping source writes"),
		logLine(vitess.KindLockTables, "2024-12-02 16:42:01.942", 30, "I1202 16:42:01.942871       1 traffic_switcher.go:1060] Executing LOCK TABLES on source tables 2 times"),
		logLine(vitess.KindLockTablesFailed, "2024-12-02 16:42:31.533", 40, "E1202 16:42:31.533910       1 traffic_switcher.go:1065] Failed to execute LOCK TABLES (attempt 1 of 2) on sources: context deadline exceeded", "error", "context deadline exceeded"),
		logLine(vitess.KindCancelFailed, "2024-12-02 16:42:31.534", 41, "E1202 16:42:31.534219       1 traffic_switcher.go:1161] Cancel migration failed: could not revert denied tables / shard access: context deadline exceeded", "error", "context deadline exceeded"),
	}
}

func seedSnapshot() *snap {
	s := newSnap("snapshot-20241202T164500Z")
	s.rules(movedRules("commerce", "customer", "customer", "commerce", "corder", "customer")...)
	s.shard("commerce", "0", "zone1-0000000101")
	s.shard("customer", "-80", "zone1-0000000201", primaryDenies("corder", "customer"))
	s.shard("customer", "80-", "zone1-0000000301", primaryDenies("corder", "customer"))
	s.workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder", "customer")
	s.workflow("commerce2customer_reverse", "customer", "commerce", "", "corder", "customer")
	s.status("customer", "commerce2customer", "Reads Not Switched. Writes Switched")
	return s
}

func TestSeedReverseFailed(t *testing.T) {
	events := append(seedSnapshot().events, reverseFailedLog()...)
	got := runRule(t, events)
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1: %+v", len(got), got)
	}
	f := got[0]
	if f.Severity != forensics.Critical {
		t.Errorf("severity %s, want critical", f.Severity)
	}
	want := forensics.FindingSubject{Keyspace: "customer", Shards: []string{"-80", "80-"}, Tables: []string{"corder", "customer"}, Workflow: "commerce2customer"}
	if !equalSubject(f.Subject, want) {
		t.Errorf("subject %+v, want %+v", f.Subject, want)
	}
	if start := f.Start.Format("15:04:05.000"); start != "16:42:01.531" {
		t.Errorf("start %s, want the failed run's Stopping source writes at 16:42:01.531", start)
	}
	if end := f.End.Format("15:04:05"); end != "16:45:00" {
		t.Errorf("end %s, want the snapshot time", end)
	}
	for _, s := range []string{
		"ReverseTraffic of commerce2customer",
		"cut off during LOCK TABLES on the source tables",
		"Cancel migration failed",
		"customer/-80 and customer/80- deny corder and customer to PRIMARY",
		"commerce/0 no longer denies them",
		`vtctld reports "Reads Not Switched. Writes Switched"`,
		"routing rules were never switched",
	} {
		if !strings.Contains(f.Explanation, s) {
			t.Errorf("explanation lacks %q:\n%s", s, f.Explanation)
		}
	}
	var lines []int64
	for _, e := range f.Evidence {
		if e.Path == "vtctld.INFO" {
			lines = append(lines, e.Line)
		}
	}
	if !slices.Equal(lines, []int64{21, 30, 40, 41}) {
		t.Errorf("vtctld evidence lines %v, want Stopping source writes, LOCK TABLES, its failure and the failed cancel", lines)
	}
	for i := 1; i < len(f.Evidence); i++ {
		if f.Evidence[i].Time.Before(f.Evidence[i-1].Time) {
			t.Errorf("evidence not in time order at %d", i)
		}
	}
	wantCmds := []string{
		"vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder,customer --remove customer/-80 PRIMARY",
		"vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder,customer --remove customer/80- PRIMARY",
		"vtctldclient --server VTCTLD_HOST:15999 RefreshStateByShard customer/-80",
		"vtctldclient --server VTCTLD_HOST:15999 RefreshStateByShard customer/80-",
		"vtctldclient --server VTCTLD_HOST:15999 RebuildKeyspaceGraph customer",
		"vtctldclient --server VTCTLD_HOST:15999 RebuildVSchemaGraph",
		"vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder,customer commerce/0 PRIMARY",
		"vtctldclient --server VTCTLD_HOST:15999 RefreshStateByShard commerce/0",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer status",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer ReverseTraffic --dry-run",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer ReverseTraffic",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer status",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer SwitchTraffic --tablet-types=rdonly,replica --dry-run",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer SwitchTraffic --tablet-types=rdonly,replica",
	}
	if cmds := commands(f); !slices.Equal(cmds, wantCmds) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(cmds, "\n"), strings.Join(wantCmds, "\n"))
	}
}

func TestBothDeny(t *testing.T) {
	// A SwitchTraffic that added the denial on the source but could not
	// remove it on the target (denied there since Create, v21+).
	s := newSnap("snapshot-20250123T091500Z")
	s.rules(movedRules("commerce", "customer", "commerce", "customer", "corder", "customer")...)
	s.shard("commerce", "0", "zone1-0000000101", primaryDenies("corder", "customer"))
	s.shard("customer", "-80", "zone1-0000000201", primaryDenies("corder", "customer"))
	s.shard("customer", "80-", "zone1-0000000301", primaryDenies("corder", "customer"))
	s.workflow("commerce2customer", "commerce", "customer", "", "corder", "customer")
	got := runRule(t, s.events)
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1", len(got))
	}
	f := got[0]
	want := forensics.FindingSubject{Keyspace: "commerce", Shards: []string{"0"}, Tables: []string{"corder", "customer"}, Workflow: "commerce2customer"}
	if f.Severity != forensics.Critical || !equalSubject(f.Subject, want) {
		t.Errorf("got %s %+v, want critical %+v", f.Severity, f.Subject, want)
	}
	if !strings.Contains(f.Title, "both deny") || !strings.Contains(f.Explanation, "deny them too") {
		t.Errorf("title %q / explanation do not say both sides deny:\n%s", f.Title, f.Explanation)
	}
	cmds := commands(f)
	for _, c := range cmds {
		if strings.Contains(c, "customer/") {
			t.Errorf("must not touch the target, which rightly denies before the write switch: %s", c)
		}
	}
	if cmds[0] != "vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder,customer --remove commerce/0 PRIMARY" {
		t.Errorf("first command %q", cmds[0])
	}
}

func TestConsistentStatesAreSilent(t *testing.T) {
	cases := map[string]*snap{
		"fully switched: only the source denies": newSnap("snapshot-20241202T163000Z").
			rules(movedRules("commerce", "customer", "customer", "customer", "corder", "customer")...).
			shard("commerce", "0", "zone1-0000000101", primaryDenies("corder", "customer")).
			shard("customer", "-80", "zone1-0000000201").
			shard("customer", "80-", "zone1-0000000301").
			workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder", "customer").
			workflow("commerce2customer_reverse", "customer", "commerce", "", "corder", "customer"),
		"reads switched, writes not, target denies since Create (v21+)": newSnap("snapshot-20250310T101500Z").
			rules(movedRules("commerce", "customer", "commerce", "customer", "corder", "customer")...).
			shard("commerce", "0", "zone1-0000000101").
			shard("customer", "-80", "zone1-0000000201", primaryDenies("corder", "customer")).
			shard("customer", "80-", "zone1-0000000301", primaryDenies("corder", "customer")).
			workflow("commerce2customer", "commerce", "customer", "", "corder", "customer"),
		"before v21: nothing denied before the write switch": newSnap("snapshot-20240610T080000Z").
			rules(movedRules("commerce", "customer", "commerce", "commerce", "corder", "customer")...).
			shard("commerce", "0", "zone1-0000000101").
			shard("customer", "-80", "zone1-0000000201").
			shard("customer", "80-", "zone1-0000000301").
			workflow("commerce2customer", "commerce", "customer", "", "corder", "customer"),
		"a denied table no workflow moves": newSnap("snapshot-20241202T163000Z").
			rules(movedRules("commerce", "customer", "customer", "customer", "customer")...).
			shard("commerce", "0", "zone1-0000000101", primaryDenies("customer")).
			shard("customer", "-80", "zone1-0000000201", primaryDenies("corder_event")).
			shard("customer", "80-", "zone1-0000000301", primaryDenies("corder_event")).
			workflow("commerce2customer", "commerce", "customer", "FROZEN", "customer"),
		"a denial only in a cell without the primary": newSnap("snapshot-20241202T163000Z").
			rules(movedRules("commerce", "customer", "customer", "customer", "corder")...).
			shard("commerce", "0", "zone1-0000000101", primaryDenies("corder")).
			shard("customer", "-80", "zone1-0000000201", vitess.TabletControl{TabletType: "PRIMARY", Cells: []string{"zone2"}, DeniedTables: []string{"corder"}}).
			shard("customer", "80-", "zone1-0000000301").
			workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder"),
		"a replica denial where the reads do not go": newSnap("snapshot-20250310T101500Z").
			rules(movedRules("commerce", "customer", "commerce", "commerce", "corder")...).
			shard("commerce", "0", "zone1-0000000101").
			shard("customer", "-80", "zone1-0000000201", vitess.TabletControl{TabletType: "REPLICA", DeniedTables: []string{"corder"}}).
			shard("customer", "80-", "zone1-0000000301").
			workflow("commerce2customer", "commerce", "customer", "", "corder"),
		"completed: no routing rules left": newSnap("snapshot-20250310T101500Z").
			rules().
			shard("commerce", "0", "zone1-0000000101", primaryDenies("corder")).
			shard("customer", "-80", "zone1-0000000201", primaryDenies("corder")),
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			if got := runRule(t, s.events); len(got) != 0 {
				t.Errorf("got %d findings, want none: %s %s", len(got), got[0].Title, got[0].Explanation)
			}
		})
	}
}

func TestWrittenSideDeniesOnPartOfTheShards(t *testing.T) {
	s := newSnap("snapshot-20241202T164500Z").
		rules(movedRules("commerce", "customer", "customer", "customer", "corder")...).
		shard("commerce", "0", "zone1-0000000101", primaryDenies("corder")).
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder", "corder_event")).
		shard("customer", "80-", "zone1-0000000301").
		workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder")
	got := runRule(t, s.events)
	if len(got) != 1 || got[0].Severity != forensics.Critical {
		t.Fatalf("want one critical finding, got %+v", got)
	}
	f := got[0]
	if !slices.Equal(f.Subject.Shards, []string{"-80"}) {
		t.Errorf("shards %v, want [-80]", f.Subject.Shards)
	}
	if !strings.Contains(f.Explanation, "applied to part of the keyspace") {
		t.Errorf("explanation does not say the denial is partial:\n%s", f.Explanation)
	}
	// corder_event is not moved: the remove names only corder.
	if c := commands(f)[0]; c != "vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder --remove customer/-80 PRIMARY" {
		t.Errorf("first command %q", c)
	}
}

func TestSubjectNamesTheDeniedTables(t *testing.T) {
	// One of three moved tables is denied where its writes go: the finding
	// is about that table, not the workflow's others.
	s := newSnap("snapshot-20240521T120000Z").
		rules(movedRules("main", "users", "users", "users", "user", "user_email", "user_extra")...).
		shard("main", "0", "cell1-0000000100", primaryDenies("user", "user_email", "user_extra")).
		shard("users", "-80", "cell1-0000000300", primaryDenies("user_audit", "user")).
		shard("users", "80-", "cell1-0000000400", primaryDenies("user_audit")).
		workflow("main2users", "main", "users", "FROZEN", "user", "user_email", "user_extra")
	got := runRule(t, s.events)
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1", len(got))
	}
	f := got[0]
	want := forensics.FindingSubject{Keyspace: "users", Shards: []string{"-80"}, Tables: []string{"user"}, Workflow: "main2users"}
	if f.Severity != forensics.Critical || !equalSubject(f.Subject, want) {
		t.Errorf("got %s %+v, want critical %+v", f.Severity, f.Subject, want)
	}
	if !strings.Contains(f.Explanation, "users/-80 denies user to PRIMARY tablets") {
		t.Errorf("explanation:\n%s", f.Explanation)
	}
	if c := commands(f)[0]; c != "vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=user --remove users/-80 PRIMARY" {
		t.Errorf("first command %q", c)
	}
}

func TestRegexpEntry(t *testing.T) {
	s := newSnap("snapshot-20241202T164500Z").
		rules(movedRules("commerce", "customer", "customer", "customer", "corder")...).
		shard("commerce", "0", "zone1-0000000101", primaryDenies("corder")).
		shard("customer", "-80", "zone1-0000000201", primaryDenies("/^cord/")).
		shard("customer", "80-", "zone1-0000000301").
		workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder")
	got := runRule(t, s.events)
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1", len(got))
	}
	if c := commands(got[0])[0]; c != "vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl '--denied-tables=/^cord/' --remove customer/-80 PRIMARY" {
		t.Errorf("first command %q", c)
	}
}

func TestSourceStopsDenyingAfterSwitch(t *testing.T) {
	// commerce/0 lists only one of the two tables: the restore adds the other.
	s := newSnap("snapshot-20241202T164500Z").
		rules(movedRules("commerce", "customer", "customer", "customer", "corder", "customer")...).
		shard("commerce", "0", "zone1-0000000101", primaryDenies("corder")).
		shard("customer", "-80", "zone1-0000000201").
		shard("customer", "80-", "zone1-0000000301").
		workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder", "customer")
	got := runRule(t, s.events)
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1", len(got))
	}
	f := got[0]
	want := forensics.FindingSubject{Keyspace: "commerce", Shards: []string{"0"}, Tables: []string{"customer"}, Workflow: "commerce2customer"}
	if f.Severity != forensics.Medium || !equalSubject(f.Subject, want) {
		t.Errorf("got %s %+v, want warning %+v", f.Severity, f.Subject, want)
	}
	wantCmds := []string{
		"vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=customer commerce/0 PRIMARY",
		"vtctldclient --server VTCTLD_HOST:15999 RefreshStateByShard commerce/0",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer status",
	}
	if cmds := commands(f); !slices.Equal(cmds, wantCmds) {
		t.Errorf("commands:\n%s", strings.Join(cmds, "\n"))
	}
}

func TestHalfAppliedTargetDenial(t *testing.T) {
	s := newSnap("snapshot-20250310T101500Z").
		rules(movedRules("commerce", "customer", "commerce", "customer", "corder")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder")).
		shard("customer", "80-", "zone1-0000000301").
		workflow("commerce2customer", "commerce", "customer", "", "corder")
	got := runRule(t, s.events)
	if len(got) != 1 || got[0].Severity != forensics.Info {
		t.Fatalf("want one info finding, got %+v", got)
	}
	if got[0].Subject.Keyspace != "customer" || !slices.Equal(got[0].Subject.Shards, []string{"80-"}) {
		t.Errorf("subject %+v, want customer [80-]", got[0].Subject)
	}

	// Every shard denies something, but each table only on one shard.
	s = newSnap("snapshot-20250310T101500Z").
		rules(movedRules("commerce", "customer", "commerce", "customer", "corder", "customer")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder")).
		shard("customer", "80-", "zone1-0000000301", primaryDenies("customer")).
		workflow("commerce2customer", "commerce", "customer", "", "corder", "customer")
	got = runRule(t, s.events)
	if len(got) != 1 || got[0].Severity != forensics.Info {
		t.Fatalf("want one info finding, got %+v", got)
	}
	want := []string{
		"vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=customer customer/-80 PRIMARY",
		"vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder customer/80- PRIMARY",
		"vtctldclient --server VTCTLD_HOST:15999 RefreshStateByShard customer/-80",
		"vtctldclient --server VTCTLD_HOST:15999 RefreshStateByShard customer/80-",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer status",
	}
	if cmds := commands(got[0]); !slices.Equal(cmds, want) {
		t.Errorf("commands:\n%s", strings.Join(cmds, "\n"))
	}
}

func TestReadsDenied(t *testing.T) {
	s := newSnap("snapshot-20250310T101500Z").
		rules(movedRules("commerce", "customer", "commerce", "customer", "corder")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder"), vitess.TabletControl{TabletType: "REPLICA", DeniedTables: []string{"corder"}}).
		shard("customer", "80-", "zone1-0000000301", primaryDenies("corder")).
		workflow("commerce2customer", "commerce", "customer", "", "corder")
	got := runRule(t, s.events)
	if len(got) != 1 || got[0].Severity != forensics.Critical {
		t.Fatalf("want one critical finding, got %+v", got)
	}
	if got[0].Subject.Keyspace != "customer" || !slices.Equal(got[0].Subject.Shards, []string{"-80"}) {
		t.Errorf("subject %+v, want customer [-80]", got[0].Subject)
	}
	if c := commands(got[0])[0]; c != "vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder --remove customer/-80 REPLICA" {
		t.Errorf("first command %q", c)
	}

	// The same control in a cell that serves no customer tablet denies nothing.
	s = newSnap("snapshot-20250310T101500Z").
		rules(movedRules("commerce", "customer", "commerce", "customer", "corder")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder"), vitess.TabletControl{TabletType: "REPLICA", Cells: []string{"zone3"}, DeniedTables: []string{"corder"}}).
		shard("customer", "80-", "zone1-0000000301", primaryDenies("corder")).
		doc(vitess.KindSrvKeyspace, "srv_keyspace_customer.json", vitess.SrvKeyspaces{Keyspace: "customer", Cells: map[string]vitess.SrvKeyspace{
			"zone1": {Partitions: []vitess.Partition{{ServedType: "REPLICA", Shards: []vitess.ShardReference{{Name: "-80"}, {Name: "80-"}}}}},
			"zone2": {Partitions: []vitess.Partition{{ServedType: "REPLICA", Shards: []vitess.ShardReference{{Name: "-80"}, {Name: "80-"}}}}},
		}}, forensics.Subject{Keyspace: "customer"}).
		workflow("commerce2customer", "commerce", "customer", "", "corder")
	if got := runRule(t, s.events); len(got) != 0 {
		t.Errorf("a control in a cell without tablets: got %s", got[0].Title)
	}
}

func TestStoppedForCutover(t *testing.T) {
	s := newSnap("snapshot-20250310T101500Z").
		rules(movedRules("commerce", "customer", "commerce", "customer", "corder")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder")).
		shard("customer", "80-", "zone1-0000000301", primaryDenies("corder")).
		workflow("commerce2customer", "commerce", "customer", "stopped for cutover", "corder")
	got := runRule(t, s.events)
	if len(got) != 1 || got[0].Severity != forensics.Info {
		t.Fatalf("want one info finding, got %+v", got)
	}
	want := []string{
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer status",
		"vtctldclient --server VTCTLD_HOST:15999 MoveTables --target-keyspace customer --workflow commerce2customer start",
	}
	if cmds := commands(got[0]); !slices.Equal(cmds, want) {
		t.Errorf("commands %q", cmds)
	}
}

func TestWorkflowUnknown(t *testing.T) {
	// Only routing rules and shard records: the keyspaces are known, the
	// direction and the workflow are not.
	s := newSnap("snapshot-20241202T164500Z").
		rules(movedRules("commerce", "customer", "customer", "commerce", "corder", "customer")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder", "customer")).
		shard("customer", "80-", "zone1-0000000301", primaryDenies("corder", "customer"))
	got := runRule(t, s.events)
	if len(got) != 1 || got[0].Severity != forensics.Critical {
		t.Fatalf("want one critical finding, got %+v", got)
	}
	f := got[0]
	if f.Subject.Workflow != "" || f.Subject.Keyspace != "customer" {
		t.Errorf("subject %+v", f.Subject)
	}
	last := f.Fixes[len(f.Fixes)-1]
	if !slices.Equal(last.Commands, []string{"vtctldclient --server VTCTLD_HOST:15999 GetWorkflows customer", "vtctldclient --server VTCTLD_HOST:15999 GetWorkflows commerce"}) {
		t.Errorf("last fix %+v", last)
	}
	if !strings.Contains(f.Explanation, "workflow name and the commands to finish the switch are not known") {
		t.Errorf("explanation does not say what is unknown:\n%s", f.Explanation)
	}
}

func TestSnapshotsOverTime(t *testing.T) {
	before := newSnap("snapshot-20241202T163000Z").
		rules(movedRules("commerce", "customer", "customer", "customer", "corder", "customer")...).
		shard("commerce", "0", "zone1-0000000101", primaryDenies("corder", "customer")).
		shard("customer", "-80", "zone1-0000000201").
		shard("customer", "80-", "zone1-0000000301").
		workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder", "customer")
	broken := seedSnapshot()
	later := seedSnapshot()
	later.name = "snapshot-20241202T171000Z"
	later.time = time.Date(2024, 12, 2, 17, 10, 0, 0, time.UTC)
	later.events = nil
	later.rules(movedRules("commerce", "customer", "customer", "commerce", "corder", "customer")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder", "customer")).
		shard("customer", "80-", "zone1-0000000301", primaryDenies("corder", "customer")).
		workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder", "customer")

	var events []forensics.Event
	events = append(events, before.events...)
	events = append(events, broken.events...)
	events = append(events, later.events...)
	events = append(events, reverseFailedLog()...)
	got := runRule(t, events)
	if len(got) != 1 {
		t.Fatalf("got %d findings, want one for the incident seen in two snapshots", len(got))
	}
	f := got[0]
	if !f.End.Equal(later.time) {
		t.Errorf("end %s, want the latest snapshot that shows it", f.End)
	}
	for _, s := range []string{
		"In snapshot snapshot-20241202T171000Z",
		"as already in snapshot snapshot-20241202T164500Z",
		"The earlier snapshot snapshot-20241202T163000Z (2024-12-02 16:30:00.000Z) did not show this",
	} {
		if !strings.Contains(f.Explanation, s) {
			t.Errorf("explanation lacks %q:\n%s", s, f.Explanation)
		}
	}

	// Repaired by the next snapshot: the finding stays, and says so.
	events = append(append([]forensics.Event{}, broken.events...), before.events...)
	fixed := newSnap("snapshot-20241202T171000Z")
	fixed.events = nil
	for _, e := range before.events {
		e.Time = fixed.time
		e.Attrs = []forensics.Attr{{Key: "snapshot", Value: fixed.name}, {Key: "doc", Value: e.Attr("doc")}}
		events = append(events, e)
	}
	got = runRule(t, events)
	if len(got) != 1 || !strings.Contains(got[0].Explanation, "The later snapshot snapshot-20241202T171000Z (2024-12-02 17:10:00.000Z) no longer shows it") {
		t.Errorf("want one finding that says it was repaired, got %+v", got)
	}
}

func TestIdenticalDocumentReadOnce(t *testing.T) {
	// commerce/0 is the same file in both snapshots, so the timeline holds it
	// once, in the first; the later snapshot still knows commerce/0.
	before := newSnap("snapshot-20241202T163000Z").
		rules(movedRules("commerce", "customer", "customer", "customer", "corder")...).
		shard("commerce", "0", "zone1-0000000101").
		shard("customer", "-80", "zone1-0000000201").
		shard("customer", "80-", "zone1-0000000301").
		workflow("commerce2customer", "commerce", "customer", "FROZEN", "corder")
	after := newSnap("snapshot-20241202T164500Z").
		rules(movedRules("commerce", "customer", "customer", "commerce", "corder")...).
		shard("customer", "-80", "zone1-0000000201", primaryDenies("corder")).
		shard("customer", "80-", "zone1-0000000301", primaryDenies("corder"))
	got := runRule(t, append(before.events, after.events...))
	// before: writes switched and commerce does not deny: a warning. after:
	// customer denies too: critical, with commerce/0 and the workflow taken
	// from the earlier snapshot.
	if len(got) != 2 {
		t.Fatalf("got %d findings, want 2", len(got))
	}
	f := got[1]
	if f.Severity != forensics.Critical || f.Subject.Workflow != "commerce2customer" {
		t.Fatalf("got %s %+v", f.Severity, f.Subject)
	}
	found := false
	for _, e := range f.Evidence {
		if e.Path == "snapshot-20241202T163000Z/shard_commerce_0.json" {
			found = true
		}
	}
	if !found || !slices.Contains(commands(f), "vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=corder commerce/0 PRIMARY") {
		t.Errorf("commerce/0 was not taken from the earlier snapshot: %+v", f)
	}
}

func TestAttemptMatching(t *testing.T) {
	s := seedSnapshot()
	other := []forensics.Event{
		// Another workflow's failed switch, just before.
		logLine(vitess.KindStopSourceWrites, "2024-12-02 16:30:01.000", 5, "I1202 16:30:01.000000       1 traffic_switcher.go:1052] Stopping source writes", "workflow", "product2lookup", "keyspace", "lookup"),
		logLine(vitess.KindCancelFailed, "2024-12-02 16:30:31.000", 6, "E1202 16:30:31.000000       1 traffic_switcher.go:1161] Cancel migration failed: could not revert denied tables / shard access: context canceled", "workflow", "product2lookup"),
	}
	got := runRule(t, append(s.events, other...))
	if len(got) != 1 {
		t.Fatalf("got %d findings", len(got))
	}
	for _, e := range got[0].Evidence {
		if e.Path == "vtctld.INFO" {
			t.Errorf("evidence from another workflow's switch: %s", e.Text)
		}
	}
	if got[0].Start != s.time {
		t.Errorf("start %s, want the snapshot time when no switch of this workflow is logged", got[0].Start)
	}

	// A switch logged after the snapshot did not cause it.
	late := reverseFailedLog()
	for i := range late {
		late[i].Time = late[i].Time.Add(time.Hour)
	}
	got = runRule(t, append(seedSnapshot().events, late...))
	if len(got) != 1 || len(got[0].Evidence) == 0 || got[0].Evidence[0].Path == "vtctld.INFO" {
		t.Errorf("a switch after the snapshot was attached: %+v", got)
	}
}

func TestAttempts(t *testing.T) {
	// Newer vtctlds cancel before they log the failed step (handleError):
	// the cut step is still the last step before the first failure line.
	events := []forensics.Event{
		logLine(vitess.KindStopSourceWrites, "2025-01-23 08:50:50.000", 1, "Stopping source writes", "workflow", "commerce2customer"),
		logLine(vitess.KindLockTables, "2025-01-23 08:50:50.500", 2, "Executing LOCK TABLES on source tables 2 times"),
		logLine(vitess.KindWaitCatchup, "2025-01-23 08:50:51.500", 3, "Waiting for streams to catchup"),
		logLine(vitess.KindCancelStart, "2025-01-23 08:51:21.600", 4, "cancelMigration (commerce2customer): starting"),
		logLine(vitess.KindCancelFailed, "2025-01-23 08:51:21.627", 5, "Cancel migration failed: could not revert denied tables / shard access: Code: INTERNAL\nkeyspace commerce is not locked (no locksInfo)"),
		logLine(vitess.KindSwitchFailed, "2025-01-23 08:51:21.700", 6, "failed to sync up replication between the source and target"),
		// A later, successful switch is a new attempt.
		logLine(vitess.KindStopSourceWrites, "2025-01-23 09:10:00.000", 7, "Stopping source writes", "workflow", "commerce2customer"),
		logLine(vitess.KindSwitchDone, "2025-01-23 09:10:05.000", 8, "Switch Writes done for workflow customer.commerce2customer"),
	}
	as := attempts(events)
	if len(as) != 2 {
		t.Fatalf("got %d attempts, want 2", len(as))
	}
	a := as[0]
	if step, line := a.cut(); step != "waiting for the streams to catch up" || line.Line != 3 {
		t.Errorf("cut at %q (line %d)", step, line.Line)
	}
	if !a.failed() || len(a.cancelFailed) != 1 || a.reverse() {
		t.Errorf("attempt %+v", a)
	}
	if as[1].failed() || !as[1].done {
		t.Errorf("second attempt should have succeeded: %+v", as[1])
	}
	m := &move{workflow: "commerce2customer", source: "commerce", target: "customer"}
	if last := lastAttempt(as, m, "commerce", "customer", time.Date(2025, 1, 23, 9, 15, 0, 0, time.UTC)); last != as[1] {
		t.Errorf("last attempt before 09:15 should be the successful one")
	}
}

func commands(f forensics.Finding) []string {
	var out []string
	for _, fx := range f.Fixes {
		out = append(out, fx.Commands...)
	}
	return out
}

func equalSubject(a, b forensics.FindingSubject) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestExcerpt(t *testing.T) {
	doc := "{\n  \"keyspace\": \"customer\",\n  \"shard\": {\n    \"tablet_controls\": [\n      {\n        \"tablet_type\": 1,\n        \"denied_tables\": [\"a]b\"]\n      }\n    ],\n    \"is_primary_serving\": true\n  }\n}"
	e := &forensics.Event{Line: 40, Text: doc}
	line, text := excerpt(e, []string{"tablet_controls", "tabletControls"}, "", false)
	if line != 43 || !strings.HasPrefix(text, `    "tablet_controls": [`) || !strings.HasSuffix(text, "    ],") {
		t.Errorf("got line %d:\n%s", line, text)
	}

	rules := "{\n  \"rules\": [\n    {\n      \"from_table\": \"corder@replica\",\n      \"to_tables\": [\n        \"commerce.corder\"\n      ]\n    },\n    {\n      \"from_table\": \"corder\",\n      \"to_tables\": [\n        \"customer.corder\"\n      ]\n    }\n  ]\n}"
	e = &forensics.Event{Line: 1, Text: rules}
	line, text = excerpt(e, []string{"from_table"}, `"corder"`, true)
	if line != 9 || !strings.Contains(text, "customer.corder") || strings.Contains(text, "@replica") {
		t.Errorf("got line %d:\n%s", line, text)
	}

	// A document on one line is clipped around the match.
	long := `{"rules":[` + strings.Repeat(`{"from_table":"x@rdonly","to_tables":["a.x"]},`, 20) + `{"from_table":"corder","to_tables":["customer.corder"]}]}`
	e = &forensics.Event{Line: 7, Text: long}
	line, text = excerpt(e, []string{"from_table"}, `"corder"`, true)
	if line != 7 || !strings.Contains(text, `"corder"`) || len(text) > maxExcerptLine+8 || !strings.HasPrefix(text, "…") {
		t.Errorf("got line %d: %s", line, text)
	}

	// The text output of MoveTables status.
	e = &forensics.Event{Line: 2, Text: "The following vreplication streams exist for workflow sales.ecommerce2sales:\n\nTraffic State: All Reads Switched. Writes Not Switched"}
	if line, text = excerpt(e, []string{"traffic_state", "Traffic State"}, "", false); line != 4 || text != "Traffic State: All Reads Switched. Writes Not Switched" {
		t.Errorf("got line %d: %s", line, text)
	}
}
