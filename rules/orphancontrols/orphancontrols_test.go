package orphancontrols

import (
	"strings"
	"testing"

	"forensics"
	"forensics/parsers/vitess"
	"forensics/rules/ruletest"
)

var formats = []forensics.Format{vitess.SnapshotFormat}

func shard(ks, name string, denied ...string) string {
	tc := ""
	if len(denied) > 0 {
		tc = `{"tablet_type": "PRIMARY", "cells": [], "denied_tables": ["` + strings.Join(denied, `", "`) + `"], "frozen": false}`
	}
	return `{
  "keyspace": "` + ks + `",
  "name": "` + name + `",
  "shard": {
    "primary_alias": {"cell": "zone1", "uid": 100},
    "tablet_controls": [` + tc + `],
    "is_primary_serving": true
  }
}
`
}

const moveTables = `{"workflows": [{"name": "commerce2customer", "source": {"keyspace": "commerce", "shards": ["0"]}, "target": {"keyspace": "customer", "shards": ["0"]},
  "workflow_type": "MoveTables",
  "shard_streams": {"0/zone1-0000000200": {"streams": [{"id": "1", "shard": "0", "state": "Running", "message": "",
    "binlog_source": {"keyspace": "commerce", "shard": "0", "filter": {"rules": [{"match": "corder"}, {"match": "customer"}]}}}]}}}]}
`

func file(path, text string) ruletest.File {
	return ruletest.File{Path: "case/snapshot-20250611T091500Z/" + path, Text: text}
}

func TestLeftOver(t *testing.T) {
	tl := ruletest.Read(t, formats,
		file("shard_commerce_0.json", shard("commerce", "0", "corder", "customer", "audit_log")),
		file("shard_customer_0.json", shard("customer", "0")),
		file("workflow_commerce2customer.json", moveTables),
		file("list.txt", "$ vtctldclient Workflow --keyspace commerce list\n[]\n"))
	got := ruletest.Run(t, Rule, tl)
	if len(got) != 1 {
		t.Fatalf("%d findings", len(got))
	}
	f := got[0]
	if s := f.Subject; s.Keyspace != "commerce" || strings.Join(s.Shards, ",") != "0" || strings.Join(s.Tables, ",") != "audit_log" {
		t.Errorf("%+v", s)
	}
	if f.Severity != forensics.High || !strings.Contains(f.Explanation, "(commerce2customer) move other tables") {
		t.Errorf("%v %s", f.Severity, f.Explanation)
	}
	cmds := strings.Join(f.Fixes[1].Commands, "\n")
	if !strings.HasPrefix(cmds, "vtctldclient --server VTCTLD_HOST:15999 SetShardTabletControl --denied-tables=audit_log --remove commerce/0 PRIMARY\nvtctldclient --server VTCTLD_HOST:15999 RefreshStateByShard commerce/0") {
		t.Errorf("%s", cmds)
	}
}

// Near miss: the workflow moves the tables the source denies.
func TestHeldByWorkflow(t *testing.T) {
	tl := ruletest.Read(t, formats,
		file("shard_commerce_0.json", shard("commerce", "0", "corder", "customer")),
		file("workflow_commerce2customer.json", moveTables))
	if got := ruletest.Run(t, Rule, tl); len(got) != 0 {
		t.Errorf("%d findings: %s", len(got), got[0].Explanation)
	}
}

// Without any word on the keyspace's workflows, or with a listed workflow
// the snapshot does not show, nothing can be said.
func TestUnknownWorkflows(t *testing.T) {
	for name, extra := range map[string]ruletest.File{
		"no workflow documents": file("keyspaces.json", `[{"name": "commerce", "keyspace": {"durability_policy": "semi_sync"}}]`+"\n"),
		"listed, not shown":     file("list.txt", "$ vtctldclient Workflow --keyspace commerce list\n[\"commerce_backfill\"]\n"),
	} {
		tl := ruletest.Read(t, formats, file("shard_commerce_0.json", shard("commerce", "0", "corder")), extra)
		if got := ruletest.Run(t, Rule, tl); len(got) != 0 {
			t.Errorf("%s: %d findings", name, len(got))
		}
	}
}

// A /regexp/ entry that matches a moved table is held; a table name from
// the record that is no Vitess name gets no command.
func TestEntries(t *testing.T) {
	tl := ruletest.Read(t, formats,
		file("shard_commerce_0.json", shard("commerce", "0", "/^corder$/", "x;rm -rf")),
		file("workflow_commerce2customer.json", moveTables))
	got := ruletest.Run(t, Rule, tl)
	if len(got) != 1 || strings.Join(got[0].Subject.Tables, ",") != "x;rm -rf" {
		t.Fatalf("%+v", got)
	}
	for _, fx := range got[0].Fixes {
		if len(fx.Commands) > 0 {
			t.Errorf("commands for a hostile name: %v", fx.Commands)
		}
	}
}

// The empty outputs of the 22.0 MoveTables guide (vitessio/website
// user-guides/migration/move-tables.md: `Workflow --keyspace commerce list`
// printing []), saved under the names a snapshot gives them, say "no
// workflow in commerce" as the echoed command does; so do an empty
// GetWorkflows ({} or {"workflows": []}). Left denied tables are orphans.
func TestEmptyOutputsNamedByKeyspace(t *testing.T) {
	for name, list := range map[string]ruletest.File{
		"[] in workflow_list_commerce.json":                file("workflow_list_commerce.json", "[]\n"),
		"{} in workflows_commerce.json":                    file("workflows_commerce.json", "{}\n"),
		`{"workflows": []} in workflow-list-commerce.json`: file("workflow-list-commerce.json", `{"workflows": []}`+"\n"),
	} {
		tl := ruletest.Read(t, formats, file("shard_commerce_0.json", shard("commerce", "0", "corder", "customer")), list)
		got := ruletest.Run(t, Rule, tl)
		if len(got) != 1 || got[0].Subject.Keyspace != "commerce" {
			t.Errorf("%s: %d findings", name, len(got))
		}
	}
}
