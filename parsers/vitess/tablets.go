package vitess

import (
	"bytes"
	"sort"
	"strings"
	"time"

	"forensics"
)

// Kinds of the tablet records and VSchemas vtctldclient prints.
const (
	KindTablets forensics.Kind = "vitess.tablets"
	KindVSchema forensics.Kind = "vitess.vschema"
)

var tabletsDocs = []forensics.KindDoc{
	{Kind: KindTablets, Category: forensics.CategoryTopo, Label: "topology snapshot: tablets", Doc: "the tablet records GetTablets printed, as text or JSON: alias, keyspace, shard, type and primary term start; doc is a vitess.Tablets", Attrs: attrs.Of(AttrDoc, AttrKeyspaces, AttrSnapshot)},
	{Kind: KindVSchema, Category: forensics.CategoryTopo, Label: "topology snapshot: vschema", Doc: "a keyspace's VSchema (GetVSchema): sharded or not, its tables; doc is a vitess.VSchema", Attrs: attrs.Of(AttrDoc, AttrKeyspace, AttrSnapshot, AttrTables)},
}

// Tablets is the doc of vitess.tablets.
type Tablets struct {
	Tablets []Tablet `json:"tablets"`
}

// Tablet is one tablet record.
type Tablet struct {
	Alias    string `json:"alias"` // "zone1-0000000100"
	Keyspace string `json:"keyspace"`
	Shard    string `json:"shard"`
	Type     string `json:"type"` // "PRIMARY", "REPLICA", …
	Hostname string `json:"hostname,omitempty"`
	// PrimaryTermStart is when a primary's term began, RFC 3339; "" for
	// the other types.
	PrimaryTermStart string `json:"primary_term_start,omitempty"`
}

// VSchema is the doc of vitess.vschema.
type VSchema struct {
	Keyspace string   `json:"keyspace"` // from the command line or the file name; "" when neither names it
	Sharded  bool     `json:"sharded"`
	Tables   []string `json:"tables"`
}

// DecodeTablets reads the doc of a vitess.tablets event.
func DecodeTablets(ev *forensics.Event) (Tablets, error) {
	return decodeDoc[Tablets](ev, KindTablets)
}

// DecodeVSchema reads the doc of a vitess.vschema event.
func DecodeVSchema(ev *forensics.Event) (VSchema, error) {
	return decodeDoc[VSchema](ev, KindVSchema)
}

// readTablet reads a topodata.Tablet as GetTablets --format json prints it.
func readTablet(n node) Tablet {
	t := Tablet{Alias: n.alias("alias"), Keyspace: n.str("keyspace"), Shard: n.str("shard"),
		Type: n.tabletType("type"), Hostname: n.str("hostname")}
	if ts, ok := n.obj(n.renamed("primary_term_start_time", "master_term_start_time")); ok {
		if s := ts.int64("seconds"); s > 0 {
			t.PrimaryTermStart = time.Unix(s, ts.int64("nanoseconds")).UTC().Format(time.RFC3339Nano)
		}
	}
	return t
}

// isTabletRecord reports whether a JSON object is a tablet record: an alias
// object, a keyspace and a shard.
func isTabletRecord(v any) bool {
	o, ok := v.(map[string]any)
	if !ok {
		return false
	}
	return isObject(object(o).get("alias")) && has(object(o), "keyspace") && has(object(o), "shard")
}

// readVSchema reads a vschema.Keyspace as GetVSchema prints it.
func readVSchema(n node) VSchema {
	v := VSchema{Sharded: n.boolean("sharded"), Tables: []string{}}
	for name := range n.entries("tables") {
		v.Tables = append(v.Tables, name)
	}
	sort.Strings(v.Tables)
	return v
}

// vschemaKeys are the fields of vschema.Keyspace (proto/vschema.proto).
var vschemaKeys = map[string]bool{"sharded": true, "vindexes": true, "tables": true, "require_explicit_routing": true,
	"requireExplicitRouting": true, "foreign_key_mode": true, "foreignKeyMode": true, "multi_tenant_spec": true, "multiTenantSpec": true,
	"cross_tablet": true}

// isVSchema reports whether a JSON object has the shape of a keyspace's
// VSchema: its tables or vindexes, and no field a VSchema has not.
func isVSchema(o object) bool {
	if !isObject(o.get("tables")) && !isObject(o.get("vindexes")) {
		return false
	}
	for k := range o {
		if !vschemaKeys[k] {
			return false
		}
	}
	return true
}

// vschemaKeyspace is the keyspace of a VSchema: `GetVSchema <keyspace>`
// echoed before it, else the file's name, vschema_<keyspace>.json.
func vschemaKeyspace(cmd command, name string) string {
	if cmd.is("GetVSchema") && len(cmd.args) > 0 {
		return cmd.args[0]
	}
	ks, _ := strings.CutPrefix(baseName(name), "vschema_")
	if ks == baseName(name) {
		return ""
	}
	return ks
}

func (p *snapshotParser) tablets(ts []Tablet, line int64, text string, emit forensics.Emit) {
	ev := p.start(KindTablets, line, text)
	var kss []string
	seen := map[string]bool{}
	for _, t := range ts {
		if !seen[t.Keyspace] {
			seen[t.Keyspace] = true
			kss = append(kss, t.Keyspace)
		}
	}
	if len(kss) == 1 {
		ev.Keyspace = kss[0]
	}
	set(ev, AttrKeyspaces, strings.Join(kss, ","))
	p.finish(ev, Tablets{Tablets: ts}, emit)
}

func (p *snapshotParser) vschema(v VSchema, line int64, text string, emit forensics.Emit) {
	ev := p.start(KindVSchema, line, text)
	ev.Keyspace = v.Keyspace
	set(ev, AttrKeyspace, v.Keyspace)
	set(ev, AttrTables, strings.Join(v.Tables, ","))
	p.finish(ev, v, emit)
}

// tabletLine reads a line of GetTablets' text output
// (go/cmd/vtctldclient/cli/tablets.go MarshalTabletAWK): alias, keyspace,
// shard, type, host:port, mysql host:port, [tags], primary term start or
// <null>: "zone1-0000000101 commerce 0 primary localhost:15101 localhost:17101 [] 2023-09-28T16:37:49Z".
func tabletLine(line []byte) (Tablet, bool) {
	f := strings.Fields(string(bytes.TrimSpace(line)))
	if len(f) < 8 {
		return Tablet{}, false
	}
	cell, uid, ok := strings.Cut(f[0], "-")
	if !ok || cell == "" || len(uid) == 0 || strings.Trim(uid, "0123456789") != "" {
		return Tablet{}, false
	}
	typ := strings.ToUpper(f[3])
	if typ == "MASTER" {
		typ = "PRIMARY"
	}
	known := false
	for _, tt := range tabletTypes {
		known = known || tt == typ
	}
	if !known || !strings.Contains(f[4], ":") || !strings.HasPrefix(f[6], "[") {
		return Tablet{}, false
	}
	t := Tablet{Alias: f[0], Keyspace: f[1], Shard: f[2], Type: typ}
	t.Hostname, _, _ = strings.Cut(f[4], ":")
	if last := f[len(f)-1]; last != "<null>" {
		if _, err := time.Parse(time.RFC3339, last); err != nil {
			return Tablet{}, false
		}
		t.PrimaryTermStart = last
	}
	return t, true
}
