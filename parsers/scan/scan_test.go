package scan

import "testing"

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		b, prefix, rest string
		ok              bool
	}{
		{"TK StreamEnd x", "TK ", "StreamEnd x", true},
		{"TK", "TK ", "TK", false},
		{"", "", "", true},
		{"abc", "abc", "", true},
		{"xbc", "abc", "xbc", false},
	} {
		rest, ok := Cut([]byte(tt.b), tt.prefix)
		if string(rest) != tt.rest || ok != tt.ok || ok != HasPrefix([]byte(tt.b), tt.prefix) {
			t.Errorf("Cut(%q, %q) = %q, %v; want %q, %v", tt.b, tt.prefix, rest, ok, tt.rest, tt.ok)
		}
	}
	if !HasSuffix([]byte("memcached.log"), ".log") || HasSuffix([]byte("log"), ".log") {
		t.Error("HasSuffix")
	}
}

// The tests run on every line, so they must not allocate.
func TestNoAllocations(t *testing.T) {
	line := []byte("2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd MAINT_STREAM test3 141")
	n := testing.AllocsPerRun(100, func() {
		_, _ = Cut(line, "2022-07-21T")
		_ = HasPrefix(line, "TK ")
		_ = HasSuffix(line, "141")
	})
	if n != 0 {
		t.Errorf("%v allocations per line", n)
	}
}
