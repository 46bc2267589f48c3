package crdb

import (
	"bytes"

	"forensics/parsers/scan"
)

// A /debug/requests page copied from a browser into a GitHub issue becomes
// a Markdown table, one row per trace header or event (the header row is the
// page's "When | Elapsed (s)"; x/net/trace's cells keep their text):
//
//	When | Elapsed (s) |
//	-- | -- | --
//	2017/10/12 20:31:13.306622 | 62.405386 | /cockroach.roachpb.Internal/Batch
//	20:31:13.306626 | .     4 | ... span.kind:server component:gRPC
//
// tableRow rewrites such a row as the tab-separated copy parseRow reads:
// the cells between the first two bars, without the table's outer bars.
// It returns false when t is not a row of a table, without allocating.
func tableRow(dst, t []byte) ([]byte, bool) {
	if len(t) > 0 && t[0] == '|' {
		t = bytes.TrimLeft(t[1:], " \t")
	}
	if len(t) < 15 || !scan.IsDigit(t[0]) {
		return dst, false
	}
	bar := bytes.IndexByte(t, '|')
	if bar < 0 || bar > 32 { // the when cell is at most 26 bytes
		return dst, false
	}
	when := bytes.TrimRight(t[:bar], " \t")
	rest := t[bar+1:]
	bar = bytes.IndexByte(rest, '|')
	if bar < 0 {
		return dst, false
	}
	elapsed := bytes.Trim(rest[:bar], " \t")
	text := bytes.TrimSpace(rest[bar+1:])
	text = bytes.TrimSuffix(text, []byte("|"))
	dst = append(dst[:0], when...)
	dst = append(dst, '\t')
	dst = append(dst, elapsed...)
	dst = append(dst, '\t')
	dst = append(dst, bytes.TrimRight(text, " \t")...)
	return dst, true
}
