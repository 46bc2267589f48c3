package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"forensics"
	"forensics/store"
	"forensics/store/block"
)

// BenchmarkInsertEvents measures the writer's batch insert of events, as
// the ingest pipeline feeds it (batches of 512, one transaction per 50,000).
func BenchmarkInsertEvents(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	w, err := db.NewRun(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	src := &forensics.Source{Path: "memcached.log", Node: "ns_1@10.0.0.1", Format: "memcached", Component: "memcached", Key: "k"}
	if err := w.BeginSource(src); err != nil {
		b.Fatal(err)
	}
	batch := make([]forensics.Event, 512)
	t0 := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	line := int64(0)
	b.ReportAllocs()
	for b.Loop() {
		for i := range batch {
			line++
			e := &batch[i]
			e.Reset()
			e.Line, e.Kind, e.Node, e.Bucket, e.VB = line, "memcached.stream_created", src.Node, "default", int(line%1024)
			e.Stamp = forensics.Stamp{Time: t0.Add(time.Duration(line) * time.Millisecond), Offset: -25200, Zone: forensics.ZoneLogged}
			e.Set("consumer", "replication:ns_1@10.0.0.1->ns_1@10.0.0.2:default")
			e.Set("consumer_kind", "replication")
			e.Set("start_seqno", fmt.Sprint(line))
			e.Text = "2022-07-21T17:39:17.706998-07:00 INFO 382: (default) DCP (Producer) eq_dcpq:replication:ns_1@10.0.0.1->ns_1@10.0.0.2:default - (vb:140) Creating stream with start seqno 4021 and end seqno 18446744073709551615; requested end seqno was 18446744073709551615, snapshot:{4018,4021} collections-filter-size:0 sid:none"
		}
		if err := w.AddEvents(src.ID, batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkInsertBlocks measures storing compressed blocks of lines.
func BenchmarkInsertBlocks(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	w, err := db.NewRun(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	src := &forensics.Source{Path: "memcached.log", Format: "memcached", Component: "memcached", Key: "k"}
	if err := w.BeginSource(src); err != nil {
		b.Fatal(err)
	}
	bb := block.NewBuilder()
	t0 := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC).UnixNano()
	n := int64(0)
	for !bb.Full() {
		n++
		bb.Add(n, t0+n*1e6, 0, store.LineFlags{}, fmt.Appendf(nil, "2022-07-21T17:39:17.%06d-07:00 INFO 38%d: (default) DCP (Producer) eq_dcpq:replication:ns_1@10.0.0.1->ns_1@10.0.0.2:default - (vb:%d) Creating stream with start seqno %d", n%1000000, n%10, n%1024, n), 0)
	}
	blk := bb.Finish()
	b.SetBytes(block.Size)
	for b.Loop() {
		if err := w.AddLines(src.ID, &block.Batch{Block: blk}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
