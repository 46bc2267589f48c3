package cbstats

import "forensics"

// The attribute keys the cbstats parsers set. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrMaxSize forensics.AttrKey = "max_size"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrMaxSize, Type: forensics.AttrInt, Doc: "the bucket's memory quota on the node, in bytes (cbstats all: ep_max_size)"},
}
