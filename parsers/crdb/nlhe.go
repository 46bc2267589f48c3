package crdb

import (
	"bytes"
	"forensics/parsers/scan"
	"strconv"
)

// NLHE is a NotLeaseHolderError as printed by roachpb (errors.go,
// (*NotLeaseHolderError).message / SafeFormat). Every field keeps the
// spelling of the log, without redaction markers.
type NLHE struct {
	// Reason is the custom message: since v21.1 it precedes the range
	// ("lease held by different store; r73: …"); before, a custom message
	// replaced the whole text and RangeID is then 0.
	Reason string
	// RangeID is the range of "rN:" (v2.0+) or "range N:" (≤ v1.1); 0 when
	// the error does not name it.
	RangeID int64
	// Replica is the replica that refused, e.g. "(n2,s2):3"; empty in the
	// newest form, which prints "r1: replica not lease holder".
	Replica string
	// HolderUnknown is set for "lease holder unknown".
	HolderUnknown bool
	// Lease is the lease the refusing replica knows ("current lease is …").
	Lease Lease
	// Holder is the replica of the "replica X is" form, which names the
	// holder without its lease.
	Holder string
}

// Target returns the replica the error redirects to: the lease's replica,
// or the holder it names; "" when the holder is unknown.
func (e NLHE) Target() string {
	if e.Lease.Replica != "" {
		return e.Lease.Replica
	}
	return e.Holder
}

const nlheMarker = "[NotLeaseHolderError]"

// ParseNLHE finds a NotLeaseHolderError in b and reads it. b may be the
// error alone or any text that embeds it: "application error: …",
// "error: {(err: …) <nil>}; trying next peer …", "sending to all replicas
// failed; last error: …", with or without redaction markers (‹…›). Every
// version's wording is read:
//
//	[NotLeaseHolderError] range 12: replica (n1,s1):1 not lease holder; current lease is …   (≤ v1.1)
//	[NotLeaseHolderError] r12: replica (n1,s1):1 not lease holder; lease holder unknown      (v2.0+)
//	[NotLeaseHolderError] r12: replica (n1,s1):1 not lease holder; replica (n2,s2):2 is
//	[NotLeaseHolderError] lease held by different store; r73: replica (n3,s3):2 not lease holder; current lease is …   (v21.1+)
//	[NotLeaseHolderError] r1: replica not lease holder; current lease is repl=… min-exp=… acq=Transfer   (newest)
//
// It reports false when b holds no NotLeaseHolderError.
func ParseNLHE(b []byte) (NLHE, bool) {
	return parseNLHE(b, copyString)
}

// copyString is the plain []byte to string conversion; parsers pass an
// interning one instead, since a redirect loop repeats the same values.
func copyString(b []byte) string { return string(b) }

func parseNLHE(b []byte, str func([]byte) string) (NLHE, bool) {
	var e NLHE
	i := bytes.Index(b, []byte(nlheMarker))
	if i < 0 {
		return e, false
	}
	s := stripMarkers(nil, b[i+len(nlheMarker):])
	s = bytes.TrimLeft(s, " ")

	at, rng, rest := findRange(s)
	if at < 0 {
		// A custom message replaced the whole text (v2.0–v20.2).
		e.Reason = str(trimWrapper(s))
		return e, true
	}
	e.RangeID = rng
	if at > 0 {
		e.Reason = str(bytes.TrimRight(s[:at], "; "))
	}
	// rest follows "replica".
	const notHolder = " not lease holder"
	if bytes.HasPrefix(rest, []byte(notHolder)) {
		rest = rest[len(notHolder):]
	} else if len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
		j := bytes.Index(rest, []byte(notHolder))
		if j < 0 {
			// Cut short: keep what names the replica.
			e.Replica = str(replicaToken(rest))
			return e, true
		}
		e.Replica = str(rest[:j])
		rest = rest[j+len(notHolder):]
	}
	rest = bytes.TrimPrefix(rest, []byte("; "))
	switch {
	case bytes.HasPrefix(rest, []byte("lease holder unknown")):
		e.HolderUnknown = true
	case bytes.HasPrefix(rest, []byte("current lease is ")):
		e.Lease, _ = parseLease(rest[len("current lease is "):], str)
	case bytes.HasPrefix(rest, []byte("replica ")):
		r := rest[len("replica "):]
		if j := bytes.Index(r, []byte(" is")); j >= 0 {
			e.Holder = str(r[:j])
		} else {
			e.Holder = str(replicaToken(r))
		}
	}
	return e, true
}

// findRange finds "rN: replica" or "range N: replica" at the start of s or
// after a space (the range follows the custom reason since v21.1). It
// returns where it starts, the range id and what follows "replica".
func findRange(s []byte) (at int, rng int64, rest []byte) {
	for i := 0; i < len(s); i++ {
		if s[i] != 'r' || (i > 0 && s[i-1] != ' ') {
			continue
		}
		j := i + 1
		if bytes.HasPrefix(s[j:], []byte("ange ")) {
			j += len("ange ")
		}
		k := j
		for k < len(s) && scan.IsDigit(s[k]) {
			k++
		}
		if k == j || !bytes.HasPrefix(s[k:], []byte(": replica")) {
			continue
		}
		n, err := strconv.ParseInt(string(s[j:k]), 10, 64)
		if err != nil {
			continue
		}
		return i, n, s[k+len(": replica"):]
	}
	return -1, 0, nil
}

// trimWrapper cuts the text that DistSender's wrappers put after an error:
// ") <nil>}; trying next peer …", ") <nil>", a closing parenthesis.
func trimWrapper(s []byte) []byte {
	if j := bytes.Index(s, []byte(") <nil>")); j >= 0 {
		s = s[:j]
	}
	if j := bytes.Index(s, []byte("; trying next peer")); j >= 0 {
		s = s[:j]
	}
	return bytes.TrimRight(s, " )}")
}

// replicaToken returns the replica descriptor at the start of b:
// "(n2,s2):3", possibly with a type suffix ("(n2,s2):3LEARNER").
func replicaToken(b []byte) []byte {
	if len(b) == 0 || b[0] != '(' {
		return nil
	}
	j := bytes.IndexByte(b, ')')
	if j < 0 || j+1 >= len(b) || b[j+1] != ':' {
		return nil
	}
	k := j + 2
	for k < len(b) && (scan.IsDigit(b[k]) || isUpper(b[k]) || b[k] == '_') {
		k++
	}
	return b[:k]
}

// Lease is a range lease as roachpb prints it (data.go, Lease.String /
// SafeFormat): "repl=(n1,s1):1 seq=3 start=1519114118.566713425,0 epo=1
// pro=1519114118.566716884,0", with exp= instead of epo= for expiration
// leases, and min-exp=, acq=, term= in the newest versions. Fields are the
// values as logged; "" when the lease did not print them.
type Lease struct {
	Replica       string // repl=
	Seq           string // seq=
	Start         string // start=, an HLC timestamp
	Epoch         string // epo=
	Expiration    string // exp=
	MinExpiration string // min-exp=
	Term          string // term=
	Proposed      string // pro=
	Acquisition   string // acq=
}

// IsZero reports whether no lease was read (or it printed as <empty>).
func (l Lease) IsZero() bool { return l == Lease{} }

// Sequence returns the lease sequence number, and whether it was logged.
func (l Lease) Sequence() (int64, bool) {
	n, err := strconv.ParseInt(l.Seq, 10, 64)
	return n, err == nil
}

// StartTime returns the lease start, and whether it was logged.
func (l Lease) StartTime() (HLC, bool) {
	h, n, ok := parseHLC([]byte(l.Start))
	return h, ok && n == len(l.Start)
}

// ParseLease reads a lease as printed after "current lease is " or in
// "new range lease %s following %s". It reads up to the first token that is
// not part of the lease and reports false when b does not start with one.
func ParseLease(b []byte) (Lease, bool) {
	return parseLease(stripMarkers(nil, b), copyString)
}

func parseLease(b []byte, str func([]byte) string) (Lease, bool) {
	var l Lease
	if !bytes.HasPrefix(b, []byte("repl=")) {
		return l, false
	}
	for len(b) > 0 {
		eq := bytes.IndexByte(b, '=')
		if eq <= 0 {
			break
		}
		key, val := b[:eq], b[eq+1:]
		var n int
		var dst *string
		switch string(key) {
		case "repl":
			n, dst = len(replicaToken(val)), &l.Replica
		case "seq":
			n, dst = digits(val), &l.Seq
		case "epo":
			n, dst = digits(val), &l.Epoch
		case "term":
			n, dst = digits(val), &l.Term
		case "start":
			_, n, _ = parseHLC(val)
			dst = &l.Start
		case "exp":
			_, n, _ = parseHLC(val)
			dst = &l.Expiration
		case "min-exp":
			_, n, _ = parseHLC(val)
			dst = &l.MinExpiration
		case "pro":
			_, n, _ = parseHLC(val)
			dst = &l.Proposed
		case "acq":
			for n < len(val) && (isUpper(val[n]) || isLower(val[n]) || val[n] == '_') {
				n++
			}
			dst = &l.Acquisition
		}
		if dst == nil || n == 0 {
			break
		}
		*dst = str(val[:n])
		b = val[n:]
		if len(b) == 0 || b[0] != ' ' {
			break
		}
		b = b[1:]
	}
	return l, l.Replica != ""
}

// HLC is a hybrid logical clock timestamp: wall time in nanoseconds since
// the Unix epoch and a logical counter. Logs print it "1519114215.919013222,0".
type HLC struct {
	WallTime int64
	Logical  int32
}

// Compare returns -1, 0 or 1 as h is before, equal to or after o.
func (h HLC) Compare(o HLC) int {
	switch {
	case h.WallTime < o.WallTime:
		return -1
	case h.WallTime > o.WallTime:
		return 1
	case h.Logical < o.Logical:
		return -1
	case h.Logical > o.Logical:
		return 1
	}
	return 0
}

// ParseHLC reads an HLC timestamp as logged: "1519114215.919013222,0",
// "0,0", with a trailing "?" for synthetic timestamps.
func ParseHLC(s string) (HLC, bool) {
	h, n, ok := parseHLC([]byte(s))
	return h, ok && n == len(s)
}

// parseHLC reads an HLC at the start of b and returns the bytes it used.
func parseHLC(b []byte) (HLC, int, bool) {
	var h HLC
	i := 0
	var sec int64
	for i < len(b) && scan.IsDigit(b[i]) {
		if sec > (1<<62)/10 {
			return h, 0, false
		}
		sec = sec*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 {
		return h, 0, false
	}
	var nsec int64
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		scale := int64(100000000)
		for i < len(b) && scan.IsDigit(b[i]) {
			nsec += int64(b[i]-'0') * scale
			scale /= 10
			i++
		}
		if i == start {
			return h, 0, false
		}
	}
	if i >= len(b) || b[i] != ',' {
		return h, 0, false
	}
	i++
	start := i
	var logical int64
	for i < len(b) && scan.IsDigit(b[i]) {
		if logical > 1<<31 {
			return h, 0, false
		}
		logical = logical*10 + int64(b[i]-'0')
		i++
	}
	if i == start {
		return h, 0, false
	}
	if i < len(b) && b[i] == '?' {
		i++
	}
	if sec > (1<<63-1)/1_000_000_000-1 {
		return h, 0, false
	}
	h.WallTime = sec*1e9 + nsec
	h.Logical = int32(min(logical, 1<<31-1))
	return h, i, true
}

// CompareLeases returns 1 when a is the newer lease, -1 when b is, 0 when
// they cannot be told apart. A higher sequence number is newer, but a
// sequence of 0 carries no order: v2.0-alpha leases printed seq=0 for a
// lease newer than one with seq=3 (cockroachdb/cockroach#22837). So the
// sequence decides only when both are logged, non-zero and different;
// otherwise the later start decides, then the sequence.
func CompareLeases(a, b Lease) int {
	as, aok := a.Sequence()
	bs, bok := b.Sequence()
	if aok && bok && as > 0 && bs > 0 && as != bs {
		return cmpInt(as, bs)
	}
	at, aok := a.StartTime()
	bt, bok := b.StartTime()
	if aok && bok {
		if c := at.Compare(bt); c != 0 {
			return c
		}
	}
	if as != bs {
		return cmpInt(as, bs)
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func digits(b []byte) int {
	n := 0
	for n < len(b) && scan.IsDigit(b[n]) {
		n++
	}
	return n
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
