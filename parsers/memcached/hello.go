package memcached

import (
	"bytes"
	"encoding/json"

	"forensics"
	"forensics/parsers/scan"
)

// Hello is a client's HELO: every SDK and service sends one on each new
// connection, naming itself (the SDK and its version) and the features it
// wants. memcached logs it at INFO with the connection's addresses, so it
// tells which clients open connections, and how many.
const Hello forensics.Kind = "memcached.hello"

var helloDoc = forensics.KindDoc{Kind: Hello, Category: forensics.CategoryRequest, Label: "client HELO",
	Doc: "a client opened its connection with HELO (daemon/protocol/mcbp/hello_packet_executor.cc: {id}: HELO [{agent}] {features} [ {peer} - {socket} ({user}) ] 7.x; " +
		"HELO {\"conn_id\",\"client\",\"features\",\"description\"} 8.0); agent is the name the client gives itself (the SDK and its version), client_ip its address",
	Attrs: attrs.Of(AttrAgent, AttrClientIP, AttrConnID, AttrPeer, AttrUser)}

// hello7 reads the 7.x line after "HELO ": the client's key in brackets when
// it sent one (JSON {"a":agent,"i":id} from the SDKs, else any text), the
// features, and the connection's description (daemon/connection.cc
// getDescription: "[ {peer} - {socket} ({user}) ]").
func (p *parser) hello7(l *line, r []byte, emit forensics.Emit) {
	d := bytes.LastIndex(r, []byte(" [ "))
	if d < 0 || !scan.HasSuffix(r, " ]") {
		return
	}
	head, desc := r[:d], r[d+3:len(r)-2]
	e := p.event(l, Hello)
	if len(head) > 0 && head[0] == '[' {
		if k := bytes.LastIndex(head, []byte("]")); k > 0 {
			e.Set(AttrAgent, agentName(head[1:k]))
		}
	}
	if i := bytes.Index(desc, []byte(" - ")); i > 0 {
		peer := desc[:i]
		e.Set(AttrPeer, l.txt.Str(peer))
		if ip := peerIP(peer); ip != "" {
			e.Set(AttrClientIP, ip)
		}
		rest := desc[i+3:]
		if j := bytes.Index(rest, []byte(" (")); j >= 0 {
			if user, ok := bytes.CutSuffix(rest[j+2:], []byte(")")); ok && string(user) != "not authenticated" {
				e.Set(AttrUser, l.txt.Str(user))
			}
		}
	}
	emit(e)
}

// hello8 reads the 8.0 form: {"conn_id"}, {"client":{"a","i"}} (or the
// key as {"a": …}), {"features"}, {"description":{"peer","socket","user"}}.
func (p *parser) hello8(l *line, c *lineContext, emit forensics.Emit) {
	e := p.event(l, Hello)
	var client struct {
		A string `json:"a"`
	}
	if json.Unmarshal(c.raw("client"), &client) == nil && client.A != "" {
		e.Set(AttrAgent, client.A)
	}
	var desc struct {
		Peer json.RawMessage `json:"peer"`
		User *struct {
			Name string `json:"name"`
		} `json:"user"`
	}
	if json.Unmarshal(c.raw("description"), &desc) == nil {
		if len(desc.Peer) > 0 {
			e.Set(AttrPeer, l.txt.Str(desc.Peer))
			if ip := peerIP(desc.Peer); ip != "" {
				e.Set(AttrClientIP, ip)
			}
		}
		if desc.User != nil && desc.User.Name != "" {
			e.Set(AttrUser, desc.User.Name)
		}
	}
	emit(e)
}

// agentName is the name a client gave in its HELO key: the "a" of the
// SDKs' JSON ({"a":"gocbcore/v10.3.1 gocb/v2.7.1","i":"…"}), else the key.
func agentName(key []byte) string {
	var k struct {
		A string `json:"a"`
	}
	if len(key) > 0 && key[0] == '{' && json.Unmarshal(key, &k) == nil && k.A != "" {
		return k.A
	}
	return string(key)
}

// peerIP is the address of a peer as memcached writes it: {"ip":…,"port":…}
// (7.x, 8.0), or ip:port before 7.0 ("[::1]:port" for IPv6).
func peerIP(peer []byte) string {
	var a struct {
		IP string `json:"ip"`
	}
	if len(peer) > 0 && peer[0] == '{' {
		if json.Unmarshal(peer, &a) == nil {
			return a.IP
		}
		return ""
	}
	i := bytes.LastIndexByte(peer, ':')
	if i <= 0 {
		return ""
	}
	if _, rest, ok := number(peer[i+1:]); !ok || len(rest) > 0 {
		return ""
	}
	return string(bytes.TrimSuffix(bytes.TrimPrefix(peer[:i], []byte("[")), []byte("]")))
}
