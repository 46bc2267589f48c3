// Package deniedtables holds the rule vitess-denied-tables-routing: a
// MoveTables traffic switch that was cut off can leave the routing rules and
// the shards' denied tables disagreeing, and then the moved tables refuse
// writes on the keyspace that receives them (vitessio/vitess#17326).
package deniedtables

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"forensics"
	"forensics/parsers/vitess"
)

// Rule is vitess-denied-tables-routing.
var Rule = &forensics.Rule{
	Name: "vitess-denied-tables-routing",
	Doc: forensics.Doc{
		Title: "moved tables denied where their traffic is routed",
		Detects: "For every table a MoveTables workflow moves, where the routing rules send its writes (the rule for the " +
			"plain table name) and its replica and rdonly reads (the @replica and @rdonly rules), checked against the " +
			"tablet controls of every shard of those keyspaces. Critical: the keyspace that receives the writes denies the " +
			"table to PRIMARY tablets on any shard (in a cell where its primary runs), or both source and target deny it, " +
			"or a REPLICA/RDONLY control denies it where those reads go. Warning: writes were switched to the target but " +
			"the source no longer denies the table. Info: a denial that covers only some shards of the keyspace that does " +
			"not take the writes (a half-applied step), or streams left stopped for cutover and never frozen. When the " +
			"vtctld log shows the SwitchTraffic or ReverseTraffic that left this state, its lines from Stopping source " +
			"writes to the failed cancel are part of the finding, with the step that was cut off. Each snapshot is " +
			"checked on its own; the same incident in consecutive snapshots is one finding, about the latest of them, " +
			"which also says whether an earlier snapshot was consistent and whether a later one no longer shows it.",
		Why: "vtctld switches writes by changing the denied tables on both sides (Stopping source writes), locking the " +
			"source tables, and only then the routing rules. If the switch fails in between and its cancel fails too " +
			"(the client's deadline cancels it, or it has lost its keyspace locks), the routing rules still send writes " +
			"to a keyspace whose primaries deny the tables: every write fails until someone edits the shard records. " +
			"vtctld still reports the state from the routing rules alone (\"Writes Switched\"), so nothing else points " +
			"at the cause.",
		Confirm: "vtctldclient GetRoutingRules: the rule for the plain table name gives the keyspace that takes its writes. " +
			"vtctldclient GetShard <keyspace>/<shard> for every shard of both keyspaces: look for a tablet_controls entry " +
			"with tablet_type PRIMARY (or 1) whose denied_tables list the table. On the tablets, queries fail with " +
			"\"disallowed due to rule: enforce denied tables\". In the vtctld log, search for \"Stopping source writes\", " +
			"\"Cancel migration failed\" and \"context deadline exceeded\".",
		Inputs: "A snapshot folder (or zip/tar.gz) with what vtctldclient printed: GetRoutingRules, GetShard for every " +
			"shard of the source and target keyspaces, and ideally Workflow show for both keyspaces (to know the workflow " +
			"and its direction), MoveTables status --format=json, GetSrvKeyspaces, and the vtctld log covering the switch. " +
			"Files may be named anything. Snapshots taken at different times may be given together; the timeline " +
			"reads identical files once, so a snapshot that lacks a document the snapshot before it has takes that " +
			"one (the evidence then points at the earlier file). Without Workflow show the direction of the move is " +
			"unknown: the written side is still checked, the other side only for a split. vtctld's glog lines have " +
			"no time zone; their times are read as UTC, so a vtctld on local time may fall outside the window and its " +
			"lines are then left out (the JSON logs of v24 carry their zone).",
		Fixes: "Remove the denial from the shards of the keyspace that receives the writes (SetShardTabletControl " +
			"--denied-tables=<exactly the listed tables> --remove <keyspace>/<shard> PRIMARY), RefreshStateByShard, " +
			"RebuildKeyspaceGraph and RebuildVSchemaGraph; deny the tables again on the keyspace that must not take " +
			"writes; then check MoveTables status and run the cut-off SwitchTraffic or ReverseTraffic again, or switch " +
			"the reads back to undo it. The finding lists the commands with the names filled in.",
	},
	Kinds: append([]forensics.Kind{
		vitess.KindRoutingRules, vitess.KindShard, vitess.KindSrvKeyspace, vitess.KindWorkflow, vitess.KindWorkflowStatus,
	}, logKinds...),
	Run: run,
}

func run(pass *forensics.Pass) error {
	docs, err := forensics.Collect(pass.Events(vitess.KindRoutingRules, vitess.KindShard, vitess.KindSrvKeyspace, vitess.KindWorkflow, vitess.KindWorkflowStatus))
	if err != nil {
		return fmt.Errorf("read snapshot documents: %w", err)
	}
	logs, err := forensics.Collect(pass.Events(logKinds...))
	if err != nil {
		return fmt.Errorf("read vtctld log events: %w", err)
	}
	all := attempts(logs)

	// Follow each incident across the snapshots, in time order.
	var episodes []*episode
	open := map[string]*episode{}
	var prev *topo
	for _, t := range snapshots(docs) {
		seen := map[string]*episode{}
		for _, in := range t.check() {
			key := in.key()
			if ep := open[key]; ep != nil {
				ep.in = in
				seen[key] = ep
				continue
			}
			ep := &episode{in: in, first: t, before: prev}
			seen[key] = ep
			episodes = append(episodes, ep)
		}
		for key, ep := range open {
			if seen[key] == nil {
				ep.resolved = t
			}
		}
		open = seen
		prev = t
	}
	for _, ep := range episodes {
		pass.Report(ep.finding(all))
	}
	return nil
}

// snapshots groups the documents by the snapshot they belong to (the
// parser's "snapshot" attribute: the folder or archive they were found in)
// and returns the snapshots in time order. A document that cannot be read
// back is left out; the parser has reported the file already.
func snapshots(docs []forensics.Event) []*topo {
	byName := map[string]*topo{}
	var out []*topo
	for i := range docs {
		e := &docs[i]
		name := e.Attr(vitess.AttrSnapshot)
		if name == "" {
			name = e.Path
		}
		t := byName[name]
		if t == nil {
			t = &topo{name: name, time: e.Time, shards: map[string][]*shardRec{}, served: map[string][]string{}}
			byName[name] = t
			out = append(out, t)
		}
		if e.Time.After(t.time) {
			t.time = e.Time
		}
		t.add(e)
	}
	for _, t := range out {
		for _, shards := range t.shards {
			sort.Slice(shards, func(i, j int) bool { return shards[i].name < shards[j].name })
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].time.Before(out[j].time) })
	// The timeline reads a file once however often its content occurs, so a
	// later snapshot that repeats a document unchanged does not show it:
	// such a snapshot takes the document from the snapshot before it.
	for i := 1; i < len(out); i++ {
		out[i].inherit(out[i-1])
	}
	return out
}

// inherit fills in the routing rules, shard records, serving cells and
// workflows that prev has and t lacks. Traffic states are not inherited:
// they say what vtctld reported at one time.
func (t *topo) inherit(prev *topo) {
	if t.rules == nil {
		t.rules, t.rulesEv = prev.rules, prev.rulesEv
	}
	for ks, shards := range prev.shards {
		added := false
		for _, s := range shards {
			if !slices.ContainsFunc(t.shards[ks], func(x *shardRec) bool { return x.name == s.name }) {
				t.shards[ks] = append(t.shards[ks], s)
				added = true
			}
		}
		if added {
			sort.Slice(t.shards[ks], func(i, j int) bool { return t.shards[ks][i].name < t.shards[ks][j].name })
		}
	}
	for ks, cells := range prev.served {
		if _, ok := t.served[ks]; !ok {
			t.served[ks] = cells
		}
	}
	for _, f := range prev.flows {
		if !slices.ContainsFunc(t.flows, func(x *flowRec) bool { return x.name == f.name && x.target == f.target }) {
			t.flows = append(t.flows, f)
		}
	}
}

// add reads one document into the snapshot. A later document of the same
// thing replaces an earlier one: the user saved it again.
func (t *topo) add(e *forensics.Event) {
	switch e.Kind {
	case vitess.KindRoutingRules:
		d, err := vitess.DecodeRoutingRules(e)
		if err != nil {
			return
		}
		t.rules, t.rulesEv = d.Rules, e
	case vitess.KindShard:
		d, err := vitess.DecodeShard(e)
		if err != nil || d.Keyspace == "" || d.Name == "" {
			return
		}
		s := &shardRec{keyspace: d.Keyspace, name: d.Name, primaryCell: aliasCell(d.PrimaryAlias), ev: e}
		for _, c := range d.TabletControls {
			s.controls = append(s.controls, controlRec{tabletType: c.TabletType, cells: c.Cells, denied: c.DeniedTables})
		}
		list := t.shards[d.Keyspace]
		for i, old := range list {
			if old.name == s.name {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		t.shards[d.Keyspace] = append(list, s)
	case vitess.KindSrvKeyspace:
		d, err := vitess.DecodeSrvKeyspaces(e)
		if err != nil || d.Keyspace == "" {
			return // the document does not say whose serving graph it is
		}
		var cells []string
		for cell, srv := range d.Cells {
			if len(srv.Partitions) > 0 {
				cells = append(cells, cell)
			}
		}
		sort.Strings(cells)
		t.served[d.Keyspace] = cells
	case vitess.KindWorkflow:
		d, err := vitess.DecodeWorkflow(e)
		if err != nil {
			return
		}
		f := &flowRec{name: d.Name, source: d.Source, target: d.Target, tables: d.Tables, ev: e}
		for _, sh := range d.Shards {
			for _, st := range sh.Streams {
				f.streams = append(f.streams, streamRec{shard: sh.Shard, message: st.Message})
			}
		}
		for i, old := range t.flows {
			if old.name == f.name && old.target == f.target {
				t.flows = append(t.flows[:i], t.flows[i+1:]...)
				break
			}
		}
		t.flows = append(t.flows, f)
	case vitess.KindWorkflowStatus:
		d, err := vitess.DecodeWorkflowStatus(e)
		if err != nil {
			return
		}
		t.states = append(t.states, &stateRec{keyspace: d.Keyspace, workflow: d.Workflow, traffic: d.TrafficState, ev: e})
	}
}

// aliasCell returns the cell of a tablet alias "cell-0000000100"; cells may
// hold dashes, the uid does not.
func aliasCell(alias string) string {
	if i := strings.LastIndexByte(alias, '-'); i > 0 {
		return alias[:i]
	}
	return ""
}
