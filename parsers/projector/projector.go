// Package projector reads the log of Couchbase's GSI projector
// (projector.log; ns_server.projector.log in a cbcollect_info zip), releases
// 6.x to 8.0. The projector runs on every KV node, reads that node's own
// memcached over DCP and forwards mutations to the indexers, so its log
// tells what the local memcached answered to each stream request.
//
// The lines are in the GSI logger's grammar, as the indexer's are (cbgo.ParseHeader); the message
// starts with the prefix of the component that logs it:
//
//	DCPT[<dcp name>]                       the DCP connection to memcached (dcp/transport/client/dcp_feed.go)
//	KVDT[<-keyspace<-cluster #topic]       one keyspace of a feed (projector/kvdata.go)
//	VBRT[<-vb<-keyspace<-cluster #topic]   one vbucket's routine (projector/vbucket.go)
//	FEED[<=>topic(cluster)]                the feed of one indexer topic (projector/feed.go)
//
// Events carry no node: the pipeline's node of the file is the KV node.
package projector

import (
	"forensics"
	"forensics/parsers/cbgo"
)

// Event kinds. Subject.Bucket is the bucket part of the keyspace.
const (
	StreamRollback       forensics.Kind = "projector.stream_rollback"
	StreamError          forensics.Kind = "projector.stream_error"
	StreamResponse       forensics.Kind = "projector.stream_response"
	StreamRollbackNotice forensics.Kind = "projector.stream_rollback_notice"
	StreamBegin          forensics.Kind = "projector.stream_begin"
	StreamEnd            forensics.Kind = "projector.stream_end"
	DCPConnected         forensics.Kind = "projector.dcp_connected"
	DCPClosed            forensics.Kind = "projector.dcp_closed"
	VBMap                forensics.Kind = "projector.vbmap"
)

// Format reads the projector's log.
var Format = forensics.Format{
	Name:      "projector",
	Component: "projector",
	Detect:    detect,
	New:       func(forensics.Origin) forensics.Parser { return &parser{} },
	Kinds: []forensics.KindDoc{
		{Kind: StreamRollback, Category: forensics.CategoryRollback, Label: "stream request answered with a rollback", Doc: "the local memcached answered a DCP stream request with a rollback (STREAMREQ(vb) with rollback seqno)", Attrs: attrs.Of(AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrOpaque, AttrRollbackSeqno, AttrTopic)},
		{Kind: StreamError, Category: forensics.CategoryError, Label: "stream request refused", Doc: "the local memcached refused a DCP stream request (STREAMREQ(vb) unexpected status, e.g. NOT_MY_VBUCKET)", Attrs: attrs.Of(AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrOpaque, AttrStatus, AttrTopic)},
		{Kind: StreamResponse, Category: forensics.CategoryStream, Label: "stream request answered", Doc: "the projector passes memcached's answer to a stream request on to the indexer (backch controlStreamRequest): status, vbuuid, seqno", Attrs: attrs.Of(AttrCluster, AttrKeyspace, AttrKvdata, AttrOpaque, AttrSeqno, AttrStage, AttrStatus, AttrTopic, AttrVbuuid, AttrVbuuidHex)},
		{Kind: StreamRollbackNotice, Category: forensics.CategoryRollback, Label: "feed got a rollback", Doc: "a keyspace's feed got a ROLLBACK answer to a stream request (StreamRequest ROLLBACK); the line names no vbucket", Attrs: attrs.Of(AttrCluster, AttrKeyspace, AttrOpaque, AttrTopic)},
		{Kind: StreamBegin, Category: forensics.CategoryStream, Label: "stream begin sent", Doc: "a vbucket routine sent StreamBegin to the indexers (success or rollback; the status is in stream_response)", Attrs: attrs.Of(AttrCluster, AttrKeyspace, AttrOpaque, AttrSession, AttrTopic)},
		{Kind: StreamEnd, Category: forensics.CategoryStream, Label: "stream end sent", Doc: "a vbucket routine sent StreamEnd to the indexers", Attrs: attrs.Of(AttrCluster, AttrKeyspace, AttrOpaque, AttrSession, AttrTopic)},
		{Kind: DCPConnected, Category: forensics.CategoryStream, Label: "DCP connection opened", Doc: "a DCP connection to the local memcached was opened for a feed (DCPT feed started)", Attrs: attrs.Of(AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrOpaque, AttrTopic)},
		{Kind: DCPClosed, Category: forensics.CategoryError, Label: "DCP connection closed", Doc: "a DCP connection to the local memcached ended (EOF received: memcached closed it; doReceive(): an error)", Attrs: attrs.Of(AttrConsumer, AttrConsumerShort, AttrKeyspace, AttrReason, AttrTopic)},
		{Kind: VBMap, Category: forensics.CategoryStream, Label: "active vbuckets", Doc: "the vbuckets of a bucket the projector found active on its node when starting or restarting streams (FEED vbmap)", Attrs: attrs.Of(AttrBucket, AttrCluster, AttrCount, AttrPool, AttrTopic, AttrVbuckets)},
	},
}

var projectorPrefixes = []string{"DCPT[", "DCPT:", "KVDT[", "VBRT[", "FEED[", "PROJ[", "WRKR[", "DCP[", "ENDP[", "Projector"}

func detect(name string, head []byte) int {
	headers, marked := cbgo.Sniff(head, projectorPrefixes)
	return cbgo.Score(cbgo.NamedLike(name, "projector.log"), headers, marked)
}

type parser struct {
	ev forensics.Event
}

func (p *parser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	h, ok := cbgo.ParseHeader(text)
	if !ok {
		return forensics.Stamp{}, nil
	}
	msg := h.Msg
	if len(msg) < 12 {
		return h.Stamp, nil
	}
	var err error
	switch string(msg[:5]) {
	case "DCPT[", "DCPT:":
		err = p.dcpt(n, text, h, msg, emit)
	case "KVDT[":
		err = p.kvdt(n, text, h, msg, emit)
	case "VBRT[":
		err = p.vbrt(n, text, h, msg, emit)
	case "FEED[":
		err = p.feed(n, text, h, msg, emit)
	}
	return h.Stamp, err
}

func (p *parser) End(forensics.Emit) error { return nil }

func (p *parser) start(k forensics.Kind, n int64, st forensics.Stamp, text []byte) *forensics.Event {
	e := &p.ev
	e.Reset()
	e.Kind = k
	e.Line = n
	e.Stamp = st
	e.Text = string(text)
	return e
}

func add(e *forensics.Event, key forensics.AttrKey, value string) {
	e.Attrs = append(e.Attrs, forensics.NewAttr(key, value))
}
