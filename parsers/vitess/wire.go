package vitess

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

// entries reads a JSON object whose keys are data (cells, shard keys), not
// field names.
func entries(v any, path string) (map[string]any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return v, nil
	}
	return nil, typeError(path, "an object", v)
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

func (o object) str(name, path string) (string, error) {
	switch v := o.get(name).(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", typeError(path+"."+name, "a string", v)
	}
}

func (o object) strs(name, path string) ([]string, error) {
	l, err := o.list(name, path)
	if err != nil {
		return nil, typeError(path+"."+name, "a list of strings", o.get(name))
	}
	if l == nil {
		return nil, nil
	}
	out := make([]string, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, typeError(path+"."+name, "a list of strings", o.get(name))
		}
		out[i] = s
	}
	return out, nil
}

func (o object) boolean(name, path string) (bool, error) {
	switch v := o.get(name).(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	default:
		return false, typeError(path+"."+name, "a boolean", v)
	}
}

// int64 reads an integer written as a number or, as protojson writes
// int64 and uint64, as a string.
func (o object) int64(name, path string) (int64, error) {
	var s string
	switch v := o.get(name).(type) {
	case nil:
		return 0, nil
	case json.Number:
		s = string(v)
	case string:
		s = v
	default:
		return 0, typeError(path+"."+name, "an integer", v)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s.%s: want an integer, got %.40q", path, name, s)
	}
	return n, nil
}

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

// enum reads an enum written as its name or as its number.
func (o object) enum(name, path string, names []string) (string, error) {
	switch v := o.get(name).(type) {
	case nil:
		return names[0], nil
	case string:
		return strings.ToUpper(v), nil
	case json.Number:
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return "", typeError(path+"."+name, "an enum name or number", v)
		}
		if n >= 0 && n < len(names) {
			return names[n], nil
		}
		return strconv.Itoa(n), nil
	default:
		return "", typeError(path+"."+name, "an enum name or number", v)
	}
}

// tabletTypes are the names of topodata.TabletType by number (proto/topodata.proto).
var tabletTypes = []string{"UNKNOWN", "PRIMARY", "REPLICA", "RDONLY", "SPARE", "EXPERIMENTAL", "BACKUP", "RESTORE", "DRAINED"}

// keyspaceTypes are the names of topodata.KeyspaceType by number.
var keyspaceTypes = []string{"NORMAL", "SNAPSHOT"}

// tabletType reads a TabletType. MASTER is the old name of PRIMARY (value 1)
// and BATCH an alias of RDONLY (value 3): they are read as the current names.
func (o object) tabletType(name, path string) (string, error) {
	t, err := o.enum(name, path, tabletTypes)
	switch t {
	case "MASTER":
		t = "PRIMARY"
	case "BATCH":
		t = "RDONLY"
	}
	return t, err
}

// keyRange reads a topodata.KeyRange, whose start and end are bytes in
// base64, and writes it as Vitess names shards (key.KeyRangeString): hex
// start, "-", hex end; "-" when the range is whole or absent.
func (o object) keyRange(name, path string) (string, error) {
	kr, ok, err := fields(o.get(name), path+"."+name)
	if err != nil || !ok {
		return "-", err
	}
	start, err := kr.bytes("start", path+"."+name)
	if err != nil {
		return "", err
	}
	end, err := kr.bytes("end", path+"."+name)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(start) + "-" + hex.EncodeToString(end), nil
}

// bytes reads a bytes field: base64, standard or URL-safe, padded or not,
// as protojson accepts.
func (o object) bytes(name, path string) ([]byte, error) {
	s, err := o.str(name, path)
	if err != nil || s == "" {
		return nil, err
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s.%s: %.40q is not base64", path, name, s)
}

// alias reads a topodata.TabletAlias as Vitess prints it: "cell-0000000100".
func (o object) alias(name, path string) (string, error) {
	a, ok, err := fields(o.get(name), path+"."+name)
	if err != nil || !ok {
		return "", err
	}
	cell, err := a.str("cell", path+"."+name)
	if err != nil {
		return "", err
	}
	uid, err := a.int64("uid", path+"."+name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%010d", cell, uid), nil
}
