package vitess

import (
	"strings"

	"forensics"
)

// Kinds of vttablet's transaction pool.
const (
	KindTxPoolFull forensics.Kind = "vttablet.txpool_full"
	KindTxLogged   forensics.Kind = "vttablet.tx_logged"
)

var txPoolDocs = []forensics.KindDoc{
	{Kind: KindTxPoolFull, Category: forensics.CategoryError, Label: "transaction pool full", Component: "vttablet",
		Doc:   "vttablet refused to begin a transaction: its pool was full for the whole wait (RESOURCE_EXHAUSTED; go/vt/vttablet/tabletserver/tx_pool.go: transaction pool connection limit exceeded, per-user transaction pool connection limit exceeded; logged by tabletserver.go convertAndLogError through the TxPoolFull logger, once a minute), or the logger's count of the lines it left out (go/vt/logutil/throttled.go: TxPoolFull: skipped N log messages)",
		Attrs: attrs.Of(AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrSkipped, AttrTablet)},
	{Kind: KindTxLogged, Category: forensics.CategoryStep, Label: "transaction logged", Component: "vttablet",
		Doc:   "a transaction that was open when the pool was found full, logged when it ended (tx_pool.go LogActive; stateful_connection.go: Logged transaction: id, principal, user, start, end, seconds, conclusion, queries, tab-separated), or killed for running past the transaction timeout (tx_pool.go transactionKiller: killing transaction (exceeded timeout: %v): …)",
		Attrs: attrs.Of(AttrCaller, AttrConclusion, AttrKeyspace, AttrLevel, AttrQueries, AttrSeconds, AttrShard, AttrTablet, AttrUser)},
}

// classifyPool reads the transaction pool's lines.
func classifyPool(first, msg []byte) (step, bool) {
	if rest, ok := cut(first, "TxPoolFull: "); ok {
		if n, ok := strings.CutPrefix(rest, "skipped "); ok {
			n, tail, _ := strings.Cut(n, " ")
			if tail != "log messages" {
				return step{}, false
			}
			return step{kind: KindTxPoolFull, attrs: []attr{{AttrSkipped, n}}}, true
		}
		if !strings.Contains(rest, "transaction pool connection limit exceeded") &&
			!strings.Contains(strings.ToLower(rest), "tx_pool_full") {
			return step{}, false
		}
		return step{kind: KindTxPoolFull, err: rest}, true
	}
	if rest, ok := cut(first, "Logged transaction: "); ok {
		// The record ends with a tab and the entry's newline; its queries
		// may run over lines.
		return loggedTx(rest + continuation(msg))
	}
	if rest, ok := cut(first, "killing transaction (exceeded timeout: "); ok {
		_, record, ok := strings.Cut(rest, "): ")
		if !ok {
			return step{}, false
		}
		s, ok := loggedTx(record + continuation(msg))
		if ok {
			s.attrs = append(s.attrs[:0:0], attrsExcept(s.attrs, AttrConclusion)...)
			s.attrs = append(s.attrs, attr{AttrConclusion, "killed"})
		}
		return s, ok
	}
	return step{}, false
}

func attrsExcept(as []attr, key forensics.AttrKey) []attr {
	var out []attr
	for _, a := range as {
		if a.key != key {
			out = append(out, a)
		}
	}
	return out
}

// loggedTx reads a transaction's record: id, 'principal', 'user', start,
// end (time.StampMicro), seconds, conclusion, queries, tab-separated
// (stateful_connection.go String; tx_connection.go Format before v7).
func loggedTx(record string) (step, bool) {
	f := strings.Split(strings.TrimRight(record, "\t\n "), "\t")
	if len(f) < 7 {
		return step{}, false
	}
	user := strings.Trim(f[1], "'")
	if user == "" {
		user = strings.Trim(f[2], "'")
	}
	var queries string
	if len(f) > 7 {
		queries = strings.Join(f[7:], " ")
	}
	return step{kind: KindTxLogged, attrs: []attr{{AttrUser, user}, {AttrSeconds, f[5]}, {AttrConclusion, f[6]}, {AttrQueries, queries}}}, true
}
