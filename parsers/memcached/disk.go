package memcached

import (
	"bytes"

	"forensics"
	"forensics/parsers/scan"
)

// WriteFailed is a flush to disk that failed: couchstore or magma could not
// write or commit a vbucket's batch (the data service retries it).
const WriteFailed forensics.Kind = "memcached.write_failed"

var writeFailedDoc = forensics.KindDoc{Kind: WriteFailed, Category: forensics.CategoryError, Label: "write failed", Doc: "the data service failed to write a batch to disk (couchstore_commit / saveDocs / kvstore.commit errors); system is the OS error when logged, e.g. No space left on device", Attrs: attrs.Of(AttrStore, AttrSystem)}

// The flush-failure templates of kv_engine, from the innermost:
//
//	CouchKVStore::saveDocs: couchstore_commit error:{} [{}]   couch-kvstore.cc (7.1–7.6): couchstore_strerror, then the OS error
//	CouchKVStore::commit: saveDocs error:{}, {}             couch-kvstore.cc (7.1–8.0): couchstore_strerror, vbid
//	MagmaKVStore::commit: saveDocs {} errCode:{}            magma-kvstore.cc (7.1–7.6)
//	KVBucket::commit: kvstore.commit failed {}              ep_bucket.cc (7.1–7.6; 8.0 logs the vb in its JSON context)
//
// 8.0 logs "CouchKVStore::saveDocs: couchstore_commit error" followed by a
// JSON context holding {"system": <OS error>, "code": <couchstore error>}.
var writeFailures = [...][]byte{
	[]byte("CouchKVStore::saveDocs: couchstore_commit error"),
	[]byte("CouchKVStore::commit: saveDocs error:"),
	[]byte("MagmaKVStore::commit: saveDocs "),
	[]byte("KVBucket::commit: kvstore.commit failed"),
}

var (
	noSpace  = []byte("No space left on device")
	vbMarker = []byte("vb:")
)

// writeFailure reads a WARNING-or-worse line for the templates above and
// reports whether it was one. Lines below WARNING never are.
func (p *parser) writeFailure(l *line, lvl int, msg []byte, emit forensics.Emit) bool {
	if lvl < levelWarning || !bytes.Contains(msg, []byte("ommit")) {
		return false
	}
	which := -1
	at := 0
	for i, t := range writeFailures {
		if k := bytes.Index(msg, t); k >= 0 {
			which, at = i, k
			break
		}
	}
	if which < 0 {
		return false
	}
	// The bucket prefix "(name) ", possibly after a connection id.
	pre := bytes.TrimSpace(msg[:at])
	if n, r, ok := number(pre); ok && n != nil && scan.HasPrefix(r, ": ") {
		pre = r[2:]
	}
	if len(pre) > 2 && pre[0] == '(' && pre[len(pre)-1] == ')' && !bytes.Equal(pre, []byte("(No Engine)")) {
		l.bucket = pre[1 : len(pre)-1]
	}
	e := p.event(l, WriteFailed)
	rest := msg[at+len(writeFailures[which]):]
	e.Set(AttrStore, map[bool]string{true: "magma", false: "couchstore"}[which == 2])
	if bytes.Contains(rest, noSpace) {
		e.Set(AttrSystem, l.txt.Str(noSpace))
	} else if which == 0 {
		if i, j := bytes.IndexByte(rest, '['), bytes.LastIndexByte(rest, ']'); i >= 0 && j > i {
			e.Set(AttrSystem, l.txt.Str(rest[i+1:j]))
		}
	}
	if k := bytes.Index(rest, vbMarker); k >= 0 {
		if vb, _, ok := vbID(rest[k:]); ok {
			e.VB = vb
		}
	}
	emit(e)
	return true
}
