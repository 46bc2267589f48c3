package vitess

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// textMarkers start the text vtctldclient prints for SwitchTraffic,
// ReverseTraffic and status (go/cmd/vtctldclient/command/vreplication/common).
var textMarkers = [][]byte{
	[]byte("SwitchTraffic was successful for workflow "),
	[]byte("ReverseTraffic was successful for workflow "),
	[]byte("SwitchTraffic dry run results for workflow "),
	[]byte("ReverseTraffic dry run results for workflow "),
	[]byte("The following vreplication streams exist for workflow "),
}

// detectSnapshot demands structure: the file starts (after blank lines and
// the vtctldclient command lines that printed it) with a JSON document that
// decodes and has the shape of a vtctldclient output, or holds, in its first
// lines, the text SwitchTraffic and status print. A Markdown or SARIF report, notes, or
// another tool's JSON are not read as topology, so that their times do not
// join the timeline; the ingest lists them as skipped.
func detectSnapshot(name string, head []byte) int {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	off := 0
	var cmd command
	prose := false // a line that is not a command: only the text outputs may follow
	for lines := 0; off < len(head) && lines < 50; lines++ {
		end := len(head)
		if i := bytes.IndexByte(head[off:], '\n'); i >= 0 {
			end = off + i
		}
		line := bytes.TrimSpace(head[off:end])
		start := off
		off = end + 1
		if len(line) == 0 {
			continue
		}
		for _, m := range textMarkers {
			if bytes.HasPrefix(line, m) {
				return 90
			}
		}
		if isMigrationHeader(line) {
			return 90 // OnlineDDL show's table, SHOW VITESS_MIGRATIONS
		}
		if prose {
			continue
		}
		if isShellComment(line) {
			continue // a session's own notes: "# Workflow is gone" before the command
		}
		if _, ok := tabletLine(line); ok {
			return 90 // GetTablets' text
		}
		if line[0] == '{' || line[0] == '[' {
			return docScore(name, head[start:], cmd)
		}
		if _, st, _ := parseGlog(line); st == goodHeader {
			continue // vtctldclient's error for a command before ("E1031 … main.go:56] rpc error: …")
		}
		c, ok := parseCommand(line)
		if !ok {
			// Prose, a Markdown heading, another program's output, or the
			// errors vtctldclient printed before its text output
			// (vitessio/vitess#15963): a JSON document after it is not read.
			prose = true
			continue
		}
		cmd = c
	}
	return 0
}

// isShellComment reports whether line is a shell comment of a session
// transcript, "# Expected to be empty", as the Vitess guides print them
// before each command.
func isShellComment(line []byte) bool {
	return len(line) > 2 && line[0] == '#' && line[1] == ' '
}

// varsName reports whether a file is named as operators save a process's
// /debug/vars (debug_vars.json, zone1-0000000100-vars.json, vars.json).
func varsName(name string) bool {
	n := strings.ToLower(baseName(name))
	return n == "vars" || strings.HasSuffix(n, "debug_vars") || strings.HasSuffix(n, "debug-vars") || strings.HasSuffix(n, "-vars") || strings.HasSuffix(n, "_vars")
}

// strongKeys are field names only vtctldclient topology documents among our
// inputs carry; a document cut off by the end of the head is taken on them.
var strongKeys = [][]byte{
	[]byte(`"from_table"`), []byte(`"fromTable"`), []byte(`"to_tables"`), []byte(`"toTables"`),
	[]byte(`"tablet_controls"`), []byte(`"tabletControls"`), []byte(`"denied_tables"`), []byte(`"deniedTables"`),
	[]byte(`"is_primary_serving"`), []byte(`"isPrimaryServing"`), []byte(`"is_master_serving"`),
	[]byte(`"primary_alias"`), []byte(`"primaryAlias"`), []byte(`"master_alias"`),
	[]byte(`"shard_references"`), []byte(`"shardReferences"`), []byte(`"served_type"`), []byte(`"servedType"`),
	[]byte(`"shard_streams"`), []byte(`"shardStreams"`), []byte(`"traffic_state"`), []byte(`"trafficState"`),
	[]byte(`"binlog_source"`), []byte(`"binlogSource"`),
	[]byte(`"migration_statement"`), []byte(`"migrationStatement"`), []byte(`"cutover_attempts"`), []byte(`"cutoverAttempts"`),
	[]byte(`"TransactionPoolCapacity"`),
}

func docScore(name string, doc []byte, cmd command) int {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &se) {
			// Cut by the end of the head, or malformed: a document with the
			// fields of a topology document is read, and its problems reported.
			for _, k := range strongKeys {
				if bytes.Contains(doc, k) {
					return 90
				}
			}
			if varsName(name) && bytes.HasPrefix(doc, []byte("{\n\"")) {
				// expvar's JSON, one variable a line in the order of their
				// names: a vttablet's pool comes after hundreds of others.
				return 90
			}
		}
		return 0
	}
	return shapeScore(name, v, cmd)
}

// shapeScore says whether a decoded document has the shape of an output the
// snapshot parser reads (see snapshotParser.document): 90 for a shape only
// vtctldclient prints, 60 for one that is also ordinary JSON (an empty rule
// list, a list of names), 0 for anything else.
func shapeScore(name string, v any, cmd command) int {
	switch v := v.(type) {
	case []any:
		if len(v) == 0 {
			if cmd.known() || WorkflowListKeyspace(name) != "" {
				return 60
			}
			return 0
		}
		names, kss, full := 0, 0, 0
		for _, e := range v {
			switch e := e.(type) {
			case string:
				names++
			case map[string]any:
				if _, ok := e["name"].(string); ok && isObject(e["keyspace"]) {
					kss++
					if ks, _ := e["keyspace"].(map[string]any); len(ks) > 0 {
						full++
					}
				}
			}
		}
		switch {
		case kss == len(v) && full > 0:
			return 90
		case kss == len(v):
			return 60 // GetKeyspaces of keyspaces with nothing set
		case names == len(v) && (cmd.is("Workflow") || cmd.is("GetWorkflows") || strings.Contains(strings.ToLower(name), "workflow")):
			return 60 // Workflow list: the names of the keyspace's workflows
		case isTabletRecord(v[0]):
			return 90 // GetTablets --format json
		}
		return 0
	case map[string]any:
		o := object(v)
		switch {
		case isMigrations(o):
			return 90 // OnlineDDL show --json
		case isDebugVars(o):
			return 90 // a vttablet's /debug/vars
		case has(o, "tablets"):
			if l, ok := o.get("tablets").([]any); ok && len(l) > 0 && isTabletRecord(l[0]) {
				return 90 // GetTablets over gRPC, {"tablets": […]}
			}
			return 0
		case isVSchema(o):
			if cmd.is("GetVSchema") || vschemaKeyspace(cmd, name) != "" {
				return 90
			}
			return 60
		case has(o, "rules"):
			l, ok := o.get("rules").([]any)
			if !ok {
				return 0
			}
			if len(l) == 0 {
				return 60
			}
			r, ok := l[0].(map[string]any)
			if ok && (has(r, "from_table") || has(r, "from_keyspace") || (has(r, "shard") && has(r, "to_keyspace"))) {
				return 90
			}
			return 0
		case has(o, "workflows"):
			l, ok := o.get("workflows").([]any)
			if !ok {
				return 0
			}
			if len(l) == 0 {
				return 60
			}
			if w, ok := l[0].(map[string]any); ok && has(w, "name") && (has(w, "source") || has(w, "target") || has(w, "shard_streams")) {
				return 90
			}
			return 0
		case has(o, "summary") && (has(o, "start_state") || has(o, "current_state") || has(o, "dry_run_results")),
			has(o, "traffic_state"), has(o, "shard_streams"), has(o, "table_copy_state"):
			return 90
		case has(o, "shard") && has(o, "keyspace") && has(o, "name") && isObject(o.get("shard")):
			return 90
		case has(o, "name") && isObject(o.get("keyspace")):
			return 60
		case isObject(o.get("keyspaces")) && len(o) <= 8,
			has(o, "routing_rules") && isObject(o.get("routing_rules")):
			return 90 // SrvVSchema
		case has(o, "partitions"):
			if _, ok := o.get("partitions").([]any); ok {
				return 90
			}
			return 0
		}
		// GetSrvKeyspaces (cell → SrvKeyspace), GetSrvVSchemas (cell →
		// SrvVSchema), FindAllShardsInKeyspace (shard → Shard).
		if len(o) == 0 {
			if cmd.is("GetWorkflows") || WorkflowListKeyspace(name) != "" {
				return 60 // GetWorkflows of a keyspace without workflows
			}
			return 0
		}
		for _, e := range o {
			vo, ok := e.(map[string]any)
			if !ok {
				return 0
			}
			if !(has(vo, "partitions") || isObject(vo["keyspaces"]) || (has(vo, "shard") && has(vo, "keyspace") && has(vo, "name")) || len(vo) == 0) {
				return 0
			}
		}
		return 90
	}
	return 0
}
