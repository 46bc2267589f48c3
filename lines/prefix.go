package lines

import "bytes"

// A Prefix is what a tool put before every line of a log it handed over:
// the tool is not the log's writer, so the prefix is stripped before the
// line is read as its format, and kept in the line as stored.
type Prefix uint8

const (
	// Grep is what grep puts before a matching line: the file with -H
	// ("cockroach.log:123:" with -n, "memcached.log.000006.txt:" without),
	// the line number alone with -n ("123:"); context lines of -A/-B/-C
	// have '-' for ':' ("123-"), and groups are parted by "--".
	Grep Prefix = iota + 1
	// Kubectl is what `kubectl logs --prefix` puts before each line:
	// "[pod/<pod>/<container>] " (kubectl logs.go addPrefixIfNeeded).
	Kubectl
	// Time is a time and a blank before the original line, as log
	// shippers and viewers add it: kubectl logs --timestamps and Loki's
	// logcli (RFC 3339, logcli's labels after it), Grafana's text download
	// (local time with milliseconds and a tab, after its meta lines),
	// docker and other collectors ("2022-12-01 14:30:45 ",
	// "[2022-03-28 16:57:25.392780] ", "2017-11-09 14:14:33: ").
	Time
)

func (p Prefix) String() string {
	switch p {
	case Grep:
		return "grep"
	case Kubectl:
		return "kubectl logs --prefix"
	case Time:
		return "a time"
	}
	return ""
}

// A Stripper strips the prefixes tools put before the lines of one file,
// outermost first: grep -H over the output of kubectl logs --prefix
// --timestamps gives three. It is made from the file's head, and not safe
// for concurrent use.
type Stripper struct {
	layers []Prefix
	files  map[string]bool // files grep named on matching lines
}

// maxLayers bounds the prefixes looked for on one line.
const maxLayers = 3

// NewStripper returns the prefixes every line of head carries (but blank
// lines, grep's "--" and Grafana's meta lines at the top), or nil. It looks
// at whole lines only: the last one may be cut. A prefix that a log's own
// lines start with (a time) is found too: which depth to strip is for the
// reader to decide, by which reads best (Depth).
func NewStripper(head []byte) *Stripper {
	s := &Stripper{}
	for len(s.layers) < maxLayers {
		p := s.find(head)
		if p == 0 {
			break
		}
		s.layers = append(s.layers, p)
	}
	if len(s.layers) == 0 {
		return nil
	}
	return s
}

// Layers returns the prefixes found, outermost first.
func (s *Stripper) Layers() []Prefix { return s.layers }

// Depth returns a stripper of the first n layers only.
func (s *Stripper) Depth(n int) *Stripper {
	return &Stripper{layers: s.layers[:n], files: s.files}
}

// Strip returns line without its prefixes, or line itself where it has
// none (a grep group separator, a blank line).
func (s *Stripper) Strip(line []byte) []byte {
	for _, p := range s.layers {
		if n := s.length(p, line); n > 0 {
			line = line[n:]
		}
	}
	return line
}

// StripHead returns head with every line stripped.
func (s *Stripper) StripHead(head []byte) []byte {
	out := make([]byte, 0, len(head))
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i+1], head[i+1:]
		} else {
			head = nil
		}
		out = append(out, s.Strip(line)...)
	}
	return out
}

// File returns a file grep named, or "".
func (s *Stripper) File() string {
	first := ""
	for f := range s.files {
		if first == "" || f < first {
			first = f
		}
	}
	return first
}

// find returns the next prefix every line of head carries once the
// layers found so far are stripped, or 0. A grep prefix must be on a
// matching line (':') on at least half the lines, so that a log whose lines
// start with digits and a dash is not taken for grep's context lines.
func (s *Stripper) find(head []byte) Prefix {
	for _, p := range []Prefix{Kubectl, Grep, Time} {
		if p == Grep {
			s.learnFiles(head)
		}
		if s.all(p, head) {
			return p
		}
	}
	return 0
}

// learnFiles notes the files grep names on matching lines ("file:…"), so
// that context lines ("file-123-…") are known by them. A context line of
// grep -Hn looks like a matching line of a file whose name runs into the
// line ("app.log-11-2022-07-21T17:39:…"): a name that starts with another
// name and a '-' is that, not a file.
func (s *Stripper) learnFiles(head []byte) {
	seen := map[string]bool{}
	eachLine(head, func(line []byte) {
		if f, n := grepFile(s.Strip(line)); n > 0 {
			seen[f] = true
		}
	})
	for f := range seen {
		if !s.context(f, seen) {
			if s.files == nil {
				s.files = map[string]bool{}
			}
			s.files[f] = true
		}
	}
}

// context reports whether f is a known file and the rest of a context line.
func (s *Stripper) context(f string, files map[string]bool) bool {
	for g := range files {
		if len(f) > len(g)+1 && f[:len(g)] == g && f[len(g)] == '-' {
			return true
		}
	}
	return false
}

func (s *Stripper) all(p Prefix, head []byte) bool {
	n, matched := 0, 0
	ok := true
	top := true // before the first prefixed line: Grafana's meta lines
	eachLine(head, func(line []byte) {
		line = s.Strip(line)
		if !ok || len(bytes.TrimSpace(line)) == 0 || p == Grep && bytes.Equal(line, []byte("--")) {
			return
		}
		l := s.length(p, line)
		if top && p == Time && l == 0 && isMeta(line) {
			return
		}
		top = false
		n++
		switch {
		case l == 0:
			ok = false
		case p == Grep && line[l-1] == ':':
			matched++
		}
	})
	if !ok || n == 0 {
		return false
	}
	return p != Grep || matched*2 >= n
}

// eachLine calls fn with every whole line of head, without its ending.
func eachLine(head []byte, fn func([]byte)) {
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			return
		}
		fn(bytes.TrimSuffix(head[:i], []byte("\r")))
		head = head[i+1:]
	}
}

// length returns the length of prefix p at the start of line, 0 when
// there is none.
func (s *Stripper) length(p Prefix, line []byte) int {
	switch p {
	case Grep:
		return s.grepPrefix(line)
	case Kubectl:
		return kubectlPrefix(line)
	case Time:
		return timePrefix(line)
	}
	return 0
}

// isMeta reports whether line is one of the lines Grafana's text download
// opens with, a label and a JSON value: "Common labels: {…}", "Line limit:
// …" (grafana inspector/utils/download.ts downloadLogsModelAsTxt).
func isMeta(line []byte) bool {
	i := bytes.Index(line, []byte(": "))
	if i <= 0 {
		return false
	}
	for _, c := range line[:i] {
		if c != ' ' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// grepPrefix returns the length of a grep prefix at the start of line:
// "file:123:" or "file:" on a matching line, "file-123-" on a context line
// of a file named on a matching line, "123:" or "123-" without -H. The
// prefix of a matching line ends in ':'.
func (s *Stripper) grepPrefix(line []byte) int {
	for f := range s.files {
		if len(line) > len(f)+2 && string(line[:len(f)]) == f && line[len(f)] == '-' {
			if d := digits(line[len(f)+1:]); d > 0 && len(f)+1+d < len(line) && line[len(f)+1+d] == '-' {
				return len(f) + d + 2
			}
		}
	}
	if f, n := grepFile(line); n > 0 && !s.context(f, s.files) {
		if d := digits(line[n:]); d > 0 && n+d < len(line) && line[n+d] == ':' {
			return n + d + 1
		}
		return n
	}
	if d := digits(line); d > 0 && d < len(line) && (line[d] == ':' || line[d] == '-') {
		return d + 1
	}
	return 0
}

// grepFile reads the file a matching line of grep -H starts with, and
// returns it with the length of "file:". The file has no blank and no
// ':', and looks like a path: it holds a '.' or a '/' and starts with
// neither a digit (a time does) nor a bracket or a brace (log lines do).
func grepFile(line []byte) (string, int) {
	if len(line) == 0 || isDigit(line[0]) || line[0] == '[' || line[0] == '{' {
		return "", 0
	}
	j := 0
	for j < len(line) && line[j] != ':' && line[j] != ' ' && line[j] != '\t' {
		j++
	}
	if j == len(line) || line[j] != ':' || bytes.IndexAny(line[:j], "./") < 0 {
		return "", 0
	}
	return string(line[:j]), j + 1
}

// kubectlPrefix returns the length of "[pod/<pod>/<container>] ".
func kubectlPrefix(line []byte) int {
	if !bytes.HasPrefix(line, []byte("[pod/")) {
		return 0
	}
	end := bytes.Index(line, []byte("] "))
	if end < 0 || bytes.Count(line[:end], []byte("/")) != 2 || bytes.IndexAny(line[:end], " \t") >= 0 {
		return 0
	}
	return end + 2
}

// timePrefix returns the length of a time a tool put before the line, with
// what follows it up to the line: a blank or a tab, after an optional ']'
// or ':', and logcli's labels "{…} ". Grafana's newer text download puts
// the epoch milliseconds and a tab first.
func timePrefix(line []byte) int {
	i := 0
	if d := digits(line); d >= 13 && d < len(line) && line[d] == '\t' {
		i = d + 1
	}
	bracket := i < len(line) && line[i] == '['
	if bracket {
		i++
	}
	n := dateTime(line[i:])
	if n == 0 {
		return 0
	}
	i += n
	if bracket {
		if i >= len(line) || line[i] != ']' {
			return 0
		}
		i++
	} else if i < len(line) && line[i] == ':' {
		i++
	}
	if i >= len(line) || line[i] != ' ' && line[i] != '\t' {
		return 0
	}
	i++
	if i < len(line) && line[i] == '{' {
		if end := bytes.Index(line[i:], []byte("} ")); end > 0 && bytes.IndexByte(line[i:i+end], '=') > 0 {
			i += end + 2
		}
	}
	if i >= len(line) {
		return 0 // a time alone is no prefix of anything
	}
	return i
}

// dateTime returns the length of "YYYY-MM-DD", 'T' or ' ', "hh:mm:ss",
// an optional fraction and an optional zone (Z, ±hh:mm, ±hhmm).
func dateTime(b []byte) int {
	const layout = "0000-00-00T00:00:00"
	if len(b) < len(layout) {
		return 0
	}
	for i := 0; i < len(layout); i++ {
		switch layout[i] {
		case '0':
			if !isDigit(b[i]) {
				return 0
			}
		case 'T':
			if b[i] != 'T' && b[i] != ' ' {
				return 0
			}
		default:
			if b[i] != layout[i] {
				return 0
			}
		}
	}
	i := len(layout)
	if i < len(b) && (b[i] == '.' || b[i] == ',') {
		d := digits(b[i+1:])
		if d == 0 {
			return 0
		}
		i += 1 + d
	}
	switch {
	case i < len(b) && b[i] == 'Z':
		i++
	case i+6 <= len(b) && (b[i] == '+' || b[i] == '-') && isDigit(b[i+1]) && isDigit(b[i+2]) && b[i+3] == ':' && isDigit(b[i+4]) && isDigit(b[i+5]):
		i += 6
	case i+5 <= len(b) && (b[i] == '+' || b[i] == '-') && digits(b[i+1:i+5]) == 4:
		i += 5
	}
	return i
}

func digits(b []byte) int {
	n := 0
	for n < len(b) && isDigit(b[n]) {
		n++
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
