package logtime

import (
	"testing"
	"time"
)

func TestISO(t *testing.T) {
	tests := []struct {
		in     string
		utc    string
		offset int32
		n      int
	}{
		{"2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP", "2022-07-22T00:39:17.706652Z", -7 * 3600, 32},
		{"2022-07-21T17:39:12.111-07:00 [Info] TK StreamEnd", "2022-07-22T00:39:12.111Z", -7 * 3600, 29},
		{"2022-07-22T00:39:12.111Z,ns_1@", "2022-07-22T00:39:12.111Z", 0, 24},
		{"2022-07-21T17:39:12.120+05:30, ns_log", "2022-07-21T12:09:12.12Z", 5*3600 + 30*60, 29},
		{"2022-07-21T17:39:12-07:00 x", "2022-07-22T00:39:12Z", -7 * 3600, 25},
	}
	for _, tt := range tests {
		st, n, ok := ISO([]byte(tt.in))
		if !ok {
			t.Errorf("ISO(%q) failed", tt.in)
			continue
		}
		if got := st.Time.Format(time.RFC3339Nano); got != tt.utc || st.Offset != tt.offset || n != tt.n {
			t.Errorf("ISO(%q) = %s offset %d n %d; want %s offset %d n %d", tt.in, got, st.Offset, n, tt.utc, tt.offset, tt.n)
		}
		if st.Time.Location() != time.UTC {
			t.Errorf("ISO(%q) not in UTC", tt.in)
		}
	}
	for _, bad := range []string{"", "2022-07-21", "2022-07-21T17:39:17.706652", "2022-13-21T17:39:17Z", "2022-07-21T17:39:17.-07:00", "2022-07-21T17:39:17.5+0700", "x022-07-21T17:39:17Z"} {
		if _, _, ok := ISO([]byte(bad)); ok {
			t.Errorf("ISO(%q) succeeded", bad)
		}
	}
}

func BenchmarkISO(b *testing.B) {
	line := []byte("2022-07-21T17:39:17.706652-07:00 WARNING 382: (test3) DCP (Producer)")
	b.ReportAllocs()
	for b.Loop() {
		ISO(line)
	}
}
