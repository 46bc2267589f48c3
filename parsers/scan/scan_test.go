package scan

import (
	"testing"
	"unsafe"
)

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

// A value taken from the copied line is cut from the copy, and anything
// else is copied: the result always equals the bytes it was given.
func TestTextStr(t *testing.T) {
	line := []byte("2022-07-21T17:39:12 (vb:12) start seqno 3264 end 99")
	txt := NewText(line)
	if txt.String() != string(line) {
		t.Fatalf("String() = %q", txt.String())
	}
	other := []byte("start seqno 3264 end 99 and more bytes than the line has!!")
	for _, tt := range []struct {
		name  string
		v     []byte
		alias bool
	}{
		{"middle", line[25:32], true},
		{"start", line[:4], true},
		{"end", line[len(line)-2:], true},
		{"whole", line, true},
		{"capped", line[25:32:32], false},
		{"other buffer", other[:5], false},
		{"empty", line[3:3], false},
	} {
		got := txt.Str(tt.v)
		if got != string(tt.v) {
			t.Errorf("%s: Str = %q, want %q", tt.name, got, tt.v)
		}
		base := uintptr(unsafe.Pointer(unsafe.StringData(txt.String())))
		at := uintptr(unsafe.Pointer(unsafe.StringData(got)))
		shared := len(got) > 0 && at >= base && at < base+uintptr(len(line))
		if shared != tt.alias {
			t.Errorf("%s: shares the copy = %v, want %v", tt.name, shared, tt.alias)
		}
	}
	if n := testing.AllocsPerRun(100, func() { sink = txt.Str(line[25:32]) }); n != 0 {
		t.Errorf("a part of the line costs %v allocations", n)
	}
	// The same bytes in a buffer the line does not own are copied, not cut.
	reused := append([]byte(nil), line...)
	if n := testing.AllocsPerRun(100, func() { sink = txt.Str(reused[25:32]) }); n != 1 {
		t.Errorf("a part of another buffer costs %v allocations, want 1", n)
	}
}

var sink string // keeps results on the heap, as an event's attributes are
