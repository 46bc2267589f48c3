package forensics

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Source is one file (or archive member) that was read, with its accounting:
// every line read is an event, a plain line, or skipped, so
// Lines == Events + Plain + Skipped.
type Source struct {
	ID        int64
	Path      string // display path
	Node      string
	Format    string
	Component string
	Release   string // the release that wrote it, as the file says ("7.6.4-5146", "v24.3.1"); "" when it does not
	Key       string // content identity: the same key means the same bytes were already read
	Bytes     int64
	Lines     int64
	Events    int64 // lines that produced at least one event
	Plain     int64 // lines kept on the timeline without an event
	Skipped   int64 // lines not kept
	Errors    int64 // lines kept that looked like the format but did not parse
	First     time.Time
	Last      time.Time
	Problems  []Problem
}

// Problem is something wrong with an input that did not stop the analysis.
type Problem struct {
	Path   string `json:"path"`           // file or member, as displayed
	Line   int64  `json:"line,omitempty"` // 0 when it concerns the whole file
	Reason string `json:"reason"`         // why, in words, ending with what to do where there is something to do
	Lost   bool   `json:"lost,omitempty"` // whether content was lost (not read) because of it
}

func (p Problem) Error() string {
	if p.Line > 0 {
		return p.Path + ":" + strconv.FormatInt(p.Line, 10) + ": " + p.Reason
	}
	return p.Path + ": " + p.Reason
}

// cbcollectFolder matches the top folder of a cbcollect_info collection:
// cbcollect_info_<otp node>_<YYYYMMDD-HHMMSS>, the stamp in UTC.
var cbcollectFolder = regexp.MustCompile(`^cbcollect_info_(.+@.+)_(\d{8}-\d{6})$`)

// collectinfoZip matches the zip names Couchbase's UI and REST API give:
// collectinfo-<ts>-<otp node>.zip, optionally -redacted.
var collectinfoZip = regexp.MustCompile(`^collectinfo-[0-9T-]+-(.+@.+?)(?:-redacted)?\.zip$`)

// NodeFolder finds the node a display path belongs to by the folder that
// names it — a cbcollect_info_<node>_<time> folder, a cockroach debug zip's
// debug/nodes/<id>, or a collectinfo-<time>-<node>.zip — and returns the
// node with the path inside that folder: "ns_1@10.0.0.1" and
// "memcached.log" for "bundle.zip!cbcollect_info_ns_1@10.0.0.1_20220722-004733/memcached.log".
// With no such folder it returns "" and the path.
func NodeFolder(p string) (node, inside string) {
	// The segments of the path, '/' and '!' (an archive's member) alike,
	// with where each ends.
	type segment struct {
		name string
		end  int
	}
	var segs []segment
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' || p[i] == '!' {
			if i > start {
				segs = append(segs, segment{p[start:i], i})
			}
			start = i + 1
		}
	}
	rest := func(i int) string {
		if segs[i].end >= len(p) {
			return ""
		}
		return p[segs[i].end+1:]
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if m := cbcollectFolder.FindStringSubmatch(segs[i].name); m != nil {
			return m[1], rest(i)
		}
		if segs[i].name == "nodes" && i > 0 && segs[i-1].name == "debug" && i+1 < len(segs) {
			if _, err := strconv.Atoi(segs[i+1].name); err == nil {
				return "n" + segs[i+1].name, rest(i + 1)
			}
		}
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if m := collectinfoZip.FindStringSubmatch(segs[i].name); m != nil {
			return m[1], rest(i)
		}
	}
	return "", p
}

// CollectedAt returns when cbcollect_info collected the file at a display
// path: the UTC stamp its cbcollect_info_<node>_<YYYYMMDD-HHMMSS> folder
// carries (ns_server's cbcollect_info names the folder when it starts).
// ok is false when no folder of the path is one.
func CollectedAt(p string) (t time.Time, ok bool) {
	for seg := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == '!' }) {
		if m := cbcollectFolder.FindStringSubmatch(seg); m != nil {
			if at, err := time.Parse("20060102-150405", m[2]); err == nil {
				t, ok = at, true
			}
		}
	}
	return t, ok
}
