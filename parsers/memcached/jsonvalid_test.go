package memcached

import (
	"bytes"
	"encoding/json"
	"testing"
)

// validJSON agrees with encoding/json on every input, but for nesting
// deeper than it takes.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{
		`{"bucket":"default","cid":"10.0.0.1:4/a","duration":"630 ms","packet":{"key":"<ud>k</ud>","opaque":1},"peer":{"ip":"127.0.0.1","port":1}}`,
		`[1, 2.5e-3, -0, 1E+2, true, false, null, "\u00e9\n\"\\\/"]`, ` {} `, `[]`, `"x"`,
		`{"a":01}`, `{"a":"x`, `{"a":1,}`, `{"a" 1}`, `[1 2]`, `1.`, `-`, `.5`, `1e`, `"\u12"`, `"\x"`, "\"a\tb\"", `tru`, `nul`, `{"a":1}}`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if bytes.Count(b, []byte("{"))+bytes.Count(b, []byte("[")) >= maxJSONDepth {
			t.Skip()
		}
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func TestValidJSONDepth(t *testing.T) {
	deep := bytes.Repeat([]byte("["), maxJSONDepth+1)
	deep = append(deep, bytes.Repeat([]byte("]"), maxJSONDepth+1)...)
	if validJSON(deep) {
		t.Errorf("%d levels of nesting accepted", maxJSONDepth+1)
	}
	if !validJSON(deep[1 : len(deep)-1]) {
		t.Errorf("%d levels of nesting refused", maxJSONDepth)
	}
}

// The context of a 7.x slow operation, checked by validJSON and by
// encoding/json (the baseline).
func BenchmarkValidJSON(b *testing.B) {
	ctx := []byte(`{"bucket":"default","cid":"172.23.100.16:47599/60e6","command":"GET","duration":"630 ms","packet":{"bodylen":13,"cas":0,"datatype":"raw","extlen":0,"key":"<ud>key::864643</ud>","keylen":13,"magic":"ClientRequest","opaque":25629,"opcode":"GET","vbucket":869},"peer":{"ip":"127.0.0.1","port":53193},"response":"Success","trace":"request=965985344679762:1055552","worker_tid":139800541220046}`)
	for _, c := range []struct {
		name  string
		valid func([]byte) bool
	}{{"validJSON", validJSON}, {"json.Valid", json.Valid}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(ctx)))
			for b.Loop() {
				if !c.valid(ctx) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
