package vitess

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"forensics"
)

// command is a vtctldclient command line echoed before its output, as in
// "$ vtctldclient --server :15999 GetSrvKeyspaces dst zone1". It names what
// some documents leave out: the keyspace of GetSrvKeyspaces, the cell of
// GetSrvVSchema, the workflow of MoveTables status.
type command struct {
	name  string // "GetSrvKeyspaces"; "" when there is none
	args  []string
	flags map[string]string
}

func (c command) is(name string) bool { return strings.EqualFold(c.name, name) }
func (c command) known() bool         { return c.name != "" }

// flag returns the value of the first of the named flags that was given.
func (c command) flag(names ...string) string {
	for _, n := range names {
		if v, ok := c.flags[n]; ok {
			return v
		}
	}
	return ""
}

// commands are the vtctldclient commands whose output this format reads, and
// the ones that lead to it (go/cmd/vtctldclient/command).
var commands = []string{
	"GetRoutingRules", "GetShardRoutingRules", "GetKeyspaceRoutingRules", "GetKeyspaces", "GetKeyspace",
	"GetShard", "FindAllShardsInKeyspace", "GetSrvKeyspaces", "GetSrvVSchema", "GetSrvVSchemas",
	"GetWorkflows", "Workflow", "MoveTables", "Reshard",
}

// boolFlags take no value, so the word after them is an argument.
var boolFlags = map[string]bool{
	"compact": true, "dry-run": true, "force": true, "include-logs": true, "active-only": true,
	"enable-reverse-replication": true, "initialize-target-sequences": true, "keep-data": true,
	"keep-routing-rules": true, "rename-tables": true, "shards-only": true,
}

func isCommand(tok string) bool {
	for _, c := range commands {
		if strings.EqualFold(c, tok) {
			return true
		}
	}
	return false
}

// parseCommand reads a line that runs vtctldclient (or the older
// vtctlclient), after any shell prompt.
func parseCommand(line []byte) (command, bool) {
	if !bytes.Contains(line, []byte("vtctl")) {
		return command{}, false
	}
	toks := strings.Fields(string(line))
	i := 0
	for ; i < len(toks); i++ {
		base := toks[i][strings.LastIndexAny(toks[i], "/\\")+1:]
		if base == "vtctldclient" || base == "vtctlclient" {
			break
		}
	}
	if i == len(toks) {
		return command{}, false
	}
	c := command{flags: map[string]string{}}
	for i++; i < len(toks); i++ {
		t := toks[i]
		if strings.HasPrefix(t, "-") && t != "-" {
			name, value, eq := strings.Cut(strings.TrimLeft(t, "-"), "=")
			if !eq && !boolFlags[name] && i+1 < len(toks) && !strings.HasPrefix(toks[i+1], "-") &&
				(c.name != "" || !isCommand(toks[i+1])) {
				i++
				value = toks[i]
			}
			c.flags[name] = value
			continue
		}
		if c.name == "" {
			c.name = t
			continue
		}
		c.args = append(c.args, t)
	}
	return c, c.name != ""
}

// textBlock reads the text output that starts at pos, if it is one:
// SwitchTraffic/ReverseTraffic results and MoveTables status
// (go/cmd/vtctldclient/command/vreplication/common switchtraffic.go and
// utils.go OutputStatusResponse). It returns where reading resumes.
func (p *snapshotParser) textBlock(s *lineIndex, pos int, cmd command, emit forensics.Emit) (int, bool) {
	end := lineEnd(p.buf, pos)
	if next, ok := p.migrationTable(s, pos, emit); ok {
		return next, true
	}
	if t, ok := tabletLine(p.buf[pos:end]); ok {
		// GetTablets' text: one tablet a line, to the first line that is not.
		ts, last, next := []Tablet{t}, end, end+1
		for next < len(p.buf) {
			e := lineEnd(p.buf, next)
			t, ok := tabletLine(p.buf[next:e])
			if !ok {
				break
			}
			ts, last, next = append(ts, t), e, e+1
		}
		p.tablets(ts, s.lineOf(pos), string(p.buf[pos:last]), emit)
		return min(last+1, len(p.buf)), true
	}
	first := string(bytes.TrimSpace(p.buf[pos:end]))
	if command, ks, wf, dry, ok := parseSummary(first); ok && strings.HasPrefix(first, command+" ") {
		r := SwitchResult{Command: command, Keyspace: ks, Workflow: wf, Summary: first, DryRun: dry}
		last, next := end, end+1
		blanks := 0
	lines:
		for next < len(p.buf) {
			e := lineEnd(p.buf, next)
			t := string(bytes.TrimSpace(p.buf[next:e]))
			switch {
			case t == "":
				blanks++
				if r.DryRun && len(r.DryRunResults) > 0 {
					break lines // the dry run results end with a blank line
				}
			case strings.HasPrefix(t, "Start State: "):
				r.StartState = strings.TrimPrefix(t, "Start State: ")
			case strings.HasPrefix(t, "Current State: "):
				r.CurrentState = strings.TrimPrefix(t, "Current State: ")
			case r.DryRun && blanks > 0 && !startsOutput([]byte(t)):
				r.DryRunResults = append(r.DryRunResults, t)
			default:
				break lines
			}
			if t != "" {
				last = e
			}
			next = e + 1
		}
		p.switchResult(r, s.lineOf(pos), string(p.buf[pos:last]), emit)
		return min(last+1, len(p.buf)), true
	}
	const statusHead = "The following vreplication streams exist for workflow "
	if name, ok := strings.CutPrefix(first, statusHead); ok {
		ks, wf, _ := strings.Cut(strings.TrimSuffix(name, ":"), ".")
		ws := WorkflowStatus{Keyspace: ks, Workflow: wf, Streams: []StatusStream{}}
		if ws.Workflow == "" {
			ws.Workflow = cmd.flag("workflow", "w")
		}
		last, next := end, end+1
		inTables := false
	status:
		for next < len(p.buf) {
			e := lineEnd(p.buf, next)
			raw := p.buf[next:e]
			t := string(bytes.TrimSpace(raw))
			switch {
			case t == "":
			case strings.HasPrefix(t, "id="):
				st := parseStatusStream(t)
				if st.Shard != "" && ks != "" {
					st.Shard = ks + "/" + st.Shard // as the JSON output keys it
				}
				ws.Streams = append(ws.Streams, st)
			case t == "Table Copy Status:":
				inTables = true
			case inTables && len(raw) > 0 && raw[0] == '\t':
				if table, _, ok := strings.Cut(t, ":"); ok {
					ws.Tables = append(ws.Tables, table)
				}
			case strings.HasPrefix(t, "Traffic State: "):
				ws.TrafficState = strings.TrimPrefix(t, "Traffic State: ")
				last = e
				break status
			default:
				break status
			}
			if t != "" {
				last = e
			}
			next = e + 1
		}
		p.workflowStatus(ws, s.lineOf(pos), string(p.buf[pos:last]), emit)
		return min(last+1, len(p.buf)), true
	}
	return 0, false
}

// startsOutput reports whether a line starts another output: a document,
// a command line, or another result.
func startsOutput(t []byte) bool {
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return true
	}
	if _, ok := parseCommand(t); ok {
		return true
	}
	for _, m := range textMarkers {
		if bytes.HasPrefix(t, m) {
			return true
		}
	}
	return false
}

// parseStatusStream reads "id=1 on -80/zone1-1: Status: Copying. VStream
// Lag: -1s; ; Tx time: Thu Oct 30 13:05:02 2025." The tablet is printed as
// cell-uid without padding; it is returned padded, as elsewhere.
func parseStatusStream(t string) StatusStream {
	var st StatusStream
	rest := strings.TrimPrefix(t, "id=")
	id, rest, _ := strings.Cut(rest, " on ")
	st.ID, _ = strconv.ParseInt(id, 10, 64)
	where, rest, _ := strings.Cut(rest, ": Status: ")
	// "<shard>/<tablet>" (vtctlclient, vitessio/vitess#15963) or
	// "<keyspace>/<shard>/<tablet>".
	switch parts := strings.Split(where, "/"); len(parts) {
	case 2:
		st.Shard, st.Tablet = parts[0], padAlias(parts[1])
	case 3:
		st.Shard, st.Tablet = parts[1], padAlias(parts[2])
	}
	status, info, _ := strings.Cut(rest, ". ")
	st.Status = strings.TrimSuffix(status, ".")
	st.Info = strings.TrimSuffix(info, ".")
	return st
}

func padAlias(a string) string {
	i := strings.LastIndexByte(a, '-')
	if i < 0 {
		return a
	}
	uid, err := strconv.ParseUint(a[i+1:], 10, 32)
	if err != nil {
		return a
	}
	return fmt.Sprintf("%s-%010d", a[:i], uid)
}
