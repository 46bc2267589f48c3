package vitess

import (
	"strconv"

	"forensics"
)

// KindTxPoolStats is a vttablet's transaction pool as its /debug/vars (Go's
// expvar JSON) showed it when it was collected: the tablet
// (TabletKeyspace, TabletShard, TabletAlias: go/vt/vttablet/tabletmanager/
// tm_init.go), the pool (TransactionPoolCapacity, …Available, …InUse,
// …WaitCount, …WaitTime in ns: the smartconnpool stats of
// tabletserver/tx_pool.go) and the counters of refusals
// (Errors.RESOURCE_EXHAUSTED) and killed transactions (Kills.Transactions).
const KindTxPoolStats forensics.Kind = "vttablet.txpool_stats"

// Keys of the pool's numbers, by their expvar names.
const (
	varCapacity  = "TransactionPoolCapacity"
	varAvailable = "TransactionPoolAvailable"
	varInUse     = "TransactionPoolInUse"
	varWaitCount = "TransactionPoolWaitCount"
	varWaitTime  = "TransactionPoolWaitTime"
)

var txPoolStatsDoc = forensics.KindDoc{Kind: KindTxPoolStats, Category: forensics.CategoryTopo, Label: "transaction pool (/debug/vars)",
	Doc:   "a vttablet's transaction pool in its /debug/vars when collected: capacity, in use (InUse, else Capacity − Available), waits (WaitCount, WaitTime), refusals (Errors.RESOURCE_EXHAUSTED) and transactions killed (Kills.Transactions), with the tablet's keyspace, shard and alias",
	Attrs: attrs.Of(AttrCapacity, AttrInUse, AttrKeyspace, AttrKilled, AttrRejected, AttrShard, AttrSnapshot, AttrTablet, AttrWaits, AttrWaitSeconds)}

// isDebugVars reports whether o is a vttablet's /debug/vars.
func isDebugVars(o object) bool {
	return o[varCapacity] != nil && o["TabletKeyspace"] != nil
}

func (p *snapshotParser) debugVars(o object, line int64, text string, emit forensics.Emit) {
	ev := p.start(KindTxPoolStats, line, text)
	ev.Keyspace, ev.Shard = str(o["TabletKeyspace"]), str(o["TabletShard"])
	set(ev, AttrKeyspace, ev.Keyspace)
	set(ev, AttrShard, ev.Shard)
	set(ev, AttrTablet, str(o["TabletAlias"]))
	capacity := str(o[varCapacity])
	set(ev, AttrCapacity, capacity)
	inUse := str(o[varInUse])
	if inUse == "" {
		c, err1 := strconv.Atoi(capacity)
		a, err2 := strconv.Atoi(str(o[varAvailable]))
		if err1 == nil && err2 == nil {
			inUse = strconv.Itoa(c - a)
		}
	}
	set(ev, AttrInUse, inUse)
	set(ev, AttrWaits, str(o[varWaitCount]))
	if ns, err := strconv.ParseInt(str(o[varWaitTime]), 10, 64); err == nil {
		set(ev, AttrWaitSeconds, strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64))
	}
	if m, ok := o["Errors"].(map[string]any); ok {
		set(ev, AttrRejected, str(m["RESOURCE_EXHAUSTED"]))
	}
	if m, ok := o["Kills"].(map[string]any); ok {
		set(ev, AttrKilled, str(m["Transactions"]))
	}
	set(ev, AttrSnapshot, p.snapshot)
	emit(ev)
}
