package block

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"forensics"
)

func sampleEvents() ([]forensics.Event, []bool) {
	base := time.Date(2022, 7, 22, 0, 39, 12, 123456789, time.UTC)
	evs := []forensics.Event{
		{Stamp: forensics.Stamp{Time: base, Offset: -7 * 3600, Zone: forensics.ZoneLogged}, Node: "ns_1@10.0.0.1", Line: 10, Kind: "memcached.stream_created",
			Subject: forensics.Subject{Bucket: "travel-sample", VB: 0}, Attrs: []forensics.Attr{{Key: "consumer", Value: "eq_dcpq:replication:a->b"}, {Key: "start_seqno", Value: "4021"}},
			Text: "2022-07-21T17:39:12.123456-07:00 INFO 382: (travel-sample) DCP (Producer) … Creating stream"},
		// A clock that went back, on a later line; no subject; an empty attribute value.
		{Stamp: forensics.Stamp{Time: base.Add(-5 * time.Millisecond), Zone: forensics.ZoneInherited}, Node: "ns_1@10.0.0.1", Line: 12, Kind: "memcached.dcp_producer",
			Subject: forensics.Subject{VB: forensics.NoVB}, Attrs: []forensics.Attr{{Key: "peer"}},
			Text: "not its line's text\x00\xff"},
		// An entry emitted late: its line is before the others.
		{Stamp: forensics.Stamp{Time: base.Add(time.Hour), Zone: forensics.ZoneUTC}, Node: "n2", Line: 3, Kind: "distsender.nlhe",
			Subject: forensics.Subject{VB: forensics.NoVB, Range: 81, Keyspace: "commerce", Shard: "-80", Table: "corder"}},
		{Stamp: forensics.Stamp{Time: base.Add(2 * time.Hour), Offset: 19800, Zone: forensics.ZoneLogged}, Node: "ns_1@10.0.0.1", Line: 13, Kind: "memcached.stream_created",
			Subject: forensics.Subject{Bucket: "b", VB: 1023}, Text: "on its line"},
	}
	return evs, []bool{false, false, false, true}
}

func TestEventBlockRoundTrip(t *testing.T) {
	evs, onLine := sampleEvents()
	var enc EventEncoder
	blk := enc.Encode(evs, onLine)
	defer blk.Release()
	base := evs[0].Time.UnixNano()
	if blk.MinLine != 3 || blk.MaxLine != 13 || blk.TMin != base-5e6 || blk.TMax != base+2*3600e9 || blk.Events != 4 {
		t.Errorf("block = lines %d-%d, times %d-%d, %d events", blk.MinLine, blk.MaxLine, blk.TMin, blk.TMax, blk.Events)
	}
	wantKinds := []KindSpan{
		{"memcached.stream_created", 2, base, base + 2*3600e9},
		{"memcached.dcp_producer", 1, base - 5e6, base - 5e6},
		{"distsender.nlhe", 1, base + 3600e9, base + 3600e9},
	}
	if !reflect.DeepEqual(blk.Kinds, wantKinds) {
		t.Errorf("kinds = %+v, want %+v", blk.Kinds, wantKinds)
	}

	var got []StoredEvent
	if _, err := DecodeEvents(blk.Data, nil, nil, func(se *StoredEvent) error { got = append(got, *se); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(evs) {
		t.Fatalf("%d events back, want %d", len(got), len(evs))
	}
	for i, se := range got {
		want := evs[i]
		if onLine[i] {
			want.Text = "" // left to the line's block
		}
		if se.Index != i || se.OnLine != onLine[i] || !reflect.DeepEqual(se.Event, want) {
			t.Errorf("event %d:\n got %d %v %+v\nwant %+v", i, se.Index, se.OnLine, se.Event, want)
		}
	}

	// keep skips events without making them, and the rest keep their place.
	var kept []int
	stream := func(k forensics.Kind, line, _ int64) bool { return k == "memcached.stream_created" && line > 10 }
	if _, err := DecodeEvents(blk.Data, nil, stream, func(se *StoredEvent) error { kept = append(kept, se.Index); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(kept) != "[3]" {
		t.Errorf("kept events %v, want [3]", kept)
	}

	// A run holds the events in timeline order, and decodes each as the
	// whole block's decoding does.
	run, err := ReadEventRun(blk.Data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var order []int64
	for i := range run.Len() {
		se, err := run.Event(i)
		if err != nil {
			t.Fatal(err)
		}
		if run.Time(i) != se.Time.UnixNano() || run.Line(i) != se.Line || run.Index(i) != se.Index {
			t.Errorf("run event %d: keys %d %d %d, event %v %d %d", i, run.Time(i), run.Line(i), run.Index(i), se.Time, se.Line, se.Index)
		}
		if !reflect.DeepEqual(se, got[se.Index]) {
			t.Errorf("run event %d:\n got %+v\nwant %+v", i, se, got[se.Index])
		}
		order = append(order, se.Line)
	}
	if fmt.Sprint(order) != "[12 10 3 13]" {
		t.Errorf("run lines %v, want [12 10 3 13] (by time)", order)
	}
	// Its buffer serves the next run, which keys only what keep selects.
	run, err = ReadEventRun(blk.Data, run.Buffer(), stream)
	if err != nil {
		t.Fatal(err)
	}
	if run.Len() != 1 || run.Index(0) != 3 {
		t.Errorf("filtered run: %d events, want event 3 alone", run.Len())
	}
}

// TestDecodeEventsDamaged checks that every cut of a block, and garbage,
// is an error, never a panic or events made up.
func TestDecodeEventsDamaged(t *testing.T) {
	evs, onLine := sampleEvents()
	var enc EventEncoder
	blk := enc.Encode(evs, onLine)
	for n := range len(blk.Data) {
		if _, err := DecodeEvents(blk.Data[:n], nil, nil, func(*StoredEvent) error { return nil }); err == nil {
			t.Errorf("a block cut to %d of %d bytes decoded", n, len(blk.Data))
		}
		if _, err := ReadEventRun(blk.Data[:n], nil, nil); err == nil {
			t.Errorf("a block cut to %d of %d bytes made a run", n, len(blk.Data))
		}
	}
	if _, err := DecodeEvents([]byte("not a block at all"), nil, nil, func(*StoredEvent) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Errorf("garbage: %v, want ErrCorrupt", err)
	}
}

// FuzzEventBlock checks that events of any content come back as they went
// in, and that no input makes the decoder panic.
func FuzzEventBlock(f *testing.F) {
	f.Add("memcached.stream_created", "ns_1@10.0.0.1", "consumer", "eq_dcpq:x", "text", int64(7), int64(1658450352123456789), 1023, false, []byte{})
	f.Add("", "", "", "", "", int64(-1), int64(-9e18), -1, true, []byte("\x01\x00garbage"))
	f.Fuzz(func(t *testing.T, kind, node, key, value, text string, line, ns int64, vb int, online bool, junk []byte) {
		DecodeEvents(junk, nil, nil, func(*StoredEvent) error { return nil })
		if run, err := ReadEventRun(junk, nil, nil); err == nil {
			for i := range run.Len() {
				run.Event(i)
			}
		}

		e := forensics.Event{Stamp: forensics.Stamp{Time: time.Unix(0, ns).UTC(), Zone: forensics.ZoneUTC}, Node: node, Line: line,
			Kind: forensics.Kind(kind), Subject: forensics.Subject{Bucket: value, VB: vb, Range: line, Table: key}, Text: text}
		if key != "" {
			e.Attrs = []forensics.Attr{{Key: key, Value: value}, {Key: value, Value: key}}
		}
		other := e
		other.Kind, other.Line, other.Text = "other", line/2, node
		var enc EventEncoder
		blk := enc.Encode([]forensics.Event{e, other}, []bool{online, false})
		var got []forensics.Event
		if _, err := DecodeEvents(blk.Data, nil, nil, func(se *StoredEvent) error { got = append(got, se.Event); return nil }); err != nil {
			t.Fatalf("decode what was encoded: %v", err)
		}
		if online {
			e.Text = ""
		}
		if len(got) != 2 || !reflect.DeepEqual(got[0], e) || !reflect.DeepEqual(got[1], other) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, []forensics.Event{e, other})
		}
	})
}
