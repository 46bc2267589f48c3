package report

import "testing"

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
