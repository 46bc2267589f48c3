package input

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// TestTarMembersStream reads a tar.gz of members larger than the memory the
// walk may take: each is streamed in archive order, never held whole.
func TestTarMembersStream(t *testing.T) {
	const member = 48 << 20
	p := filepath.Join(t.TempDir(), "logs.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	zeros := make([]byte, 1<<20)
	for i := 0; i < 4; i++ {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("logs/m%d.log", i), Mode: 0o644, Size: member, Typeflag: tar.TypeReg})
		for j := 0; j < member>>20; j++ {
			tw.Write(zeros)
		}
	}
	tw.Close()
	zw.Close()
	f.Close()

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
		}
	}()
	w := &Walker{Limits: Limits{MaxDepth: 4, MaxMember: 512 << 20, MaxRatio: 0, MaxTotal: 1 << 40}}
	var order []string
	var total int64
	err = w.Walk(context.Background(), []string{p}, func(m Member) error {
		order = append(order, m.Rel)
		rc, err := m.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		n, err := io.Copy(io.Discard, rc)
		total += n
		return err
	})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(order) != "[logs/m0.log logs/m1.log logs/m2.log logs/m3.log]" || total != 4*member {
		t.Fatalf("read %v, %d bytes", order, total)
	}
	if grew := int64(peak.Load()) - int64(base.HeapAlloc); grew > member/2 {
		t.Errorf("the heap grew by %d MB reading %d MB members: a member was held whole", grew>>20, member>>20)
	}
}
