package forensics

import "time"

// Origin is what is known about a source before its first line is read.
type Origin struct {
	Path    string    // display path, e.g. "collectinfo-….zip!cbcollect_info_ns_1@10.0.0.1_20220722-004733/memcached.log"
	Name    string    // base name of the member or file, without a .gz suffix
	Node    string    // node from the path (cbcollect_info folder, debug/nodes/N); "" when unknown
	ModTime time.Time // modification time of the member or file; zero when unknown
}

// Emit receives an event found by a parser. The event is copied before Emit
// returns, so the parser may reuse it.
type Emit func(*Event)

// Parser turns the lines of one source into events. A parser is made for one
// source, fed every line in order, and is not safe for concurrent use.
type Parser interface {
	// Line reads line n (1-based). text has no line ending and is valid only
	// during the call. Line returns the time the line was logged at, or a zero
	// Stamp when the line has none (it continues the previous entry). An error
	// means the line looked like the format but could not be read; the line is
	// still kept, and the error is counted against the source.
	Line(n int64, text []byte, emit Emit) (Stamp, error)
	// End is called after the last line, for entries and documents that span lines.
	End(emit Emit) error
}

// Releaser is implemented by parsers that recognise the release that wrote
// their source (a version banner, a `binary:` header, a build tag). Release is
// asked after End and returns "" when the source did not say.
type Releaser interface {
	Release() string
}

// Format is one input grammar: how to recognise it and how to read it.
type Format struct {
	Name      string // "memcached", "nsserver", "crdb-v2", …; stored with each source
	Component string // the component that writes it: "memcached", "ns_server", "indexer", "distsender", "vtctld", "topo", …
	// Detect reports how sure it is, from 0 (not this format) to 100, that a
	// file with this base name starting with head is in this format. head holds
	// up to the first 16 KiB and may end mid-line.
	Detect func(name string, head []byte) int
	New    func(Origin) Parser
	Kinds  []KindDoc // every kind the parser emits
}

// KindDoc says what an event kind means, in one line, for `forensics timeline kinds`.
type KindDoc struct {
	Kind Kind
	Doc  string
}
