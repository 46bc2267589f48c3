package rulefile

import "testing"

// kb and bytes print a size in MiB below a GiB and in GiB from there; a
// value that is not a number is kept as it is.
func TestSizeFilters(t *testing.T) {
	for _, c := range []struct {
		filter func(val, string) val
		in     val
		want   string
	}{
		{bytesFilter, num(4093640704), "3.8 GiB"},
		{bytesFilter, num(536870912), "512 MiB"},
		{bytesFilter, text("4294967296"), "4.0 GiB"},
		{bytesFilter, text(""), ""},
		{bytesFilter, text("n/a"), "n/a"},
		{kbFilter, num(1 << 20), "1.0 GiB"},
		{kbFilter, num(2048), "2 MiB"},
	} {
		if got := c.filter(c.in, "").String(); got != c.want {
			t.Errorf("%v: %q, want %q", c.in, got, c.want)
		}
	}
}
