package crdb

import (
	"bytes"
	"forensics/parsers/scan"
)

// Redaction markers (cockroachdb/redact) around sensitive values in
// redactable logs (⋮) and in traces since v20.2.
const (
	markStart = "‹"
	markEnd   = "›"
)

// stripMarkers appends src to dst without redaction markers. When src has
// none and dst is nil it returns src itself.
func stripMarkers(dst, src []byte) []byte {
	if dst == nil && bytes.IndexByte(src, 0xe2) < 0 {
		return src
	}
	for len(src) > 0 {
		i := bytes.IndexByte(src, 0xe2) // the first byte of both markers
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		if bytes.HasPrefix(src, []byte(markStart)) || bytes.HasPrefix(src, []byte(markEnd)) {
			src = src[len(markStart):]
			continue
		}
		dst = append(dst, src[0])
		src = src[1:]
	}
	return dst
}

// unmarked returns b without redaction markers, as a string.
func unmarked(b []byte) string {
	return string(stripMarkers(nil, b))
}

// splitTags splits "[tags] rest" into the tags (without brackets) and the
// rest. The tags end at the first "]" that is followed by a space or ends
// the text, outside redaction markers (a marked value may hold "]", and a
// client address "[::1]:2" does). ok is false when b does not open with tags.
func splitTags(b []byte) (tags, rest []byte, ok bool) {
	if len(b) < 2 || b[0] != '[' {
		return nil, b, false
	}
	for j := 1; j < len(b); j++ {
		switch b[j] {
		case ']':
			if j+1 == len(b) {
				return b[1:j], nil, true
			}
			if b[j+1] == ' ' {
				return b[1:j], b[j+2:], true
			}
		case 0xe2:
			if bytes.HasPrefix(b[j:], []byte(markStart)) {
				k := bytes.Index(b[j:], []byte(markEnd))
				if k < 0 {
					return nil, b, false
				}
				j += k + len(markEnd) - 1
			}
		}
	}
	return nil, b, false
}

// nextTag returns the first tag of a comma-separated tag list and the rest.
// Commas inside redaction markers do not separate tags.
func nextTag(tags []byte) (tag, rest []byte) {
	for j := 0; j < len(tags); j++ {
		switch tags[j] {
		case ',':
			return tags[:j], tags[j+1:]
		case 0xe2:
			if bytes.HasPrefix(tags[j:], []byte(markStart)) {
				k := bytes.Index(tags[j:], []byte(markEnd))
				if k < 0 {
					return tags, nil
				}
				j += k + len(markEnd) - 1
			}
		}
	}
	return tags, nil
}

// tagInfo is what DistSender events take from a line's logging tags
// (pkg/util/log/logtags): n1 is the node, client=… the SQL client,
// txn=… the transaction, r12/1:… the range of a replica.
type tagInfo struct {
	node   []byte // "n1" with the n, or nil
	client []byte
	txn    []byte
	rng    int64
}

// readTags reads the tags DistSender events need. Single-letter keys are
// written without "=" (n1, s1, r12/3:/Table/…), others as key=value.
func readTags(tags []byte) tagInfo {
	var t tagInfo
	for len(tags) > 0 {
		var tag []byte
		tag, tags = nextTag(tags)
		if len(tag) < 2 {
			continue
		}
		switch tag[0] {
		case 'n':
			if d := digits(tag[1:]); d > 0 && d == len(tag)-1 {
				t.node = tag
			}
		case 'r':
			if d := digits(tag[1:]); d > 0 && (d == len(tag)-1 || tag[1+d] == '/') {
				t.rng = atoi(tag[1 : 1+d])
			}
		case 'c':
			if bytes.HasPrefix(tag, []byte("client=")) {
				t.client = tag[len("client="):]
			}
		case 't':
			if bytes.HasPrefix(tag, []byte("txn=")) {
				t.txn = tag[len("txn="):]
			}
		}
	}
	return t
}

// atoi reads a run of ASCII digits; it saturates rather than overflow.
func atoi(b []byte) int64 {
	var n int64
	for _, c := range b {
		if !scan.IsDigit(c) {
			break
		}
		if n > (1<<63-1)/10-1 {
			return 1<<63 - 1
		}
		n = n*10 + int64(c-'0')
	}
	return n
}
