package cbgo

import "testing"

func TestHeader(t *testing.T) {
	for _, tt := range []struct {
		line  string
		ok    bool
		level Level
		msg   string
	}{
		{"2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd", true, Info, "TK StreamEnd"},
		{"2022-07-21T17:39:12.111+00:00 [Warn] x", true, Warn, "x"},
		{"2022-07-21T17:39:12.111Z [Verbose] x", true, Verbose, "x"},
		{"2022-07-21T17:39:12.111-07:00 [Timing] ", true, Timing, ""},
		{"2022-07-21T17:39:12.111-07:00 [Fatal]", true, Fatal, ""},
		{"2022-07-21T17:39:12.111-07:00 [Silent] x", false, 0, ""},
		{"2022-07-21T17:39:12.111-07:00 [info] x", false, 0, ""},
		{"2022-07-21T17:39:12.111-07:00 [Info]x", false, 0, ""},
		{"2022-13-21T17:39:12.111-07:00 [Info] x", false, 0, ""},
		{"2022-07-21 17:39:12.111-07:00 [Info] x", false, 0, ""},
		{"2022-07-21T17:39:12.111-07:00 [Info", false, 0, ""},
	} {
		h, ok := ParseHeader([]byte(tt.line))
		if ok != tt.ok || ok && (h.Level != tt.level || string(h.Msg) != tt.msg) {
			t.Errorf("%q: got %v %v %q, want %v %v %q", tt.line, ok, h.Level, h.Msg, tt.ok, tt.level, tt.msg)
		}
	}
}

func TestNamedLike(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"ns_server.indexer.log", true}, {"indexer.log", true}, {"indexer.log.10", true}, {"indexer.log.gz", true},
		{"indexer.log.", false}, {"indexer.log.old", false}, {"ns_server.indexer.log.1", true}, {"myindexer.log", false},
		{"ns_server.projector.log", false},
	} {
		if got := NamedLike(tt.name, "indexer.log"); got != tt.want {
			t.Errorf("NamedLike(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBucketOf(t *testing.T) {
	for in, want := range map[string]string{"test3": "test3", "travel-sample:inventory:airline": "travel-sample", "": ""} {
		if got := BucketOf(in); got != want {
			t.Errorf("BucketOf(%q) = %q, want %q", in, got, want)
		}
	}
}
