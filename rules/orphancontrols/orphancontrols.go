// Package orphancontrols holds the rule vitess-orphan-tablet-controls:
// denied tables in a shard record that no workflow holds any more
// (vitessio/vitess#15963).
package orphancontrols

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/names"
	"forensics/parsers/vitess"
	"forensics/rules/evidence"
	"forensics/shell"
)

// Rule is vitess-orphan-tablet-controls.
var Rule = &forensics.Rule{
	Name: "vitess-orphan-tablet-controls",
	Doc: forensics.Doc{
		Title: "denied tables that belong to no workflow",
		Detects: "Tables a shard record denies (GetShard's tablet_controls) that no workflow in the snapshot moves: no " +
			"Workflow show (or GetWorkflows) of a workflow whose source or target is the shard's keyspace lists them, and " +
			"the keyspace's Workflow list names no workflow the snapshot does not show. One finding per keyspace, with " +
			"its shards and the tables. High when a PRIMARY control denies them, warning when only REPLICA or RDONLY " +
			"controls do. Denied tables an existing MoveTables workflow holds (mid-switch, or on the source after the " +
			"switch) are not reported: they are vitess-denied-tables-routing's to judge.",
		Why: "MoveTables denies the moved tables on the side that must not take writes. Complete and Cancel remove those " +
			"controls, but a workflow deleted by hand, a Cancel that failed half-way or an old release leaves them " +
			"behind. A table created again in that keyspace (or moved back) then refuses queries on the primaries, and " +
			"the next SwitchTraffic over it fails; SetShardTabletControl --remove refuses a list that differs from the " +
			"record's, so the leftover must be removed exactly.",
		Confirm: "vtctldclient GetShard <keyspace>/<shard>: tablet_controls with denied_tables. vtctldclient Workflow " +
			"--keyspace <keyspace> list for each keyspace: no workflow, or none whose Workflow show lists the tables.",
		Inputs: "GetShard of the shards, and Workflow list or Workflow show (GetWorkflows) of the keyspaces, in one snapshot folder.",
		Fixes: "Check the record and the workflows, then remove exactly the leftover tables from each shard's control " +
			"(SetShardTabletControl --denied-tables=<the tables> --remove) and refresh the tablets. The finding lists " +
			"the commands with the names filled in.",
	},
	Kinds: []forensics.Kind{vitess.KindShard, vitess.KindWorkflow, vitess.KindWorkflowList},
	Run:   run,
}

func run(pass *forensics.Pass) error {
	evs, err := forensics.Collect(pass.Events(vitess.KindShard, vitess.KindWorkflow, vitess.KindWorkflowList))
	if err != nil {
		return fmt.Errorf("read snapshot documents: %w", err)
	}
	// The latest document of each shard, workflow and list: a snapshot that
	// repeats an earlier file byte for byte has it read once, so documents
	// carry forward.
	shards := map[string]*forensics.Event{}
	shardDocs := map[string]vitess.Shard{}
	workflows := map[string]vitess.Workflow{}
	wfEvents := map[string]*forensics.Event{}
	lists := map[string]vitess.WorkflowList{}
	listEvents := map[string]*forensics.Event{}
	for i := range evs {
		e := &evs[i]
		switch e.Kind {
		case vitess.KindShard:
			s, err := vitess.DecodeShard(e)
			if err != nil {
				continue // the parser has reported the file
			}
			k := s.Keyspace + "/" + s.Name
			shards[k], shardDocs[k] = e, s
		case vitess.KindWorkflow:
			w, err := vitess.DecodeWorkflow(e)
			if err != nil {
				continue
			}
			k := w.Target + "/" + w.Name
			workflows[k], wfEvents[k] = w, e
		case vitess.KindWorkflowList:
			l, err := vitess.DecodeWorkflowList(e)
			if err != nil || l.Keyspace == "" {
				continue
			}
			lists[l.Keyspace], listEvents[l.Keyspace] = l, e
		}
	}

	byKeyspace := map[string][]string{}
	for k, s := range shardDocs {
		for _, tc := range s.TabletControls {
			if len(tc.DeniedTables) > 0 {
				byKeyspace[s.Keyspace] = append(byKeyspace[s.Keyspace], k)
				break
			}
		}
	}
	for _, ks := range slices.Sorted(maps.Keys(byKeyspace)) {
		covered, known := coverage(ks, workflows, lists)
		if !known {
			continue
		}
		in := &incident{keyspace: ks, orphans: map[string]map[string][]string{}}
		keys := byKeyspace[ks]
		sort.Strings(keys)
		for _, k := range keys {
			s := shardDocs[k]
			for _, tc := range s.TabletControls {
				var left []string
				for _, t := range tc.DeniedTables {
					if !holds(covered, t) {
						left = append(left, t)
					}
				}
				if len(left) == 0 {
					continue
				}
				if in.orphans[s.Name] == nil {
					in.orphans[s.Name] = map[string][]string{}
					in.docs = append(in.docs, shards[k])
				}
				in.orphans[s.Name][tc.TabletType] = left
				if tc.TabletType == "PRIMARY" {
					in.primary = true
				}
			}
		}
		if len(in.orphans) == 0 {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(covered)) {
			in.workflows = append(in.workflows, covered[name]...)
		}
		in.workflows = unique(in.workflows)
		for _, k := range slices.Sorted(maps.Keys(wfEvents)) {
			w := workflows[k]
			if w.Source == ks || w.Target == ks {
				in.wfDocs = append(in.wfDocs, wfEvents[k])
			}
		}
		if e := listEvents[ks]; e != nil {
			in.list = e
		}
		pass.Report(in.finding())
	}
	return nil
}

// coverage returns the tables the workflows of a keyspace hold (table →
// workflows), and whether the snapshot says enough to tell: some Workflow
// list or show about the keyspace, and a show for every listed workflow.
func coverage(ks string, workflows map[string]vitess.Workflow, lists map[string]vitess.WorkflowList) (map[string][]string, bool) {
	covered := map[string][]string{}
	known := false
	if l, ok := lists[ks]; ok {
		known = true
		for _, name := range l.Workflows {
			if _, ok := workflows[ks+"/"+name]; !ok {
				return nil, false // a workflow the snapshot does not show may hold them
			}
		}
	}
	for _, w := range workflows {
		if w.Source != ks && w.Target != ks {
			continue
		}
		known = true
		for _, t := range w.Tables {
			covered[t] = append(covered[t], w.Name)
		}
		if len(w.Tables) == 0 && w.WorkflowType != "Reshard" {
			return nil, false // a workflow whose tables are not known
		}
	}
	return covered, known
}

// holds reports whether a denied table entry (a name or /regexp/) is one a
// workflow moves.
func holds(covered map[string][]string, entry string) bool {
	if len(entry) > 2 && strings.HasPrefix(entry, "/") && strings.HasSuffix(entry, "/") {
		re, err := regexp.Compile(entry[1 : len(entry)-1])
		if err != nil {
			return false
		}
		for t := range covered {
			if re.MatchString(t) {
				return true
			}
		}
		return false
	}
	return len(covered[entry]) > 0
}

type incident struct {
	keyspace  string
	orphans   map[string]map[string][]string // shard → tablet type → entries
	primary   bool
	docs      []*forensics.Event // the shard records
	wfDocs    []*forensics.Event
	list      *forensics.Event
	workflows []string // workflows that exist and hold other tables
}

func (in *incident) tables() []string {
	var out []string
	for _, byType := range in.orphans {
		for _, ts := range byType {
			out = append(out, ts...)
		}
	}
	return unique(out)
}

func (in *incident) finding() forensics.Finding {
	shards := slices.Sorted(maps.Keys(in.orphans))
	tables := in.tables()
	sev := forensics.Medium
	if in.primary {
		sev = forensics.High
	}
	var ev []forensics.Evidence
	for _, e := range in.docs {
		line, text := controls(e)
		quote := forensics.EvidenceOf(e, "the shard record denies tables no workflow holds")
		quote.Line, quote.Text = line, text
		ev = append(ev, quote)
	}
	// The finding spans the shard records; the workflows are context.
	start, end := forensics.Span(ev)
	if in.list != nil {
		quote := forensics.EvidenceOf(in.list, "the keyspace's workflows")
		quote.Text = firstLines(in.list.Text, 8)
		ev = append(ev, quote)
	}
	for _, e := range in.wfDocs {
		quote := forensics.EvidenceOf(e, "a workflow of the keyspace, which moves other tables")
		quote.Text = firstLines(e.Text, 4)
		ev = append(ev, quote)
	}
	forensics.SortEvidence(ev)
	return forensics.Finding{
		Severity:    sev,
		Title:       fmt.Sprintf("%s denies %s, which no workflow holds", in.keyspace, strings.Join(tables, ", ")),
		Subject:     forensics.FindingSubject{Keyspace: in.keyspace, Shards: shards, Tables: tables},
		Start:       start,
		End:         end,
		Explanation: in.explain(shards, tables, end),
		Evidence:    ev,
		Fixes:       in.fixes(shards),
	}
}

func (in *incident) explain(shards, tables []string, at time.Time) string {
	var b strings.Builder
	var parts []string
	for _, sh := range shards {
		var types []string
		for _, tt := range slices.Sorted(maps.Keys(in.orphans[sh])) {
			types = append(types, fmt.Sprintf("%s to %s tablets", strings.Join(in.orphans[sh][tt], ", "), tt))
		}
		parts = append(parts, fmt.Sprintf("%s/%s denies %s", in.keyspace, sh, strings.Join(types, " and ")))
	}
	fmt.Fprintf(&b, "In the shard records as of %s, %s. ", evidence.Stamp(at), strings.Join(parts, "; "))
	switch {
	case len(in.workflows) > 0:
		fmt.Fprintf(&b, "The workflows of %s in the snapshot (%s) move other tables, none of these. ", in.keyspace, strings.Join(in.workflows, ", "))
	case in.list != nil:
		fmt.Fprintf(&b, "Workflow list shows no workflow in %s. ", in.keyspace)
	default:
		fmt.Fprintf(&b, "No workflow in the snapshot moves tables of %s. ", in.keyspace)
	}
	b.WriteString("The controls are left over from a workflow that was completed, cancelled or deleted without removing them. ")
	if in.primary {
		fmt.Fprintf(&b, "The primaries of %s refuse every query on %s (\"disallowed due to rule: enforce denied tables\"), and a MoveTables or SwitchTraffic over these tables will fail on them.", in.keyspace, strings.Join(tables, ", "))
	} else {
		b.WriteString("Replica and rdonly tablets refuse reads of these tables.")
	}
	return b.String()
}

// fixes: check, remove exactly what each shard lists, refresh. Syntax:
// go/cmd/vtctldclient/command/shards.go (SetShardTabletControl, GetShard),
// tablets.go (RefreshStateByShard), vreplication/workflow (list).
func (in *incident) fixes(shards []string) []forensics.Fix {
	if names.Keyspace(in.keyspace) != nil || names.Each(names.Shard, shards) != nil || names.Each(names.DeniedTable, in.tables()) != nil {
		return []forensics.Fix{{Title: "Remove the leftover denied tables by hand", Steps: []string{
			"A keyspace, shard or table name from the evidence is not a Vitess name, so no command is given with it.",
		}}}
	}
	check := forensics.Fix{
		Title:    fmt.Sprintf("Check that no workflow in any keyspace still moves these tables of %s", in.keyspace),
		Steps:    []string{"A workflow of another keyspace that moves the tables into or out of this one holds them too; list every keyspace's workflows before removing anything."},
		Commands: []string{shell.Vtctldclient("Workflow", "--keyspace", in.keyspace, "list")},
	}
	for _, sh := range shards {
		check.Commands = append(check.Commands, shell.Vtctldclient("GetShard", in.keyspace+"/"+sh))
	}
	rm := forensics.Fix{
		Title: fmt.Sprintf("Remove the leftover denied tables from the shards of %s", in.keyspace),
		Steps: []string{"SetShardTabletControl --remove refuses a table the control does not list, so each command names exactly the leftover entries of that shard and tablet type; entries a workflow holds stay."},
	}
	for _, sh := range shards {
		for _, tt := range slices.Sorted(maps.Keys(in.orphans[sh])) {
			rm.Commands = append(rm.Commands, shell.Vtctldclient("SetShardTabletControl",
				"--denied-tables="+strings.Join(in.orphans[sh][tt], ","), "--remove", in.keyspace+"/"+sh, tt))
		}
	}
	for _, sh := range shards {
		rm.Commands = append(rm.Commands, shell.Vtctldclient("RefreshStateByShard", in.keyspace+"/"+sh))
	}
	for _, sh := range shards {
		rm.Commands = append(rm.Commands, shell.Vtctldclient("GetShard", in.keyspace+"/"+sh))
	}
	return []forensics.Fix{check, rm}
}

// controls quotes the shard record's tablet_controls.
func controls(e *forensics.Event) (int64, string) {
	lines := strings.Split(e.Text, "\n")
	for i, l := range lines {
		if !strings.Contains(l, `"tablet_controls"`) && !strings.Contains(l, `"tabletControls"`) {
			continue
		}
		if !strings.HasSuffix(strings.TrimSpace(l), "[") {
			return e.Line + int64(i), strings.TrimSpace(l)
		}
		depth := 0
		for j := i; j < len(lines); j++ {
			depth += strings.Count(lines[j], "[") - strings.Count(lines[j], "]")
			if depth <= 0 || j-i >= 30 {
				return e.Line + int64(i), strings.Join(lines[i:j+1], "\n")
			}
		}
		return e.Line + int64(i), strings.Join(lines[i:], "\n")
	}
	return e.Line, lines[0]
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

func unique(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
