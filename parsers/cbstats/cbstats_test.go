package cbstats

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"forensics"
	"forensics/parsers/parsertest"
)

var origin = forensics.Origin{Path: "cbcollect_info_ns_1@10.20.0.12_20240311-142922/stats.log", Name: "stats.log", Node: "ns_1@10.20.0.12"}

func header(desc, cmd string) string {
	sep := strings.Repeat("=", 78)
	return sep + "\n" + desc + "\n" + cmd + "\n" + sep + "\n"
}

func bucket(name string, stats ...string) string {
	return strings.Repeat("*", 78) + "\n" + name + "\n\n" + strings.Join(stats, "\n") + "\n"
}

var input = header("memcached stats all", "cbstats 127.0.0.1:11210 all -u @ns_server -a") +
	bucket("sessions", " ep_mem_high_wat:                                       858993459", " ep_max_size:                                           1073741824", " ep_mem_low_wat:                                        751619276") +
	bucket("travel-sample", " ep_max_size:                                           12884901888") +
	header("memcached stats timings", "cbstats 127.0.0.1:11210 timings -u @ns_server -a") +
	bucket("sessions", " ep_max_size: 99") // not from "all": the first one counts

func TestQuotas(t *testing.T) {
	r := parsertest.Parse(Format, origin, []byte(input))
	q := r.OfKind(BucketQuota)
	if len(q) != 2 {
		t.Fatalf("got %v", r.Events)
	}
	if q[0].Bucket != "sessions" || q[0].Attr("max_size") != "1073741824" || q[1].Bucket != "travel-sample" || q[1].Attr("max_size") != "12884901888" {
		t.Errorf("got %v / %v", q[0], q[1])
	}
	if !q[0].Time.Equal(time.Date(2024, 3, 11, 14, 29, 22, 0, time.UTC)) {
		t.Errorf("time %v", q[0].Time)
	}
	parsertest.Check(t, Format, origin, []byte(input))
}

func BenchmarkParse(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(input)
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, " ep_dcp_stat_%d:                                       %d\n", i, i*7)
	}
	parsertest.Bench(b, Format, origin, buf.Bytes())
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(input))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsertest.Check(t, Format, origin, data)
	})
}
