package forensics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// FindingSubject names what a finding is about: the fields every rule
// shares, which the store, the fleet's queries and every report read
// alike, and the details its rule declares (Rule.Details). The JSON is one
// flat object: the shared fields in the order below, then the details in
// the order the rule declares them, each left out when it is zero. The
// names are part of the output contract.
type FindingSubject struct {
	Node     string   `json:"node,omitempty"`     // the node the finding is about
	Bucket   string   `json:"bucket,omitempty"`   // Couchbase bucket
	VBuckets []int    `json:"vbuckets,omitempty"` // Couchbase vbuckets
	Range    int64    `json:"range,omitempty"`    // CockroachDB range id
	Keyspace string   `json:"keyspace,omitempty"` // Vitess keyspace
	Shards   []string `json:"shards,omitempty"`   // Vitess shards
	Tables   []string `json:"tables,omitempty"`   // Vitess tables
	Workflow string   `json:"workflow,omitempty"` // VReplication workflow
	Shard    string   `json:"shard,omitempty"`    // one Vitess shard
	Service  string   `json:"service,omitempty"`  // the component: a Couchbase service or process ("memcached")
	Reason   string   `json:"reason,omitempty"`   // why, in the system's own word ("stuck_rebalance")
	Nodes    []string `json:"nodes,omitempty"`    // the nodes, when the finding is about several

	// Details are the rule's own values, in the order its Rule.Details
	// declares them (the driver puts them in that order).
	Details Details `json:"-"`
}

// shared is FindingSubject without its methods, for the JSON of the
// shared fields.
type shared FindingSubject

// sharedKeys are the JSON names of the shared fields: no detail may take one.
var sharedKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[shared]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "-" {
			keys[name] = true
		}
	}
	return keys
}()

// MarshalJSON writes the shared fields, then the details. Strings are
// written with <, > and & as they are: an encoder that escapes HTML (as
// json.Marshal does) escapes them in what this returns, so the bytes are
// what a struct of these fields would give, with either setting.
func (s FindingSubject) MarshalJSON() ([]byte, error) {
	b, err := encodeJSON(shared(s))
	if err != nil {
		return nil, err
	}
	var tail bytes.Buffer
	for _, f := range s.Details {
		if isZero(f.Value) {
			continue
		}
		v, err := encodeJSON(f.Value)
		if err != nil {
			return nil, fmt.Errorf("subject detail %s: %w", f.Key, err)
		}
		k, _ := encodeJSON(f.Key)
		tail.WriteByte(',')
		tail.Write(k)
		tail.WriteByte(':')
		tail.Write(v)
	}
	if tail.Len() == 0 {
		return b, nil
	}
	b = b[:len(b)-1] // the shared fields' closing brace
	if len(b) == 1 {
		tail.Next(1) // no shared field: no comma before the first detail
	}
	b = append(b, tail.Bytes()...)
	return append(b, '}'), nil
}

// UnmarshalJSON reads the shared fields into theirs and every other key
// into a detail, in the order of the JSON: findings stored by any release
// read back, whatever rule wrote them. A detail's value is read as the
// types a rule sets (string, int64, []string, []int) where it is one of
// them, else as encoding/json reads it into an any.
func (s *FindingSubject) UnmarshalJSON(b []byte) error {
	var sh shared
	if err := json.Unmarshal(b, &sh); err != nil {
		return err
	}
	*s = FindingSubject(sh)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') { // null
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if !sharedKeys[key] {
			s.Details = append(s.Details, Field{Key: key, Value: detailValue(v)})
		}
	}
	return nil
}

// detailValue turns what encoding/json read (with UseNumber) into the
// type a rule would have set.
func detailValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		return v
	case []any:
		strs, ints := make([]string, 0, len(v)), make([]int, 0, len(v))
		for _, x := range v {
			switch x := x.(type) {
			case string:
				strs = append(strs, x)
			case json.Number:
				if n, err := strconv.Atoi(x.String()); err == nil {
					ints = append(ints, n)
				}
			}
		}
		switch {
		case len(strs) == len(v):
			return strs
		case len(ints) == len(v):
			return ints
		}
	}
	return v
}

func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// isZero reports a value the JSON leaves out, as omitempty would.
func isZero(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Slice, reflect.Map, reflect.String:
		return r.Len() == 0
	}
	return r.IsZero()
}

// Detail declares a value a rule adds to its findings' subject, beyond the
// shared fields: its name, its type, and how reports show and redact it.
// A declaration is plain data, so rules written as data declare theirs the
// same way.
type Detail struct {
	Key  string     // the JSON name, snake_case: a promise to users' scripts
	Type DetailType // what the value is
	Doc  string     // what it says, in a few words ("the offset the node allowed, as logged")

	// Label names the value in a subject's line ("max offset"); empty: the
	// key, with spaces for underscores.
	Label string
	// Join goes between the items of a list in a subject's line; empty: ",".
	Join string
	// Show says where a report shows the value; empty: in the subject's line.
	Show Show
	// Redact is the kind of name the value is, for redacted extracts: the
	// redactor gives each name of the value a pseudonym of that kind, in
	// every file. Empty: the value is text like a log line's, in which the
	// names and addresses the redactor knows are replaced.
	Redact NameKind
}

// DetailType is the type of a detail's value.
type DetailType string

const (
	DetailText DetailType = "text" // a string, as logged
	DetailInt  DetailType = "int"  // an int64
	DetailList DetailType = "list" // a []string
	DetailInts DetailType = "ints" // a []int
)

// Show is where a report shows a detail.
type Show string

const (
	// ShowInLine shows the detail in the subject's line: "label value".
	ShowInLine Show = ""
	// ShowApart leaves the detail out of the subject's line and shows it
	// where a format has room for it: a line of its own in a Markdown
	// finding, its items as code (DCP connection names).
	ShowApart Show = "apart"
)

// NameKind is a kind of name a redacted extract replaces by pseudonyms.
type NameKind string

const (
	NameBucket   NameKind = "bucket"
	NameKeyspace NameKind = "keyspace"
	NameTable    NameKind = "table"
	NameWorkflow NameKind = "workflow"
	NameHost     NameKind = "host"
)

// NameKinds are the kinds of names a redacted extract replaces, in the
// order it gives them pseudonyms.
var NameKinds = []NameKind{NameWorkflow, NameKeyspace, NameTable, NameBucket, NameHost}

// Text sets the detail to a string.
func (d Detail) Text(v string) Field { return Field{Key: d.Key, Value: v} }

// Int sets the detail to a number.
func (d Detail) Int(v int64) Field { return Field{Key: d.Key, Value: v} }

// List sets the detail to a list of strings.
func (d Detail) List(v []string) Field { return Field{Key: d.Key, Value: v} }

// Ints sets the detail to a list of numbers.
func (d Detail) Ints(v []int) Field { return Field{Key: d.Key, Value: v} }

// LabelText is how a subject's line names the detail.
func (d Detail) LabelText() string {
	if d.Label != "" {
		return d.Label
	}
	return strings.ReplaceAll(d.Key, "_", " ")
}

// Field is one detail's value in a finding's subject.
type Field struct {
	Key   string
	Value any // string, int64, []string or []int, as the detail's Type says
}

// Details are the values of a finding's details.
type Details []Field

// Get returns the value of the detail key, or nil.
func (ds Details) Get(key string) any {
	for _, f := range ds {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// Text returns the detail key's string, or "".
func (ds Details) Text(key string) string { s, _ := ds.Get(key).(string); return s }

// Int returns the detail key's number, or 0.
func (ds Details) Int(key string) int64 { n, _ := ds.Get(key).(int64); return n }

// List returns the detail key's list of strings, or nil.
func (ds Details) List(key string) []string { l, _ := ds.Get(key).([]string); return l }

// Ints returns the detail key's list of numbers, or nil.
func (ds Details) Ints(key string) []int { l, _ := ds.Get(key).([]int); return l }

// Set sets a detail, replacing its earlier value.
func (ds *Details) Set(f Field) {
	for i := range *ds {
		if (*ds)[i].Key == f.Key {
			(*ds)[i] = f
			return
		}
	}
	*ds = append(*ds, f)
}

// CheckDetails checks a rule's declaration of its details: each has a
// snake_case key that no shared field and no other detail has, a known
// type, place and kind of name.
func CheckDetails(ds []Detail) error {
	seen := map[string]bool{}
	for _, d := range ds {
		switch {
		case !snakeCase(d.Key):
			return fmt.Errorf("subject detail %q: the key must be snake_case (a-z, 0-9 and _, starting with a letter)", d.Key)
		case sharedKeys[d.Key]:
			return fmt.Errorf("subject detail %q: a shared field of every finding's subject has that name", d.Key)
		case seen[d.Key]:
			return fmt.Errorf("subject detail %q is declared twice", d.Key)
		case !slices.Contains([]DetailType{DetailText, DetailInt, DetailList, DetailInts}, d.Type):
			return fmt.Errorf("subject detail %q: unknown type %q (want text, int, list or ints)", d.Key, d.Type)
		case d.Show != ShowInLine && d.Show != ShowApart:
			return fmt.Errorf("subject detail %q: unknown place %q (want %q or none)", d.Key, d.Show, ShowApart)
		case d.Redact != "" && !slices.Contains(NameKinds, d.Redact):
			return fmt.Errorf("subject detail %q: unknown kind of name %q", d.Key, d.Redact)
		}
		seen[d.Key] = true
	}
	return nil
}

func snakeCase(s string) bool {
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '_')) {
			return false
		}
	}
	return s != ""
}

// Conform checks the subject's details against the rule's declaration and
// puts them in its order: every detail declared, each value of its
// declared type (an int read as an int64). The driver calls it on every
// finding, as the pass checks the kinds a rule reads.
func (s *FindingSubject) Conform(decl []Detail) error {
	index := make(map[string]int, len(decl))
	for i, d := range decl {
		index[d.Key] = i
	}
	for i, f := range s.Details {
		at, ok := index[f.Key]
		if !ok {
			return fmt.Errorf("sets subject detail %q, which the rule does not declare in its Details", f.Key)
		}
		v, ok := ofType(f.Value, decl[at].Type)
		if !ok {
			return fmt.Errorf("sets subject detail %q to a %T, but the rule declares it %s", f.Key, f.Value, decl[at].Type)
		}
		s.Details[i].Value = v
	}
	slices.SortStableFunc(s.Details, func(a, b Field) int { return index[a.Key] - index[b.Key] })
	return nil
}

func ofType(v any, t DetailType) (any, bool) {
	switch v := v.(type) {
	case string:
		return v, t == DetailText
	case int:
		return int64(v), t == DetailInt
	case int64:
		return v, t == DetailInt
	case []string:
		return v, t == DetailList
	case []int:
		return v, t == DetailInts
	}
	return v, false
}
