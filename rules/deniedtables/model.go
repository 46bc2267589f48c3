package deniedtables

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"forensics"
)

// topo is what one snapshot says about the topology: the documents that
// vtctldclient printed at one time, grouped by the snapshot they came in.
type topo struct {
	name string    // the snapshot's display path
	time time.Time // when it was taken

	rules   map[string]string // routing rules: from_table → "keyspace.table"
	rulesEv *forensics.Event  // the GetRoutingRules document; nil when the snapshot has none

	shards map[string][]*shardRec // by keyspace, sorted by shard name
	flows  []*flowRec             // Workflow show documents
	states []*stateRec            // MoveTables status documents

	// served lists, by keyspace, the cells that serve it (GetSrvKeyspaces).
	// A keyspace missing from the map: not known, so every cell counts.
	served map[string][]string
}

type shardRec struct {
	keyspace, name string
	primaryCell    string // cell of the primary tablet; "" when the shard has none
	controls       []controlRec
	ev             *forensics.Event
}

// controlRec is one tablet control of a shard record: what tablets of one
// type, in the listed cells (none listed: all cells), must refuse to serve.
type controlRec struct {
	tabletType string // "PRIMARY", "REPLICA", "RDONLY"
	cells      []string
	denied     []string // table names, or /regexp/
}

type flowRec struct {
	name, source, target string
	tables               []string
	streams              []streamRec
	ev                   *forensics.Event
}

type streamRec struct {
	shard, message string
}

// stateRec is what `MoveTables status` printed: the traffic state as vtctld
// derives it from the routing rules alone.
type stateRec struct {
	keyspace, workflow string // as far as the document or its file says
	traffic            string
	ev                 *forensics.Event
}

// reverseSuffix is how vtctld names the workflow that replicates back from
// the target (go/vt/vtctl/workflow ReverseWorkflowName).
const reverseSuffix = "_reverse"

// forwardName returns the name of the forward workflow, and whether name
// was the reverse one.
func forwardName(name string) (string, bool) {
	if strings.HasSuffix(name, reverseSuffix) {
		return strings.TrimSuffix(name, reverseSuffix), true
	}
	return name, false
}

// ruleKeyspace returns the keyspace a routing rule for from points at, or "".
func (t *topo) ruleKeyspace(from string) string {
	to, ok := t.rules[from]
	if !ok {
		return ""
	}
	ks, _, found := strings.Cut(to, ".")
	if !found {
		return ""
	}
	return ks
}

// shardNames returns the names of a keyspace's shards in the snapshot.
func (t *topo) shardNames(keyspace string) []string {
	var out []string
	for _, s := range t.shards[keyspace] {
		out = append(out, s.name)
	}
	return out
}

// lists reports whether a denied-tables entry names table: entries are exact
// names or /regexp/ (vttablet matches the regexp against the table name).
func lists(entry, table string) bool {
	if len(entry) > 2 && entry[0] == '/' && entry[len(entry)-1] == '/' {
		re, err := regexp.Compile(entry[1 : len(entry)-1])
		return err == nil && re.MatchString(table)
	}
	return entry == table
}

// entriesFor returns the entries of denied that name any of tables, in the
// order the shard record lists them: exactly what SetShardTabletControl
// --remove must be given, since it refuses entries that are not listed.
func entriesFor(denied, tables []string) []string {
	var out []string
	for _, e := range denied {
		for _, t := range tables {
			if lists(e, t) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// deniedTo returns the tables, of those given, that the shard denies to
// tablets of tabletType in a cell that matters: for PRIMARY the primary's
// cell, for other types any cell that serves the keyspace. An empty cell
// list means every cell.
func (t *topo) deniedTo(s *shardRec, tabletType string, tables []string) []string {
	for _, c := range s.controls {
		if c.tabletType != tabletType || !t.applies(s, c) {
			continue
		}
		var out []string
		for _, table := range tables {
			if slices.ContainsFunc(c.denied, func(e string) bool { return lists(e, table) }) {
				out = append(out, table)
			}
		}
		return out
	}
	return nil
}

// applies reports whether a control reaches any tablet that serves: a
// control limited to cells where no such tablet runs denies nothing.
func (t *topo) applies(s *shardRec, c controlRec) bool {
	if len(c.cells) == 0 {
		return true
	}
	if c.tabletType == "PRIMARY" && s.primaryCell != "" {
		return slices.Contains(c.cells, s.primaryCell)
	}
	served, known := t.served[s.keyspace]
	if !known {
		return true
	}
	for _, cell := range c.cells {
		if slices.Contains(served, cell) {
			return true
		}
	}
	return false
}

// control returns the shard's control for a tablet type, or nil.
func (s *shardRec) control(tabletType string) *controlRec {
	for i := range s.controls {
		if s.controls[i].tabletType == tabletType {
			return &s.controls[i]
		}
	}
	return nil
}
