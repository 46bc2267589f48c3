// Package yamldoc reads the YAML files that teach forensics a rule or a
// log format, and walks them with errors that name the file, line, column
// and field: a loader checks every field it reads, and an unknown field is
// an error, as Semgrep's schema makes it.
//
// A file is read whole only up to MaxSize, and the YAML library
// (go.yaml.in/yaml/v3, the maintained continuation of gopkg.in/yaml.v3)
// refuses a document whose aliases expand out of proportion to its size
// (a "billion laughs"): Parse decodes the document once through it for that
// check before the loader walks the node tree, which follows aliases no
// further than that decode did.
package yamldoc

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxSize is the largest file a loader reads: rules and formats are a
// screen or two of text, so a larger file is a mistake or an attack.
const MaxSize = 1 << 20

// maxNodes bounds the nodes a walk visits, aliases followed: the YAML
// library's own bound allows some expansion, this one caps what it allows.
const maxNodes = 200_000

// Error is one problem in a file, at a line and column, in a field.
type Error struct {
	File         string
	Line, Column int
	Field        string // the path of the field, "select.alert.where"; "" for the document
	Msg          string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, in the order found.
type Errors []*Error

func (es Errors) Error() string {
	var parts []string
	for _, e := range es {
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "\n")
}

// Doc is a file being read: its name, its root and the problems found so far.
type Doc struct {
	File  string
	Root  Value
	errs  Errors
	nodes int
}

// Parse parses one YAML document. The error, when there is one, is an
// Errors naming the file and the line.
func Parse(file string, data []byte) (*Doc, error) {
	fail := func(line int, format string, args ...any) (*Doc, error) {
		return nil, Errors{{File: file, Line: line, Column: 1, Msg: fmt.Sprintf(format, args...)}}
	}
	if len(data) > MaxSize {
		return fail(0, "the file is larger than %d KiB; a rule or format file is a page or two of YAML", MaxSize>>10)
	}
	// The decode into a plain value is where the library counts what aliases expand to.
	var plain any
	if err := yaml.Unmarshal(data, &plain); err != nil {
		return fail(yamlLine(err), "%s", yamlMsg(err))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return fail(yamlLine(err), "%s", yamlMsg(err))
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return fail(1, "the file is empty")
	}
	d := &Doc{File: file}
	d.Root = Value{doc: d, n: root.Content[0]}
	return d, nil
}

// yamlLine finds the line in the library's messages ("yaml: line 3: …").
func yamlLine(err error) int {
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i+5:]
		j := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if j > 0 {
			n, _ := strconv.Atoi(rest[:j])
			return n
		}
	}
	return 0
}

func yamlMsg(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(msg, "line "); i == 0 {
		if j := strings.Index(msg, ": "); j > 0 {
			msg = msg[j+2:]
		}
	}
	if strings.Contains(msg, "excessive aliasing") {
		msg += ": its aliases expand to far more than the file holds"
	}
	return msg
}

// Err returns the problems found, as an Errors, or nil.
func (d *Doc) Err() error {
	if len(d.errs) == 0 {
		return nil
	}
	return d.errs
}

// Value is one node of the document and the path of fields that leads to
// it. The zero Value stands for a field that is absent.
type Value struct {
	doc  *Doc
	n    *yaml.Node
	at   *yaml.Node // where an absent field would be: its mapping
	path string
}

// IsZero reports whether the field is absent.
func (v Value) IsZero() bool { return v.n == nil }

// Path is the field's path, for messages.
func (v Value) Path() string { return v.path }

// Line is the line the field's value starts on.
func (v Value) Line() int {
	if v.n == nil {
		return 0
	}
	return v.n.Line
}

// Errorf records a problem with the value at its position.
func (v Value) Errorf(format string, args ...any) {
	if v.doc == nil {
		return // a field of a value that was not there: its absence is reported
	}
	e := &Error{File: v.doc.File, Field: v.path, Msg: fmt.Sprintf(format, args...)}
	if n := v.n; n != nil || v.at != nil {
		if n == nil {
			n = v.at
		}
		e.Line, e.Column = n.Line, n.Column
	}
	v.doc.errs = append(v.doc.errs, e)
}

// node returns the value's node with aliases resolved, counting the nodes
// the walk visits; nil once the count is over the bound.
func (v Value) node() *yaml.Node {
	n := v.n
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return nil
	}
	v.doc.nodes++
	if v.doc.nodes == maxNodes {
		v.Errorf("the document expands to more than %d values (aliases?)", maxNodes)
	}
	if v.doc.nodes >= maxNodes {
		return nil
	}
	return n
}

func (v Value) child(n *yaml.Node, field string) Value {
	p := field
	if v.path != "" {
		if strings.HasPrefix(field, "[") {
			p = v.path + field
		} else {
			p = v.path + "." + field
		}
	}
	return Value{doc: v.doc, n: n, path: p}
}

// IsMap, IsList and IsScalar report the shape of a present value.
func (v Value) IsMap() bool    { n := v.node(); return n != nil && n.Kind == yaml.MappingNode }
func (v Value) IsList() bool   { n := v.node(); return n != nil && n.Kind == yaml.SequenceNode }
func (v Value) IsScalar() bool { n := v.node(); return n != nil && n.Kind == yaml.ScalarNode }

// Map is a mapping whose keys were checked against the fields a loader knows.
type Map struct {
	v      Value
	keys   []string
	values map[string]Value
}

// Map reads the value as a mapping whose keys must be among known; an
// unknown key is an error (with the known ones listed) and is left out.
// With no known keys given, any key is accepted.
func (v Value) Map(known ...string) Map {
	m := Map{v: v, values: map[string]Value{}}
	n := v.node()
	if n == nil {
		return m
	}
	if n.Kind != yaml.MappingNode {
		v.Errorf("want a mapping of fields, got %s", shape(n))
		return m
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		key := k.Value
		kv := v.child(n.Content[i+1], key)
		if k.Kind != yaml.ScalarNode {
			kv.Errorf("a key must be a plain word")
			continue
		}
		if _, dup := m.values[key]; dup {
			kv.Errorf("%q is given twice", key)
			continue
		}
		if len(known) > 0 && !slices.Contains(known, key) {
			Value{doc: v.doc, n: k, path: v.path}.Errorf("unknown field %q (known: %s)", key, strings.Join(known, ", "))
			continue
		}
		m.keys = append(m.keys, key)
		m.values[key] = kv
	}
	return m
}

// Get returns the field, or a Value that IsZero when it is absent.
func (m Map) Get(key string) Value {
	if v, ok := m.values[key]; ok {
		return v
	}
	v := m.v.child(nil, key)
	v.at = m.v.n
	return v
}

// Has reports whether the field is present.
func (m Map) Has(key string) bool { _, ok := m.values[key]; return ok }

// Keys are the fields present, in the file's order.
func (m Map) Keys() []string { return m.keys }

// Value is the mapping itself, for errors about it as a whole.
func (m Map) Value() Value { return m.v }

// Require reports each of keys that is absent as an error on the mapping.
func (m Map) Require(keys ...string) bool {
	ok := true
	for _, k := range keys {
		if !m.Has(k) && m.v.n != nil {
			m.v.Errorf("the field %q is required", k)
			ok = false
		}
	}
	return ok
}

// List reads the value as a sequence; a single scalar or mapping is a list of one.
func (v Value) List() []Value {
	n := v.node()
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return []Value{v}
	}
	out := make([]Value, 0, len(n.Content))
	for i, c := range n.Content {
		out = append(out, v.child(c, fmt.Sprintf("[%d]", i)))
	}
	return out
}

// String reads a scalar as text.
func (v Value) String() string {
	n := v.node()
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		v.Errorf("want a single value, got %s", shape(n))
		return ""
	}
	return n.Value
}

// Strings reads a scalar or a sequence of scalars.
func (v Value) Strings() []string {
	var out []string
	for _, e := range v.List() {
		out = append(out, e.String())
	}
	return out
}

// Int reads a whole number.
func (v Value) Int() int {
	if v.IsZero() {
		return 0
	}
	s := v.String()
	n, err := strconv.Atoi(s)
	if err != nil {
		v.Errorf("%q is not a whole number", s)
	}
	return n
}

// Bool reads true or false.
func (v Value) Bool() bool {
	switch s := v.String(); s {
	case "true":
		return true
	case "false", "":
		return false
	default:
		v.Errorf("%q is not true or false", s)
		return false
	}
}

// Duration reads a time span written as Go writes one: 90s, 5m, 1h30m, 500ms.
func (v Value) Duration() time.Duration {
	if v.IsZero() {
		return 0
	}
	s := v.String()
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		v.Errorf("%q is not a duration (write 90s, 5m, 2h or 1h30m)", s)
		return 0
	}
	return d
}

func shape(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

// Limits on a regular expression in a file. Go's regexps run in time
// linear in their input, so no pattern is catastrophic; these keep a
// pattern, and the program it compiles to, small.
const (
	MaxPattern = 4 << 10
	maxProgram = 20_000 // instructions
)

// Regexp reads a regular expression (Go's RE2 syntax) within the limits.
func (v Value) Regexp() *regexp.Regexp {
	if v.IsZero() {
		return nil
	}
	re, err := compileBounded(v.String())
	if err != nil {
		v.Errorf("bad regexp: %v", err)
		return nil
	}
	return re
}

func compileBounded(p string) (*regexp.Regexp, error) {
	if len(p) > MaxPattern {
		return nil, fmt.Errorf("the pattern is %d bytes; at most %d", len(p), MaxPattern)
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > maxProgram {
		return nil, fmt.Errorf("the pattern compiles to %d instructions; at most %d (a counted repetition such as {1000} multiplies what it repeats)", len(prog.Inst), maxProgram)
	}
	return regexp.Compile(p)
}
