package vitess

import (
	"fmt"
	"sort"
	"strings"
)

// Readers of the protos vtctldclient prints (proto/vschema.proto,
// proto/topodata.proto, proto/vtctldata.proto). Unknown fields are ignored;
// a field of the wrong JSON type is an error naming its path.

// readRoutingRules reads vschema.RoutingRules: {"rules": [{"from_table",
// "to_tables"}]}.
func readRoutingRules(o object, path string) (RoutingRules, error) {
	d := RoutingRules{Rules: map[string]string{}}
	rules, err := o.list("rules", path)
	if err != nil {
		return d, err
	}
	for i, raw := range rules {
		p := fmt.Sprintf("%s.rules[%d]", path, i)
		r, _, err := fields(raw, p)
		if err != nil {
			return d, err
		}
		from, err := r.str("from_table", p)
		if err != nil {
			return d, err
		}
		to, err := r.strs("to_tables", p)
		if err != nil {
			return d, err
		}
		if from == "" {
			return d, fmt.Errorf("%s: no from_table", p)
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
	return d, nil
}

// readShardRoutingRules reads vschema.ShardRoutingRules.
func readShardRoutingRules(o object, path string) (ShardRoutingRules, error) {
	d := ShardRoutingRules{Rules: []ShardRoutingRule{}}
	rules, err := o.list("rules", path)
	if err != nil {
		return d, err
	}
	for i, raw := range rules {
		p := fmt.Sprintf("%s.rules[%d]", path, i)
		r, _, err := fields(raw, p)
		if err != nil {
			return d, err
		}
		var rule ShardRoutingRule
		if rule.FromKeyspace, err = r.str("from_keyspace", p); err != nil {
			return d, err
		}
		if rule.ToKeyspace, err = r.str("to_keyspace", p); err != nil {
			return d, err
		}
		if rule.Shard, err = r.str("shard", p); err != nil {
			return d, err
		}
		d.Rules = append(d.Rules, rule)
	}
	return d, nil
}

// readKeyspaceRoutingRules reads vschema.KeyspaceRoutingRules into a map.
func readKeyspaceRoutingRules(o object, path string) (map[string]string, error) {
	rules, err := o.list("rules", path)
	if err != nil || len(rules) == 0 {
		return nil, err
	}
	m := map[string]string{}
	for i, raw := range rules {
		p := fmt.Sprintf("%s.rules[%d]", path, i)
		r, _, err := fields(raw, p)
		if err != nil {
			return nil, err
		}
		from, err := r.str("from_keyspace", p)
		if err != nil {
			return nil, err
		}
		to, err := r.str("to_keyspace", p)
		if err != nil {
			return nil, err
		}
		m[from] = to
	}
	return m, nil
}

// readKeyspace reads vtctldata.Keyspace: {"name", "keyspace": topodata.Keyspace}.
func readKeyspace(o object, path string) (Keyspace, error) {
	var k Keyspace
	var err error
	if k.Name, err = o.str("name", path); err != nil {
		return k, err
	}
	ks, ok, err := fields(o.get("keyspace"), path+".keyspace")
	if err != nil || !ok {
		return k, err
	}
	p := path + ".keyspace"
	if k.KeyspaceType, err = ks.enum("keyspace_type", p, keyspaceTypes); err != nil {
		return k, err
	}
	if k.BaseKeyspace, err = ks.str("base_keyspace", p); err != nil {
		return k, err
	}
	if k.DurabilityPolicy, err = ks.str("durability_policy", p); err != nil {
		return k, err
	}
	if k.SidecarDBName, err = ks.str("sidecar_db_name", p); err != nil {
		return k, err
	}
	return k, nil
}

// readShard reads vtctldata.Shard: {"keyspace", "name", "shard": topodata.Shard}.
func readShard(o object, path string) (Shard, error) {
	var s Shard
	var err error
	if s.Keyspace, err = o.str("keyspace", path); err != nil {
		return s, err
	}
	if s.Name, err = o.str("name", path); err != nil {
		return s, err
	}
	sh, _, err := fields(o.get("shard"), path+".shard")
	if err != nil {
		return s, err
	}
	p := path + ".shard"
	if s.KeyRange, err = sh.keyRange("key_range", p); err != nil {
		return s, err
	}
	// primary_alias and is_primary_serving were master_alias and
	// is_master_serving before Vitess 12.
	primary := "primary_alias"
	if !has(sh, primary) {
		primary = "master_alias"
	}
	if s.PrimaryAlias, err = sh.alias(primary, p); err != nil {
		return s, err
	}
	serving := "is_primary_serving"
	if !has(sh, serving) {
		serving = "is_master_serving"
	}
	if s.PrimaryServing, err = sh.boolean(serving, p); err != nil {
		return s, err
	}
	s.TabletControls, err = readTabletControls(sh, p)
	return s, err
}

// readTabletControls reads the repeated topodata.Shard.TabletControl of a
// shard record or of a workflow's shard stream.
func readTabletControls(o object, path string) ([]TabletControl, error) {
	out := []TabletControl{}
	tcs, err := o.list("tablet_controls", path)
	if err != nil {
		return out, err
	}
	for i, raw := range tcs {
		p := fmt.Sprintf("%s.tablet_controls[%d]", path, i)
		t, _, err := fields(raw, p)
		if err != nil {
			return out, err
		}
		var tc TabletControl
		if tc.TabletType, err = t.tabletType("tablet_type", p); err != nil {
			return out, err
		}
		if tc.Cells, err = t.strs("cells", p); err != nil {
			return out, err
		}
		// denied_tables was blacklisted_tables before Vitess 12.
		denied := "denied_tables"
		if !has(t, denied) {
			denied = "blacklisted_tables"
		}
		if tc.DeniedTables, err = t.strs(denied, p); err != nil {
			return out, err
		}
		if tc.Frozen, err = t.boolean("frozen", p); err != nil {
			return out, err
		}
		if tc.Cells == nil {
			tc.Cells = []string{}
		}
		if tc.DeniedTables == nil {
			tc.DeniedTables = []string{}
		}
		out = append(out, tc)
	}
	return out, nil
}

// readSrvKeyspace reads topodata.SrvKeyspace.
func readSrvKeyspace(o object, path string) (SrvKeyspace, error) {
	d := SrvKeyspace{Partitions: []Partition{}}
	parts, err := o.list("partitions", path)
	if err != nil {
		return d, err
	}
	for i, raw := range parts {
		p := fmt.Sprintf("%s.partitions[%d]", path, i)
		po, _, err := fields(raw, p)
		if err != nil {
			return d, err
		}
		part := Partition{Shards: []ShardReference{}}
		if part.ServedType, err = po.tabletType("served_type", p); err != nil {
			return d, err
		}
		refs, err := po.list("shard_references", p)
		if err != nil {
			return d, err
		}
		for j, rraw := range refs {
			rp := fmt.Sprintf("%s.shard_references[%d]", p, j)
			r, _, err := fields(rraw, rp)
			if err != nil {
				return d, err
			}
			var ref ShardReference
			if ref.Name, err = r.str("name", rp); err != nil {
				return d, err
			}
			if ref.KeyRange, err = r.keyRange("key_range", rp); err != nil {
				return d, err
			}
			part.Shards = append(part.Shards, ref)
		}
		stcs, err := po.list("shard_tablet_controls", p)
		if err != nil {
			return d, err
		}
		for j, sraw := range stcs {
			sp := fmt.Sprintf("%s.shard_tablet_controls[%d]", p, j)
			s, _, err := fields(sraw, sp)
			if err != nil {
				return d, err
			}
			var stc ShardTabletControl
			if stc.Name, err = s.str("name", sp); err != nil {
				return d, err
			}
			if stc.KeyRange, err = s.keyRange("key_range", sp); err != nil {
				return d, err
			}
			if stc.QueryServiceDisabled, err = s.boolean("query_service_disabled", sp); err != nil {
				return d, err
			}
			part.TabletControls = append(part.TabletControls, stc)
		}
		d.Partitions = append(d.Partitions, part)
	}
	return d, nil
}

// readSrvVSchema reads vschema.SrvVSchema.
func readSrvVSchema(o object, path string) (SrvVSchema, error) {
	d := SrvVSchema{Keyspaces: []string{}, RoutingRules: map[string]string{}}
	kss, err := entries(o.get("keyspaces"), path+".keyspaces")
	if err != nil {
		return d, err
	}
	for ks := range kss {
		d.Keyspaces = append(d.Keyspaces, ks)
	}
	sort.Strings(d.Keyspaces)
	if rr, ok, err := fields(o.get("routing_rules"), path+".routing_rules"); err != nil {
		return d, err
	} else if ok {
		r, err := readRoutingRules(rr, path+".routing_rules")
		if err != nil {
			return d, err
		}
		d.RoutingRules = r.Rules
	}
	if srr, ok, err := fields(o.get("shard_routing_rules"), path+".shard_routing_rules"); err != nil {
		return d, err
	} else if ok {
		r, err := readShardRoutingRules(srr, path+".shard_routing_rules")
		if err != nil {
			return d, err
		}
		if len(r.Rules) > 0 {
			d.ShardRoutingRules = r.Rules
		}
	}
	if krr, ok, err := fields(o.get("keyspace_routing_rules"), path+".keyspace_routing_rules"); err != nil {
		return d, err
	} else if ok {
		if d.KeyspaceRoutingRules, err = readKeyspaceRoutingRules(krr, path+".keyspace_routing_rules"); err != nil {
			return d, err
		}
	}
	return d, nil
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
func readWorkflow(o object, path string) (Workflow, error) {
	w := Workflow{Tables: []string{}, Shards: []WorkflowShard{}, SourceShards: []string{}, TargetShards: []string{}}
	var err error
	if w.Name, err = o.str("name", path); err != nil {
		return w, err
	}
	for _, loc := range []struct {
		name   string
		ks     *string
		shards *[]string
	}{{"source", &w.Source, &w.SourceShards}, {"target", &w.Target, &w.TargetShards}} {
		lo, ok, err := fields(o[loc.name], path+"."+loc.name)
		if err != nil {
			return w, err
		}
		if !ok {
			continue
		}
		if *loc.ks, err = lo.str("keyspace", path+"."+loc.name); err != nil {
			return w, err
		}
		shards, err := lo.strs("shards", path+"."+loc.name)
		if err != nil {
			return w, err
		}
		if shards != nil {
			*loc.shards = shards
		}
	}
	if w.WorkflowType, err = o.str("workflow_type", path); err != nil {
		return w, err
	}
	if w.WorkflowSubType, err = o.str("workflow_sub_type", path); err != nil {
		return w, err
	}
	streams, err := entries(o.get("shard_streams"), path+".shard_streams")
	if err != nil {
		return w, err
	}
	keys := make([]string, 0, len(streams))
	for k := range streams {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tables := map[string]bool{}
	for _, key := range keys {
		p := path + ".shard_streams[" + key + "]"
		ss, _, err := fields(streams[key], p)
		if err != nil {
			return w, err
		}
		shard, tablet, _ := strings.Cut(key, "/")
		ws := WorkflowShard{Shard: shard, Tablet: tablet, Streams: []Stream{}}
		if ws.TabletControls, err = readTabletControls(ss, p); err != nil {
			return w, err
		}
		if ws.PrimaryServing, err = ss.boolean("is_primary_serving", p); err != nil {
			return w, err
		}
		list, err := ss.list("streams", p)
		if err != nil {
			return w, err
		}
		for i, raw := range list {
			st, err := readStream(raw, fmt.Sprintf("%s.streams[%d]", p, i))
			if err != nil {
				return w, err
			}
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
	for t := range tables {
		w.Tables = append(w.Tables, t)
	}
	sort.Strings(w.Tables)
	return w, nil
}

// readStream reads vtctldata.Workflow.Stream; the tables are the matches of
// its binlog_source filter rules (a MoveTables stream has one rule per
// table; a Reshard rule matches "/.*" and names no table).
func readStream(raw any, path string) (Stream, error) {
	st := Stream{Tables: []string{}}
	o, _, err := fields(raw, path)
	if err != nil {
		return st, err
	}
	if st.ID, err = o.int64("id", path); err != nil {
		return st, err
	}
	if st.Shard, err = o.str("shard", path); err != nil {
		return st, err
	}
	if st.Tablet, err = o.alias("tablet", path); err != nil {
		return st, err
	}
	if st.State, err = o.str("state", path); err != nil {
		return st, err
	}
	if st.Message, err = o.str("message", path); err != nil {
		return st, err
	}
	if st.DBName, err = o.str("db_name", path); err != nil {
		return st, err
	}
	if st.Position, err = o.str("position", path); err != nil {
		return st, err
	}
	bls, ok, err := fields(o.get("binlog_source"), path+".binlog_source")
	if err != nil || !ok {
		return st, err
	}
	p := path + ".binlog_source"
	if st.SourceKeyspace, err = bls.str("keyspace", p); err != nil {
		return st, err
	}
	if st.SourceShard, err = bls.str("shard", p); err != nil {
		return st, err
	}
	filter, ok, err := fields(bls.get("filter"), p+".filter")
	if err != nil || !ok {
		return st, err
	}
	rules, err := filter.list("rules", p+".filter")
	if err != nil {
		return st, err
	}
	for i, rraw := range rules {
		rp := fmt.Sprintf("%s.filter.rules[%d]", p, i)
		r, _, err := fields(rraw, rp)
		if err != nil {
			return st, err
		}
		match, err := r.str("match", rp)
		if err != nil {
			return st, err
		}
		if match != "" && !strings.HasPrefix(match, "/") {
			st.Tables = append(st.Tables, match)
		}
	}
	return st, nil
}

// readWorkflowStatus reads vtctldata.WorkflowStatusResponse. Its
// shard_streams are keyed "<target keyspace>/<shard>"
// (go/vt/vtctl/workflow/server.go WorkflowStatus).
func readWorkflowStatus(o object, path string) (WorkflowStatus, error) {
	ws := WorkflowStatus{Streams: []StatusStream{}}
	var err error
	if ws.TrafficState, err = o.str("traffic_state", path); err != nil {
		return ws, err
	}
	streams, err := entries(o.get("shard_streams"), path+".shard_streams")
	if err != nil {
		return ws, err
	}
	keys := make([]string, 0, len(streams))
	for k := range streams {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if ks, _, ok := strings.Cut(key, "/"); ok && ws.Keyspace == "" {
			ws.Keyspace = ks
		}
		p := path + ".shard_streams[" + key + "]"
		ss, _, err := fields(streams[key], p)
		if err != nil {
			return ws, err
		}
		list, err := ss.list("streams", p)
		if err != nil {
			return ws, err
		}
		for i, raw := range list {
			sp := fmt.Sprintf("%s.streams[%d]", p, i)
			so, _, err := fields(raw, sp)
			if err != nil {
				return ws, err
			}
			st := StatusStream{Shard: key}
			if st.ID, err = so.int64("id", sp); err != nil {
				return ws, err
			}
			if st.Tablet, err = so.alias("tablet", sp); err != nil {
				return ws, err
			}
			if st.SourceShard, err = so.str("source_shard", sp); err != nil {
				return ws, err
			}
			if st.Position, err = so.str("position", sp); err != nil {
				return ws, err
			}
			if st.Status, err = so.str("status", sp); err != nil {
				return ws, err
			}
			if st.Info, err = so.str("info", sp); err != nil {
				return ws, err
			}
			ws.Streams = append(ws.Streams, st)
		}
	}
	tcs, err := entries(o.get("table_copy_state"), path+".table_copy_state")
	if err != nil {
		return ws, err
	}
	for t := range tcs {
		ws.Tables = append(ws.Tables, t)
	}
	sort.Strings(ws.Tables)
	return ws, nil
}

// readSwitchResponse reads vtctldata.WorkflowSwitchTrafficResponse, which
// SwitchTraffic and ReverseTraffic print with --format=json. Its summary is
// "<command> was successful for workflow <keyspace>.<workflow>" or
// "<command> dry run results for workflow <keyspace>.<workflow> at <time>"
// (go/vt/vtctl/workflow/server.go WorkflowSwitchTraffic).
func readSwitchResponse(o object, path string) (SwitchResult, error) {
	var r SwitchResult
	var err error
	if r.Summary, err = o.str("summary", path); err != nil {
		return r, err
	}
	if r.StartState, err = o.str("start_state", path); err != nil {
		return r, err
	}
	if r.CurrentState, err = o.str("current_state", path); err != nil {
		return r, err
	}
	if r.DryRunResults, err = o.strs("dry_run_results", path); err != nil {
		return r, err
	}
	r.Command, r.Keyspace, r.Workflow, r.DryRun, _ = parseSummary(r.Summary)
	if len(r.DryRunResults) > 0 {
		r.DryRun = true
	}
	return r, nil
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
