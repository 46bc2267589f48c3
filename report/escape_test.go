package report

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain line", "plain line"},
		{"a\tb", "a       b"},
		{"abc\tdef\tg", "abc     def     g"},
		{"clear \x1b[2J screen", `clear \x1b[2J screen`},
		{"bell\x07", `bell\x07`},
		{"cr\rover", `cr\x0dover`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"c1 \u009b", `c1 \x9b`},
		{"rtl \u202eabc", `rtl \u202eabc`},
		{"two\nlines", "two↵ lines"},
		{"naïve café", "naïve café"},
		{"zero\u200bwidth\u200c\u200d", `zero\u200bwidth\u200c\u200d`},
		{"word\u2060joiner soft\u00adhyphen mongolian\u180e", `word\u2060joiner soft\u00adhyphen mongolian\u180e`},
		{"bom\ufeff", `bom\ufeff`},
		{"tags\U000e0001\U000e0041\U000e007f", `tags\U000e0001\U000e0041\U000e007f`},
		{"blank\u3164filler", `blank\u3164filler`},
		{"rtl isolate \u2067x\u2069", `rtl isolate \u2067x\u2069`},
		{"emoji 👍 and CJK 漢字", "emoji 👍 and CJK 漢字"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeLines(t *testing.T) {
	got := EscapeLines("{\n  \"a\": \"\x1b[31m\"\n}\n", "    ")
	want := "{\n      \"a\": \"\\x1b[31m\"\n    }"
	if got != want {
		t.Errorf("EscapeLines = %q, want %q", got, want)
	}
}

func TestClipName(t *testing.T) {
	long := "bundle.zip!" + string(make([]byte, 0)) + repeat("a", 70000) + "/memcached.log"
	got := ClipName(long, 60)
	if len(got) > 62 || got[:11] != "bundle.zip!" || got[len(got)-13:] != "memcached.log" {
		t.Errorf("ClipName = %q", got)
	}
}

func repeat(s string, n int) string {
	b := make([]byte, 0, n*len(s))
	for i := 0; i < n; i++ {
		b = append(b, s...)
	}
	return string(b)
}

func TestTerminalWriter(t *testing.T) {
	var b strings.Builder
	w := NewTerminalWriter(&b)
	in := "{\"text\": \"\x1b[2J\u202e\tok\"}\nnext\u200b line\n"
	// Written a byte at a time: a sequence cut between writes still reads whole.
	for i := 0; i < len(in); i++ {
		if _, err := w.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
	}
	w.Write([]byte("cut \xe2\x80"))
	w.Flush()
	want := "{\"text\": \"\\x1b[2J\\u202e\tok\"}\nnext\\u200b line\ncut \\xe2\\x80"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	w.Write([]byte("already escaped: \\x1b[2J\n"))
	if b.String() != "already escaped: \\x1b[2J\n" {
		t.Errorf("escaped text changed: %q", b.String())
	}
}
