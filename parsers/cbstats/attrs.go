package cbstats

import "forensics"

// The attribute keys the cbstats parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrMaxSize = "max_size"
)

// Attrs lists, for each kind the cbstats parsers emit, the attributes it
// may carry. A rule reads only these; rules/attrs_test.go holds the parsers
// to them on real lines.
var Attrs = map[forensics.Kind][]string{
	BucketQuota: {AttrMaxSize},
}
