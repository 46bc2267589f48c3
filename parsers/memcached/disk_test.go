package memcached

import (
	"testing"

	"forensics"
	"forensics/parsers/parsertest"
)

func TestWriteFailed(t *testing.T) {
	o := forensics.Origin{Name: "memcached.log", Node: "ns_1@10.20.0.12"}
	in := "2024-03-11T07:29:58.120511-07:00 WARNING (travel-sample) CouchKVStore::saveDocs: couchstore_commit error:error writing to file [No space left on device]\n" +
		"2024-03-11T07:29:58.120610-07:00 WARNING (travel-sample) CouchKVStore::commit: saveDocs error:error writing to file, vb:412\n" +
		"2024-03-11T07:29:58.120650-07:00 WARNING (travel-sample) KVBucket::commit: kvstore.commit failed vb:412\n" +
		"2024-03-11T07:29:59.000001-07:00 WARNING (beer) MagmaKVStore::commit: saveDocs vb:7 errCode:9\n" +
		`2025-06-11T10:15:00.000001+00:00 WARNING (default) CouchKVStore::saveDocs: couchstore_commit error {"vb":"vb:3","error":{"system":"No space left on device","code":"error writing to file"}}` + "\n" +
		// Not failures: INFO, and a commit that succeeded with a long time.
		"2024-03-11T07:29:59.100000-07:00 INFO (travel-sample) CouchKVStore::commit: saveDocs error:none, vb:1\n" +
		"2024-03-11T07:29:59.200000-07:00 WARNING (travel-sample) Slow runtime for 'Compacting vb:5' on thread WriterPool0: 2 s\n"
	r := parsertest.Parse(Format, o, []byte(in))
	w := r.OfKind(WriteFailed)
	if len(w) != 5 {
		t.Fatalf("got %d write failures, want 5: %v", len(w), r.Events)
	}
	if w[0].Bucket != "travel-sample" || w[0].Attr("system") != "No space left on device" || w[0].VB != forensics.NoVB {
		t.Errorf("saveDocs: %q %v vb %d", w[0].Bucket, w[0].Attrs, w[0].VB)
	}
	if w[1].VB != 412 || w[2].VB != 412 {
		t.Errorf("vbs %d %d", w[1].VB, w[2].VB)
	}
	if w[3].Attr("store") != "magma" || w[3].VB != 7 || w[3].Bucket != "beer" {
		t.Errorf("magma: %v", w[3])
	}
	if w[4].Attr("system") != "No space left on device" || w[4].VB != 3 {
		t.Errorf("8.0 form: %v vb %d", w[4].Attrs, w[4].VB)
	}
	parsertest.Check(t, Format, o, []byte(in))
}
