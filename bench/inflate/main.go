// Command inflate decompresses every member of the zips it is given into
// nothing, with the deflate decoder forensics reads zips with
// (klauspost/compress), one zip per core. bench/run.sh uses it as the
// floor of what reading a bundle can cost: forensics cannot use less CPU
// than inflating its input.
//
//	go run ./bench/inflate [-j N] [-decoder NAME] ZIP...
//
// Built with -tags cgoinflate (and libdeflate-dev, libisal-dev installed),
// it also measures the C decoders a faster build could use: -decoder isal
// (Intel ISA-L's igzip, streaming) and -decoder libdeflate (whole members
// only: it needs the member and its output in memory at once).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/klauspost/compress/zip"
)

func main() {
	jobs := flag.Int("j", runtime.NumCPU(), "zips inflated at once")
	name := flag.String("decoder", "klauspost", "deflate `DECODER`: "+names())
	flag.Parse()
	dec, ok := decoders[*name]
	if !ok {
		fmt.Fprintf(os.Stderr, "inflate: no decoder %q in this build (%s)\n", *name, names())
		os.Exit(2)
	}
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
			n, err := inflate(path, dec)
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

// decoder inflates one member into nothing and returns its size.
type decoder func(f *zip.File, buf []byte) (int64, error)

// decoders are the decoders of this build, by name.
var decoders = map[string]decoder{"klauspost": klauspost}

func names() string {
	var out []string
	for n := range decoders {
		out = append(out, n)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func klauspost(f *zip.File, buf []byte) (int64, error) {
	r, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return io.CopyBuffer(io.Discard, r, buf)
}

func inflate(path string, dec decoder) (int64, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return 0, err
	}
	defer z.Close()
	buf := make([]byte, 256<<10)
	var total int64
	for _, f := range z.File {
		n, err := dec(f, buf)
		total += n
		if err != nil {
			return total, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
	}
	return total, nil
}
