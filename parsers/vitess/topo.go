package vitess

import (
	"fmt"
	"strings"
)

// Readers of the protos vtctldclient prints (proto/vschema.proto,
// proto/topodata.proto, proto/vtctldata.proto). Unknown fields are ignored;
// a field of the wrong JSON type is an error naming its path, kept by the
// document's decoder: callers read a document with decode.

// readRoutingRules reads vschema.RoutingRules: {"rules": [{"from_table",
// "to_tables"}]}.
func readRoutingRules(n node) RoutingRules {
	d := RoutingRules{Rules: map[string]string{}}
	for r := range n.objects("rules") {
		from, to := r.str("from_table"), r.strs("to_tables")
		if from == "" {
			r.d.fail(fmt.Errorf("%s: no from_table", r.path))
			break
		}
		first := ""
		if len(to) > 0 {
			first = to[0]
		}
		d.Rules[from] = first
		if len(to) > 1 {
			if d.Targets == nil {
				d.Targets = map[string][]string{}
			}
			d.Targets[from] = to
		}
	}
	return d
}

// readShardRoutingRules reads vschema.ShardRoutingRules.
func readShardRoutingRules(n node) ShardRoutingRules {
	d := ShardRoutingRules{Rules: []ShardRoutingRule{}}
	for r := range n.objects("rules") {
		d.Rules = append(d.Rules, ShardRoutingRule{
			FromKeyspace: r.str("from_keyspace"),
			ToKeyspace:   r.str("to_keyspace"),
			Shard:        r.str("shard"),
		})
	}
	return d
}

// readKeyspaceRoutingRules reads vschema.KeyspaceRoutingRules into a map;
// nil when there are no rules.
func readKeyspaceRoutingRules(n node) map[string]string {
	var m map[string]string
	for r := range n.objects("rules") {
		if m == nil {
			m = map[string]string{}
		}
		from, to := r.str("from_keyspace"), r.str("to_keyspace")
		m[from] = to
	}
	return m
}

// readKeyspace reads vtctldata.Keyspace: {"name", "keyspace": topodata.Keyspace}.
func readKeyspace(n node) Keyspace {
	k := Keyspace{Name: n.str("name")}
	ks, ok := n.obj("keyspace")
	if !ok {
		return k
	}
	k.KeyspaceType = ks.enum("keyspace_type", keyspaceTypes)
	k.BaseKeyspace = ks.str("base_keyspace")
	k.DurabilityPolicy = ks.str("durability_policy")
	k.SidecarDBName = ks.str("sidecar_db_name")
	return k
}

// readShard reads vtctldata.Shard: {"keyspace", "name", "shard": topodata.Shard}.
func readShard(n node) Shard {
	s := Shard{Keyspace: n.str("keyspace"), Name: n.str("name")}
	sh, _ := n.obj("shard")
	s.KeyRange = sh.keyRange("key_range")
	s.PrimaryAlias = sh.alias(sh.renamed("primary_alias", "master_alias"))
	s.PrimaryServing = sh.boolean(sh.renamed("is_primary_serving", "is_master_serving"))
	s.TabletControls = readTabletControls(sh)
	return s
}

// readTabletControls reads the repeated topodata.Shard.TabletControl of a
// shard record or of a workflow's shard stream.
func readTabletControls(n node) []TabletControl {
	out := []TabletControl{}
	for t := range n.objects("tablet_controls") {
		tc := TabletControl{
			TabletType:   t.tabletType("tablet_type"),
			Cells:        t.strs("cells"),
			DeniedTables: t.strs(t.renamed("denied_tables", "blacklisted_tables")),
			Frozen:       t.boolean("frozen"),
		}
		if tc.Cells == nil {
			tc.Cells = []string{}
		}
		if tc.DeniedTables == nil {
			tc.DeniedTables = []string{}
		}
		out = append(out, tc)
	}
	return out
}

// readSrvKeyspace reads topodata.SrvKeyspace.
func readSrvKeyspace(n node) SrvKeyspace {
	d := SrvKeyspace{Partitions: []Partition{}}
	for po := range n.objects("partitions") {
		part := Partition{ServedType: po.tabletType("served_type"), Shards: []ShardReference{}}
		for r := range po.objects("shard_references") {
			part.Shards = append(part.Shards, ShardReference{
				Name:     r.str("name"),
				KeyRange: r.keyRange("key_range"),
			})
		}
		for s := range po.objects("shard_tablet_controls") {
			part.TabletControls = append(part.TabletControls, ShardTabletControl{
				Name:                 s.str("name"),
				KeyRange:             s.keyRange("key_range"),
				QueryServiceDisabled: s.boolean("query_service_disabled"),
			})
		}
		d.Partitions = append(d.Partitions, part)
	}
	return d
}

// readSrvVSchema reads vschema.SrvVSchema.
func readSrvVSchema(n node) SrvVSchema {
	d := SrvVSchema{Keyspaces: sortedKeys(n.entries("keyspaces")), RoutingRules: map[string]string{}}
	if rr, ok := n.obj("routing_rules"); ok {
		d.RoutingRules = readRoutingRules(rr).Rules
	}
	if srr, ok := n.obj("shard_routing_rules"); ok {
		if r := readShardRoutingRules(srr); len(r.Rules) > 0 {
			d.ShardRoutingRules = r.Rules
		}
	}
	if krr, ok := n.obj("keyspace_routing_rules"); ok {
		d.KeyspaceRoutingRules = readKeyspaceRoutingRules(krr)
	}
	return d
}

// frozenMessage and cutoverMessage are the stream messages a writes switch
// leaves (go/vt/vtctl/workflow/traffic_switcher.go: Frozen, and
// waitForCatchup's StopVReplication(uid, "stopped for cutover")).
const (
	frozenMessage  = "FROZEN"
	cutoverMessage = "stopped for cutover"
)

// readWorkflow reads vtctldata.Workflow. Its shard_streams are keyed
// "<shard>/<tablet alias>" (go/vt/vtctl/workflow/workflows.go).
func readWorkflow(n node) Workflow {
	w := Workflow{Name: n.str("name"), Tables: []string{}, Shards: []WorkflowShard{}, SourceShards: []string{}, TargetShards: []string{}}
	for _, loc := range []struct {
		name   string
		ks     *string
		shards *[]string
	}{{"source", &w.Source, &w.SourceShards}, {"target", &w.Target, &w.TargetShards}} {
		lo, _ := n.obj(loc.name)
		*loc.ks = lo.str("keyspace")
		if shards := lo.strs("shards"); shards != nil {
			*loc.shards = shards
		}
	}
	w.WorkflowType = n.str("workflow_type")
	w.WorkflowSubType = n.str("workflow_sub_type")
	tables := map[string]bool{}
	for key, ss := range n.byKey("shard_streams") {
		shard, tablet, _ := strings.Cut(key, "/")
		ws := WorkflowShard{
			Shard:          shard,
			Tablet:         tablet,
			TabletControls: readTabletControls(ss),
			PrimaryServing: ss.boolean("is_primary_serving"),
			Streams:        []Stream{},
		}
		for so := range ss.objects("streams") {
			st := readStream(so)
			for _, t := range st.Tables {
				tables[t] = true
			}
			switch st.Message {
			case frozenMessage:
				w.Frozen = true
			case cutoverMessage:
				w.StoppedForCutover = true
			}
			ws.Streams = append(ws.Streams, st)
		}
		w.Shards = append(w.Shards, ws)
	}
	w.Tables = sortedKeys(tables)
	return w
}

// readStream reads vtctldata.Workflow.Stream; the tables are the matches of
// its binlog_source filter rules (a MoveTables stream has one rule per
// table; a Reshard rule matches "/.*" and names no table).
func readStream(n node) Stream {
	st := Stream{
		ID:       n.int64("id"),
		Shard:    n.str("shard"),
		Tablet:   n.alias("tablet"),
		State:    n.str("state"),
		Message:  n.str("message"),
		DBName:   n.str("db_name"),
		Position: n.str("position"),
		Tables:   []string{},
	}
	bls, _ := n.obj("binlog_source")
	st.SourceKeyspace = bls.str("keyspace")
	st.SourceShard = bls.str("shard")
	filter, _ := bls.obj("filter")
	for r := range filter.objects("rules") {
		if match := r.str("match"); match != "" && !strings.HasPrefix(match, "/") {
			st.Tables = append(st.Tables, match)
		}
	}
	return st
}

// readWorkflowStatus reads vtctldata.WorkflowStatusResponse. Its
// shard_streams are keyed "<target keyspace>/<shard>"
// (go/vt/vtctl/workflow/server.go WorkflowStatus).
func readWorkflowStatus(n node) WorkflowStatus {
	ws := WorkflowStatus{TrafficState: n.str("traffic_state"), Streams: []StatusStream{}}
	for key, ss := range n.byKey("shard_streams") {
		if ks, _, ok := strings.Cut(key, "/"); ok && ws.Keyspace == "" {
			ws.Keyspace = ks
		}
		for so := range ss.objects("streams") {
			ws.Streams = append(ws.Streams, StatusStream{
				Shard:       key,
				ID:          so.int64("id"),
				Tablet:      so.alias("tablet"),
				SourceShard: so.str("source_shard"),
				Position:    so.str("position"),
				Status:      so.str("status"),
				Info:        so.str("info"),
			})
		}
	}
	if tcs := n.entries("table_copy_state"); len(tcs) > 0 {
		ws.Tables = sortedKeys(tcs)
	}
	return ws
}

// readSwitchResponse reads vtctldata.WorkflowSwitchTrafficResponse, which
// SwitchTraffic and ReverseTraffic print with --format=json. Its summary is
// "<command> was successful for workflow <keyspace>.<workflow>" or
// "<command> dry run results for workflow <keyspace>.<workflow> at <time>"
// (go/vt/vtctl/workflow/server.go WorkflowSwitchTraffic).
func readSwitchResponse(n node) SwitchResult {
	r := SwitchResult{
		Summary:       n.str("summary"),
		StartState:    n.str("start_state"),
		CurrentState:  n.str("current_state"),
		DryRunResults: n.strs("dry_run_results"),
	}
	r.Command, r.Keyspace, r.Workflow, r.DryRun, _ = parseSummary(r.Summary)
	if len(r.DryRunResults) > 0 {
		r.DryRun = true
	}
	return r
}

// parseSummary reads a traffic switch summary line.
func parseSummary(s string) (command, keyspace, workflow string, dryRun, ok bool) {
	for _, mid := range []string{" was successful for workflow ", " dry run results for workflow "} {
		cmd, rest, found := strings.Cut(s, mid)
		if !found || strings.ContainsAny(cmd, " \t") || cmd == "" {
			continue
		}
		name, _, _ := strings.Cut(rest, " ")
		ks, wf, _ := strings.Cut(name, ".")
		return cmd, ks, wf, strings.HasPrefix(mid, " dry run"), true
	}
	return "", "", "", false, false
}
