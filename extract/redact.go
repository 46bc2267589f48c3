package extract

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strings"

	"forensics"
	"forensics/parsers/vitess"
	"forensics/store"
)

// Redactor replaces what a bundle must not leak: user data that the
// systems mark (Couchbase <ud>…</ud>, CockroachDB ‹…› but for a transaction's
// short id) by "redacted", and
// IPs, host names, buckets, keyspaces, tables and workflows by pseudonyms,
// the same name by the same pseudonym in every file, path and expect.json.
// Pseudonyms are plain words and TEST-NET addresses (RFC 5737), so the
// grammars that embed names (a DCP connection named after its bucket, a
// node folder named after its host) read the same way.
type Redactor struct {
	names   map[string]string // name -> pseudonym
	order   []string          // longest first, so a name inside another goes after it
	ips     map[string]string
	ids     map[string]string // UUIDs, 32-digit hex ids, MACs, IPv6 addresses -> pseudonyms
	kinds   map[string]int    // pseudonyms given so far, per kind
	pending []pendingName     // names learned, given pseudonyms by assign
}

var (
	ipv4       = regexp.MustCompile(`(?:\d{1,3}\.){3}\d{1,3}`)
	couchUD    = regexp.MustCompile(`<ud>.*?</ud>`)
	crdbMarked = regexp.MustCompile(`‹[^›]*›`)
	// A transaction's short id (uuid.Short: 8 hex digits of a random
	// UUID), which CockroachDB marks though it names nothing of the
	// user's: it is what ties a waiting transaction to its blocker.
	crdbTxnID = regexp.MustCompile(`^‹[0-9a-f]{8}›$`)
	nsHost    = regexp.MustCompile(`ns_1@([A-Za-z][A-Za-z0-9.-]*)`)
)

// NewRedactor learns the names to replace from the run's events and the
// finding's subject: its shared fields, and the details its rule declares
// names (forensics.Detail.Redact).
func NewRedactor(ctx context.Context, db store.Reader, f store.StoredFinding, rule *forensics.Rule) (*Redactor, error) {
	r := &Redactor{names: map[string]string{}, ips: map[string]string{}, ids: map[string]string{}, kinds: map[string]int{}}
	kinds := map[forensics.NameKind]map[string]bool{}
	for _, k := range forensics.NameKinds {
		kinds[k] = map[string]bool{}
	}
	add := func(kind forensics.NameKind, name string) {
		if name != "" {
			kinds[kind][name] = true
		}
	}
	nodeIPs := map[string]bool{}
	for e, err := range db.Events(ctx, store.EventFilter{Run: f.Run}) {
		if err != nil {
			return nil, err
		}
		for _, ip := range ipv4.FindAllString(e.Node, -1) {
			nodeIPs[ip] = true
		}
		add(forensics.NameBucket, e.Bucket)
		add(forensics.NameKeyspace, e.Keyspace)
		add(forensics.NameTable, e.Table)
		add(forensics.NameWorkflow, e.Attr(vitess.AttrWorkflow))
		for _, m := range nsHost.FindAllStringSubmatch(e.Node+" "+e.Text, -1) {
			add(forensics.NameHost, m[1])
		}
	}
	// The nodes' addresses first, in order, so the pseudonyms do not depend
	// on which file is written first.
	var ips []string
	for ip := range nodeIPs {
		ips = append(ips, ip)
	}
	sort.Strings(ips)
	r.replaceIPs(strings.Join(ips, " "))
	s := f.Subject
	add(forensics.NameBucket, s.Bucket)
	add(forensics.NameKeyspace, s.Keyspace)
	add(forensics.NameWorkflow, s.Workflow)
	for _, t := range s.Tables {
		add(forensics.NameTable, t)
	}
	if rule != nil {
		for _, d := range rule.Details {
			if d.Redact == "" {
				continue
			}
			switch v := s.Details.Get(d.Key).(type) {
			case string:
				add(d.Redact, v)
			case []string:
				for _, n := range v {
					add(d.Redact, n)
				}
			}
		}
	}
	for _, kind := range forensics.NameKinds {
		var names []string
		for n := range kinds[kind] {
			// A reverse workflow is named after its forward one: the
			// forward name's pseudonym keeps the relation.
			if base, ok := strings.CutSuffix(n, "_reverse"); ok && kinds[kind][base] {
				continue
			}
			if _, taken := r.names[n]; !taken && !ipv4.MatchString(n) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for i, n := range names {
			p := fmt.Sprintf("%s%d", kind, i+1)
			if kind == forensics.NameHost {
				p = fmt.Sprintf("host%d.example", i+1)
			}
			r.names[n] = p
		}
		r.kinds[string(kind)] = len(names)
	}
	for n := range r.names {
		r.order = append(r.order, n)
	}
	r.sortOrder()
	return r, nil
}

// sortOrder puts longer names first, so a name inside another (a keyspace
// in a workflow's name) is replaced after it.
func (r *Redactor) sortOrder() {
	sort.Slice(r.order, func(i, j int) bool {
		if len(r.order[i]) != len(r.order[j]) {
			return len(r.order[i]) > len(r.order[j])
		}
		return r.order[i] < r.order[j]
	})
}

// Names returns the original names the redactor replaces, IPs included
// (those seen so far).
func (r *Redactor) Names() []string {
	var out []string
	for n := range r.names {
		out = append(out, n)
	}
	for ip := range r.ips {
		out = append(out, ip)
	}
	for id := range r.ids {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Text redacts one line (or path, or JSON).
func (r *Redactor) Text(s string) string {
	r.assign()
	s = passwordValue.ReplaceAllString(s, "${1}redacted")
	s = r.replaceIDs(s)
	s = couchUD.ReplaceAllString(s, "<ud>redacted</ud>")
	s = crdbMarked.ReplaceAllStringFunc(s, func(m string) string {
		if crdbTxnID.MatchString(m) {
			return m
		}
		return "‹redacted›"
	})
	s = r.replaceIPs(s)
	for _, n := range r.order {
		s = replaceToken(s, n, r.names[n])
	}
	return s
}

func (r *Redactor) replaceIPs(s string) string {
	locs := ipv4.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		ip := s[l[0]:l[1]]
		// Part of a longer dotted number (a version, an OID): not an address.
		if l[0] > 0 && (isDigit(s[l[0]-1]) || s[l[0]-1] == '.') || l[1] < len(s) && (isDigit(s[l[1]]) || s[l[1]] == '.' && l[1]+1 < len(s) && isDigit(s[l[1]+1])) {
			continue
		}
		p, ok := r.ips[ip]
		if !ok {
			n := len(r.ips) + 1
			nets := []string{"192.0.2.", "198.51.100.", "203.0.113."}
			p = fmt.Sprintf("%s%d", nets[(n-1)/254%3], (n-1)%254+1)
			r.ips[ip] = p
		}
		b.WriteString(s[last:l[0]])
		b.WriteString(p)
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c)
}

// couchbaseKeyword reports the names Couchbase gives its default scope and
// collection and its system scope, which a bucket named "default" must not
// turn into pseudonyms.
func couchbaseKeyword(tok string) bool { return tok == "_default" || tok == "_system" }

// replaceToken replaces name where it stands as a token: not inside a
// longer word (vt_payment is payment's, _default is Couchbase's own) and not
// followed by a letter or digit ("commerce2customer_reverse" keeps its
// suffix, which Vitess reads).
func replaceToken(s, name, repl string) string {
	if !strings.Contains(s, name) {
		return s
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], name)
		if j < 0 {
			break
		}
		j += i
		end := j + len(name)
		left := j == 0 || !isWord(s[j-1]) && !(s[j-1] == '_' && couchbaseKeyword(s[j-1:end]))
		right := end == len(s) || !isWord(s[end])
		b.WriteString(s[i:j])
		if left && right {
			b.WriteString(repl)
		} else {
			b.WriteString(name)
		}
		i = end
	}
	b.WriteString(s[i:])
	return b.String()
}

// Names that no system marks but that a bundle carries where every release
// writes them: the machine a Vitess component runs on (its pod, in
// Kubernetes), a CockroachDB log file's host and OS user
// (cockroach.HOST.USER.TIME.PID.log, util/log), host names and cells of a
// topology's JSON, the cell of a tablet alias, the user of a connection
// (user=), and ns_server's node names. Learn finds them in everything the
// extract will hold before anything is written, so that a name met in the
// last file is replaced in the first.
var learned = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"host", regexp.MustCompile(`(?i)running on machine:\s*([A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])`)},
	{"host", regexp.MustCompile(`"hostname":\s*"([^"\s]+)"`)},
	{"host", nsHost},
	{"cell", regexp.MustCompile(`"cell":\s*"([^"\s]+)"`)},
	{"cell", regexp.MustCompile(`\b([a-z][a-z0-9_]*)-\d{10}\b`)},
	{"cell", regexp.MustCompile(`"([A-Za-z0-9_]+)":\s*\{\s*"partitions"`)}, // GetSrvKeyspaces: cell → SrvKeyspace
	{"host", regexp.MustCompile(`--server[= ]([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]):\d+`)},
	{"user", regexp.MustCompile(`\buser=([A-Za-z_][A-Za-z0-9_.$-]*)`)},
}

// crdbLogFile is a CockroachDB log file's name, of the main log or a
// channel's: cockroach[-CHANNEL].HOST.USER.TIME.PID.log.
var crdbLogFile = regexp.MustCompile(`cockroach(?:-[a-z]+)*\.([A-Za-z0-9][A-Za-z0-9.-]*?)\.([A-Za-z_][A-Za-z0-9_-]*)\.\d{4}-\d{2}-\d{2}T\d{2}_\d{2}_\d{2}Z\.\d+\.log`)

// passwordValue finds a password, secret or token written as key=value or
// key: value; its value is replaced, the key kept.
var passwordValue = regexp.MustCompile(`(?i)\b((?:password|passwd|pwd|secret|token|api[_-]?key)["']?\s*[=:]\s*["']?)([^\s"',;&]+)`)

// glogFile is a glog file's name, which Vitess writes:
// PROGRAM.HOST.USER.log.LEVEL.DATE-TIME.PID (glog's logName).
var glogFile = regexp.MustCompile(`\b(?:vtctld|vttablet|vtorc|vtgate|vtcombo|mysqlctld|vtbackup)\.([A-Za-z0-9][A-Za-z0-9.-]*?)\.([A-Za-z_][A-Za-z0-9_-]*)\.log\.(?:INFO|WARNING|ERROR|FATAL)`)

// ownUsers are OS users named after the product, which its images run as
// and its file names carry anyway.
var ownUsers = map[string]bool{"cockroach": true, "vitess": true, "couchbase": true}

// Learn reads a text the extract will hold for the names Text must
// replace in it, and in every other text. Pseudonyms are given when Text
// is first called, once every name is known, so that none is a real name.
func (r *Redactor) Learn(s string) {
	add := func(kind, name string) {
		if name == "" || r.names[name] != "" || ipv4.FindString(name) == name {
			return
		}
		for _, p := range r.pending {
			if p.name == name {
				return
			}
		}
		r.pending = append(r.pending, pendingName{kind, name})
	}
	for _, l := range learned {
		for _, m := range l.re.FindAllStringSubmatch(s, -1) {
			add(l.kind, m[1])
		}
	}
	for _, re := range []*regexp.Regexp{crdbLogFile, glogFile} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			add("host", m[1])
			if !ownUsers[m[2]] {
				add("user", m[2])
			}
		}
	}
	r.replaceIDs(s) // numbers the ids in the order met
}

// pendingName is a name learned and not yet given a pseudonym.
type pendingName struct{ kind, name string }

// assign gives the names learned their pseudonyms, numbered on from those
// of their kind, skipping any that is a real name.
func (r *Redactor) assign() {
	if len(r.pending) == 0 {
		return
	}
	if r.kinds == nil {
		r.kinds = map[string]int{}
	}
	real := map[string]bool{}
	for n := range r.names {
		real[n] = true
	}
	for _, p := range r.pending {
		real[p.name] = true
	}
	for _, p := range r.pending {
		for {
			r.kinds[p.kind]++
			pseudo := fmt.Sprintf("%s%d", p.kind, r.kinds[p.kind])
			if p.kind == "host" {
				pseudo = fmt.Sprintf("host%d.example", r.kinds[p.kind])
			}
			if !real[pseudo] {
				r.names[p.name] = pseudo
				break
			}
		}
		r.order = append(r.order, p.name)
	}
	r.pending = nil
	r.sortOrder()
}

var (
	uuid  = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	hex32 = regexp.MustCompile(`(?i)[0-9a-f]{32,}`) // exactly 32 once its neighbours are checked
	mac   = regexp.MustCompile(`(?i)\b(?:[0-9a-f]{2}:){5}[0-9a-f]{2}\b`)
	ipv6  = regexp.MustCompile(`(?i)(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}`)
)

// replaceIDs replaces the identifiers every system writes the same way:
// UUIDs (a cluster's, an event's, a transaction's, a MySQL GTID's server),
// 32-digit hex ids (a Couchbase bucket's UUID), MAC addresses and IPv6
// addresses, each by a pseudonym of the same form (IPv6 addresses from the
// documentation prefix, RFC 3849), the same id by the same one. The first
// eight digits of a UUID, which CockroachDB prints as a transaction's
// short id, go with it.
func (r *Redactor) replaceIDs(s string) string {
	s = uuid.ReplaceAllStringFunc(s, func(id string) string {
		return r.id(id, func(n int) string {
			p := fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
			if short := strings.ToLower(id[:8]); r.names[short] == "" && r.names[id[:8]] == "" {
				r.names[id[:8]] = p[:8]
				r.order = append(r.order, id[:8])
				r.sortOrder()
			}
			return p
		})
	})
	// Not \b: goxdcr joins a target cluster's UUID to its names with "_"
	// (xmem_UUID/bucket/bucket), which \b takes for part of a word.
	hexLocs := hex32.FindAllStringIndex(s, -1)
	for i := len(hexLocs) - 1; i >= 0; i-- {
		a, b := hexLocs[i][0], hexLocs[i][1]
		if b-a != 32 || a > 0 && isAlnum(s[a-1]) || b < len(s) && isAlnum(s[b]) {
			continue
		}
		s = s[:a] + r.id(s[a:b], func(n int) string { return fmt.Sprintf("%032x", n) }) + s[b:]
	}
	s = mac.ReplaceAllStringFunc(s, func(id string) string {
		return r.id(id, func(n int) string { return fmt.Sprintf("02:00:00:00:%02x:%02x", n>>8&0xff, n&0xff) })
	})
	locs := ipv6.FindAllStringIndex(s, -1)
	for i := len(locs) - 1; i >= 0; i-- {
		a, b := locs[i][0], locs[i][1]
		cand := s[a:b]
		if ip := net.ParseIP(cand); ip == nil || ip.To4() != nil || a > 0 && isAddrChar(s[a-1]) || b < len(s) && isAddrChar(s[b]) {
			continue
		}
		p := r.id(strings.ToLower(cand), func(n int) string { return fmt.Sprintf("2001:db8::%x", n) })
		s = s[:a] + p + s[b:]
	}
	return s
}

func isAddrChar(c byte) bool { return isWord(c) || c == ':' || c == '.' }

// id returns the pseudonym of an identifier, making it with mk and the
// next number when it has none.
func (r *Redactor) id(id string, mk func(n int) string) string {
	if r.ids == nil {
		r.ids = map[string]string{}
	}
	key := strings.ToLower(id)
	if p, ok := r.ids[key]; ok {
		return p
	}
	p := mk(len(r.ids) + 1)
	r.ids[key] = p
	return p
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
