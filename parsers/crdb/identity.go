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
	banner  bool   // the entry being read is the startup banner
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
	id.banner = false
	if id.release == "" {
		switch {
		case scan.HasPrefix(msg, "binary: "):
			id.release = releaseOf(msg[len("binary: "):])
			return
		case scan.HasPrefix(msg, "CockroachDB CCL "), scan.HasPrefix(msg, "CockroachDB OSS "):
			// v1.x logged the build on its own line at start
			// (cli/start.go: "CockroachDB CCL v1.0.6 (linux amd64, …)").
			id.release = releaseOf(msg)
		case scan.HasPrefix(msg, "node startup completed:"), scan.HasPrefix(msg, "CockroachDB node starting at "):
			id.banner = true
		}
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

// continued reads a line that continues an entry: in the startup banner
// (cli/start.go reportServerInfo, "node startup completed:" in v24.3+,
// "CockroachDB node starting at …" before), the build line names the
// release: "build:               CCL v24.3.0 @ 2024/11/21 17:04:13 (go1.22.8 …)".
func (id *identity) continued(msg []byte) {
	if id.banner && id.release == "" && scan.HasPrefix(msg, "build:") {
		id.release = releaseOf(bytes.TrimLeft(msg[len("build:"):], " "))
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
// built 2024/12/10 …, go1.22.8)" (pkg/build Info.Short) or of the banner's
// "CCL v24.3.0 @ …": the word after the edition, when it is a version
// (v24.3.1, or beta-20170223 before v1.0), else the first word that starts
// with v and a digit.
func releaseOf(b []byte) string {
	b = stripMarkers(nil, b)
	words := bytes.Fields(b)
	for i, w := range words {
		if (string(w) == "CCL" || string(w) == "OSS") && i+1 < len(words) {
			if v := bytes.TrimRight(words[i+1], ",;"); len(v) > 1 && (v[0] == 'v' && scan.IsDigit(v[1]) || scan.HasPrefix(v, "beta-") || scan.HasPrefix(v, "alpha-")) {
				return string(v)
			}
			break
		}
	}
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
