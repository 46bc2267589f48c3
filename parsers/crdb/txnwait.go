package crdb

import (
	"bytes"

	"forensics"
)

// A transaction that finds another's intent pushes it; when the pushee
// is still running the pusher waits in the txnwait queue of the range that
// holds the pushee's record. After a minute of waiting the queue warns,
// and warns again when the wait ends (pkg/kv/kvserver/txnwait/queue.go,
// MaybeWaitForPush, slowTimerThreshold = time.Minute; DEV channel, in every version
// of the file read, v22.x to v25.x), with the range's replica in the tags:
//
//	W230523 22:42:36.866723 938 kv/kvserver/txnwait/queue.go:574 ⋮ [n1,s1,r149/1:‹/Table/19{1-4}›] 297  pusher ‹6a43640d›: finished waiting after 329.98s for pushee ‹fea211f7›
//
// (from oxidecomputer/omicron#3207, where a dozen pushers waited on one
// pushee). The ids are the first 8 hex digits of the transactions' ids
// (uuid.Short).
const (
	KindPushWaiting  forensics.Kind = "txnwait.push_waiting"
	KindPushFinished forensics.Kind = "txnwait.push_finished"
)

var txnwaitDocs = []forensics.KindDoc{
	{Kind: KindPushWaiting, Category: forensics.CategoryOther, Label: "push waiting", Component: "txnwait",
		Doc:   "a transaction has waited over a minute for another it pushes (pusher …: have been waiting …s for pushee …); pusher, pushee, duration, range, span",
		Attrs: attrs.Of(AttrDuration, AttrPushee, AttrPusher, AttrSpan, AttrStore)},
	{Kind: KindPushFinished, Category: forensics.CategoryOther, Label: "push finished", Component: "txnwait",
		Doc:   "a transaction that waited over a minute for another stopped waiting (pusher …: finished waiting after …s for pushee …); pusher, pushee, duration, range, span",
		Attrs: attrs.Of(AttrDuration, AttrPushee, AttrPusher, AttrSpan, AttrStore)},
}

const (
	prePusher    = "pusher "
	midWaiting   = ": have been waiting "
	midFinished  = ": finished waiting after "
	midForPushee = "s for pushee "
)

// readPush reads "pusher %s: have been waiting %.2fs for pushee %s" and
// "pusher %s: finished waiting after %.2fs for pushee %s".
func readPush(ev *forensics.Event, msg []byte, tg healthTags) bool {
	rest := msg[len(prePusher):]
	kind := KindPushWaiting
	i := bytes.Index(rest, []byte(midWaiting))
	mid := midWaiting
	if i < 0 {
		i, mid, kind = bytes.Index(rest, []byte(midFinished)), midFinished, KindPushFinished
	}
	if i <= 0 {
		return false
	}
	secs, pushee, ok := bytes.Cut(rest[i+len(mid):], []byte(midForPushee))
	if !ok || digits(secs) == 0 || len(pushee) == 0 {
		return false
	}
	ev.Kind = kind
	ev.Set(AttrPusher, string(rest[:i]))
	ev.Set(AttrDuration, string(secs)+"s")
	ev.Set(AttrPushee, string(firstWord(pushee)))
	if tg.span != nil {
		ev.Set(AttrSpan, unmarked(tg.span))
	}
	return true
}
