package deniedtables

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"forensics"
)

// move is one MoveTables workflow as a snapshot shows it: the tables it
// moves and between which keyspaces.
type move struct {
	workflow       string // the forward workflow; "" when no document names it
	source, target string // "" when no document says which way it moves
	tables         []string
	flows          []*flowRec // its Workflow show documents, forward and reverse
}

// moves finds the workflows of a snapshot: from the Workflow show documents
// first (they name the workflow and its direction), then from the routing
// rules for tables no document covers (two keyspaces, direction unknown).
func (t *topo) moves() []*move {
	byKey := map[string]*move{}
	var out []*move
	for _, f := range t.flows {
		if f.source == "" || f.target == "" || f.source == f.target {
			continue // Reshard, or not enough to go on
		}
		name, reverse := forwardName(f.name)
		src, dst := f.source, f.target
		if reverse {
			src, dst = dst, src
		}
		key := dst + "." + name
		m := byKey[key]
		if m == nil {
			m = &move{workflow: name, source: src, target: dst}
			byKey[key] = m
			out = append(out, m)
		}
		m.flows = append(m.flows, f)
		for _, tb := range f.tables {
			if !slices.Contains(m.tables, tb) {
				m.tables = append(m.tables, tb)
			}
		}
	}

	covered := func(table string) bool {
		for _, m := range out {
			if slices.Contains(m.tables, table) {
				return true
			}
		}
		return false
	}
	byPair := map[string]*move{}
	for _, from := range slices.Sorted(maps.Keys(t.rules)) {
		if strings.ContainsAny(from, ".@") || covered(from) {
			continue
		}
		kss := t.ruleKeyspaces(from)
		if len(kss) != 2 {
			continue // one keyspace: not a move; more: two workflows fight over the name (#16733)
		}
		key := kss[0] + "|" + kss[1]
		m := byPair[key]
		if m == nil {
			m = &move{}
			byPair[key] = m
			out = append(out, m)
		}
		m.tables = append(m.tables, from)
	}
	for _, m := range out {
		sort.Strings(m.tables)
	}
	return out
}

// ruleKeyspaces returns the keyspaces the routing rules about table mention,
// as qualifiers of from_table or in to_tables, sorted.
func (t *topo) ruleKeyspaces(table string) []string {
	seen := map[string]bool{}
	for from, to := range t.rules {
		name, _, _ := strings.Cut(from, "@")
		ks, tb, qualified := strings.Cut(name, ".")
		if !qualified {
			ks, tb = "", name
		}
		if tb != table {
			continue
		}
		if ks != "" {
			seen[ks] = true
		}
		if k, _, ok := strings.Cut(to, "."); ok {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// incident is what is wrong with one move in one snapshot, for the tables
// whose writes the routing rules send to one keyspace.
type incident struct {
	topo    *topo
	move    *move
	written string   // the keyspace the routing rules send the writes to
	other   string   // the other side of the move
	tables  []string // the move's tables whose writes go to written

	// switched says whether writes are past the switch to the target;
	// known is false when no document gives the direction.
	switched, known bool

	writeDenied  map[string][]string // shard of written → its entries that deny the tables to PRIMARY (I1)
	writeTables  map[string][]string // shard of written → the tables those entries deny
	otherDenied  map[string][]string // shard of other → tables it denies to PRIMARY
	otherMissing map[string][]string // shard of other → tables it should deny but does not (I4)
	split        []string            // tables other denies on some shards only, before the write switch (I5)
	readDenied   []readDenial        // REPLICA/RDONLY denials where those reads go (I2)
	cutover      []string            // "keyspace/shard" whose streams are stopped for cutover, not frozen (I7)

	severity forensics.Severity
}

type readDenial struct {
	tabletType, keyspace, shard string
	tables, entries             []string
}

// problem says whether the incident is worth a finding.
func (in *incident) problem() bool {
	return len(in.writeDenied) > 0 || len(in.readDenied) > 0 ||
		(in.switched && len(in.otherMissing) > 0) || len(in.split) > 0 || len(in.cutover) > 0
}

// bothDeny reports whether the other side denies, too, the tables the
// written side denies (I3).
func (in *incident) bothDeny() bool {
	if len(in.writeDenied) == 0 {
		return false
	}
	for _, tables := range in.otherDenied {
		if len(tables) > 0 {
			return true
		}
	}
	return false
}

// check evaluates every move of the snapshot against the invariants of
// FORMATS.md C8 and returns what is wrong, one incident per move and
// written keyspace.
func (t *topo) check() []*incident {
	var out []*incident
	for _, m := range t.moves() {
		byWritten := map[string][]string{}
		for _, tb := range m.tables {
			kw := t.ruleKeyspace(tb)
			if kw == "" {
				continue // no routing rule: vtgate routes by vschema, the move is done or not begun
			}
			if m.target != "" && kw != m.source && kw != m.target {
				continue // another workflow owns the name now (#16733)
			}
			byWritten[kw] = append(byWritten[kw], tb)
		}
		for _, kw := range slices.Sorted(maps.Keys(byWritten)) {
			in := t.evaluate(m, kw, byWritten[kw])
			if in.problem() {
				out = append(out, in)
			}
		}
	}
	return out
}

func (t *topo) evaluate(m *move, written string, tables []string) *incident {
	in := &incident{
		topo: t, move: m, written: written, tables: tables,
		writeDenied: map[string][]string{}, writeTables: map[string][]string{},
		otherDenied: map[string][]string{}, otherMissing: map[string][]string{},
	}
	switch {
	case m.target != "":
		in.known = true
		in.switched = written == m.target
		in.other = m.target
		if in.switched {
			in.other = m.source
		}
	default:
		for _, ks := range t.ruleKeyspaces(tables[0]) {
			if ks != written {
				in.other = ks
			}
		}
	}

	// I1: the written side must not deny the tables to its primaries.
	for _, s := range t.shards[written] {
		if denied := t.deniedTo(s, "PRIMARY", tables); len(denied) > 0 {
			in.writeDenied[s.name] = entriesFor(s.control("PRIMARY").denied, tables)
			in.writeTables[s.name] = denied
		}
	}

	// I3, I4, I5: the other side.
	denying := map[string]int{} // table → shards of other that deny it
	for _, s := range t.shards[in.other] {
		denied := t.deniedTo(s, "PRIMARY", tables)
		if len(denied) > 0 {
			in.otherDenied[s.name] = denied
		}
		for _, tb := range denied {
			denying[tb]++
		}
		if missing := without(tables, denied); len(missing) > 0 {
			in.otherMissing[s.name] = missing
		}
	}
	if !in.switched {
		// Before the write switch a table is denied on every shard of the
		// target (v21+) or on none (before v21); anything between is a
		// half-applied step.
		for _, tb := range tables {
			if n := denying[tb]; n > 0 && n < len(t.shards[in.other]) {
				in.split = append(in.split, tb)
			}
		}
	}

	// I2: reads must not be denied where the routing rules send them.
	for _, tt := range []string{"REPLICA", "RDONLY"} {
		for _, tb := range tables {
			ks := t.ruleKeyspace(tb + "@" + strings.ToLower(tt))
			if ks == "" {
				ks = written
			}
			for _, s := range t.shards[ks] {
				if len(t.deniedTo(s, tt, []string{tb})) == 0 {
					continue
				}
				in.addReadDenial(tt, ks, s, tb)
			}
		}
	}

	// I7: streams stopped for the cutover and never frozen.
	for _, f := range m.flows {
		for _, st := range f.streams {
			msg := strings.ToLower(st.message)
			if strings.Contains(msg, "stopped for cutover") {
				in.cutover = appendUnique(in.cutover, f.target+"/"+st.shard)
			}
		}
	}

	switch {
	case len(in.writeDenied) > 0 || len(in.readDenied) > 0:
		in.severity = forensics.Critical
	case in.switched && len(in.otherMissing) > 0:
		in.severity = forensics.Medium
	default:
		in.severity = forensics.Info
	}
	return in
}

func (in *incident) addReadDenial(tabletType, keyspace string, s *shardRec, table string) {
	for i := range in.readDenied {
		r := &in.readDenied[i]
		if r.tabletType == tabletType && r.keyspace == keyspace && r.shard == s.name {
			r.tables = appendUnique(r.tables, table)
			r.entries = entriesFor(s.control(tabletType).denied, r.tables)
			return
		}
	}
	in.readDenied = append(in.readDenied, readDenial{
		tabletType: tabletType, keyspace: keyspace, shard: s.name,
		tables: []string{table}, entries: entriesFor(s.control(tabletType).denied, []string{table}),
	})
}

// splitMissing returns, by shard of the other side, the half-denied tables
// the shard does not deny (I5).
func (in *incident) splitMissing() map[string][]string {
	out := map[string][]string{}
	for sh, missing := range in.otherMissing {
		var tables []string
		for _, tb := range missing {
			if slices.Contains(in.split, tb) {
				tables = append(tables, tb)
			}
		}
		if len(tables) > 0 {
			out[sh] = tables
		}
	}
	return out
}

// affected returns the tables the main problem concerns, in the order of
// the move's tables: those denied where their writes (or reads) go, those
// the other side no longer denies, those denied on part of it.
func (in *incident) affected() []string {
	var sets []map[string][]string
	switch in.headline() {
	case "both-deny", "written-denies":
		sets = append(sets, in.writeTables)
	case "reads-denied":
		m := map[string][]string{}
		for _, r := range in.readDenied {
			m[r.keyspace+"/"+r.shard+"/"+r.tabletType] = r.tables
		}
		sets = append(sets, m)
	case "other-allows":
		sets = append(sets, in.otherMissing)
	case "split":
		return in.split
	default:
		return in.tables
	}
	var out []string
	for _, t := range in.tables {
		for _, m := range sets {
			for _, tables := range m {
				if slices.Contains(tables, t) && !slices.Contains(out, t) {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// without returns the tables not in drop.
func without(tables, drop []string) []string {
	var out []string
	for _, t := range tables {
		if !slices.Contains(drop, t) {
			out = append(out, t)
		}
	}
	return out
}

func appendUnique(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}
