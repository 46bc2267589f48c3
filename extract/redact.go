package extract

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"forensics"
	"forensics/parsers/vitess"
	"forensics/store"
)

// Redactor replaces what a bundle must not leak: user data that the
// systems mark (Couchbase <ud>…</ud>, CockroachDB ‹…›) by "redacted", and
// IPs, host names, buckets, keyspaces, tables and workflows by pseudonyms,
// the same name by the same pseudonym in every file, path and expect.json.
// Pseudonyms are plain words and TEST-NET addresses (RFC 5737), so the
// grammars that embed names (a DCP connection named after its bucket, a
// node folder named after its host) read the same way.
type Redactor struct {
	names map[string]string // name -> pseudonym
	order []string          // longest first, so a name inside another goes after it
	ips   map[string]string
}

var (
	ipv4       = regexp.MustCompile(`(?:\d{1,3}\.){3}\d{1,3}`)
	couchUD    = regexp.MustCompile(`<ud>.*?</ud>`)
	crdbMarked = regexp.MustCompile(`‹[^›]*›`)
	nsHost     = regexp.MustCompile(`ns_1@([A-Za-z][A-Za-z0-9.-]*)`)
)

// NewRedactor learns the names to replace from the run's events and the
// finding's subject: its shared fields, and the details its rule declares
// names (forensics.Detail.Redact).
func NewRedactor(ctx context.Context, db store.Reader, f store.StoredFinding, rule *forensics.Rule) (*Redactor, error) {
	r := &Redactor{names: map[string]string{}, ips: map[string]string{}}
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
	sort.Strings(out)
	return out
}

// Text redacts one line (or path, or JSON).
func (r *Redactor) Text(s string) string {
	s = couchUD.ReplaceAllString(s, "<ud>redacted</ud>")
	s = crdbMarked.ReplaceAllString(s, "‹redacted›")
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
