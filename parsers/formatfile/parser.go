package formatfile

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"forensics"
)

// format is the spec as a forensics.Format.
func (sp *spec) format() forensics.Format {
	return forensics.Format{
		Name:      sp.name,
		Component: sp.component,
		Detect:    sp.detect,
		New:       func(o forensics.Origin) forensics.Parser { return &parser{sp: sp, origin: o} },
		Kinds:     sp.kinds,
	}
}

// Scores of detection: a file named as the format says whose first line
// is the format's is surer than a first line alone; the built-in parsers
// answer 90 to 100 for their own files.
const (
	scoreNamed  = 80
	scoreLine   = 60
	scoreNoName = 0
)

// detect demands structure of the format itself: the first non-empty line
// of the head must be one of its lines (and match the sniff, when there is
// one), so a ticket or report quoting its lines further down is not taken
// for the log.
func (sp *spec) detect(name string, head []byte) int {
	named := false
	for _, g := range sp.files {
		if ok, _ := path.Match(g, name); ok {
			named = true
			break
		}
	}
	if len(sp.files) > 0 && !named {
		return scoreNoName
	}
	var first []byte
	rest := head
	for i := 0; i < sniffLines && len(rest) > 0; i++ {
		line, more, complete := bytes.Cut(rest, []byte("\n"))
		rest = more
		if !complete && len(head) >= 16<<10 {
			break // cut by the head's size
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		first = line
		break
	}
	if first == nil {
		return 0
	}
	first = first[:min(len(first), maxLine)]
	if !sp.line.Match(first) {
		return 0
	}
	if sp.sniff != nil && !sp.sniff.Match(first) {
		return 0
	}
	if named {
		return scoreNamed
	}
	return scoreLine
}

// parser reads one source: each line the line regexp matches starts an
// entry, and the lines that continue it are added to it; an entry's event
// is emitted when the next one starts, or at the end.
type parser struct {
	sp     *spec
	origin forensics.Origin
	open   bool
	entry  entry
	ev     forensics.Event
}

type entry struct {
	line  int64
	stamp forensics.Stamp
	node  string
	text  []byte
	caps  map[string]string // the line regexp's captures
	msg   []byte            // the message: its capture, then the lines that continue it
}

func (p *parser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	sp := p.sp
	head := text[:min(len(text), maxLine)]
	m := sp.line.FindSubmatchIndex(head)
	if m == nil {
		if p.open && p.continues(text) {
			p.add(text)
		}
		return forensics.Stamp{}, nil
	}
	p.flush(emit)
	get := func(i int) string {
		if i < 0 || m[2*i] < 0 {
			return ""
		}
		return string(head[m[2*i]:m[2*i+1]])
	}
	st, err := sp.parseTime(get(sp.timeField))
	if err != nil {
		return forensics.Stamp{}, err
	}
	e := &p.entry
	*e = entry{line: n, stamp: st, node: get(sp.nodeField), caps: map[string]string{}}
	for i, name := range sp.line.SubexpNames() {
		if name != "" {
			e.caps[name] = get(i)
		}
	}
	e.text = append(e.text[:0], text...)
	if sp.messageField >= 0 {
		e.msg = append(e.msg[:0], get(sp.messageField)...)
	} else {
		e.msg = append(e.msg[:0], text...)
	}
	p.open = true
	return st, nil
}

// continues reports whether a line the line regexp does not match goes on
// the open entry.
func (p *parser) continues(text []byte) bool {
	switch p.sp.continuation {
	case "unmatched":
		return true
	case "indented":
		return len(text) > 0 && (text[0] == ' ' || text[0] == '\t')
	}
	return false
}

func (p *parser) add(text []byte) {
	e := &p.entry
	if len(e.text)+1+len(text) > maxEntry {
		return // the event keeps the entry's beginning; every line is stored all the same
	}
	e.text = append(append(e.text, '\n'), text...)
	e.msg = append(append(e.msg, '\n'), text...)
}

func (p *parser) End(emit forensics.Emit) error {
	p.flush(emit)
	return nil
}

// flush emits the open entry's event: the first message template that
// matches names its kind.
func (p *parser) flush(emit forensics.Emit) {
	if !p.open {
		return
	}
	p.open = false
	e := &p.entry
	for _, msg := range p.sp.messages {
		m := msg.re.FindSubmatchIndex(e.msg)
		if m == nil {
			continue
		}
		get := func(name string) string {
			if i := msg.re.SubexpIndex(name); i >= 0 && m[2*i] >= 0 {
				return string(e.msg[m[2*i]:m[2*i+1]])
			}
			return e.caps[name]
		}
		ev := &p.ev
		ev.Reset()
		ev.Kind = msg.kind
		ev.Line = e.line
		ev.Stamp = e.stamp
		ev.Node = e.node
		ev.Text = string(e.text)
		for _, a := range msg.attrs {
			if v := a.t.render(get); v != "" {
				ev.Attrs = append(ev.Attrs, forensics.NewAttr(a.key, v))
			}
		}
		for _, s := range msg.subject {
			setSubject(ev, s.field, s.t.render(get))
		}
		emit(ev)
		return
	}
}

func setSubject(e *forensics.Event, field, v string) {
	switch field {
	case "bucket":
		e.Bucket = v
	case "keyspace":
		e.Keyspace = v
	case "shard":
		e.Shard = v
	case "table":
		e.Table = v
	case "vb":
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			e.VB = n
		}
	case "range":
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			e.Range = n
		}
	}
}

// parseTime reads the time capture with the layout and zone.
func (sp *spec) parseTime(s string) (forensics.Stamp, error) {
	if s == "" {
		return forensics.Stamp{}, fmt.Errorf("the line has no time")
	}
	var t time.Time
	switch sp.layout {
	case "unix", "unix_ms":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return forensics.Stamp{}, fmt.Errorf("time %q is not a number", s)
		}
		if sp.layout == "unix_ms" {
			f /= 1000
		}
		sec := int64(f)
		t = time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
		return forensics.Stamp{Time: t, Zone: forensics.ZoneUTC}, nil
	}
	t, err := time.Parse(sp.layout, s)
	if err != nil {
		return forensics.Stamp{}, fmt.Errorf("time %q does not fit the layout %q", s, sp.layout)
	}
	switch sp.zone {
	case forensics.ZoneLogged:
		_, off := t.Zone()
		return forensics.Stamp{Time: t.UTC(), Offset: int32(off), Zone: forensics.ZoneLogged}, nil
	case forensics.ZoneUTC:
		return forensics.Stamp{Time: t.UTC(), Zone: forensics.ZoneUTC}, nil
	}
	return forensics.Stamp{Time: t.UTC(), Zone: forensics.ZoneAssumed}, nil
}

// samples checks that every sample in the file parses as it says: its
// kind (none for a line that makes no event) and its attributes.
func (c *compiler) samples(sp *spec) {
	list := c.samplev.List()
	if len(list) == 0 {
		c.samplev.Errorf("give at least one sample line, and what it makes")
	}
	f := sp.format()
	for _, sv := range list {
		m := sv.Map("line", "kind", "attrs", "node", "name")
		m.Require("line")
		text := strings.TrimRight(m.Get("line").String(), "\n")
		if name := m.Get("name").String(); name != "" {
			if f.Detect(name, []byte(text+"\n")) == 0 {
				m.Get("name").Errorf("a file named %s starting with this line is not detected as %s", name, sp.name)
			}
		}
		var got []forensics.Event
		p := f.New(forensics.Origin{Name: "sample"})
		var err error
		for i, l := range strings.Split(text, "\n") {
			if _, lerr := p.Line(int64(i+1), []byte(l), func(e *forensics.Event) { got = append(got, cloneEvent(e)) }); lerr != nil && err == nil {
				err = lerr
			}
		}
		p.End(func(e *forensics.Event) { got = append(got, cloneEvent(e)) })
		if err != nil {
			m.Get("line").Errorf("the sample does not parse: %v", err)
			continue
		}
		want := forensics.Kind(m.Get("kind").String())
		switch {
		case want == "" && len(got) > 0:
			m.Get("line").Errorf("the sample makes a %s event; say kind: %s", got[0].Kind, got[0].Kind)
			continue
		case want != "" && len(got) == 0:
			m.Get("kind").Errorf("the sample makes no event: no message template matches it")
			continue
		case want != "" && got[0].Kind != want:
			m.Get("kind").Errorf("the sample makes a %s event, not %s", got[0].Kind, want)
			continue
		case want == "":
			continue
		}
		attrs := map[string]string{}
		for _, a := range got[0].Attrs {
			attrs[a.Key] = a.Value
		}
		am := m.Get("attrs").Map()
		for _, k := range am.Keys() {
			if attrs[k] != am.Get(k).String() {
				am.Get(k).Errorf("the sample's %s is %q, not %q (it has %v)", k, attrs[k], am.Get(k).String(), attrs)
			}
		}
		if nv := m.Get("node"); !nv.IsZero() && got[0].Node != nv.String() {
			nv.Errorf("the sample's node is %q, not %q", got[0].Node, nv.String())
		}
	}
}

func cloneEvent(e *forensics.Event) forensics.Event {
	c := *e
	c.Attrs = append([]forensics.Attr(nil), e.Attrs...)
	return c
}
