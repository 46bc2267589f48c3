package input

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forensics"
)

// walkAll walks path and reads every member in full, as the pipeline does.
func walkAll(t testing.TB, path string, limits Limits) (members map[string]string, problems []forensics.Problem) {
	members = map[string]string{}
	w := &Walker{Limits: limits, Problem: func(p forensics.Problem) { problems = append(problems, p) }}
	defer w.Close()
	err := w.Walk(context.Background(), []string{path}, func(m Member) error {
		rc, err := m.Open()
		if err != nil {
			problems = append(problems, forensics.Problem{Path: m.Path, Reason: err.Error()})
			return nil
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if err != nil {
			problems = append(problems, forensics.Problem{Path: m.Path, Reason: err.Error()})
		}
		members[m.Path] = string(data)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return members, problems
}

func zipOf(t testing.TB, files map[string]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(data))
	}
	zw.Close()
	return b.Bytes()
}

func TestNodeFromPath(t *testing.T) {
	tests := map[string]string{
		"x/collectinfo-2022-07-22T004733-ns_1@172.23.100.15.zip!cbcollect_info_ns_1@172.23.100.15_20220722-004733/memcached.log": "ns_1@172.23.100.15",
		"cbcollect_info_ns_1@cb-02.prod.example.net_20240101-000000/ns_server.info.log":                                          "ns_1@cb-02.prod.example.net",
		"collectinfo-2022-07-22T004733-ns_1@10.0.0.1-redacted.zip!memcached.log":                                                 "ns_1@10.0.0.1",
		"bundle.zip!debug/nodes/3/logs/cockroach.host.root.2024-01-01T00_00_00Z.000001.log":                                      "n3",
		"snapshot-2024-12-02T164500Z/routing_rules.json":                                                                         "",
	}
	for path, want := range tests {
		if got := nodeFromPath(path); got != want {
			t.Errorf("nodeFromPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestSalvageFindsMembersBeforeTheCut(t *testing.T) {
	var a, b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&a, "line a %d\n", i)
		fmt.Fprintf(&b, "line b %d\n", i)
	}
	z := zipOf(t, map[string]string{"a.log": a.String()})
	z2 := zipOf(t, map[string]string{"b.log": b.String()})
	// Two archives' first members back to back, then cut in the second's data:
	// no central directory survives.
	firstEnd := bytes.Index(z, []byte("PK\x01\x02"))
	secondEnd := bytes.Index(z2, []byte("PK\x01\x02"))
	data := append(append([]byte{}, z[:firstEnd]...), z2[:secondEnd/2]...)
	p := filepath.Join(t.TempDir(), "cut.zip")
	os.WriteFile(p, data, 0o644)
	members, problems := walkAll(t, p, DefaultLimits)
	if members[p+"!a.log"] != a.String() {
		t.Errorf("a.log not recovered whole: %d bytes", len(members[p+"!a.log"]))
	}
	if got := members[p+"!b.log"]; len(got) < b.Len()/4 || !strings.HasPrefix(b.String(), got) {
		t.Errorf("b.log should hold the bytes before the cut, got %d of %d bytes", len(got), b.Len())
	}
	var sawCut, sawDir bool
	for _, pr := range problems {
		sawDir = sawDir || strings.Contains(pr.Reason, "central directory missing")
		sawCut = sawCut || strings.Contains(pr.Reason, "ends inside this member")
	}
	if !sawDir || !sawCut {
		t.Errorf("problems = %+v", problems)
	}
}

// FuzzWalk feeds arbitrary bytes to the walker as a file, as a zip, and as
// a gzip: it must never panic or hang, and must report what it cannot read.
func FuzzWalk(f *testing.F) {
	f.Add(zipOf(f, map[string]string{"cbcollect_info_ns_1@h_20220722-004733/memcached.log": "2022-07-21T17:39:12.000100-07:00 INFO x\n"}))
	f.Add([]byte("PK\x03\x04\x14\x00\x08\x00\x08\x00"))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255})
	f.Add([]byte("plain text\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, name := range []string{"in.zip", "in.log.gz", "in.log"} {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			limits := Limits{MaxDepth: 3, MaxMember: 1 << 20, MaxRatio: 100, MaxTotal: 8 << 20}
			walkAll(t, p, limits)
		}
	})
}
