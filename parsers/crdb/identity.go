package crdb

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// identity is what a node log says about who wrote it: the release in the
// file header, the node in the header or the logging tags, and the host in
// the file name. cockroach debug merge-logs finds node and host the same way
// (pkg/cli/debug_merge_logs.go: the file name pattern and the n<id> tag).
type identity struct {
	release string
	host    string // from the file name; "" when it does not follow the pattern
}

func newIdentity(o forensics.Origin) identity {
	return identity{host: hostFromName(o.Name)}
}

// hostFromName reads the host of a log file name as pkg/util/log/file.go
// writes it: <program>.<host>.<user>.<timestamp>.<pid>.log, where program
// is "cockroach" or "cockroach-<file group>" (cockroach-health,
// cockroach-kv-exec, …) and the host is cut at its first dot.
func hostFromName(name string) string {
	if !strings.HasPrefix(name, "cockroach") || !strings.HasSuffix(name, ".log") {
		return ""
	}
	parts := strings.Split(strings.TrimSuffix(name, ".log"), ".")
	if len(parts) != 5 || parts[1] == "" || digits([]byte(parts[4])) != len(parts[4]) || parts[4] == "" {
		return ""
	}
	return parts[1]
}

// line reads what a log line tells about the source: the sink header's
// binary: and nodeID: lines (pkg/util/log getStartLines, file_sync_buffer.go),
// or, in a file without a header, the first n<id> logging tag. It is called
// on every line and does nothing once node and release are known.
func (id *identity) line(ds *sender, tags, msg []byte) {
	if id.release == "" && scan.HasPrefix(msg, "binary: ") {
		id.release = releaseOf(msg[len("binary: "):])
		return
	}
	if scan.HasPrefix(msg, "nodeID: n") {
		if d := digits(msg[len("nodeID: n"):]); d > 0 {
			ds.origin = string(msg[len("nodeID: ") : len("nodeID: n")+d])
		}
		return
	}
	if ds.origin == "" && len(tags) > 1 {
		if n := readTags(tags).node; n != nil {
			ds.origin = string(n)
		}
	}
}

// node returns the node of the source, or the host when no line named one.
func (id *identity) node(ds *sender) string {
	if ds.origin != "" {
		return ds.origin
	}
	return id.host
}

// releaseOf reads the version of "CockroachDB CCL v24.3.1 (x86_64-pc-linux-gnu,
// built 2024/12/10 …, go1.22.8)" (pkg/build Info.Short): the first word that
// starts with v and a digit.
func releaseOf(b []byte) string {
	b = stripMarkers(nil, b)
	for len(b) > 0 {
		w := b
		if i := bytes.IndexByte(b, ' '); i >= 0 {
			w, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(w) > 1 && w[0] == 'v' && scan.IsDigit(w[1]) {
			return string(bytes.TrimRight(w, ",;"))
		}
	}
	return ""
}
