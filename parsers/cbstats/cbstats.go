// Package cbstats reads stats.log, where cbcollect_info keeps what cbstats
// printed for every bucket at collection time ("memcached stats all",
// "timings", "dcp", …, each after a header block; with -a, each bucket's
// stats after a line of 78 '*' and the bucket's name).
//
// The only event is each bucket's memory quota (ep_max_size), the figure an
// OOM kill of memcached is read against. Every other line is a plain line.
package cbstats

import (
	"bytes"
	"time"

	"forensics"
)

// BucketQuota is a bucket's memory quota on the node at collection time.
const BucketQuota forensics.Kind = "cbstats.bucket_quota"

// Format reads stats.log.
var Format = forensics.Format{
	Name:      "cbstats",
	Component: "memcached",
	Detect: func(name string, head []byte) int {
		if name == "stats.log" {
			return 90
		}
		return 0
	},
	New: newParser,
	Kinds: []forensics.KindDoc{
		{Kind: BucketQuota, Category: forensics.CategoryOther, Label: "bucket quota", Component: "cbstats", Doc: "a bucket's memory quota on the node when cbcollect_info ran (cbstats all: ep_max_size, bytes); stamped with the collection time", Attrs: attrs.Of(AttrMaxSize)},
	},
}

// bucketSep opens a bucket's stats in cbstats -a (cli_auth_utils.py: '*' * 78).
var bucketSep = bytes.Repeat([]byte("*"), 78)

// maxSize is the stat as stats_formatter prints it: a space, the name and
// its colon padded to the longest name, then the value.
var maxSize = []byte(" ep_max_size:")

type parser struct {
	node     string
	at       time.Time
	afterSep bool
	bucket   string
	ev       forensics.Event
	seen     map[string]bool
}

func newParser(o forensics.Origin) forensics.Parser {
	return &parser{node: o.Node, at: collectedAt(o), seen: map[string]bool{}}
}

// collectedAt is the UTC time in the cbcollect_info folder name, else the
// file's time: cbstats runs within the collection.
func collectedAt(o forensics.Origin) time.Time {
	if t, ok := forensics.CollectedAt(o.Path); ok {
		return t
	}
	return o.ModTime.UTC()
}

func (p *parser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if len(text) == 78 && text[0] == '*' && bytes.Equal(text, bucketSep) {
		p.afterSep = true
		return forensics.Stamp{}, nil
	}
	if p.afterSep {
		p.afterSep = false
		if name := bytes.TrimSpace(text); len(name) > 0 && len(name) <= 100 {
			p.bucket = string(name)
		}
		return forensics.Stamp{}, nil
	}
	if len(text) < len(maxSize) || text[0] != ' ' || !bytes.HasPrefix(text, maxSize) || p.bucket == "" || p.at.IsZero() {
		return forensics.Stamp{}, nil
	}
	v := bytes.TrimSpace(text[len(maxSize):])
	for _, c := range v {
		if c < '0' || c > '9' {
			return forensics.Stamp{}, nil
		}
	}
	if len(v) == 0 || p.seen[p.bucket] { // "all" is the only task that prints it; once per bucket
		return forensics.Stamp{}, nil
	}
	p.seen[p.bucket] = true
	st := forensics.Stamp{Time: p.at, Zone: forensics.ZoneUTC}
	e := &p.ev
	e.Reset()
	e.Stamp = st
	e.Line = n
	e.Node = p.node
	e.Kind = BucketQuota
	e.Bucket = p.bucket
	e.Text = string(text)
	e.Set(AttrMaxSize, string(v))
	emit(e)
	return st, nil
}

func (p *parser) End(forensics.Emit) error { return nil }
