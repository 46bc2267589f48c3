package crdb

import (
	"bytes"
	"strconv"

	"forensics"
	"forensics/parsers/scan"
)

// KindIOOverload is admission control's account of a store's IO load,
// logged every 15s while the store is loaded (adjustmentInterval), with
// the store's tag (s1; [T1,Vsystem,n1,s1] since v22.2), by
// pkg/util/admission/granter.go up to v22.1 and io_load_listener.go since
// v22.2 (adjustTokensResult.SafeFormat). Real lines:
//
//	I220726 15:22:01.296298 379 util/admission/granter.go:2078 ⋮ [s1] 3430  IO overload: compaction score 1.050[L0-overload] (595 ssts, 21 sub-levels), L0 growth 570 MiB (write 570 MiB ingest 0 B): requests 148162 with … ; admitting … due to memtable flush (multiplier 0.725) (used 575 MiB)   (cockroachdb/cockroach#85059)
//	I230823 18:06:08.874355 448 util/admission/io_load_listener.go:544 ⋮ [T1,Vsystem,n1,s1] 2594  IO overload: compaction score 0.500 (262 ssts, 10 sub-levels), … ; admitting 691 MiB (rate 46 MiB/s) due to L0 growth (used 694 MiB); write stalls 0   (#109361)
//	I231130 20:29:36.257683 2788 util/admission/io_load_listener.go:597 ⋮ [T1,Vsystem,n9,s9] 4846  IO overload: compaction score 0.250 (105 ssts, 5 sub-levels), … ; admitting 2.2 KiB (rate 150 B/s) (elastic 219 B rate 14 B/s) due to L0 growth (used total: 795 KiB elastic 0 B); write stalls 0   (#115373)
//
// v22.1's granter.go printed no score: "IO overload: %d ssts, %d
// sub-levels, L0 growth %s: … admitting %s(used %s) with L0 penalty: …" or
// "admitting all LSM growth …". v24.1+ may write "(WAL failover) " after
// "admitting " and "due to L0 growth(used token lower bound)".
//
// The score is admissionpb.IOThreshold's (admissionpb/io_threshold.go): the
// larger of L0 files over admission.l0_file_count_overload_threshold (1000)
// and L0 sub-levels over admission.l0_sub_level_count_overload_threshold
// (20), printed %.3f and followed by "[L0-overload]" when over 1. What
// follows "admitting" is the byte budget of the next 15s: "all" (no
// limit), "elastic N (rate …)" (only elastic work limited, v23.2+), or "N
// (rate …)" when regular writes are limited too.
const KindIOOverload forensics.Kind = "admission.io_overload"

var admissionDocs = []forensics.KindDoc{
	{Kind: KindIOOverload, Category: forensics.CategoryOther, Label: "IO overload", Component: "admission",
		Doc:   "admission control's IO load report of a store, every 15s while it is loaded (IO overload: compaction score …); score, overload, files, sublevels, admitting, throttled, reason, write_stalls",
		Attrs: attrs.Of(AttrAdmitting, AttrFiles, AttrOverload, AttrReason, AttrScore, AttrStore, AttrSublevels, AttrThrottled, AttrWriteStalls)},
}

// The default thresholds of admission.l0_file_count_overload_threshold and
// admission.l0_sub_level_count_overload_threshold (io_load_listener.go).
const (
	l0FileThreshold     = 1000
	l0SubLevelThreshold = 20
)

const (
	preIOOverload    = "IO overload: "
	preScore         = "compaction score "
	markL0Overload   = "[L0-overload]"
	midAdmitting     = "; admitting "
	midWALFailover   = "(WAL failover) "
	midDueTo         = " due to "
	midWriteStalls   = "; write stalls "
	admittingAll     = "all"
	admittingElastic = "elastic "
)

// readIOOverload reads preIOOverload: with a score (v22.2+) or without
// (v22.1).
func readIOOverload(ev *forensics.Event, msg []byte, tg healthTags) bool {
	rest := msg[len(preIOOverload):]
	scored := false
	if r, ok := bytes.CutPrefix(rest, []byte(preScore)); ok {
		scored = true
		end := bytes.IndexAny(r, " [")
		if end <= 0 {
			return false
		}
		if _, err := strconv.ParseFloat(string(r[:end]), 64); err != nil {
			return false
		}
		ev.Set(AttrScore, string(r[:end]))
		r = r[end:]
		if scan.HasPrefix(r, markL0Overload) {
			ev.Set(AttrOverload, "true")
			r = r[len(markL0Overload):]
		}
		// " (518 ssts, 12 sub-levels)"
		r, ok = bytes.CutPrefix(r, []byte(" ("))
		if !ok {
			return false
		}
		rest = r
	}
	// "518 ssts, 12 sub-levels"
	d := digits(rest)
	if d == 0 || !scan.HasPrefix(rest[d:], " ssts, ") {
		return false
	}
	ev.Set(AttrFiles, string(rest[:d]))
	rest = rest[d+len(" ssts, "):]
	d = digits(rest)
	if d == 0 || !scan.HasPrefix(rest[d:], " sub-levels") {
		return false
	}
	ev.Set(AttrSublevels, string(rest[:d]))
	if !scored {
		// v22.1 printed no score: the one of the default thresholds.
		files, sub := float64(atoi([]byte(ev.Attr(AttrFiles)))), float64(atoi(rest[:d]))
		score := max(files/l0FileThreshold, sub/l0SubLevelThreshold)
		ev.Set(AttrScore, strconv.FormatFloat(score, 'f', 3, 64))
		if score > 1 {
			ev.Set(AttrOverload, "true")
		}
	}
	ev.Kind = KindIOOverload
	if i := bytes.Index(rest, []byte(midAdmitting)); i >= 0 {
		admitting(ev, rest[i+len(midAdmitting):])
	}
	if i := bytes.Index(rest, []byte(midWriteStalls)); i >= 0 {
		if s := rest[i+len(midWriteStalls):]; digits(s) > 0 {
			ev.Set(AttrWriteStalls, string(s[:digits(s)]))
		}
	}
	return true
}

// admitting reads what follows "admitting ": the budget ("all", "elastic
// 63 KiB", "691 MiB": humanizeutil.IBytes, a number and a unit) and its
// cause.
func admitting(ev *forensics.Event, b []byte) {
	b = bytes.TrimPrefix(b, []byte(midWALFailover))
	if i := bytes.IndexByte(b, ';'); i >= 0 {
		b = b[:i]
	}
	var budget []byte
	switch {
	case scan.HasPrefix(b, admittingAll):
		budget = b[:len(admittingAll)]
	case scan.HasPrefix(b, admittingElastic):
		budget = sizeAt(b, len(admittingElastic))
	default:
		budget = sizeAt(b, 0)
	}
	if len(budget) == 0 {
		return
	}
	ev.Set(AttrAdmitting, string(budget))
	if !bytes.Equal(budget, []byte(admittingAll)) && !scan.HasPrefix(budget, admittingElastic) {
		ev.Set(AttrThrottled, "true")
	}
	if i := bytes.Index(b, []byte(midDueTo)); i >= 0 {
		cause := b[i+len(midDueTo):]
		// "L0 growth(used token lower bound) (used total: …)" (v24.1+)
		if j := bytes.IndexByte(cause, '('); j >= 0 {
			cause = cause[:j]
		}
		ev.Set(AttrReason, string(bytes.TrimSpace(cause)))
	}
}

// sizeAt returns b up to the end of the byte size "2.2 KiB" that starts at
// i, or nil when none does.
func sizeAt(b []byte, i int) []byte {
	n := i
	for n < len(b) && (scan.IsDigit(b[n]) || b[n] == '.') {
		n++
	}
	if n == i || n >= len(b) || b[n] != ' ' {
		return nil
	}
	u := n + 1
	for u < len(b) && (b[u] >= 'A' && b[u] <= 'Z' || b[u] >= 'a' && b[u] <= 'z') {
		u++
	}
	if u == n+1 || u-n-1 > 3 {
		return nil
	}
	return b[:u]
}
