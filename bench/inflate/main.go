// Command inflate decompresses every member of the zips it is given into
// nothing, with the deflate decoder forensics reads zips with
// (klauspost/compress), one zip per core. bench/run.sh uses it as the
// floor of what reading a bundle can cost: forensics cannot use less CPU
// than inflating its input.
//
//	go run ./bench/inflate [-j N] ZIP...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zip"
)

func main() {
	jobs := flag.Int("j", runtime.NumCPU(), "zips inflated at once")
	flag.Parse()
	var (
		wg     sync.WaitGroup
		sem    = make(chan struct{}, max(*jobs, 1))
		mu     sync.Mutex
		total  int64
		failed bool
	)
	for _, path := range flag.Args() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			n, err := inflate(path)
			mu.Lock()
			defer mu.Unlock()
			total += n
			if err != nil {
				fmt.Fprintln(os.Stderr, "inflate:", err)
				failed = true
			}
		}()
	}
	wg.Wait()
	fmt.Println(total)
	if failed {
		os.Exit(1)
	}
}

func inflate(path string) (int64, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return 0, err
	}
	defer z.Close()
	buf := make([]byte, 256<<10)
	var total int64
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			return total, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		n, err := io.CopyBuffer(io.Discard, r, buf)
		r.Close()
		total += n
		if err != nil {
			return total, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
	}
	return total, nil
}
