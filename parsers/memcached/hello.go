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
// getDescription: "[ {peer} - {socket} ({user}) ]"). Every new connection
// logs one, so the values are cut from the line, not decoded.
func (p *parser) hello7(l *line, r []byte, emit forensics.Emit) {
	d := bytes.LastIndex(r, []byte(" [ "))
	if d < 0 || !scan.HasSuffix(r, " ]") || d+3 > len(r)-2 {
		return // no description, or " [ ]" whose brackets share their space
	}
	head, desc := r[:d], r[d+3:len(r)-2]
	e := p.event(l, Hello)
	if len(head) > 0 && head[0] == '[' {
		if k := bytes.LastIndexByte(head, ']'); k > 0 {
			key := head[1:k]
			if a, ok := jsonString(key, `"a":"`); ok && key[0] == '{' {
				key = a
			}
			setText(e, l, AttrAgent, key)
		}
	}
	if i := bytes.Index(desc, []byte(" - ")); i > 0 {
		peer := desc[:i]
		e.Set(AttrPeer, l.txt.Str(peer))
		if ip := peerIP(peer); len(ip) > 0 {
			e.Set(AttrClientIP, l.txt.Str(ip))
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
	if a, ok := jsonString(c.raw("client"), `"a":"`); ok {
		setText(e, l, AttrAgent, a)
	}
	desc := c.raw("description")
	if peer, ok := jsonObject(desc, `"peer":`); ok {
		e.Set(AttrPeer, l.txt.Str(peer))
		if ip := peerIP(peer); len(ip) > 0 {
			e.Set(AttrClientIP, l.txt.Str(ip))
		}
	}
	if user, ok := jsonObject(desc, `"user":`); ok {
		if name, ok := jsonString(user, `"name":"`); ok {
			setText(e, l, AttrUser, name)
		}
	}
	emit(e)
}

// setText sets key to b, a JSON string's body cut from the line: as it is
// when it holds no escape, else decoded.
func setText(e *forensics.Event, l *line, key forensics.AttrKey, b []byte) {
	if bytes.IndexByte(b, '\\') < 0 {
		e.Set(key, l.txt.Str(b))
		return
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, b...), '"'), &s) == nil {
		e.Set(key, s)
	}
}

// jsonString returns the body of the string that follows member (`"a":"`)
// in the JSON object obj, escapes left as they are.
func jsonString(obj []byte, member string) ([]byte, bool) {
	at := memberEnd(obj, member)
	if at < 0 {
		return nil, false
	}
	v := obj[at-1:] // from the opening quote
	end := stringEnd(v, 0)
	if end < 2 || v[end-1] != '"' {
		return nil, false
	}
	return v[1 : end-1], true
}

// jsonObject returns the object that follows member (`"peer":`) in obj.
func jsonObject(obj []byte, member string) ([]byte, bool) {
	at := memberEnd(obj, member)
	if at < 0 {
		return nil, false
	}
	v := obj[at:]
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	v = v[:valueEnd(v, 0)]
	if !validJSON(v) {
		return nil, false
	}
	return v, true
}

// memberEnd returns where member ends in the JSON object obj, -1 when obj
// is not an object or does not hold it.
func memberEnd(obj []byte, member string) int {
	if len(obj) == 0 || obj[0] != '{' {
		return -1
	}
	i := bytes.Index(obj, []byte(member))
	if i < 0 {
		return -1
	}
	return i + len(member)
}

// peerIP is the address of a peer as memcached writes it: {"ip":…,"port":…}
// (7.x, 8.0), or ip:port before 7.0 ("[::1]:port" for IPv6).
func peerIP(peer []byte) []byte {
	if len(peer) > 0 && peer[0] == '{' {
		ip, _ := jsonString(peer, `"ip":"`)
		return ip
	}
	i := bytes.LastIndexByte(peer, ':')
	if i <= 0 {
		return nil
	}
	if _, rest, ok := number(peer[i+1:]); !ok || len(rest) > 0 {
		return nil
	}
	return bytes.TrimSuffix(bytes.TrimPrefix(peer[:i], []byte("[")), []byte("]"))
}
