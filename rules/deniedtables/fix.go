package deniedtables

import (
	"fmt"
	"strings"

	"forensics"
)

// fixes returns what to do, in the order to do it: stop denying where the
// traffic goes, deny again where it must not go, then finish or undo the
// switch that was cut off. Command syntax: vtctldclient
// command/shards.go (SetShardTabletControl), command/tablets.go
// (RefreshStateByShard), command/keyspaces.go, command/vschemas.go and
// command/vreplication/common (MoveTables status, SwitchTraffic,
// ReverseTraffic, start).
func (in *incident) fixes(a *attempt) []forensics.Fix {
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
		shards := sortedKeys(in.writeDenied)
		for _, sh := range shards {
			f.Commands = append(f.Commands, removeCmd(in.writeDenied[sh], in.written, sh, "PRIMARY"))
		}
		for _, sh := range shards {
			f.Commands = append(f.Commands, "vtctldclient RefreshStateByShard "+in.written+"/"+sh)
		}
		f.Commands = append(f.Commands, "vtctldclient RebuildKeyspaceGraph "+in.written, "vtctldclient RebuildVSchemaGraph")
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
			refresh = appendUnique(refresh, "vtctldclient RefreshStateByShard "+r.keyspace+"/"+r.shard)
			keyspaces[r.keyspace] = true
		}
		f.Commands = append(f.Commands, refresh...)
		for _, ks := range sortedKeys(keyspaces) {
			f.Commands = append(f.Commands, "vtctldclient RebuildKeyspaceGraph "+ks)
		}
		f.Commands = append(f.Commands, "vtctldclient RebuildVSchemaGraph")
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
		shards := sortedKeys(in.otherMissing)
		for _, sh := range shards {
			f.Commands = append(f.Commands, fmt.Sprintf("vtctldclient SetShardTabletControl --denied-tables=%s %s/%s PRIMARY", strings.Join(in.otherMissing[sh], ","), in.other, sh))
		}
		for _, sh := range shards {
			f.Commands = append(f.Commands, "vtctldclient RefreshStateByShard "+in.other+"/"+sh)
		}
		out = append(out, f)
	} else if len(in.split) > 0 {
		f := forensics.Fix{
			Title: fmt.Sprintf("Make the denial of %s the same on every shard of %s", join(in.split), in.other),
			Steps: []string{fmt.Sprintf("Since v21 the target denies the moved tables from MoveTables Create until writes switch; before v21 it does not deny them at all. %s does not take writes now, so adding the missing denials is safe either way.", in.other)},
		}
		missing := in.splitMissing()
		shards := sortedKeys(missing)
		for _, sh := range shards {
			f.Commands = append(f.Commands, fmt.Sprintf("vtctldclient SetShardTabletControl --denied-tables=%s %s/%s PRIMARY", strings.Join(missing[sh], ","), in.other, sh))
		}
		for _, sh := range shards {
			f.Commands = append(f.Commands, "vtctldclient RefreshStateByShard "+in.other+"/"+sh)
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
				f.Commands = append(f.Commands, "vtctldclient GetWorkflows "+ks)
			}
		}
		return append(out, f)
	}

	mt := fmt.Sprintf("vtctldclient MoveTables --target-keyspace %s --workflow %s ", m.target, m.workflow)
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
	return fmt.Sprintf("vtctldclient SetShardTabletControl --denied-tables=%s --remove %s/%s %s", strings.Join(entries, ","), keyspace, shard, tabletType)
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
