// Package formatfile reads log formats written as data, lnav's idea: a
// YAML file gives the file names and a content sniff to recognise a log,
// a regexp with named captures for its lines, which capture holds the
// time (with its layout and zone), the node and the message, how an entry
// goes on over several lines, and a table of message templates, each
// making an event of a kind with attributes. Sample lines in the file
// must parse as it says, when it is loaded. docs/rules.md is the
// reference of the schema.
//
// A format file becomes a forensics.Format like the built-in ones: ingest
// detects it among them and stores every line of its files, events or
// not, so they are searchable like any other.
package formatfile

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"forensics"
	"forensics/yamldoc"
)

// File is a format read from a file.
type File struct {
	Format forensics.Format
	Path   string
}

// Limits on what a format file asks of every line: yamldoc keeps the
// patterns small, and these bound the text one match reads.
const (
	// maxLine is how much of a line the line regexp reads: a longer line
	// is matched on its beginning (its time and header are there).
	maxLine = 64 << 10
	// maxEntry is how much text an entry of several lines keeps for its
	// message templates and its event's text.
	maxEntry = 256 << 10
	// sniffLines is how many lines of the head detection reads.
	sniffLines = 20
)

var (
	formatName = regexp.MustCompile(`^[a-z0-9]+([-_.][a-z0-9]+)*$`)
	kindName   = regexp.MustCompile(`^[a-z]+\.[a-z0-9_]+$`)
	attrName   = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Parse reads a format file. known are the kinds the program's parsers
// declare: a format may emit one of them (with their attributes) or kinds
// it declares itself, not redefine one.
func Parse(file string, data []byte, known []forensics.KindDoc) (*File, error) {
	doc, err := yamldoc.Parse(file, data)
	if err != nil {
		return nil, err
	}
	c := &compiler{known: map[forensics.Kind]forensics.KindDoc{}, kinds: map[forensics.Kind]forensics.KindDoc{}}
	for _, k := range known {
		c.known[k.Kind] = k
	}
	spec := c.compile(doc.Root)
	if err := doc.Err(); err != nil {
		return nil, err
	}
	c.samples(spec)
	if err := doc.Err(); err != nil {
		return nil, err
	}
	return &File{Path: file, Format: spec.format()}, nil
}

type compiler struct {
	known   map[forensics.Kind]forensics.KindDoc
	kinds   map[forensics.Kind]forensics.KindDoc // the kinds the file declares
	order   []forensics.Kind
	samplev yamldoc.Value
}

// spec is a format file compiled.
type spec struct {
	name, component string
	files           []string
	sniff           *regexp.Regexp
	line            *regexp.Regexp
	timeField       int // capture index
	layout          string
	zone            forensics.Zone
	nodeField       int // -1: the node of the path
	messageField    int // -1: the whole line
	continuation    string
	messages        []*message
	kinds           []forensics.KindDoc
}

type message struct {
	kind    forensics.Kind
	re      *regexp.Regexp
	attrs   []attrSet
	subject []subjectSet
}

type attrSet struct {
	key forensics.AttrKey
	t   *capTemplate
}

type subjectSet struct {
	field string // bucket, vb, range, keyspace, shard, table
	t     *capTemplate
}

var topFields = []string{"format", "component", "doc", "files", "sniff", "line", "time", "node", "message",
	"continuation", "kinds", "messages", "samples"}

func (c *compiler) compile(root yamldoc.Value) *spec {
	if all := root.Map(); all.Has("rule") {
		root.Errorf("this is a rule file (it has rule:): load its folder with --rules-dir or FORENSICS_RULES_PATH")
	}
	m := root.Map(topFields...)
	m.Require("format", "component", "line", "time", "samples")
	sp := &spec{name: m.Get("format").String(), component: m.Get("component").String(), nodeField: -1, messageField: -1}
	if sp.name != "" && !formatName.MatchString(sp.name) {
		m.Get("format").Errorf("%q is not a format name: lowercase words joined by - _ or .", sp.name)
	}
	if sp.component != "" && !attrName.MatchString(sp.component) {
		m.Get("component").Errorf("%q is not a component name: lowercase letters, digits and _", sp.component)
	}
	for _, g := range m.Get("files").List() {
		if _, err := path.Match(g.String(), ""); err != nil || g.String() == "" {
			g.Errorf("%q is not a file name pattern (goxdcr.log*, *.log)", g.String())
			continue
		}
		sp.files = append(sp.files, g.String())
	}
	if v := m.Get("sniff"); !v.IsZero() {
		sp.sniff = compileRegexp(v)
	}
	if !m.Has("files") && !m.Has("sniff") && root.Line() > 0 {
		m.Value().Errorf("give files (name patterns) or sniff (a regexp for the first lines), or both: detection needs one")
	}
	lv := m.Get("line")
	sp.line = compileRegexp(lv)
	group := func(v yamldoc.Value) int {
		if sp.line == nil || v.IsZero() {
			return -1
		}
		i := sp.line.SubexpIndex(v.String())
		if i < 0 {
			v.Errorf("the line regexp has no capture (?P<%s>…); it has %s", v.String(), captures(sp.line))
		}
		return i
	}
	tm := m.Get("time").Map("field", "layout", "zone")
	tm.Require("field", "layout", "zone")
	sp.timeField = group(tm.Get("field"))
	sp.layout = tm.Get("layout").String()
	switch z := tm.Get("zone").String(); z {
	case "logged":
		sp.zone = forensics.ZoneLogged
		if !hasZone(sp.layout) && !strings.HasPrefix(sp.layout, "unix") {
			tm.Get("zone").Errorf("the layout %q has no UTC offset (-07:00, -0700, Z07:00, MST): write zone: utc or zone: assumed", sp.layout)
		}
	case "utc":
		sp.zone = forensics.ZoneUTC
	case "assumed":
		sp.zone = forensics.ZoneAssumed
	case "":
	default:
		tm.Get("zone").Errorf("%q: the zone is logged (the line has its offset), utc (the format is UTC) or assumed (no zone: read as UTC and said so)", z)
	}
	if l := sp.layout; l != "" && !strings.HasPrefix(l, "unix") {
		ref := time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)
		if _, err := time.Parse(l, ref.Format(l)); err != nil || l == ref.Format(l) {
			tm.Get("layout").Errorf("%q is not a Go time layout (2006-01-02T15:04:05.000Z07:00), nor unix, unix_ms", l)
		}
	}
	nm := m.Get("node").Map("field")
	sp.nodeField = group(nm.Get("field"))
	sp.messageField = group(m.Get("message"))
	sp.continuation = "unmatched"
	if v := m.Get("continuation"); !v.IsZero() {
		sp.continuation = v.String()
		if !slices.Contains([]string{"unmatched", "indented", "none"}, sp.continuation) {
			v.Errorf("continuation is unmatched (a line the line regexp does not match goes on the entry before), indented (only an indented one does) or none")
		}
	}
	for _, kv := range m.Get("kinds").List() {
		c.declareKind(kv, sp.component)
	}
	for _, mv := range m.Get("messages").List() {
		if msg := c.message(mv, sp); msg != nil {
			sp.messages = append(sp.messages, msg)
		}
	}
	for _, k := range c.order {
		sp.kinds = append(sp.kinds, c.kinds[k])
	}
	// Kinds of the program's parsers the messages emit are part of the format's too.
	for _, msg := range sp.messages {
		if _, own := c.kinds[msg.kind]; !own && !slices.ContainsFunc(sp.kinds, func(k forensics.KindDoc) bool { return k.Kind == msg.kind }) {
			sp.kinds = append(sp.kinds, c.known[msg.kind])
		}
	}
	c.samplev = m.Get("samples")
	return sp
}

func hasZone(layout string) bool {
	for _, z := range []string{"-07:00", "-0700", "-07", "Z07:00", "Z0700", "Z07", "MST"} {
		if strings.Contains(layout, z) {
			return true
		}
	}
	return false
}

func captures(re *regexp.Regexp) string {
	var out []string
	for _, n := range re.SubexpNames() {
		if n != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "no named captures"
	}
	return strings.Join(out, ", ")
}

func compileRegexp(v yamldoc.Value) *regexp.Regexp { return v.Regexp() }

var categories = func() []string {
	var out []string
	for _, c := range forensics.Categories {
		out = append(out, string(c))
	}
	return out
}()

var attrTypes = []forensics.AttrType{forensics.AttrText, forensics.AttrInt, forensics.AttrHex, forensics.AttrNumber,
	forensics.AttrDuration, forensics.AttrBool, forensics.AttrList, forensics.AttrTime, forensics.AttrJSON}

func (c *compiler) declareKind(v yamldoc.Value, component string) {
	m := v.Map("kind", "category", "label", "doc", "component", "attrs")
	m.Require("kind", "category", "label", "doc")
	k := forensics.Kind(m.Get("kind").String())
	if k == "" {
		return
	}
	if !kindName.MatchString(string(k)) {
		m.Get("kind").Errorf("%q is not a kind name: <component>.<what> (goxdcr.pipeline_restart)", k)
		return
	}
	if _, ok := c.known[k]; ok {
		m.Get("kind").Errorf("%s is a kind forensics' parsers declare; emit it without declaring it again, or name yours otherwise", k)
		return
	}
	if _, ok := c.kinds[k]; ok {
		m.Get("kind").Errorf("%s is declared twice", k)
		return
	}
	d := forensics.KindDoc{Kind: k, Label: m.Get("label").String(), Doc: m.Get("doc").String(), Component: m.Get("component").String()}
	cat := m.Get("category").String()
	if !slices.Contains(categories, cat) {
		m.Get("category").Errorf("%q is not a category (%s)", cat, strings.Join(categories, ", "))
	}
	d.Category = forensics.Category(cat)
	for _, av := range m.Get("attrs").List() {
		am := av.Map("key", "type", "doc")
		am.Require("key", "type", "doc")
		key := am.Get("key").String()
		if !attrName.MatchString(key) {
			am.Get("key").Errorf("%q is not an attribute key: lowercase letters, digits and _", key)
			continue
		}
		t := forensics.AttrType(am.Get("type").String())
		if !slices.Contains(attrTypes, t) {
			var ts []string
			for _, x := range attrTypes {
				ts = append(ts, string(x))
			}
			am.Get("type").Errorf("%q is not an attribute type (%s)", t, strings.Join(ts, ", "))
		}
		d.Attrs = append(d.Attrs, attrDoc(key, t, am.Get("doc").String()))
	}
	c.kinds[k] = d
	c.order = append(c.order, k)
	_ = component
}

// kindDoc returns the doc of a kind the file declares or the program knows.
func (c *compiler) kindDoc(k forensics.Kind) (forensics.KindDoc, bool) {
	if d, ok := c.kinds[k]; ok {
		return d, true
	}
	d, ok := c.known[k]
	return d, ok
}

var subjectFields = []string{"bucket", "vb", "range", "keyspace", "shard", "table"}

func (c *compiler) message(v yamldoc.Value, sp *spec) *message {
	m := v.Map("kind", "match", "attrs", "subject")
	m.Require("kind", "match")
	msg := &message{kind: forensics.Kind(m.Get("kind").String())}
	doc, ok := c.kindDoc(msg.kind)
	if !ok {
		if msg.kind != "" {
			m.Get("kind").Errorf("%q is neither declared under kinds nor a kind of forensics' parsers", msg.kind)
		}
		return nil
	}
	msg.re = compileRegexp(m.Get("match"))
	if msg.re == nil || sp.line == nil {
		return nil
	}
	names := map[string]bool{}
	for _, n := range append(sp.line.SubexpNames(), msg.re.SubexpNames()...) {
		if n != "" {
			names[n] = true
		}
	}
	declared := map[string]bool{}
	for _, a := range doc.Attrs {
		declared[string(a.Key)] = true
	}
	am := m.Get("attrs").Map()
	if m.Has("attrs") {
		for _, key := range am.Keys() {
			if !declared[key] {
				am.Get(key).Errorf("%s declares no attribute %q (it has %s)", msg.kind, key, keyList(doc))
				continue
			}
			t, err := parseCapTemplate(am.Get(key).String(), names)
			if err != nil {
				am.Get(key).Errorf("%v", err)
				continue
			}
			msg.attrs = append(msg.attrs, attrSet{key: attrKey(key), t: t})
		}
	} else {
		// Without attrs, each capture of the template named like a declared attribute is one.
		for _, n := range msg.re.SubexpNames() {
			if declared[n] {
				t, _ := parseCapTemplate("{"+n+"}", names)
				msg.attrs = append(msg.attrs, attrSet{key: attrKey(n), t: t})
			}
		}
	}
	sm := m.Get("subject").Map(subjectFields...)
	for _, f := range sm.Keys() {
		t, err := parseCapTemplate(sm.Get(f).String(), names)
		if err != nil {
			sm.Get(f).Errorf("%v", err)
			continue
		}
		msg.subject = append(msg.subject, subjectSet{field: f, t: t})
	}
	return msg
}

func keyList(d forensics.KindDoc) string {
	var out []string
	for _, a := range d.Attrs {
		out = append(out, string(a.Key))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// capTemplate is text with captures put in: "{source}/{target}".
type capTemplate struct {
	parts []string // even: literal, odd: a capture name
}

func parseCapTemplate(s string, names map[string]bool) (*capTemplate, error) {
	t := &capTemplate{}
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			t.parts = append(t.parts, s)
			return t, nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("a { is not closed")
		}
		name := s[i+1 : i+j]
		if !names[name] {
			return nil, fmt.Errorf("{%s}: no capture is named %q", name, name)
		}
		t.parts = append(t.parts, s[:i], name)
		s = s[i+j+1:]
	}
}

func (t *capTemplate) render(get func(string) string) string {
	if len(t.parts) == 3 && t.parts[0] == "" && t.parts[2] == "" {
		return get(t.parts[1])
	}
	var b strings.Builder
	for i, p := range t.parts {
		if i%2 == 0 {
			b.WriteString(p)
		} else {
			b.WriteString(get(p))
		}
	}
	return b.String()
}
