// Package cbaudit reads Couchbase's audit log, audit.log: one JSON object a
// line, written by the audit daemon in memcached (kv_engine auditd) for the
// audited actions of every service. A record has at least "timestamp", "id",
// "name" and "description" (the audit event descriptors of each service), and
// most have "real_userid", the client's address and the bucket.
//
// Every record is an event: who did what, when, on which node. The node is
// the cbcollect_info folder's; a record does not name the node it was
// written on.
package cbaudit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"forensics"
	"forensics/parsers/jsonrec"
)

// Record is an audited action.
const Record forensics.Kind = "cbaudit.record"

// Format reads audit.log and its rotated files
// (<host>-<time>-audit.log).
var Format = forensics.Format{
	Name:      "cbaudit",
	Component: "audit",
	Detect:    detect,
	New:       newParser,
	Kinds: []forensics.KindDoc{
		{Kind: Record, Category: forensics.CategoryOther, Label: "audited action", Doc: "an action the audit log recorded: its id, name and description, who did it and from where (kv_engine auditd; the audit descriptors of each service)", Attrs: attrs.Of(AttrDescription, AttrID, AttrName, AttrRemote, AttrUser)},
	},
}

// record is the part of an audit record that is read.
type record struct {
	Timestamp   string          `json:"timestamp"`
	ID          json.Number     `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Bucket      string          `json:"bucket"`
	RealUserID  *userID         `json:"real_userid"`
	Remote      json.RawMessage `json:"remote"`
	Peername    string          `json:"peername"`
}

type userID struct {
	Domain string `json:"domain"`
	User   string `json:"user"`
}

// records names audit records in the errors of their lines.
var records = jsonrec.New("audit record", "id")

func (r *record) Stamp() string       { return r.Timestamp }
func (r *record) Number() json.Number { return r.ID }

type parser struct {
	ev forensics.Event
}

func newParser(forensics.Origin) forensics.Parser { return &parser{} }

func (p *parser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	obj, ok := jsonrec.Object(text)
	if !ok {
		return forensics.Stamp{}, nil
	}
	var r record
	st, id, err := records.Read(obj, &r)
	if err != nil {
		return st, err
	}
	ev := &p.ev
	ev.Reset()
	ev.Kind = Record
	ev.Stamp = st
	ev.Line = n
	ev.Text = string(text)
	ev.Bucket = r.Bucket
	ev.Set(AttrID, strconv.Itoa(id))
	set(ev, AttrName, r.Name)
	set(ev, AttrDescription, r.Description)
	if u := r.RealUserID; u != nil && (u.Domain != "" || u.User != "") {
		ev.Set(AttrUser, u.Domain+":"+u.User)
	}
	set(ev, AttrRemote, remote(r.Remote, r.Peername))
	emit(ev)
	return st, nil
}

func (p *parser) End(forensics.Emit) error { return nil }

func set(ev *forensics.Event, k forensics.AttrKey, v string) {
	if v != "" {
		ev.Set(k, v)
	}
}

// remote is the client's address: memcached's records have "peername"
// ("127.0.0.1:56021"), ns_server's and the query service's "remote" as
// {"ip": …, "port": …}.
func remote(raw json.RawMessage, peername string) string {
	if peername != "" {
		return peername
	}
	var r struct {
		IP   string      `json:"ip"`
		Port json.Number `json:"port"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &r) != nil || r.IP == "" {
		return ""
	}
	if r.Port == "" {
		return r.IP
	}
	return r.IP + ":" + r.Port.String()
}

// detect claims a file whose first line is an audit record, surer when it
// is named as auditd names its files.
func detect(name string, head []byte) int {
	line := head
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		line = head[:i]
	}
	obj, ok := jsonrec.Object(line)
	if !ok {
		return 0
	}
	var r record
	if _, _, err := records.Read(obj, &r); err != nil || r.Name == "" && r.Description == "" {
		return 0
	}
	base := strings.TrimSuffix(name, ".gz")
	if base == "audit.log" || strings.HasSuffix(base, "-audit.log") || strings.HasPrefix(base, "audit.log.") {
		return 95
	}
	return 70
}
