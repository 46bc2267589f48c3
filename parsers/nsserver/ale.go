package nsserver

import (
	"bytes"
	"errors"
	"strings"

	"forensics"
	"forensics/logtime"
)

// The ale grammar (deps/ale/src/ale_default_formatter.erl, ns_server 7.x):
//
//	[Logger:Level,Time,Node:Process:Module:Function:Line]Message
//
// Time is local with milliseconds and the offset, or Z when the offset is 0;
// Process is a pid, <0.97.0>, or a registered name glued to it,
// ns_memcached-default<0.97.0>. The message follows ']' with no space and
// continues on the following lines, which have no header.

// header is what the first line of an entry says, in the ale grammar or in
// diag.log's.
type header struct {
	stamp forensics.Stamp
	node  [2]int // the node field, as offsets in the line
	msg   int    // offset of the message
}

type headerState uint8

const (
	notHeader headerState = iota // a continuation line
	goodHeader
	badHeader // starts like a header but cannot be read
)

var (
	errALETime    = errors.New("ale header: unreadable timestamp")
	errALEAfter   = errors.New("ale header: no ',' after the timestamp")
	errALEClose   = errors.New("ale header: no closing ']'")
	errALEOrigin  = errors.New("ale header: no module:function:line before ']'")
	errDiagHeader = errors.New("diag log entry: expected \"<time>, <module>:<code>:<type>:<code string>(<node>) - <text>\"")
)

// parseALE reads the header of an ale line. A line that starts with
// "[logger:level," is taken for a header; if the rest cannot be read the
// state is badHeader with an error (and the stamp when the time was read).
func parseALE(b []byte) (h header, st headerState, err error) {
	if len(b) < 8 || b[0] != '[' {
		return h, notHeader, nil
	}
	i := 1
	for i < len(b) && i < 64 && (isWordChar(b[i])) {
		i++
	}
	if i == 1 || i >= len(b) || b[i] != ':' {
		return h, notHeader, nil
	}
	j := i + 1
	for j < len(b) && j-i < 10 && b[j] >= 'a' && b[j] <= 'z' {
		j++
	}
	if j >= len(b) || b[j] != ',' || !isLevel(b[i+1:j]) {
		return h, notHeader, nil
	}
	j++
	stamp, n, ok := logtime.ISO(b[j:])
	if !ok {
		return h, badHeader, errALETime
	}
	h.stamp = stamp
	k := j + n
	if k >= len(b) || b[k] != ',' {
		return h, badHeader, errALEAfter
	}
	k++
	end := bytes.IndexByte(b[k:], ']')
	if end < 0 {
		return h, badHeader, errALEClose
	}
	seg := b[k : k+end]
	// The line number ends the segment: …:module:function:294. Entries
	// logged through ale:log/4 without the macros (xdcr's user log, ns_log
	// replays) carry "unknown:-1": no function, no line.
	c := bytes.LastIndexByte(seg, ':')
	if c < 0 || c == len(seg)-1 {
		return h, badHeader, errALEOrigin
	}
	lineNo := seg[c+1:]
	if len(lineNo) > 1 && lineNo[0] == '-' {
		lineNo = lineNo[1:]
	}
	for _, d := range lineNo {
		if d < '0' || d > '9' {
			return h, badHeader, errALEOrigin
		}
	}
	// The node ends at the ':' before the process, whose pid starts with '<'.
	nodeEnd := -1
	if lt := bytes.IndexByte(seg, '<'); lt >= 0 {
		nodeEnd = bytes.LastIndexByte(seg[:lt], ':')
	} else {
		nodeEnd = bytes.IndexByte(seg, ':')
	}
	if nodeEnd < 0 {
		nodeEnd = 0
	}
	h.node = [2]int{k, k + nodeEnd}
	h.msg = k + end + 1
	return h, goodHeader, nil
}

func isWordChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isLevel reports whether b is an ale log level (ale.hrl).
func isLevel(b []byte) bool {
	switch string(b) {
	case "debug", "info", "warn", "error", "critical":
		return true
	}
	return false
}

type aleParser struct {
	origin forensics.Origin
	ent    entry
	out    emitter
	// The node of the source, from the entries' headers: the last name
	// the node was known by, or its provisional cb.local name when it had
	// no other (ale_default_formatter.erl writes node() in every header).
	lastNode           []byte // the node field of the last header, as logged
	named, provisional string
}

func newALE(o forensics.Origin) forensics.Parser {
	p := &aleParser{origin: o}
	p.out.node = p.nodeName
	p.out.collected = collectedAt(o)
	return p
}

func (p *aleParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	h, st, err := parseALE(text)
	if st == goodHeader {
		p.seen(text[h.node[0]:h.node[1]])
	}
	return p.out.line(&p.ent, n, text, h, st, emit), err
}

// seen notes the node field of a header; only a change costs anything.
func (p *aleParser) seen(raw []byte) {
	if bytes.Equal(raw, p.lastNode) {
		return
	}
	p.lastNode = append(p.lastNode[:0], raw...)
	name := erlangNode(raw)
	switch {
	case name == "" || name == "nonode@nohost":
	case strings.HasSuffix(name, "@cb.local"):
		p.provisional = name
	default:
		p.named = name
	}
}

// Node returns the node the entries' headers name, for a file read outside
// its cbcollect_info folder (copied out, or shipped by the Couchbase
// fluent-bit image): the last name the node was known by.
func (p *aleParser) Node() string {
	if p.named != "" {
		return p.named
	}
	return p.provisional
}

func (p *aleParser) End(emit forensics.Emit) error {
	p.out.flush(&p.ent, emit)
	return nil
}

// nodeName turns the node of an ale header into the node an event belongs
// to. The babysitter and ns_couchdb run as their own Erlang nodes,
// babysitter_of_ns_1@cb.local and couchdb_ns_1@cb.local
// (couchbase-server.sh, cb_epmd.erl): the prefix is dropped. cb.local is
// the name every node has on its own, before it is named in a cluster, so
// it says nothing about which node this is; the source's node is used then.
func (p *aleParser) nodeName(raw []byte) string {
	name := erlangNode(raw)
	if name == "nonode@nohost" {
		return p.origin.Node
	}
	if strings.HasSuffix(name, "@cb.local") && p.origin.Node != "" {
		return p.origin.Node
	}
	return name
}

// erlangNode returns the ns_server node an Erlang node of a header belongs
// to: the babysitter's and ns_couchdb's nodes carry a prefix.
func erlangNode(raw []byte) string {
	name := string(raw)
	name = strings.TrimPrefix(name, "babysitter_of_")
	return strings.TrimPrefix(name, "couchdb_")
}

// serviceLogs are the ns_server.<name>.log files cbcollect_info copies from
// services with grammars of their own (cbcollect_info "couchbase logs").
var serviceLogs = []string{
	"indexer", "projector", "fts", "query", "goxdcr", "eventing", "analytics", "http_access",
	"backup_service", "prometheus", "indexer_stats", "memcached", "cbas",
	"sigar_port", "key", "cont_backup", "trace", // 7.6, 8.0 (parsers/cbservice)
}

func detectALE(name string, head []byte) int {
	base := strings.TrimSuffix(name, ".gz")
	if svc, ok := strings.CutPrefix(base, "ns_server."); ok {
		for _, s := range serviceLogs {
			if strings.HasPrefix(svc, s) {
				return 0
			}
		}
	}
	headers, whole := 0, head
	for lines := 0; len(head) > 0 && lines < 200 && headers < 3; lines++ {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if _, st, _ := parseALE(line); st == goodHeader {
			headers++
		}
	}
	named := strings.HasPrefix(base, "ns_server.") || knownALEName(base)
	switch {
	case headers == 0 && named && headerOnly(whole):
		// A log with nothing in it yet (error.log on a healthy node): an
		// empty log, not an unknown file.
		return 50
	case headers == 0:
		return 0
	case named:
		return 95
	case headers >= 2:
		return 80
	}
	return 50
}

// headerOnly reports whether head is empty or only the header block
// cbcollect_info writes before each file (cbcollect_info Task.header: a rule
// of '=', the task's description, its command, a rule).
func headerOnly(head []byte) bool {
	var ls [][]byte
	for _, l := range bytes.Split(head, []byte("\n")) {
		if l = bytes.TrimRight(l, " \r"); len(l) > 0 {
			ls = append(ls, l)
		}
		if len(ls) > 4 {
			return false
		}
	}
	rule := func(l []byte) bool { return len(l) >= 20 && len(bytes.Trim(l, "=")) == 0 }
	switch len(ls) {
	case 0:
		return true
	case 4:
		return rule(ls[0]) && rule(ls[3]) && !rule(ls[1])
	}
	return false
}

// knownALEName reports whether a file name is one of ns_server's own ale
// logs as it is named on a node (logs/debug.log, babysitter.log.1, …;
// ns_common.hrl *_LOG_FILENAME).
func knownALEName(base string) bool {
	for _, s := range []string{"debug.log", "info.log", "error.log", "babysitter.log", "couchdb.log", "ns_couchdb.log", "stats.log", "reports.log", "xdcr_target.log", "metakv.log", "json_rpc.log", "views.log", "mapreduce_errors.log"} {
		if base == s || strings.HasPrefix(base, s+".") {
			return true
		}
	}
	return false
}
