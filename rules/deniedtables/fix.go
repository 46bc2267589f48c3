package deniedtables

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"forensics"
	"forensics/names"
	"forensics/shell"
)

// fixes returns what to do, in the order to do it: stop denying where the
// traffic goes, deny again where it must not go, then finish or undo the
// switch that was cut off. Command syntax: vtctldclient
// command/shards.go (SetShardTabletControl), command/tablets.go
// (RefreshStateByShard), command/keyspaces.go, command/vschemas.go and
// command/vreplication/common (MoveTables status, SwitchTraffic,
// ReverseTraffic, start).
func (in *incident) fixes(a *attempt) []forensics.Fix {
	out := in.buildFixes(a)
	// A name Vitess would not accept is not put into a command: the
	// evidence was damaged or made up, and a command about a made-up name
	// is at best useless. The fixes keep their prose and say why.
	if err := in.badName(); err != nil {
		for i := range out {
			if len(out[i].Commands) > 0 {
				out[i].Commands = nil
				out[i].Steps = append(out[i].Steps, "No command is given: the evidence holds "+err.Error()+". Check the names with vtctldclient GetKeyspaces and GetShard before running anything.")
			}
		}
	}
	return out
}

// badName checks every name the commands would carry.
func (in *incident) badName() error {
	var errs []error
	for _, ks := range []string{in.written, in.other, in.move.source, in.move.target} {
		if ks != "" {
			errs = append(errs, names.Keyspace(ks))
		}
	}
	if in.move.workflow != "" {
		errs = append(errs, names.Workflow(in.move.workflow))
	}
	for _, m := range []map[string][]string{in.writeDenied, in.otherMissing, in.splitMissing()} {
		for sh, entries := range m {
			errs = append(errs, names.Shard(sh))
			for _, e := range entries {
				errs = append(errs, names.DeniedTable(e))
			}
		}
	}
	for _, r := range in.readDenied {
		errs = append(errs, names.Keyspace(r.keyspace), names.Shard(r.shard))
		for _, e := range r.entries {
			errs = append(errs, names.DeniedTable(e))
		}
	}
	return names.First(errs...)
}

func (in *incident) buildFixes(a *attempt) []forensics.Fix {
	var out []forensics.Fix
	t, m := in.topo, in.move

	if len(in.writeDenied) > 0 {
		f := forensics.Fix{
			Title: fmt.Sprintf("Stop denying %s on the primaries of %s, which receive their writes", join(in.tables), in.written),
			Steps: []string{
				"SetShardTabletControl --remove refuses entries a shard does not list, so each command names exactly the entries that shard's record lists.",
				"RefreshStateByShard makes the tablets reload the shard record; until then they keep refusing the tables.",
			},
		}
		shards := slices.Sorted(maps.Keys(in.writeDenied))
		for _, sh := range shards {
			f.Commands = append(f.Commands, removeCmd(in.writeDenied[sh], in.written, sh, "PRIMARY"))
		}
		for _, sh := range shards {
			f.Commands = append(f.Commands, shell.Vtctldclient("RefreshStateByShard", in.written+"/"+sh))
		}
		f.Commands = append(f.Commands, shell.Vtctldclient("RebuildKeyspaceGraph", in.written), shell.Vtctldclient("RebuildVSchemaGraph"))
		if regexpEntry(in.writeDenied) {
			f.Steps = append(f.Steps, "A /regexp/ entry may deny other tables as well; removing it allows them too. Add those back with SetShardTabletControl --denied-tables if they must stay denied.")
		}
		out = append(out, f)
	}

	if len(in.readDenied) > 0 {
		f := forensics.Fix{Title: "Stop denying the tables to the tablets that serve their reads"}
		var refresh []string
		keyspaces := map[string]bool{}
		for _, r := range in.readDenied {
			f.Commands = append(f.Commands, removeCmd(r.entries, r.keyspace, r.shard, r.tabletType))
			refresh = appendUnique(refresh, shell.Vtctldclient("RefreshStateByShard", r.keyspace+"/"+r.shard))
			keyspaces[r.keyspace] = true
		}
		f.Commands = append(f.Commands, refresh...)
		for _, ks := range slices.Sorted(maps.Keys(keyspaces)) {
			f.Commands = append(f.Commands, shell.Vtctldclient("RebuildKeyspaceGraph", ks))
		}
		f.Commands = append(f.Commands, shell.Vtctldclient("RebuildVSchemaGraph"))
		f.Steps = []string{"MoveTables never denies tables to REPLICA or RDONLY tablets: these controls were set by hand or by another tool."}
		out = append(out, f)
	}

	// The side that must not take the writes denies them again: after the
	// write switch the source always does (FORMATS.md C5).
	if in.switched && len(in.otherMissing) > 0 {
		f := forensics.Fix{
			Title: fmt.Sprintf("Deny %s again on the primaries of %s, which must not take their writes", join(in.tables), in.other),
			Steps: []string{"Each command adds only the tables that shard does not list yet: adding a listed table fails. Older releases refuse to change an existing list; there, remove the control with SetShardTabletControl --remove and set the full list."},
		}
		shards := slices.Sorted(maps.Keys(in.otherMissing))
		for _, sh := range shards {
			f.Commands = append(f.Commands, shell.Vtctldclient("SetShardTabletControl", "--denied-tables="+strings.Join(in.otherMissing[sh], ","), in.other+"/"+sh, "PRIMARY"))
		}
		for _, sh := range shards {
			f.Commands = append(f.Commands, shell.Vtctldclient("RefreshStateByShard", in.other+"/"+sh))
		}
		out = append(out, f)
	} else if len(in.split) > 0 {
		f := forensics.Fix{
			Title: fmt.Sprintf("Make the denial of %s the same on every shard of %s", join(in.split), in.other),
			Steps: []string{fmt.Sprintf("Since v21 the target denies the moved tables from MoveTables Create until writes switch; before v21 it does not deny them at all. %s does not take writes now, so adding the missing denials is safe either way.", in.other)},
		}
		missing := in.splitMissing()
		shards := slices.Sorted(maps.Keys(missing))
		for _, sh := range shards {
			f.Commands = append(f.Commands, shell.Vtctldclient("SetShardTabletControl", "--denied-tables="+strings.Join(missing[sh], ","), in.other+"/"+sh, "PRIMARY"))
		}
		for _, sh := range shards {
			f.Commands = append(f.Commands, shell.Vtctldclient("RefreshStateByShard", in.other+"/"+sh))
		}
		out = append(out, f)
	}

	if m.workflow == "" || m.target == "" {
		f := forensics.Fix{
			Title: "Find the workflow, then finish or undo the switch",
			Steps: []string{"The evidence does not name the workflow that moves these tables. List the workflows of both keyspaces, then check the one that moves them with MoveTables status before switching traffic again."},
		}
		for _, ks := range []string{in.written, in.other} {
			if ks != "" {
				f.Commands = append(f.Commands, shell.Vtctldclient("GetWorkflows", ks))
			}
		}
		return append(out, f)
	}

	mt := shell.Vtctldclient("MoveTables", "--target-keyspace", m.target, "--workflow", m.workflow) + " "
	status := mt + "status"
	if len(in.cutover) > 0 && len(in.writeDenied) == 0 {
		out = append(out, forensics.Fix{
			Title:    fmt.Sprintf("Restart the streams of %s, or run the switch again", m.workflow),
			Steps:    []string{"The cancel of a failed switch restarts the streams; here it did not. Check the status, then start the workflow; or run the switch again, which stops the streams itself."},
			Commands: []string{status, mt + "start"},
		})
		return out
	}
	if len(in.writeDenied) == 0 && len(in.readDenied) == 0 {
		return append(out, forensics.Fix{
			Title:    "Check the workflow's state",
			Commands: []string{status},
		})
	}

	// Where the reads are now, to say how to undo the half-done switch.
	readsAt := t.ruleKeyspace(in.tables[0] + "@replica")
	switch {
	case a != nil && a.reverse():
		out = append(out, forensics.Fix{
			Title: fmt.Sprintf("Check the workflow, then run the ReverseTraffic of %s again", m.workflow),
			Steps: []string{
				fmt.Sprintf("The ReverseTraffic was cut off during %s. Run it again when no tablet of %s or %s is being restarted; --dry-run first prints what it would do.", stepOf(a), m.source, m.target),
			},
			Commands: []string{status, mt + "ReverseTraffic --dry-run", mt + "ReverseTraffic"},
		})
		if readsAt == m.source && in.written == m.target {
			out = append(out, forensics.Fix{
				Title:    fmt.Sprintf("Or undo the half-done ReverseTraffic: keep %s and switch its reads back to it", m.target),
				Steps:    []string{fmt.Sprintf("The reads of %s were already reversed to %s; switching them back restores the fully switched state. --dry-run first shows whether vtctld accepts it.", join(in.tables), m.source)},
				Commands: []string{status, mt + "SwitchTraffic --tablet-types=rdonly,replica --dry-run", mt + "SwitchTraffic --tablet-types=rdonly,replica"},
			})
		}
	case a != nil:
		out = append(out, forensics.Fix{
			Title: fmt.Sprintf("Check the workflow, then run the SwitchTraffic of %s again", m.workflow),
			Steps: []string{
				fmt.Sprintf("The SwitchTraffic was cut off during %s. Run it again when no tablet of %s or %s is being restarted; --dry-run first prints what it would do.", stepOf(a), m.source, m.target),
			},
			Commands: []string{status, mt + "SwitchTraffic --dry-run", mt + "SwitchTraffic"},
		})
		if readsAt == m.target && in.written == m.source {
			out = append(out, forensics.Fix{
				Title:    fmt.Sprintf("Or undo the half-done SwitchTraffic: keep %s and switch its reads back to it", m.source),
				Steps:    []string{fmt.Sprintf("The reads of %s were already switched to %s; reversing them restores the state before the switch. --dry-run first shows whether vtctld accepts it.", join(in.tables), m.target)},
				Commands: []string{status, mt + "ReverseTraffic --tablet-types=rdonly,replica --dry-run", mt + "ReverseTraffic --tablet-types=rdonly,replica"},
			})
		}
	default:
		verb := "SwitchTraffic"
		if in.written == m.target {
			verb = "ReverseTraffic"
		}
		out = append(out, forensics.Fix{
			Title:    "Check the workflow, then finish the switch",
			Steps:    []string{fmt.Sprintf("The logs given do not show which switch was cut off. With the denied tables repaired, writes go to %s; run %s only if they must end up on the other side.", in.written, verb)},
			Commands: []string{status},
		})
	}
	return out
}

func removeCmd(entries []string, keyspace, shard, tabletType string) string {
	return shell.Vtctldclient("SetShardTabletControl", "--denied-tables="+strings.Join(entries, ","), "--remove", keyspace+"/"+shard, tabletType)
}

func regexpEntry(byShard map[string][]string) bool {
	for _, entries := range byShard {
		for _, e := range entries {
			if strings.HasPrefix(e, "/") {
				return true
			}
		}
	}
	return false
}

func stepOf(a *attempt) string {
	if step, _ := a.cut(); step != "" {
		return step
	}
	return "an unknown step"
}
