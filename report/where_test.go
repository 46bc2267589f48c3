package report

import "testing"

func TestInputRoot(t *testing.T) {
	for _, c := range []struct {
		inputs []string
		want   string
	}{
		{[]string{"/cases/seed/a.zip"}, "/cases/seed"},
		{[]string{"/cases/seed/a.zip", "/cases/seed/b/memcached.log"}, "/cases/seed"},
		{[]string{"/cases/seed/b/memcached.log", "/cases/other/c.zip"}, "/cases"},
		// Inputs with nothing but the file system's root in common (a zip in
		// the temporary folder beside a folder of the case) have no root.
		{[]string{"/tmp/x/a.zip", "/work/case/notes"}, ""},
		{[]string{"/a.zip"}, ""},
	} {
		if got := InputRoot(c.inputs); got != c.want {
			t.Errorf("InputRoot(%q) = %q, want %q", c.inputs, got, c.want)
		}
	}
}
