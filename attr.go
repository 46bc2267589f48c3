package forensics

import "fmt"

// AttrKey is the name of an event attribute as it is stored ("rollback_seqno").
// A parser package declares each key it sets as a constant of this type in its
// attrs.go, documents it there in an AttrDocs, and lists on each KindDoc the
// keys the kind carries; code writes and reads keys only by those constants.
// Keys are stored with every event (the JSON attrs, --sql), so a key, once
// written, never changes.
type AttrKey string

// AttrType says how an attribute's values are spelled, for a user writing a
// query or a rule reading them.
type AttrType string

const (
	AttrText     AttrType = "text"     // words as logged
	AttrInt      AttrType = "int"      // a decimal integer
	AttrHex      AttrType = "hex"      // a hexadecimal number as logged
	AttrNumber   AttrType = "number"   // a decimal number that may have a fraction; the key or its meaning names the unit
	AttrDuration AttrType = "duration" // a duration as logged: "1.5s", "250ms", "1m2.3s"
	AttrBool     AttrType = "bool"     // true or false
	AttrList     AttrType = "list"     // several values, comma-separated
	AttrTime     AttrType = "time"     // an instant as logged
	AttrJSON     AttrType = "json"     // a JSON document
)

// AttrDoc declares one attribute key: its name, how its values are spelled
// and what it holds.
type AttrDoc struct {
	Key  AttrKey
	Type AttrType
	Doc  string
}

// AttrDocs is the declaration of a parser package's keys, each documented
// once; a kind's doc lists the ones it carries with Of.
type AttrDocs []AttrDoc

// Of returns the declarations of keys, in the order given. A key the list
// does not declare is a mistake in the parser package, so Of panics, which
// every test of the package shows at once.
func (d AttrDocs) Of(keys ...AttrKey) []AttrDoc {
	out := make([]AttrDoc, len(keys))
next:
	for i, k := range keys {
		for _, a := range d {
			if a.Key == k {
				out[i] = a
				continue next
			}
		}
		panic(fmt.Sprintf("attribute key %q is not declared", k))
	}
	return out
}

// NewAttr returns an attribute of key with value, for the parsers that build
// attribute lists before they have an event.
func NewAttr(key AttrKey, value string) Attr {
	return Attr{Key: string(key), Value: value}
}
