package vitess

import (
	"bytes"
	"strings"
)

// Vitess processes name their glog files <program>.<host>.<user>.log.<LEVEL>.<stamp>.<pid>
// with a <program>.<LEVEL> link (github.com/golang/glog glog_file.go), and
// operators keep that name for the JSON logs of v24: the program tells
// vtctld, vttablet and VTOrc logs apart. A file without it is told by the
// source files its lines come from.

type role uint8

const (
	roleUnknown role = iota
	roleVtctld
	roleVttablet
	roleVtorc
	roleVtgate
)

func roleOfName(name string) role {
	name = strings.ToLower(name)
	switch {
	case strings.HasPrefix(name, "vttablet"):
		return roleVttablet
	case strings.HasPrefix(name, "vtorc"), strings.HasPrefix(name, "orchestrator"):
		return roleVtorc
	case strings.HasPrefix(name, "vtgate"):
		return roleVtgate
	case strings.HasPrefix(name, "vtctld"):
		return roleVtctld
	}
	return roleUnknown
}

// tabletCallers and vtorcCallers are source files only vttablet or VTOrc
// log from (go/vt/vttablet/…, go/vt/vtorc/…).
var tabletCallers = [][]byte{
	[]byte("tm_state.go:"), []byte("tabletserver.go:"), []byte("tm_init.go:"), []byte("controller.go:"),
	[]byte("vplayer.go:"), []byte("vreplicator.go:"), []byte("vcopier.go:"), []byte("query_executor.go:"),
	[]byte("state_manager.go:"), []byte("replmanager.go:"), []byte("rpc_replication.go:"), []byte("vstreamer.go:"),
	[]byte("uvstreamer.go:"), []byte("query_engine.go:"), []byte("health_streamer.go:"), []byte("restore.go:"),
}

var vtorcCallers = [][]byte{
	[]byte("topology_recovery.go:"), []byte("vtorc.go:"), []byte("instance_dao.go:"), []byte("analysis_dao.go:"),
	[]byte("tablet_discovery.go:"), []byte("keyspace_discovery.go:"), []byte("shard_discovery.go:"),
}

// vtgateCallers are source files only vtgate logs from (go/vt/vtgate/…).
var vtgateCallers = [][]byte{
	[]byte("vtgate.go:"), []byte("tabletgateway.go:"), []byte("shard_buffer.go:"), []byte("plugin_mysql_server.go:"),
}

func hasCaller(c []byte, list [][]byte) bool {
	for _, v := range list {
		if bytes.HasPrefix(c, v) {
			return true
		}
	}
	return false
}

// headScan is what the first lines of a log say.
type headScan struct {
	headers  int  // glog headers or v24 JSON lines read
	vitess   bool // a caller or source path that only Vitess has
	created  bool // glog's "Log file created at:"
	jsonLogs int  // of the headers, JSON lines
	tablet   int  // lines from vttablet's source files
	vtorc    int  // lines from VTOrc's source files
	vtgate   int  // lines from vtgate's source files
	lines    int  // non-empty lines read
}

var vitessPath = []byte("vitess.io/vitess/go/")

func scanHead(head []byte) headScan {
	var h headScan
	var sl slogLine
	var buf []byte
	for lines := 0; len(head) > 0 && lines < 200 && h.headers < 20; lines++ {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil // may be cut: a JSON line that does not parse is not counted
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		h.lines++
		if bytes.HasPrefix(line, createdAt) {
			h.created = true
			continue
		}
		var caller []byte
		if isSlog(line) {
			var err error
			buf, err = parseSlog(line, buf[:0], &sl)
			if err != nil {
				continue
			}
			h.headers++
			h.jsonLogs++
			if bytes.Contains(line, vitessPath) {
				h.vitess = true
			}
			caller = sl.file
			if len(caller) > 0 {
				caller = append(append([]byte(nil), caller...), ':')
			}
		} else {
			gh, st, _ := parseGlog(line)
			if st != goodHeader {
				continue
			}
			h.headers++
			caller = line[gh.caller[0]:gh.caller[1]]
			if isVitessCaller(caller) {
				h.vitess = true
			}
			// From v22 VTOrc logs its recoveries through a prefixed logger
			// (the caller is its log.go), each line "Recovery for …".
			if bytes.HasPrefix(line[gh.msg:], []byte("Recovery for ")) {
				h.vtorc++
				h.vitess = true
			}
		}
		switch {
		case hasCaller(caller, tabletCallers):
			h.tablet++
			h.vitess = true
		case hasCaller(caller, vtorcCallers):
			h.vtorc++
			h.vitess = true
		case hasCaller(caller, vtgateCallers):
			h.vtgate++
			h.vitess = true
		}
	}
	return h
}

// score is how sure the scan is that the file is a Vitess log: glog lines
// alone may be any Go program's; JSON lines count only with Vitess's source
// paths or a Vitess program's file name.
func (h headScan) score(named bool) int {
	switch {
	case h.headers == 0:
		return 0
	case !h.created && h.headers*2 < h.lines:
		// Log lines quoted in a report or in notes (a Markdown report's
		// evidence): in a log, most lines are entries.
		return 0
	case h.jsonLogs > 0 && !h.vitess && !named:
		return 0
	case h.vitess:
		return 85
	case h.jsonLogs > 0, h.created || h.headers >= 3:
		return 60
	}
	return 40
}

// detectRole returns the Detect of the log format for one role: the file's
// name decides, else the source files of its lines.
func detectRole(want role) func(string, []byte) int {
	return func(name string, head []byte) int {
		byName := roleOfName(name)
		h := scanHead(head)
		s := h.score(byName != roleUnknown)
		if s == 0 {
			return 0
		}
		got := byName
		if got == roleUnknown {
			switch {
			case h.tablet > 0 && h.tablet >= h.vtorc:
				got = roleVttablet
			case h.vtorc > 0:
				got = roleVtorc
			case h.vtgate > 0:
				got = roleVtgate
			default:
				got = roleVtctld
			}
		}
		if got != want {
			return 0
		}
		return s
	}
}
