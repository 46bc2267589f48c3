package cbgo

import "forensics"

// SetKeyspace records a GSI keyspace id whole, as attr keyspace, and its
// bucket as the event's Subject.Bucket.
func SetKeyspace(e *forensics.Event, keyspace string) {
	e.Attrs = append(e.Attrs, forensics.NewAttr(AttrKeyspace, keyspace))
	e.Bucket = BucketOf(keyspace)
}

// BucketOf returns the bucket part of a GSI keyspace id: "bucket" or
// "bucket:scope:collection" (secondary/common: KeyspaceId).
func BucketOf(keyspace string) string {
	for i := 0; i < len(keyspace); i++ {
		if keyspace[i] == ':' {
			return keyspace[:i]
		}
	}
	return keyspace
}

// IsDecimal reports whether b is a decimal number of 1 to 20 digits that
// fits a uint64, as GSI prints seqnos, vbuuids and session ids with %d or %v.
func IsDecimal(b []byte) bool {
	if len(b) == 0 || len(b) > 20 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) < 20 || string(b) <= "18446744073709551615"
}

// IsHex reports whether b is a hex number of 1 to 16 digits, in either case,
// so that it fits a uint64: a vbuuid or an opaque as Go's %x prints one.
func IsHex(b []byte) bool {
	if len(b) == 0 || len(b) > 16 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// ParseVB reads a vbucket number: a decimal that fits a uint16, as the
// indexer's Vbucket and DCP's vbucket id are.
func ParseVB(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 5 || !IsDecimal(b) {
		return 0, false
	}
	v := 0
	for _, c := range b {
		v = v*10 + int(c-'0')
	}
	return v, v <= 65535
}

// VBUUID converts a vbuuid that GSI printed in hex (%x or %16x: TsVbuuid
// rows, "Rollback (seqno, vbuuid)", the projector's controlStreamRequest)
// into the decimal that memcached and the TK lines print, and reports
// whether hex was a hex number of at most 64 bits. Surrounding spaces are
// not allowed.
func VBUUID(hex []byte) (string, bool) {
	if !IsHex(hex) {
		return "", false
	}
	return hexToDec(hex), true
}

// hexToDec converts a hex number that IsHex accepted into decimal.
func hexToDec(b []byte) string {
	var v uint64
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		default:
			d = c - 'A' + 10
		}
		v = v<<4 | uint64(d)
	}
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(buf[i:])
}
