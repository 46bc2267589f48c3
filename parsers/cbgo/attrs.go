package cbgo

import "forensics"

// The attribute key SetKeyspace sets; the parsers of the GSI services
// declare it on their kinds.
const AttrKeyspace forensics.AttrKey = "keyspace"
