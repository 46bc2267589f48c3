package vitess

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// Reading vtctldclient's JSON. The same document comes in several
// encodings (go/cmd/vtctldclient/cli/json.go): protojson with proto field
// names, int64 as strings, bytes as base64 and, since v19, enum names
// (UseEnumNumbers was true before); encoding/json for maps and slices of
// protos (GetKeyspaces, GetSrvKeyspaces: proto names from the struct tags,
// empty fields omitted, enums as numbers); and camelCase JSON names, which
// protojson also reads and older docs show. protojson adds random
// whitespace, so documents are decoded, never matched as text.

// A document is decoded once (encoding/json into interface values, numbers
// kept as json.Number) and read through object. Field names are looked up in
// proto spelling first, then in JSON-name (camelCase) spelling, so a
// document with both takes the proto one.

// object is a JSON object of proto fields.
type object map[string]any

// get returns a field by its proto name, or by its JSON name.
func (o object) get(name string) any {
	if v, ok := o[name]; ok {
		return v
	}
	if c := camel(name); c != name {
		return o[c]
	}
	return nil
}

func has(o object, name string) bool {
	if _, ok := o[name]; ok {
		return true
	}
	_, ok := o[camel(name)]
	return ok
}

// camel turns a proto field name into its protojson JSON name:
// "from_table" → "fromTable", "sidecar_db_name" → "sidecarDbName".
func camel(name string) string {
	if strings.IndexByte(name, '_') < 0 {
		return name
	}
	b := make([]byte, 0, len(name))
	up := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_':
			up = true
			continue
		case up && c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		up = false
		b = append(b, c)
	}
	return string(b)
}

// fields reads a JSON object of proto fields; ok is false for null.
func fields(v any, path string) (o object, ok bool, err error) {
	switch v := v.(type) {
	case nil:
		return nil, false, nil
	case map[string]any:
		return object(v), true, nil
	}
	return nil, false, typeError(path, "an object", v)
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

func typeError(path, want string, v any) error {
	got := "null"
	switch v.(type) {
	case map[string]any:
		got = "an object"
	case []any:
		got = "a list"
	case string:
		got = "a string"
	case bool:
		got = "a boolean"
	case json.Number, float64:
		got = "a number"
	}
	return fmt.Errorf("%s: want %s, got %s", path, want, got)
}

// list reads a list field; nil when it is null or absent.
func (o object) list(name, path string) ([]any, error) {
	switch v := o.get(name).(type) {
	case nil:
		return nil, nil
	case []any:
		return v, nil
	default:
		return nil, typeError(path+"."+name, "a list", v)
	}
}

// decoder reads one document. It keeps the first error a read meets; after
// it every field reads as absent, so a reader reads field after field and
// its caller checks the error once, discarding what was read.
type decoder struct {
	err error
}

// node is an object of proto fields at path ("$.shard") in a document.
// A null or absent object reads as one without fields.
type node struct {
	o    object
	path string
	d    *decoder
}

// decode reads v, at path in a document, with read, and returns what read
// made of it and the first error it met.
func decode[T any](v any, path string, read func(node) T) (T, error) {
	d := &decoder{}
	n, _ := d.node(v, path)
	x := read(n)
	return x, d.err
}

// node reads v at path as an object of proto fields; ok is false when v is
// null, and after an error.
func (d *decoder) node(v any, path string) (n node, ok bool) {
	n = node{path: path, d: d}
	if d.err == nil {
		n.o, ok, d.err = fields(v, path)
	}
	return n, ok
}

// fail records err unless an error is recorded already.
func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// wrongType records that field name holds v where want was expected.
func (n node) wrongType(name, want string, v any) {
	n.d.fail(typeError(n.path+"."+name, want, v))
}

// get returns a field, or nil after an error.
func (n node) get(name string) any {
	if n.d.err != nil {
		return nil
	}
	return n.o.get(name)
}

// has reports whether the object has a field, by its proto or its JSON name.
func (n node) has(name string) bool {
	return n.d.err == nil && has(n.o, name)
}

// renamed returns name, or old when the object lacks name: the name the
// field had before Vitess 12 (master_alias, blacklisted_tables).
func (n node) renamed(name, old string) string {
	if n.has(name) {
		return name
	}
	return old
}

// obj reads an object field; ok is false when it is null or absent.
func (n node) obj(name string) (node, bool) {
	return n.d.node(n.get(name), n.path+"."+name)
}

// objects returns the elements of a list field, each read as an object at
// path.name[i]. It stops at the first error.
func (n node) objects(name string) iter.Seq[node] {
	return func(yield func(node) bool) {
		for i, v := range n.list(name) {
			e, _ := n.d.node(v, fmt.Sprintf("%s.%s[%d]", n.path, name, i))
			if n.d.err != nil || !yield(e) {
				return
			}
		}
	}
}

// entries reads an object field whose keys are data (cells, shard keys),
// not field names.
func (n node) entries(name string) map[string]any {
	switch v := n.get(name).(type) {
	case nil:
	case map[string]any:
		return v
	default:
		n.wrongType(name, "an object", v)
	}
	return nil
}

// byKey returns the entries of an object field whose keys are data, sorted
// by key, each read as an object at path.name[key]. It stops at the first
// error.
func (n node) byKey(name string) iter.Seq2[string, node] {
	return func(yield func(string, node) bool) {
		m := n.entries(name)
		for _, k := range sortedKeys(m) {
			e, _ := n.d.node(m[k], n.path+"."+name+"["+k+"]")
			if n.d.err != nil || !yield(k, e) {
				return
			}
		}
	}
}

func (n node) list(name string) []any {
	if n.d.err != nil {
		return nil
	}
	l, err := n.o.list(name, n.path)
	n.d.err = err
	return l
}

func (n node) str(name string) string {
	switch v := n.get(name).(type) {
	case nil:
	case string:
		return v
	default:
		n.wrongType(name, "a string", v)
	}
	return ""
}

func (n node) strs(name string) []string {
	switch v := n.get(name).(type) {
	case nil:
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				n.wrongType(name, "a list of strings", v)
				return nil
			}
			out[i] = s
		}
		return out
	default:
		n.wrongType(name, "a list of strings", v)
	}
	return nil
}

func (n node) boolean(name string) bool {
	switch v := n.get(name).(type) {
	case nil:
	case bool:
		return v
	default:
		n.wrongType(name, "a boolean", v)
	}
	return false
}

// int64 reads an integer written as a number or, as protojson writes
// int64 and uint64, as a string.
func (n node) int64(name string) int64 {
	var s string
	switch v := n.get(name).(type) {
	case nil:
		return 0
	case json.Number:
		s = string(v)
	case string:
		s = v
	default:
		n.wrongType(name, "an integer", v)
		return 0
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		n.d.fail(fmt.Errorf("%s.%s: want an integer, got %.40q", n.path, name, s))
		return 0
	}
	return i
}

// enum reads an enum written as its name or as its number; absent, it is
// the enum's zero value, names[0].
func (n node) enum(name string, names []string) string {
	v := n.get(name)
	switch v := v.(type) {
	case nil:
		return names[0]
	case string:
		return strings.ToUpper(v)
	case json.Number:
		if i, err := strconv.Atoi(string(v)); err == nil {
			if i >= 0 && i < len(names) {
				return names[i]
			}
			return strconv.Itoa(i)
		}
	}
	n.wrongType(name, "an enum name or number", v)
	return ""
}

// tabletTypes are the names of topodata.TabletType by number (proto/topodata.proto).
var tabletTypes = []string{"UNKNOWN", "PRIMARY", "REPLICA", "RDONLY", "SPARE", "EXPERIMENTAL", "BACKUP", "RESTORE", "DRAINED"}

// keyspaceTypes are the names of topodata.KeyspaceType by number.
var keyspaceTypes = []string{"NORMAL", "SNAPSHOT"}

// tabletType reads a TabletType. MASTER is the old name of PRIMARY (value 1)
// and BATCH an alias of RDONLY (value 3): they are read as the current names.
func (n node) tabletType(name string) string {
	switch t := n.enum(name, tabletTypes); t {
	case "MASTER":
		return "PRIMARY"
	case "BATCH":
		return "RDONLY"
	default:
		return t
	}
}

// keyRange reads a topodata.KeyRange, whose start and end are bytes in
// base64, and writes it as Vitess names shards (key.KeyRangeString): hex
// start, "-", hex end; "-" when the range is whole or absent.
func (n node) keyRange(name string) string {
	kr, _ := n.obj(name)
	start, end := kr.bytes("start"), kr.bytes("end")
	return hex.EncodeToString(start) + "-" + hex.EncodeToString(end)
}

// bytes reads a bytes field: base64, standard or URL-safe, padded or not,
// as protojson accepts.
func (n node) bytes(name string) []byte {
	s := n.str(name)
	if s == "" {
		return nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b
		}
	}
	n.d.fail(fmt.Errorf("%s.%s: %.40q is not base64", n.path, name, s))
	return nil
}

// alias reads a topodata.TabletAlias as Vitess prints it: "cell-0000000100".
func (n node) alias(name string) string {
	a, ok := n.obj(name)
	if !ok {
		return ""
	}
	cell, uid := a.str("cell"), a.int64("uid")
	return fmt.Sprintf("%s-%010d", cell, uid)
}
