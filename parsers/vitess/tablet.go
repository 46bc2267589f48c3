package vitess

import (
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of a tablet's own state, as vttablet logs it.
const (
	KindTabletType forensics.Kind = "vttablet.tablet_type"
	KindSemiSync   forensics.Kind = "vttablet.semi_sync"
)

var tabletDocs = []forensics.KindDoc{
	{Kind: KindTabletType, Category: forensics.CategoryFailover, Label: "tablet type changed", Component: "vttablet", Doc: "the tablet changed its type: PRIMARY when promoted, REPLICA when demoted, DRAINED, BACKUP, … (tm_state.go ChangeTabletType: Changing Tablet Type: %v[ for %s])", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrShard, AttrTablet, AttrTabletType)},
	{Kind: KindSemiSync, Category: forensics.CategoryFailover, Label: "semi-sync set", Component: "vttablet", Doc: "the tablet set MySQL's semi-sync on or off, as primary (it waits for ACKs) and as replica (it sends them) (mysqlctl replication.go SetSemiSyncEnabled: Setting semi-sync mode: primary=%v, replica=%v; master=, slave= in older releases)", Attrs: attrs.Of(AttrCaller, AttrKeyspace, AttrLevel, AttrSemiSyncPrimary, AttrSemiSyncReplica, AttrShard)},
}

// classifyTablet reads the lines of a tablet's type and semi-sync state.
func classifyTablet(first []byte) (step, bool) {
	switch first[0] {
	case 'C':
		// "Changing Tablet Type: PRIMARY" (≤ v19), "… for zone1-0000000100" (v20+).
		if rest, ok := cut(first, "Changing Tablet Type: "); ok {
			typ, alias, _ := strings.Cut(strings.TrimSpace(rest), " for ")
			if typ == "" || strings.ContainsRune(typ, ' ') {
				return step{}, false
			}
			return step{kind: KindTabletType, attrs: []attr{{AttrTabletType, typ}, {AttrTablet, strings.TrimSpace(alias)}}}, true
		}
	case 'S':
		if !scan.HasPrefix(first, "Setting semi-sync mode: ") {
			return step{}, false
		}
		var primary, replica string
		for _, f := range strings.Fields(strings.ReplaceAll(string(first[len("Setting semi-sync mode: "):]), ",", " ")) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "primary", "master", "main":
				primary = v
			case "replica", "slave", "subordinate":
				replica = v
			}
		}
		if primary == "" && replica == "" {
			return step{}, false
		}
		return step{kind: KindSemiSync, attrs: []attr{{AttrSemiSyncPrimary, primary}, {AttrSemiSyncReplica, replica}}}, true
	}
	return step{}, false
}
