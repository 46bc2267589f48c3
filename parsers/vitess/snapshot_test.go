package vitess

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

// Documents as vtctldclient prints them, in the state the #17326 incident
// left: ReverseTraffic failed after adding denied tables on dst, so t1 and
// t2 route to dst while dst's primaries deny them.

// getShardV22 is GetShard dst/-80 from v19+: protojson with proto names,
// enum names, int64 as strings, base64 key ranges, random double spaces.
const getShardV22 = `{
  "keyspace": "dst",
  "name": "-80",
  "shard": {
    "primary_alias": {
      "cell": "zone1",
      "uid": 200
    },
    "primary_term_start_time": {
      "seconds": "1733157600",
      "nanoseconds": 481522000
    },
    "key_range": {
      "start": "",
      "end":  "gA=="
    },
    "source_shards": [],
    "tablet_controls": [
      {
        "tablet_type": "PRIMARY",
        "cells": [],
        "denied_tables": [
          "t1",
          "t2"
        ],
        "frozen": false
      }
    ],
    "is_primary_serving":  true
  }
}`

// getShardCamel is GetShard dst/80- with JSON names and enum numbers
// (v18 printed numbers), an unpadded base64 start and null fields.
const getShardCamel = `{"keyspace":"dst","name":"80-","shard":{"primaryAlias":{"cell":"zone1","uid":"300"},` +
	`"keyRange":{"start":"gA","end":""},"sourceShards":null,"tabletControls":[{"tabletType":1,"cells":null,` +
	`"deniedTables":["t1","t2"],"frozen":false},{"tabletType":3,"cells":["zone2"],"deniedTables":["/^t/"]}],"isPrimaryServing":true}}`

// getShardOld is GetShard src/0 as releases before 12 named the fields.
const getShardOld = `{
  "keyspace": "src",
  "name": "0",
  "shard": {
    "master_alias": {"cell": "zone1", "uid": 100},
    "key_range": null,
    "tablet_controls": [{"tablet_type": "MASTER", "cells": [], "blacklisted_tables": ["t1"], "frozen": false}],
    "is_master_serving": true
  }
}`

// routingRulesReversed is GetRoutingRules after ReverseTraffic switched the
// reads back and failed on the writes: "Reads Not Switched. Writes Switched".
const routingRulesReversed = `{
  "rules": [
    {
      "from_table": "t1@rdonly",
      "to_tables": [
        "src.t1"
      ]
    },
    {
      "from_table": "src.t1",
      "to_tables": [
        "dst.t1"
      ]
    },
    {
      "from_table": "t1",
      "to_tables": [
        "dst.t1"
      ]
    },
    {
      "from_table": "dst.t1@replica",
      "to_tables": [
        "src.t1"
      ]
    },
    {
      "from_table": "t1@replica",
      "to_tables": [
        "src.t1"
      ]
    }
  ]
}`

// srvKeyspaces is GetSrvKeyspaces dst: a Go map, printed by encoding/json
// (enum numbers, empty fields omitted).
const srvKeyspaces = `{
  "zone1": {
    "partitions": [
      {
        "served_type": 1,
        "shard_references": [
          {
            "name": "-80",
            "key_range": {
              "end": "gA=="
            }
          },
          {
            "name": "80-",
            "key_range": {
              "start": "gA=="
            }
          }
        ]
      },
      {
        "served_type": 2,
        "shard_references": [
          {
            "name": "-80",
            "key_range": {
              "end": "gA=="
            }
          },
          {
            "name": "80-",
            "key_range": {
              "start": "gA=="
            }
          }
        ]
      }
    ]
  }
}`

// getKeyspaces is GetKeyspaces: a slice, printed by encoding/json.
const getKeyspaces = `[
  {
    "name": "dst",
    "keyspace": {
      "durability_policy": "semi_sync",
      "sidecar_db_name": "_vt"
    }
  },
  {
    "name": "src",
    "keyspace": {
      "durability_policy": "semi_sync",
      "sidecar_db_name": "_vt"
    }
  }
]`

// workflowShow is Workflow --keyspace dst show --workflow wf1 (v22): the
// forward workflow frozen, dst/-80 denying t1 and t2.
const workflowShow = `{
  "workflows": [
    {
      "name": "wf1",
      "source": {
        "keyspace": "src",
        "shards": [
          "0"
        ]
      },
      "target": {
        "keyspace": "dst",
        "shards": [
          "-80",
          "80-"
        ]
      },
      "max_v_replication_lag": "1",
      "shard_streams": {
        "80-/zone1-0000000300": {
          "streams": [
            {
              "id": "1",
              "shard": "80-",
              "tablet": {
                "cell": "zone1",
                "uid": 300
              },
              "binlog_source": {
                "keyspace": "src",
                "shard": "0",
                "tablet_type": "UNKNOWN",
                "key_range": null,
                "tables": [],
                "filter": {
                  "rules": [
                    {
                      "match": "t2",
                      "filter": "select * from t2 where in_keyrange(id, 'dst.xxhash', '80-')"
                    },
                    {
                      "match": "t1",
                      "filter": "select * from t1 where in_keyrange(id, 'dst.xxhash', '80-')"
                    }
                  ],
                  "field_event_mode": "ERR_ON_MISMATCH",
                  "workflow_type": "0",
                  "workflow_name": ""
                },
                "on_ddl": "IGNORE"
              },
              "position": "MySQL56/ddf2e4b6-b0b3-11ef-9f4b-0242ac120003:1-1021",
              "stop_position": "",
              "state": "Stopped",
              "db_name": "vt_dst",
              "transaction_timestamp": {
                "seconds": "1733157700",
                "nanoseconds": 0
              },
              "time_updated": {
                "seconds": "1733157745",
                "nanoseconds": 0
              },
              "message": "FROZEN",
              "copy_states": [],
              "logs": [],
              "log_fetch_error": "",
              "tags": [],
              "rows_copied": "1000",
              "tablet_types": [],
              "tablet_selection_preference": "ANY",
              "cells": []
            }
          ],
          "tablet_controls": [],
          "is_primary_serving": true
        },
        "-80/zone1-0000000200": {
          "streams": [
            {
              "id": "1",
              "shard": "-80",
              "tablet": {
                "cell": "zone1",
                "uid": 200
              },
              "binlog_source": {
                "keyspace": "src",
                "shard": "0",
                "filter": {
                  "rules": [
                    {
                      "match": "t1",
                      "filter": "select * from t1 where in_keyrange(id, 'dst.xxhash', '-80')"
                    }
                  ]
                }
              },
              "position": "MySQL56/ddf2e4b6-b0b3-11ef-9f4b-0242ac120003:1-1021",
              "state": "Stopped",
              "db_name": "vt_dst",
              "message": "FROZEN"
            }
          ],
          "tablet_controls": [
            {
              "tablet_type": "PRIMARY",
              "cells": [],
              "denied_tables": [
                "t1",
                "t2"
              ],
              "frozen": false
            }
          ],
          "is_primary_serving": true
        }
      },
      "workflow_type": "MoveTables",
      "workflow_sub_type": "None",
      "max_v_replication_transaction_lag": "1",
      "defer_secondary_keys": false
    }
  ]
}`

// statusJSON is MoveTables status --format=json, as upstream's
// go/cmd/vtctldclient/command/vreplication/common/utils_test.go prints it.
const statusJSON = `{
  "table_copy_state": {
    "table1": {
      "rows_copied": "20",
      "rows_total": "20",
      "rows_percentage": 100,
      "bytes_copied": "1000",
      "bytes_total": "1000",
      "bytes_percentage": 100,
      "phase": "COMPLETE"
    }
  },
  "shard_streams": {
    "customer/0": {
      "streams": [
        {
          "id": 1,
          "tablet": {
            "cell": "zone1",
            "uid": 1
          },
          "source_shard": "commerce/0",
          "position": "f3918180-b58f-11f0-9085-360472309971:1-29655",
          "status": "Copying",
          "info": "VStream Lag: -1s; ; Tx time: Thu Oct 30 13:05:02 2025"
        }
      ]
    }
  },
  "traffic_state": "Reads Not Switched. Writes Not Switched"
}`

func origin(path string) forensics.Origin {
	i := strings.LastIndexAny(path, "/!")
	return forensics.Origin{Path: path, Name: path[i+1:], ModTime: time.Date(2024, 12, 2, 17, 0, 0, 0, time.UTC)}
}

func TestSnapshotShardEncodings(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  Shard
	}{
		{"v22 protojson", getShardV22, Shard{Keyspace: "dst", Name: "-80", KeyRange: "-80", PrimaryAlias: "zone1-0000000200", PrimaryServing: true,
			TabletControls: []TabletControl{{TabletType: "PRIMARY", Cells: []string{}, DeniedTables: []string{"t1", "t2"}}}}},
		{"camelCase, enum numbers, nulls", getShardCamel, Shard{Keyspace: "dst", Name: "80-", KeyRange: "80-", PrimaryAlias: "zone1-0000000300", PrimaryServing: true,
			TabletControls: []TabletControl{
				{TabletType: "PRIMARY", Cells: []string{}, DeniedTables: []string{"t1", "t2"}},
				{TabletType: "RDONLY", Cells: []string{"zone2"}, DeniedTables: []string{"/^t/"}},
			}}},
		{"before Vitess 12", getShardOld, Shard{Keyspace: "src", Name: "0", KeyRange: "-", PrimaryAlias: "zone1-0000000100", PrimaryServing: true,
			TabletControls: []TabletControl{{TabletType: "PRIMARY", Cells: []string{}, DeniedTables: []string{"t1"}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := origin("incident/snapshot-2024-12-02T16:45:00Z/shard.json")
			res := check(t, SnapshotFormat, o, c.input+"\n", []want{{kind: KindShard, line: 1, time: "2024-12-02T16:45:00Z",
				keyspace: c.want.Keyspace, shard: c.want.Name,
				attrs: a{"snapshot": "incident/snapshot-2024-12-02T16:45:00Z", "keyspace": c.want.Keyspace, "shard": c.want.Name}}})
			got, err := DecodeShard(&res.Events[0])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			if res.Events[0].Text != strings.TrimSpace(c.input) {
				t.Errorf("text is not the document as printed")
			}
			if st := res.Stamps[0]; st.Zone != forensics.ZoneUTC || st.Time != time.Date(2024, 12, 2, 16, 45, 0, 0, time.UTC) {
				t.Errorf("line 1 stamp %v", st)
			}
		})
	}
}

func TestSnapshotDocuments(t *testing.T) {
	t.Run("routing rules", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("s/snapshot-20241202T164500Z/routing_rules.json"), routingRulesReversed+"\n",
			[]want{{kind: KindRoutingRules, line: 1, time: "2024-12-02T16:45:00Z", attrs: a{"snapshot": "s/snapshot-20241202T164500Z"}}})
		got, err := DecodeRoutingRules(&res.Events[0])
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"t1@rdonly": "src.t1", "src.t1": "dst.t1", "t1": "dst.t1", "dst.t1@replica": "src.t1", "t1@replica": "src.t1"}
		if !reflect.DeepEqual(got.Rules, want) || got.Targets != nil {
			t.Errorf("got %v %v", got.Rules, got.Targets)
		}
	})
	t.Run("routing rules, camelCase, two targets", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("rr.json"), `{"rules":[{"fromTable":"t1","toTables":["dst.t1","dst2.t1"]}]}`, []want{{kind: KindRoutingRules, line: 1}})
		got, _ := DecodeRoutingRules(&res.Events[0])
		if got.Rules["t1"] != "dst.t1" || len(got.Targets["t1"]) != 2 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("routing rules after Complete", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("x/routing_rules.json"), "{\n  \"rules\": []\n}\n", []want{{kind: KindRoutingRules, line: 1}})
		got, _ := DecodeRoutingRules(&res.Events[0])
		if got.Rules == nil || len(got.Rules) != 0 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("empty shard routing rules, told by the command line", func(t *testing.T) {
		check(t, SnapshotFormat, origin("x/out.txt"), "$ vtctldclient --server :15999 GetShardRoutingRules\n{\n  \"rules\": []\n}\n",
			[]want{{kind: KindShardRoutingRules, line: 2}})
	})
	t.Run("empty shard routing rules, told by the file name", func(t *testing.T) {
		check(t, SnapshotFormat, origin("x/shard_routing_rules.json"), "{\n  \"rules\": []\n}\n", []want{{kind: KindShardRoutingRules, line: 1}})
	})
	t.Run("shard routing rules", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("x/a.json"), `{"rules":[{"from_keyspace":"src","to_keyspace":"dst","shard":"-80"}]}`, []want{{kind: KindShardRoutingRules, line: 1}})
		got, _ := DecodeShardRoutingRules(&res.Events[0])
		if !reflect.DeepEqual(got.Rules, []ShardRoutingRule{{"src", "dst", "-80"}}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("keyspaces", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("x/keyspaces.json"), getKeyspaces+"\n", []want{{kind: KindKeyspaces, line: 1, attrs: a{"keyspaces": "dst,src"}}})
		got, _ := DecodeKeyspaces(&res.Events[0])
		want := []Keyspace{{Name: "dst", KeyspaceType: "NORMAL", DurabilityPolicy: "semi_sync", SidecarDBName: "_vt"}, {Name: "src", KeyspaceType: "NORMAL", DurabilityPolicy: "semi_sync", SidecarDBName: "_vt"}}
		if !reflect.DeepEqual(got.Keyspaces, want) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("one keyspace, protojson", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("x/ks.json"), `{"name": "snap", "keyspace": {"keyspace_type": "SNAPSHOT", "base_keyspace": "src", "snapshot_time": {"seconds": "1733150000", "nanoseconds": 0}, "durability_policy": "none", "throttler_config": null, "sidecar_db_name": "_vt"}}`,
			[]want{{kind: KindKeyspaces, line: 1, attrs: a{"keyspaces": "snap"}}})
		got, _ := DecodeKeyspaces(&res.Events[0])
		if got.Keyspaces[0].KeyspaceType != "SNAPSHOT" || got.Keyspaces[0].BaseKeyspace != "src" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("srv keyspaces", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("x/srv_keyspace_zone1_dst.json"), srvKeyspaces+"\n",
			[]want{{kind: KindSrvKeyspace, line: 1, keyspace: "dst", attrs: a{"cells": "zone1"}}})
		got, _ := DecodeSrvKeyspaces(&res.Events[0])
		p := got.Cells["zone1"].Partitions
		if got.Keyspace != "dst" || len(p) != 2 || p[0].ServedType != "PRIMARY" || p[1].ServedType != "REPLICA" ||
			!reflect.DeepEqual(p[0].Shards, []ShardReference{{"-80", "-80"}, {"80-", "80-"}}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("srv keyspaces, keyspace from the command line", func(t *testing.T) {
		check(t, SnapshotFormat, origin("x/out.txt"), "vtctldclient GetSrvKeyspaces dst zone1\n"+srvKeyspaces+"\n",
			[]want{{kind: KindSrvKeyspace, line: 2, keyspace: "dst"}})
	})
	t.Run("srv vschema", func(t *testing.T) {
		doc := `{"keyspaces": {"dst": {"sharded": true}, "src": {"sharded": false}}, "routing_rules": {"rules": [{"from_table": "t1@replica", "to_tables": ["src.t1"]}]}, "shard_routing_rules": {"rules": []}, "keyspace_routing_rules": null, "mirror_rules": {"rules": []}}`
		res := check(t, SnapshotFormat, origin("x/srv_vschema_zone1.json"), doc, []want{{kind: KindSrvVSchema, line: 1, attrs: a{"cells": "zone1"}}})
		got, _ := DecodeSrvVSchemas(&res.Events[0])
		want := SrvVSchemas{Cells: map[string]SrvVSchema{"zone1": {Keyspaces: []string{"dst", "src"}, RoutingRules: map[string]string{"t1@replica": "src.t1"}}}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("srv vschemas map", func(t *testing.T) {
		doc := `{"zone1": {"keyspaces": {"dst": {}}, "routing_rules": {"rules": []}}, "zone2": {"keyspaces": {"dst": {}}}}`
		check(t, SnapshotFormat, origin("x/v.json"), doc, []want{{kind: KindSrvVSchema, line: 1, attrs: a{"cells": "zone1,zone2"}}})
	})
	t.Run("workflow", func(t *testing.T) {
		res := check(t, SnapshotFormat, origin("x/workflow_wf1.json"), workflowShow+"\n",
			[]want{{kind: KindWorkflow, line: 1, keyspace: "dst", attrs: a{"workflow": "wf1", "source_keyspace": "src", "tables": "t1,t2"}}})
		got, err := DecodeWorkflow(&res.Events[0])
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "wf1" || got.Source != "src" || got.Target != "dst" || !got.Frozen || got.StoppedForCutover ||
			got.WorkflowType != "MoveTables" || !reflect.DeepEqual(got.TargetShards, []string{"-80", "80-"}) || len(got.Shards) != 2 {
			t.Fatalf("got %+v", got)
		}
		s := got.Shards[0]
		if s.Shard != "-80" || s.Tablet != "zone1-0000000200" || !s.PrimaryServing || len(s.TabletControls) != 1 ||
			!reflect.DeepEqual(s.TabletControls[0].DeniedTables, []string{"t1", "t2"}) {
			t.Errorf("shard -80: %+v", s)
		}
		st := got.Shards[1].Streams[0]
		if st.ID != 1 || st.State != "Stopped" || st.Message != "FROZEN" || st.SourceKeyspace != "src" || st.Tablet != "zone1-0000000300" ||
			!reflect.DeepEqual(st.Tables, []string{"t2", "t1"}) {
			t.Errorf("stream: %+v", st)
		}
	})
	t.Run("workflow stopped for cutover, numbers", func(t *testing.T) {
		doc := `{"workflows":[{"name":"wf1","source":{"keyspace":"src","shards":["0"]},"target":{"keyspace":"dst","shards":["0"]},` +
			`"shard_streams":{"0/zone1-0000000200":{"streams":[{"id":1,"shard":"0","tablet":{"cell":"zone1","uid":200},` +
			`"binlog_source":{"keyspace":"src","shard":"0","tablet_type":0,"filter":{"rules":[{"match":"/.*"}]}},"state":"Stopped","message":"stopped for cutover"}],` +
			`"tablet_controls":[{"tablet_type":1,"denied_tables":["t1"]}],"is_primary_serving":true}},"workflow_type":"MoveTables"},` +
			`{"name":"other","source":{"keyspace":"a"},"target":{"keyspace":"dst"}}]}`
		res := check(t, SnapshotFormat, origin("x/w.json"), doc, []want{
			{kind: KindWorkflow, line: 1, keyspace: "dst", attrs: a{"workflow": "wf1"}},
			{kind: KindWorkflow, line: 1, keyspace: "dst", attrs: a{"workflow": "other", "source_keyspace": "a"}},
		})
		got, _ := DecodeWorkflow(&res.Events[0])
		if got.Frozen || !got.StoppedForCutover || len(got.Tables) != 0 || got.Shards[0].TabletControls[0].TabletType != "PRIMARY" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("status json with the command line", func(t *testing.T) {
		in := "$ vtctldclient --server vtctld:15999 MoveTables --target-keyspace customer --workflow commerce2customer status --format=json\n" + statusJSON + "\n"
		res := check(t, SnapshotFormat, origin("x/status.txt"), in, []want{{kind: KindWorkflowStatus, line: 2, keyspace: "customer",
			attrs: a{"workflow": "commerce2customer", "traffic_state": "Reads Not Switched. Writes Not Switched"}}})
		got, _ := DecodeWorkflowStatus(&res.Events[0])
		want := WorkflowStatus{Keyspace: "customer", Workflow: "commerce2customer", TrafficState: "Reads Not Switched. Writes Not Switched",
			Streams: []StatusStream{{Shard: "customer/0", ID: 1, Tablet: "zone1-0000000001", SourceShard: "commerce/0",
				Position: "f3918180-b58f-11f0-9085-360472309971:1-29655", Status: "Copying", Info: "VStream Lag: -1s; ; Tx time: Thu Oct 30 13:05:02 2025"}},
			Tables: []string{"table1"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
	})
	t.Run("switch traffic json", func(t *testing.T) {
		doc := `{"summary": "ReverseTraffic was successful for workflow dst.wf1", "start_state": "All Reads Switched. Writes Switched", "current_state": "Reads Not Switched. Writes Not Switched", "dry_run_results": []}`
		check(t, SnapshotFormat, origin("x/r.json"), doc, []want{{kind: KindSwitchResult, line: 1, keyspace: "dst",
			attrs: a{"command": "ReverseTraffic", "workflow": "wf1", "current_state": "Reads Not Switched. Writes Not Switched"}}})
	})
}

// A file of several outputs, with the command lines that printed them, as
// an operator saves a terminal session.
func TestSnapshotSession(t *testing.T) {
	in := lines(
		"$ vtctldclient --server :15999 MoveTables --target-keyspace dst --workflow wf1 ReverseTraffic",                 // 1
		"E1202 16:42:25.301100   51515 main.go:56] rpc error: code = DeadlineExceeded desc = context deadline exceeded", // 2
		"$ vtctldclient --server :15999 GetShard dst/-80",                                                               // 3
		getShardV22,                      // 4..34
		"$ vtctldclient GetRoutingRules", // 35
		`{"rules":[{"from_table":"t1","to_tables":["dst.t1"]}]}`, // 36
		"",
		"$ vtctldclient MoveTables --target-keyspace dst --workflow wf1 SwitchTraffic", // 38
		"SwitchTraffic was successful for workflow dst.wf1",                            // 39
		"",
		"Start State: Reads Not Switched. Writes Not Switched", // 41
		"Current State: All Reads Switched. Writes Switched",   // 42
		"",
		"$ vtctldclient MoveTables --target-keyspace dst --workflow wf1 ReverseTraffic --dry-run", // 44
		"ReverseTraffic dry run results for workflow dst.wf1 at 02 Dec 24 16:41 UTC",              // 45
		"",
		"Lock keyspace dst", // 47
		"Switch reads for tables [t1,t2] to keyspace src for tablet types [REPLICA,RDONLY]",
		"Routing rules for tables [t1,t2] will be updated",
		"Unlock keyspace dst", // 50
		"",
		"$ vtctldclient MoveTables --target-keyspace customer --workflow commerce2customer status", // 52
		"The following vreplication streams exist for workflow customer.commerce2customer:",        // 53
		"",
		"id=1 on customer/zone1-1: Status: Copying. VStream Lag: -1s; ; Tx time: Thu Oct 30 13:05:02 2025.",
		"",
		"Table Copy Status:",
		"\ttable1: RowsCopied:20, RowsTotal:20, RowsPercentage:100.00, BytesCopied:1000, BytesTotal:1000, BytesPercentage:100.00",
		"\ttable2: RowsCopied:10, RowsTotal:50, RowsPercentage:20.00, BytesCopied:1000, BytesTotal:5000, BytesPercentage:20.00",
		"",
		"Traffic State: Reads Not Switched. Writes Not Switched", // 61
		"",
		"that is all for today", // 63
	)
	res := check(t, SnapshotFormat, origin("tickets/4711/session.txt"), in, []want{
		{kind: KindShard, line: 4, keyspace: "dst", shard: "-80"},
		{kind: KindRoutingRules, line: 36},
		{kind: KindSwitchResult, line: 39, keyspace: "dst", attrs: a{"command": "SwitchTraffic", "workflow": "wf1",
			"start_state": "Reads Not Switched. Writes Not Switched", "current_state": "All Reads Switched. Writes Switched"},
			text: "SwitchTraffic was successful for workflow dst.wf1\n\nStart State: Reads Not Switched. Writes Not Switched\nCurrent State: All Reads Switched. Writes Switched"},
		{kind: KindSwitchResult, line: 45, keyspace: "dst", attrs: a{"command": "ReverseTraffic", "start_state": ""}},
		{kind: KindWorkflowStatus, line: 53, keyspace: "customer", attrs: a{"workflow": "commerce2customer", "traffic_state": "Reads Not Switched. Writes Not Switched"}},
	})
	dry, _ := DecodeSwitchResult(&res.Events[3])
	if !dry.DryRun || len(dry.DryRunResults) != 4 || dry.DryRunResults[3] != "Unlock keyspace dst" {
		t.Errorf("dry run: %+v", dry)
	}
	st, _ := DecodeWorkflowStatus(&res.Events[4])
	if len(st.Streams) != 1 || st.Streams[0].Tablet != "zone1-0000000001" || st.Streams[0].Status != "Copying" ||
		!reflect.DeepEqual(st.Tables, []string{"table1", "table2"}) {
		t.Errorf("status: %+v", st)
	}
	// The snapshot of a file outside a snapshot folder is its folder; its
	// time is the file's.
	for _, e := range res.Events {
		if e.Attr("snapshot") != "tickets/4711" || !e.Time.Equal(time.Date(2024, 12, 2, 17, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: snapshot %q time %v", e.Kind, e.Attr("snapshot"), e.Time)
		}
	}
}

func TestSnapshotErrors(t *testing.T) {
	t.Run("malformed JSON, then a good document", func(t *testing.T) {
		in := "{\n  \"keyspace\": \"dst\",\n  \"name\": \"-80\"\n  \"shard\": {}\n}\n" + getShardV22 + "\n"
		res := parsertest.Parse(SnapshotFormat, origin("x/shard.json"), []byte(in))
		if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "line 4, column 3") {
			t.Errorf("error %v, want one naming line 4, column 3", res.EndErr)
		}
		if kinds := res.Kinds(); len(kinds) != 1 || kinds[0] != KindShard || res.Events[0].Line != 6 {
			t.Errorf("events %v", kinds)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		cut := getShardV22[:strings.Index(getShardV22, `"key_range"`)]
		res := parsertest.Parse(SnapshotFormat, origin("x/shard.json"), []byte(cut))
		if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "line 13, column 5: malformed JSON document (started on line 1): unexpected end of JSON input") || len(res.Events) != 0 {
			t.Errorf("error %v, events %d", res.EndErr, len(res.Events))
		}
	})
	t.Run("cut inside a string", func(t *testing.T) {
		res := parsertest.Parse(SnapshotFormat, origin("x/shard.json"), []byte(getShardV22[:200]))
		if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "line 11, column 14: malformed JSON document") || len(res.Events) != 0 {
			t.Errorf("error %v, events %d", res.EndErr, len(res.Events))
		}
	})
	t.Run("wrong type", func(t *testing.T) {
		res := parsertest.Parse(SnapshotFormat, origin("x/shard.json"), []byte(`{"keyspace":"dst","name":"-80","shard":{"tablet_controls":[{"tablet_type":"PRIMARY","denied_tables":"t1"}]}}`))
		if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "$.shard.tablet_controls[0].denied_tables: want a list of strings, got a string") {
			t.Errorf("error %v", res.EndErr)
		}
	})
	t.Run("unknown document", func(t *testing.T) {
		res := parsertest.Parse(SnapshotFormat, origin("x/a.json"), []byte(`{"cell": "zone1", "alias": {"cell": "zone1", "uid": 1}, "hostname": "h"}`))
		if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "keys alias, cell, hostname is not a vtctldclient output") || len(res.Events) != 0 {
			t.Errorf("error %v", res.EndErr)
		}
	})
	t.Run("not base64", func(t *testing.T) {
		res := parsertest.Parse(SnapshotFormat, origin("x/a.json"), []byte(`{"keyspace":"dst","name":"-80","shard":{"key_range":{"start":"","end":"*!"}}}`))
		if res.EndErr == nil || !strings.Contains(res.EndErr.Error(), "is not base64") {
			t.Errorf("error %v", res.EndErr)
		}
	})
}

// Near misses: text and JSON that are not these outputs make no events.
func TestSnapshotNearMisses(t *testing.T) {
	in := lines(
		"SwitchTraffic was not successful for workflow dst.wf1",
		"Traffic State: Reads Not Switched. Writes Switched",
		"Start State: Reads Not Switched. Writes Not Switched",
		"vtctldclient is a command line client",
		"[]",
		`{"workflows": []}`,
		`{"rules": [{"from_keyspace": "src", "to_keyspace": "dst"}]}`,
	)
	res := parsertest.Parse(SnapshotFormat, origin("x/notes.txt"), []byte(in))
	if res.EndErr != nil {
		t.Errorf("error %v", res.EndErr)
	}
	for _, e := range res.Events {
		t.Errorf("unexpected %s on line %d", e.Kind, e.Line)
	}
}

func TestSnapshotByteOrderMark(t *testing.T) {
	check(t, SnapshotFormat, origin("x/shard.json"), "\xef\xbb\xbf"+getShardV22, []want{{kind: KindShard, line: 1, keyspace: "dst", shard: "-80"}})
}

func TestSnapshotOf(t *testing.T) {
	cases := []struct {
		path, folder, time string
		zone               forensics.Zone
	}{
		{"/cases/x/snapshot-2024-12-02T16:45:00Z/shard_dst_-80.json", "/cases/x/snapshot-2024-12-02T16:45:00Z", "2024-12-02T16:45:00Z", forensics.ZoneUTC},
		{"bundle.zip!snapshot-20241202T164500Z/routing_rules.json", "bundle.zip!snapshot-20241202T164500Z", "2024-12-02T16:45:00Z", forensics.ZoneUTC},
		{"snapshot-2024-12-02T16-45-00Z.tar.gz!snapshot-2024-12-02T16-45-00Z/keyspaces.json", "snapshot-2024-12-02T16-45-00Z.tar.gz!snapshot-2024-12-02T16-45-00Z", "2024-12-02T16:45:00Z", forensics.ZoneUTC},
		{"snapshot-2024-12-02T17:45:00+01:00/a.json", "snapshot-2024-12-02T17:45:00+01:00", "2024-12-02T16:45:00Z", forensics.ZoneLogged},
		{`C:\cases\snapshot-2024-12-02T16:45:00.5Z\a.json`, `C:\cases\snapshot-2024-12-02T16:45:00.5Z`, "2024-12-02T16:45:00.5Z", forensics.ZoneUTC},
		{"x/snapshot-yesterday/a.json", "x/snapshot-yesterday", "", 0},
		{"x/snapshot-2024-13-02T16:45:00Z/a.json", "x/snapshot-2024-13-02T16:45:00Z", "", 0},
		{"a.json", "", "", 0},
	}
	for _, c := range cases {
		folder, st := snapshotOf(c.path)
		got := ""
		if !st.IsZero() {
			got = st.Time.Format(time.RFC3339Nano)
		}
		if folder != c.folder || got != c.time || (!st.IsZero() && st.Zone != c.zone) {
			t.Errorf("%s: %q %q %v, want %q %q %v", c.path, folder, got, st.Zone, c.folder, c.time, c.zone)
		}
	}
}

func TestDetectSnapshot(t *testing.T) {
	cases := []struct {
		name, head string
		min, max   int
	}{
		{"shard", getShardV22, 80, 100},
		{"camel", getShardCamel, 80, 100},
		{"rules after complete", "{\n  \"rules\": []\n}\n", 50, 79},
		{"keyspaces", getKeyspaces, 80, 100},
		{"srv keyspaces", srvKeyspaces, 80, 100},
		{"workflow", workflowShow, 80, 100},
		{"status", statusJSON, 80, 100},
		{"command line first", "$ vtctldclient GetShard dst/-80\n" + getShardV22, 80, 100},
		{"switch text", "SwitchTraffic was successful for workflow dst.wf1\n\nStart State: x\n", 80, 100},
		{"status text", "The following vreplication streams exist for workflow customer.commerce2customer:\n", 80, 100},
		{"glog", reverseTrafficLog, 0, 0},
		{"json log line", `{"header":1,"timestamp":"1700000000.1","severity":"INFO","message":"x"}` + "\n", 0, 0},
		{"prose with a key", "the \"from_table\" field\n", 0, 0},
		{"empty keyspaces", "[\n  {\n    \"name\": \"src\",\n    \"keyspace\": {}\n  }\n]\n", 50, 79},
		{"a query log", `[{"statement": "SELECT * FROM b", "keyspace": "default:b"}]` + "\n", 0, 0},
		{"byte order mark", "\xef\xbb\xbf" + getShardV22, 80, 100},
	}
	for _, c := range cases {
		if got := detectSnapshot("whatever.txt", []byte(c.head)); got < c.min || got > c.max {
			t.Errorf("%s: score %d, want %d..%d", c.name, got, c.min, c.max)
		}
	}
}

func TestDecodeWrongKind(t *testing.T) {
	ev := forensics.Event{Kind: KindShard}
	ev.Set("doc", `{}`)
	if _, err := DecodeWorkflow(&ev); err == nil {
		t.Error("decoding a shard as a workflow did not fail")
	}
	ev.Kind = KindWorkflow
	ev.Attrs = nil
	if _, err := DecodeWorkflow(&ev); err == nil {
		t.Error("decoding an event without doc did not fail")
	}
}
