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
	// Pages is set by a format whose files are pages rendered for people
	// (a /debug/requests page saved as HTML): ingest takes a file it
	// detects for what it is, not for notes that quote evidence.
	Pages bool
}

// KindDoc says what an event kind means: in one line for `forensics
// timeline kinds`, and for a timeline drawn from events, the part it plays
// and the lane it goes in. It is the one place a kind's meaning is kept.
type KindDoc struct {
	Kind     Kind
	Category Category // the part the kind plays in an incident's story
	Label    string   // a few words for a marker: "stream request answered with a rollback"
	// Component is the component that logs the kind, which names its lane on
	// a timeline ("distsender" for the DistSender's lines in a cockroach log);
	// "" means the Component of the Format that declares it.
	Component string
	Doc       string
	// Attrs are the attributes events of the kind may carry, declared in
	// the attrs.go of the package that emits it.
	Attrs []AttrDoc
}

// Category is the part an event plays in the story of an incident. The HTML
// report colours and shapes its markers by category, and keeps the events of
// every category but CategoryOther and CategoryRequest when a window holds
// too many to draw one by one.
type Category string

const (
	CategoryProcess  Category = "process"  // a process started, stopped or exited
	CategoryWarmup   Category = "warmup"   // a bucket created, warming up, loaded
	CategoryStream   Category = "stream"   // a replication stream opened, answered or ended
	CategoryRollback Category = "rollback" // a consumer told, or deciding, to roll back
	CategoryError    Category = "error"    // something failed or was refused
	CategoryTraffic  Category = "traffic"  // traffic enabled or disabled; a bucket ready
	CategoryFailover Category = "failover" // failovers, vbucket states and maps
	CategoryRedirect Category = "redirect" // a request sent elsewhere: NotLeaseHolderError, next replica
	CategoryStep     Category = "step"     // a step of an operator's operation (SwitchTraffic, a reparent)
	CategoryTopo     Category = "topo"     // a topology document as saved
	CategoryRequest  Category = "request"  // a routine request or trace
	CategoryOther    Category = "other"    // context the stories do not turn on
)

// Categories lists every category, in the order a legend shows them.
var Categories = []Category{CategoryProcess, CategoryWarmup, CategoryStream, CategoryRollback, CategoryError,
	CategoryTraffic, CategoryFailover, CategoryRedirect, CategoryStep, CategoryTopo, CategoryRequest, CategoryOther}
