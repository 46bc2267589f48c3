package memcached

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// CompactionDone is a vbucket's compaction that ended: ns_server's
// compaction daemon (or a user's compaction) asks ep-engine to compact each
// vbucket file of a bucket in turn, and each logs its end. A bucket's
// compaction on a node is a run of them, from minutes to hours.
const CompactionDone forensics.Kind = "memcached.compaction_done"

var compactionDoneDoc = forensics.KindDoc{Kind: CompactionDone, Category: forensics.CategoryOther, Label: "vbucket compaction ended",
	Doc: "the compaction of one vbucket's file ended (engines/ep/src/ep_bucket.cc compactInternal: Compaction of vb:… done (…). 7.x; " +
		"Compaction complete {\"vb\":…,\"result\":…} 8.0); result Success, Aborted or Failed, the tombstones purged and the file's size before and after",
	Attrs: attrs.Of(AttrResult, AttrPurgedTombstones, AttrSizeBefore, AttrSizeAfter)}

// compaction7 reads ep_bucket.cc's end of a vbucket's compaction, 7.x:
//
//	Compaction of {vb} done ({result}). purged tombstones:{}, prepares:{}, prepareBytes:{} collection_items_erased:alive:{},deleted:{}, collections_erased:{}, size/items/tombstones/purge_seqno pre{{{}, {}, {}, {}}}, post{{{}, {}, {}, {}}}
//
// result is "ok" or "failed" in 7.0 (a bool), the CompactDBStatus in 7.1–7.2
// ("Success", kvstore.cc to_string) and "CompactDBStatus::Success" from 7.6
// (format_as). 7.0 logs no collections_erased. r follows "Compaction of ".
func (p *parser) compaction7(l *line, r []byte, emit forensics.Emit) {
	vb, r, ok := vbID(r)
	if !ok || !scan.HasPrefix(r, " done (") {
		return
	}
	r = r[len(" done ("):]
	i := bytes.IndexByte(r, ')')
	if i <= 0 {
		return
	}
	e := p.event(l, CompactionDone)
	e.VB = vb
	e.Set(AttrResult, compactionResult(string(r[:i])))
	r = r[i:]
	for _, m := range [...]struct {
		key  string
		attr forensics.AttrKey
	}{{"purged tombstones:", AttrPurgedTombstones}, {" pre{", AttrSizeBefore}, {" post{", AttrSizeAfter}} {
		if v, ok := field(r, m.key, ','); ok {
			if n, rest, ok := number(v); ok && len(rest) == 0 {
				e.Set(m.attr, l.txt.Str(n))
			}
		}
	}
	emit(e)
}

// compaction8 reads the 8.0 form, LOG_INFO_CTX("Compaction complete",
// {"vb"}, {"result"}, {"purged":{"tombstones",…}}, {"pre":{"size",…}},
// {"post":{"size",…}}, {"obsolete_keys"}).
func (p *parser) compaction8(l *line, c *lineContext, emit forensics.Emit) {
	vb := c.vb()
	if vb < 0 {
		return
	}
	e := p.event(l, CompactionDone)
	e.VB = vb
	e.Set(AttrResult, compactionResult(c.str("result")))
	for _, m := range [...]struct {
		member, sub string
		key         forensics.AttrKey
	}{{"purged", "tombstones", AttrPurgedTombstones}, {"pre", "size", AttrSizeBefore}, {"post", "size", AttrSizeAfter}} {
		if v, ok := objectNumber(c.raw(m.member), m.sub); ok {
			e.Set(m.key, l.txt.Str(v))
		}
	}
	emit(e)
}

// compactionResult names the result as 7.1–7.2 do: Success, Aborted, Failed.
func compactionResult(s string) string {
	s = strings.TrimPrefix(s, "CompactDBStatus::")
	switch s {
	case "ok":
		return "Success"
	case "failed":
		return "Failed"
	}
	return s
}

// objectNumber returns the number member key of the JSON object obj (a
// context member's raw value), or false.
func objectNumber(obj []byte, key string) ([]byte, bool) {
	if len(obj) < 2 || obj[0] != '{' {
		return nil, false
	}
	var c lineContext
	if c.parse(obj) != nil {
		return nil, false
	}
	n, rest, ok := number(c.raw(key))
	return n, ok && len(rest) == 0
}
