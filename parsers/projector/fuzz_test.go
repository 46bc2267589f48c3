package projector

import (
	"fmt"
	"strings"
	"testing"

	"forensics/parsers/parsertest"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"2022-07-21T17:39:17.706-07:00 [Warn] DCPT[" + consumer + "] ##2 STREAMREQ(141) with rollback 4109\n",
		"2022-07-21T17:39:17.001-07:00 [Error] DCPT[" + consumer + "] ##2 STREAMREQ(142) unexpected status: NOT_MY_VBUCKET\n",
		"2023-05-01T10:00:00.000+00:00 [Error] DCPT[secidx:proj-b:s:c-INIT_STREAM_TOPIC_5b1c9a3e-123/0] ##a3 STREAMREQ(7) with status: UNKNOWN_COLLECTION, stream request value: &{Flags:0}\n",
		"2025-01-10T08:00:00.000+00:00 [Warn] DCPT:MAINT_STREAM_TOPIC_5b1c9a3e:b1:s1:c1:2556451229124417097:##a3:1 ##a3 STREAMREQ(141) with rollback 4109\n",
		"2022-07-21T17:39:12.109-07:00 [Info] DCPT[" + consumer + "] EOF received\n",
		"2022-07-21T17:39:12.109-07:00 [Error] DCPT[" + consumer + "] doReceive(): read: connection reset by peer\n",
		"2022-07-21T17:39:17.650-07:00 [Info] DCPT[" + consumer + "] ##2 feed started ...\n",
		"2022-07-21T17:39:17.706-07:00 [Info] " + kvdtPfx + " ##2 StreamRequest ROLLBACK: <ud>(DCP_STREAMREQ)</ud>\n",
		"2022-07-21T17:39:17.707-07:00 [Info] " + vbrtPfx + " ##2 ##1 StreamBegin\n",
		"2022-07-21T17:39:12.110-07:00 [Info] " + vbrtPfx + " ##1 ##1 StreamEnd\n",
		"2022-07-21T17:39:17.707-07:00 [Info] " + feedPfx + " ##2 backch *projector.controlStreamRequest {controlStreamRequest, ROLLBACK, test3, 141, 46674030171a, 4109, ##2, 8717358306498734085}\n",
		"2022-07-21T17:39:17.708-07:00 [Info] " + feedPfx + " ##2 backch flush rollback *projector.controlStreamRequest: {controlStreamRequest, ROLLBACK, test3, 141, 46674030171a, 4109, ##2, 8717358306498734085}\n",
		"2022-07-21T17:39:17.690-07:00 [Info] " + feedPfx + " ##2 vbmap {default,test3} - [128 129 141]\n",
		"2022-07-21T17:39:17.690-07:00 [Info] VBRT[<-\xff<-\x00 #] ##2 ##1 StreamBegin\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		parsertest.Check(t, Format, origin, input)
	})
}

// projectorLog builds a log the way a 7.1 projector on a busy KV node writes
// one: every minute the DCP, KVDT and worker stats of each feed and the
// seqnos of every vbucket, and now and then a feed restarting its streams
// (vbmap, stream requests, rollbacks, stream begins, backch answers).
func projectorLog(size int) []byte {
	var b strings.Builder
	var seqnos []string
	for vb := 0; vb < 1024; vb++ {
		seqnos = append(seqnos, fmt.Sprint(4000+vb*3))
	}
	vbseqnos := strings.Join(seqnos, " ")
	dcpStats := `{"bytes":1234567890,"bufferacks":12345,"toAckBytes":1234,"streamreqs":1024,"snapshots":123456,"mutations":9876543,"collectionCreate":0,"collectionDrop":0,"streamends":12,"closestreams":0,"lastAckTime":12.5s,"lastNoopSend":"","lastNoopRecv":"1.2s","lastMsgSend":"0.1s","lastMsgRecv":"0.1s","rcvchLen":0,"incomingMsg":9999999}`
	ts := func(sec int) string {
		return fmt.Sprintf("2022-07-21T%02d:%02d:%02d.%03d-07:00", 10+sec/3600%12, sec/60%60, sec%60, sec*7%1000)
	}
	for sec := 0; b.Len() < size; sec++ {
		t := ts(sec)
		if sec%60 == 0 {
			for conn := 0; conn < 4; conn++ {
				fmt.Fprintf(&b, "%s [Info] DCPT[%s-%d/%d] ##1 dcp latency stats {\"min\":1000,\"max\":200000,\"avg\":5000}\n", t, "secidx:proj-test3-"+topic, 2556451229124417097, conn)
				fmt.Fprintf(&b, "%s [Info] DCPT[%s-%d/%d] ##1 stats: %s\n", t, "secidx:proj-test3-"+topic, 2556451229124417097, conn, dcpStats)
			}
			fmt.Fprintf(&b, "%s [Info] %s ##1 stats: {\"hbCount\":%d,\"eventCount\":123456,\"reqCount\":1024,\"endCount\":0,\"snapStat.samples\":1234,\"snapStat.min\":1,\"snapStat.max\":1000,\"snapStat.avg\":12,\"upsertCount\":98765,\"deleteCount\":0,\"exprCount\":0,\"ainstCount\":1,\"dinstCount\":0,\"tsCount\":123}\n", t, kvdtPfx, sec)
			fmt.Fprintf(&b, "%s [Info] %s ##1 vbseqnos: [%s]\n", t, kvdtPfx, vbseqnos)
			for w := 0; w < 8; w++ {
				fmt.Fprintf(&b, "%s [Info] WRKR[%d<-test3<-127.0.0.1:8091 #%s] ##1 stats: {\"datach\":[0,%d]}\n", t, w, topic, sec)
			}
			fmt.Fprintf(&b, "%s [Info] EVAL[test3 #%s] ##1  stats: {\"14467360447212374216:avgLatency\":1234,\"14467360447212374216:skipCount\":0}\n", t, topic)
		}
		if sec%10 == 0 {
			fmt.Fprintf(&b, "%s [Info] PROJ[:9999] ##%x processing request for topic %s\n", t, sec, topic)
		}
		if sec%120 == 0 {
			vb := sec % 1024
			fmt.Fprintf(&b, "%s [Info] %s ##%x vbmap {default,test3} - [%d %d %d]\n", t, feedPfx, sec, vb, vb+1, vb+2)
			fmt.Fprintf(&b, "%s [Info] DCPT[%s] ##%x feed started ...\n", t, consumer, sec)
			fmt.Fprintf(&b, "%s [Warn] DCPT[%s] ##%x STREAMREQ(%d) with rollback %d\n", t, consumer, sec, vb, 4000+sec)
			fmt.Fprintf(&b, "%s [Info] %s ##%x StreamRequest ROLLBACK: <ud>(DCP_STREAMREQ)</ud>\n", t, kvdtPfx, sec)
			fmt.Fprintf(&b, "%s [Info] VBRT[<-%d<-test3<-127.0.0.1:8091 #%s] ##%x ##%d StreamBegin\n", t, vb, topic, sec, sec)
			fmt.Fprintf(&b, "%s [Info] %s ##%x backch *projector.controlStreamRequest {controlStreamRequest, ROLLBACK, test3, %d, %x, %d, ##%x, 8717358306498734085}\n", t, feedPfx, sec, vb, 77409272469274, 4000+sec, sec)
		}
	}
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	parsertest.Bench(b, Format, origin, projectorLog(8<<20))
}

// BenchmarkPlain reads only lines that are not events: allocs/op must stay
// at the allocations of the parser and line reader themselves.
func BenchmarkPlain(b *testing.B) {
	parsertest.Bench(b, Format, origin, parsertest.Plain(projectorLog(4<<20), func(l string) bool {
		return strings.Contains(l, "STREAMREQ(") || strings.Contains(l, "vbmap {") || strings.Contains(l, "feed started") || strings.Contains(l, "ROLLBACK") || strings.Contains(l, "StreamBegin")
	}))
}
