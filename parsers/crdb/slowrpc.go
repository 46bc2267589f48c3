package crdb

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// KindSlowRPC is DistSender's warning that one replica RPC has been waiting
// longer than its slow-RPC threshold (10s by default), from
// pkg/kv/kvclient/kvcoord/dist_sender.go (slowReplicaRPCWarningStr; v22+):
//
//	slow replica RPC: have been waiting 12.31s (1 attempts) for RPC Put [/Table/106/1/400/0,/Min), [txn: 2cce471c] to replica (n2,s2):3; resp: ‹(err: …)›
//
// It is a WARNING on the DEV channel up to v25.3 and on KV_EXEC from v25.4,
// whose default file group writes cockroach-kv-exec.<host>.….log. The
// channel number before the @ (15 in the tests) is inferred, and nothing
// here depends on it. A PushTxn's pusher and pushee are kept, for the
// transaction waits they belong to (txnwait.go). The range RPC variant ("slow range RPC: …") is not
// read here.
const KindSlowRPC forensics.Kind = "distsender.slow_rpc"

const slowRPCPrefix = "slow replica RPC: have been waiting "

// slowRPC reads the message of a tmplSlowRPC line into ev.
func (s *sender) slowRPC(ev *forensics.Event, msg []byte) bool {
	rest := msg[len(slowRPCPrefix):]
	secs := bytes.IndexByte(rest, 's')
	if secs <= 0 || digits(rest) == 0 {
		return false
	}
	ev.Kind = KindSlowRPC
	ev.Set(AttrSeconds, string(rest[:secs]))
	rest = rest[secs+1:]
	if r, ok := bytes.CutPrefix(rest, []byte(" (")); ok {
		if d := digits(r); d > 0 && scan.HasPrefix(r[d:], " attempts)") {
			ev.Set(AttrAttempts, string(r[:d]))
			rest = r[d+len(" attempts)"):]
		}
	}
	if r, ok := bytes.CutPrefix(rest, []byte(" for RPC ")); ok {
		resp := bytes.Index(r, []byte("; resp: "))
		head := r
		if resp >= 0 {
			head = r[:resp]
			ev.Set(AttrResp, string(r[resp+len("; resp: "):]))
		}
		if to := bytes.LastIndex(head, []byte(" to replica ")); to >= 0 {
			batch := s.str(head[:to])
			ev.Set(AttrBatch, batch)
			ev.Set(AttrReplica, s.str(head[to+len(" to replica "):]))
			pushTxn(ev, batch)
		}
	}
	return true
}

// pushTxn reads the transactions of a PushTxn batch: "PushTxn(6a43640d->fea211f7)
// [/Table/…]" (kvpb.BatchRequest.SafeFormat), or
// "PushTxn(PUSH_TIMESTAMP,6a43640d->fea211f7)" (PushTxnRequest.SafeFormat,
// v23.2+).
func pushTxn(ev *forensics.Event, batch string) {
	rest, ok := strings.CutPrefix(batch, "PushTxn(")
	if !ok {
		return
	}
	if i := strings.IndexByte(rest, ')'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, ','); i >= 0 {
		rest = rest[i+1:]
	}
	pusher, pushee, ok := strings.Cut(rest, "->")
	if !ok || pusher == "" || pushee == "" {
		return
	}
	ev.Set(AttrPusher, pusher)
	ev.Set(AttrPushee, pushee)
}
