package block

import (
	"fmt"
	"testing"
	"time"

	"forensics"
	"forensics/store"
)

func TestBlockRoundTrip(t *testing.T) {
	b := NewBuilder()
	defer b.Release()
	base := time.Date(2022, 7, 22, 0, 39, 12, 0, time.UTC).UnixNano()
	type rec struct {
		n     int64
		t     int64
		off   int32
		flags store.LineFlags
		text  string
	}
	recs := []rec{
		{1, base, -7 * 3600, store.LineFlags{Zone: forensics.ZoneLogged}, "first"},
		{2, base, 0, store.LineFlags{Zone: forensics.ZoneInherited}, ""},
		{3, base - 5e6, 0, store.LineFlags{Zone: forensics.ZoneUTC, Backwards: true, CR: true}, "back\x00\xff"},
		{4, base + 1e9, 0, store.LineFlags{Zone: forensics.ZoneUTC, Cut: true}, "piece one"},
		{4, base + 1e9, 0, store.LineFlags{Zone: forensics.ZoneUTC, Error: true}, "piece two"},
		{5, base + 2e9, 19800, store.LineFlags{Zone: forensics.ZoneLogged}, "last"},
	}
	for _, r := range recs {
		b.Add(r.n, r.t, r.off, r.flags, []byte(r.text), 0)
	}
	blk := b.Finish()
	if blk.FirstLine != 1 || blk.Lines != 6 || blk.TMin != base-5e6 || blk.TMax != base+2e9 {
		t.Fatalf("block header = %+v", blk)
	}
	var got []rec
	err := Decode(blk.FirstLine, blk.Data, func(l *Line) error {
		got = append(got, rec{l.N, l.Time, l.Offset, l.Flags, string(l.Text)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(recs) {
		t.Errorf("decoded\n%v\nwant\n%v", got, recs)
	}
	if err := Decode(1, blk.Data[:len(blk.Data)/2], func(*Line) error { return nil }); err == nil {
		t.Error("a truncated block decoded without error")
	}
}
