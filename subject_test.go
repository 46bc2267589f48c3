package forensics

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// releasedSubject is FindingSubject as releases before the details wrote
// it: one struct of every rule's fields. Stored findings and users'
// scripts hold its JSON, and finding ids hash it.
type releasedSubject struct {
	Node       string   `json:"node,omitempty"`
	Bucket     string   `json:"bucket,omitempty"`
	VBuckets   []int    `json:"vbuckets,omitempty"`
	Consumers  []string `json:"consumers,omitempty"`
	Range      int64    `json:"range,omitempty"`
	Replicas   []string `json:"replicas,omitempty"`
	Redirects  int      `json:"redirects,omitempty"`
	Keyspace   string   `json:"keyspace,omitempty"`
	Shards     []string `json:"shards,omitempty"`
	Tables     []string `json:"tables,omitempty"`
	Workflow   string   `json:"workflow,omitempty"`
	Offset     string   `json:"offset,omitempty"`
	MaxOffset  string   `json:"max_offset,omitempty"`
	Store      string   `json:"store,omitempty"`
	Window     string   `json:"window,omitempty"`
	Down       []string `json:"down,omitempty"`
	Shard      string   `json:"shard,omitempty"`
	OldPrimary string   `json:"old_primary,omitempty"`
	NewPrimary string   `json:"new_primary,omitempty"`
	Stream     int64    `json:"stream,omitempty"`
	Service    string   `json:"service,omitempty"`
	PID        int64    `json:"pid,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Nodes      []string `json:"nodes,omitempty"`
	Consumer   string   `json:"consumer,omitempty"`
	Path       string   `json:"path,omitempty"`
	SkewText   string   `json:"skew,omitempty"`
}

// The subjects each rule wrote before the details, as the rule sets them
// now: the shared fields, and the details in the order the rule declares
// them.
var releasedSubjects = []struct {
	old releasedSubject
	new FindingSubject
}{
	{ // kv-stream-before-traffic
		releasedSubject{Node: "ns_1@10.0.0.1", Bucket: "travel-sample", VBuckets: []int{1, 2}, Consumers: []string{"secidx:proj-travel-sample-MAINT_STREAM_TOPIC_a/1", "<&>"}},
		FindingSubject{Node: "ns_1@10.0.0.1", Bucket: "travel-sample", VBuckets: []int{1, 2}, Details: Details{{"consumers", []string{"secidx:proj-travel-sample-MAINT_STREAM_TOPIC_a/1", "<&>"}}}},
	},
	{ // crdb-nlhe-ping-pong
		releasedSubject{Range: 57, Replicas: []string{"(n1,s1):1", "(n2,s2):3"}, Redirects: 6},
		FindingSubject{Range: 57, Details: Details{{"replicas", []string{"(n1,s1):1", "(n2,s2):3"}}, {"redirects", int64(6)}}},
	},
	{ // vitess-denied-tables
		releasedSubject{Keyspace: "customer", Shards: []string{"-80", "80-"}, Tables: []string{"corder", "customer"}, Workflow: "commerce2customer"},
		FindingSubject{Keyspace: "customer", Shards: []string{"-80", "80-"}, Tables: []string{"corder", "customer"}, Workflow: "commerce2customer"},
	},
	{ // cb-oom-kill
		releasedSubject{Node: "ns_1@10.0.0.2", Service: "memcached", PID: 4242},
		FindingSubject{Node: "ns_1@10.0.0.2", Service: "memcached", Details: Details{{"pid", int64(4242)}}},
	},
	{ // cb-auto-failover
		releasedSubject{Node: "ns_1@a", Nodes: []string{"ns_1@a", "ns_1@b"}, Reason: "the node's data service was unresponsive"},
		FindingSubject{Node: "ns_1@a", Reason: "the node's data service was unresponsive", Nodes: []string{"ns_1@a", "ns_1@b"}},
	},
	{ // cb-rebalance-failed
		releasedSubject{Reason: "buckets_shutdown_wait_failed", Nodes: []string{"ns_1@a"}, Bucket: "beer"},
		FindingSubject{Bucket: "beer", Reason: "buckets_shutdown_wait_failed", Nodes: []string{"ns_1@a"}},
	},
	{ // cb-dcp-rollback-to-zero
		releasedSubject{Node: "ns_1@a", Bucket: "b", Consumer: "eq_dcpq:x", VBuckets: []int{3}, Consumers: []string{"eq_dcpq:x"}},
		FindingSubject{Node: "ns_1@a", Bucket: "b", VBuckets: []int{3}, Details: Details{{"consumers", []string{"eq_dcpq:x"}}, {"consumer", "eq_dcpq:x"}}},
	},
	{ // cb-disk-full
		releasedSubject{Node: "ns_1@a", Path: "/opt/couchbase/var/lib/couchbase/data", Bucket: "b"},
		FindingSubject{Node: "ns_1@a", Bucket: "b", Details: Details{{"path", "/opt/couchbase/var/lib/couchbase/data"}}},
	},
	{ // cb-clock-skew
		releasedSubject{Nodes: []string{"ns_1@a", "ns_1@b"}, SkewText: "3.2s"},
		FindingSubject{Nodes: []string{"ns_1@a", "ns_1@b"}, Details: Details{{"skew", "3.2s"}}},
	},
	{ // cb-clock-skew, one node
		releasedSubject{Node: "ns_1@a", Nodes: []string{"ns_1@a"}, SkewText: "1m0s", Bucket: "b"},
		FindingSubject{Node: "ns_1@a", Bucket: "b", Nodes: []string{"ns_1@a"}, Details: Details{{"skew", "1m0s"}}},
	},
	{ // crdb-clock-offset
		releasedSubject{Node: "n3", Offset: "612ms", MaxOffset: "500ms"},
		FindingSubject{Node: "n3", Details: Details{{"offset", "612ms"}, {"max_offset", "500ms"}}},
	},
	{ // crdb-disk-stall
		releasedSubject{Node: "n1", Store: "s1"},
		FindingSubject{Node: "n1", Details: Details{{"store", "s1"}}},
	},
	{ // crdb-liveness-lost
		releasedSubject{Node: "n2", Window: "2024-01-01T00:00:00Z/2024-01-01T00:01:00Z"},
		FindingSubject{Node: "n2", Details: Details{{"window", "2024-01-01T00:00:00Z/2024-01-01T00:01:00Z"}}},
	},
	{ // crdb-range-unavailable
		releasedSubject{Range: 42, Replicas: []string{"(n1,s1):1"}, Down: []string{"(n3,s3):5"}},
		FindingSubject{Range: 42, Details: Details{{"replicas", []string{"(n1,s1):1"}}, {"down", []string{"(n3,s3):5"}}}},
	},
	{ // vitess-reparent-failed
		releasedSubject{Keyspace: "commerce", Shard: "0", OldPrimary: "zone1-0000000100", NewPrimary: "zone1-0000000101"},
		FindingSubject{Keyspace: "commerce", Shard: "0", Details: Details{{"old_primary", "zone1-0000000100"}, {"new_primary", "zone1-0000000101"}}},
	},
	{ // vitess-vreplication-error
		releasedSubject{Workflow: "commerce2customer", Keyspace: "customer", Shard: "-80", Stream: 3},
		FindingSubject{Keyspace: "customer", Workflow: "commerce2customer", Shard: "-80", Details: Details{{"stream", int64(3)}}},
	},
	{ // vitess-orphan-tablet-controls
		releasedSubject{Keyspace: "customer", Shards: []string{"-80"}, Tables: []string{"a"}},
		FindingSubject{Keyspace: "customer", Shards: []string{"-80"}, Tables: []string{"a"}},
	},
	{releasedSubject{}, FindingSubject{}},
	{releasedSubject{Node: "n<1>&"}, FindingSubject{Node: "n<1>&", Details: Details{{"path", ""}, {"pid", int64(0)}}}},
}

func encodings(t *testing.T, v any) (escaped, plain []byte) {
	t.Helper()
	escaped, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return escaped, buf.Bytes()
}

// Every rule's subject writes the JSON of the releases before the
// details, to the byte, with and without HTML escaping, so its finding
// keeps its id; the JSON they wrote reads back into the same subject.
func TestSubjectJSONAsReleased(t *testing.T) {
	t0 := time.Date(2022, 7, 22, 0, 0, 0, 0, time.UTC)
	for _, c := range releasedSubjects {
		wantEsc, wantPlain := encodings(t, c.old)
		gotEsc, gotPlain := encodings(t, c.new)
		if !bytes.Equal(gotEsc, wantEsc) {
			t.Errorf("json.Marshal:\n got %s\nwant %s", gotEsc, wantEsc)
		}
		if !bytes.Equal(gotPlain, wantPlain) {
			t.Errorf("indented, HTML as is:\n got %s\nwant %s", gotPlain, wantPlain)
		}
		f := Finding{Rule: "r", Subject: c.new, Start: t0}
		h := releasedID("r", wantEsc, t0)
		if got := f.Fingerprint(); got != h {
			t.Errorf("%s: id %s, want %s as released", wantEsc, got, h)
		}
		var back FindingSubject
		if err := json.Unmarshal(wantEsc, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(again, wantEsc) {
			t.Errorf("read back and written again:\n got %s\nwant %s", again, wantEsc)
		}
		want := c.new
		var kept Details
		for _, f := range want.Details {
			if !isZero(f.Value) {
				kept = append(kept, f)
			}
		}
		want.Details = kept
		if !reflect.DeepEqual(back, want) {
			t.Errorf("read back %#v, want %#v", back, want)
		}
	}
}

// releasedID is a finding's id as releases before the details derived it:
// the rule, the subject's JSON and the start time, hashed.
func releasedID(rule string, subject []byte, start time.Time) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d", rule, subject, start.UnixNano())
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// A detail's value reads back as the type a rule sets; one of another
// shape (written by a later release) reads back as JSON reads it, and is
// written again the same.
func TestSubjectDetailsReadBack(t *testing.T) {
	in := `{"node":"n1","pid":7,"ratio":0.5,"vbs":[1,2],"names":["a","b"],"mixed":[1,"a"],"obj":{"a":1},"none":null}`
	var s FindingSubject
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if s.Node != "n1" || s.Details.Int("pid") != 7 || !reflect.DeepEqual(s.Details.Ints("vbs"), []int{1, 2}) ||
		!reflect.DeepEqual(s.Details.List("names"), []string{"a", "b"}) {
		t.Errorf("read %#v", s)
	}
	out, _ := json.Marshal(s)
	if want := strings.Replace(in, `,"none":null`, "", 1); string(out) != want {
		t.Errorf("written again %s, want %s", out, want)
	}
	var null FindingSubject
	if err := json.Unmarshal([]byte(`null`), &null); err != nil || !reflect.DeepEqual(null, FindingSubject{}) {
		t.Errorf("null read as %#v, %v", null, err)
	}
}

// The driver puts details in the order the rule declares them and refuses
// one it does not declare or of another type.
func TestSubjectConform(t *testing.T) {
	off := Detail{Key: "offset", Type: DetailText}
	max := Detail{Key: "max_offset", Type: DetailText}
	n := Detail{Key: "count", Type: DetailInt}
	decl := []Detail{off, max, n}
	s := FindingSubject{Node: "n1", Details: Details{max.Text("500ms"), {Key: "count", Value: 3}, off.Text("612ms")}}
	if err := s.Conform(decl); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	if want := `{"node":"n1","offset":"612ms","max_offset":"500ms","count":3}`; string(b) != want {
		t.Errorf("conformed subject %s, want %s", b, want)
	}
	if s.Details.Int("count") != 3 {
		t.Errorf("an int set as int reads %v", s.Details.Get("count"))
	}
	bad := FindingSubject{Details: Details{{Key: "skew", Value: "1s"}}}
	if err := bad.Conform(decl); err == nil || !strings.Contains(err.Error(), `"skew"`) {
		t.Errorf("undeclared detail: %v", err)
	}
	bad = FindingSubject{Details: Details{{Key: "count", Value: "3"}}}
	if err := bad.Conform(decl); err == nil || !strings.Contains(err.Error(), "int") {
		t.Errorf("detail of another type: %v", err)
	}
}

// A declaration names each detail once, in snake_case, apart from the
// shared fields, with a known type, place and kind of name.
func TestCheckDetails(t *testing.T) {
	good := []Detail{{Key: "max_offset", Type: DetailText, Label: "max offset"}, {Key: "down", Type: DetailList, Join: " "},
		{Key: "consumers", Type: DetailList, Show: ShowApart}, {Key: "old_primary", Type: DetailText, Redact: NameHost}}
	if err := CheckDetails(good); err != nil {
		t.Errorf("good declaration: %v", err)
	}
	for _, bad := range [][]Detail{
		{{Key: "MaxOffset", Type: DetailText}},
		{{Key: "", Type: DetailText}},
		{{Key: "node", Type: DetailText}},
		{{Key: "nodes", Type: DetailList}},
		{{Key: "a", Type: DetailText}, {Key: "a", Type: DetailInt}},
		{{Key: "a", Type: "float"}},
		{{Key: "a", Type: DetailText, Show: "margin"}},
		{{Key: "a", Type: DetailText, Redact: "password"}},
	} {
		if err := CheckDetails(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if got := (Detail{Key: "old_primary"}).LabelText(); got != "old primary" {
		t.Errorf("label %q", got)
	}
}
