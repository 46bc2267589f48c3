package memcached

import (
	"bytes"
	"strconv"

	"forensics"
	"forensics/parsers/scan"
)

// Kinds of what the data service's front end logs about the requests and
// connections it serves.
const (
	SlowOp       forensics.Kind = "memcached.slow_op"
	ConnRejected forensics.Kind = "memcached.conn_rejected"
)

var (
	slowOpDoc = forensics.KindDoc{Kind: SlowOp, Category: forensics.CategoryRequest, Label: "slow operation",
		Doc: "a request took longer than its opcode's slow threshold (500 ms by default; daemon/cookie.cc maybeLogSlowCommand: " +
			"Slow operation. {…} 7.0, Slow operation: {…} 7.1–7.6, Slow operation {…} 8.0); opcode, duration as logged and duration_ms, status",
		Attrs: attrs.Of(AttrConnID, AttrDuration, AttrDurationMS, AttrOpcode, AttrPeer, AttrStatus)}
	connRejectedDoc = forensics.KindDoc{Kind: ConnRejected, Category: forensics.CategoryError, Label: "connection refused: limit reached",
		Doc: "memcached closed a new client connection because the user or system connections were at their limit " +
			"(daemon/server_socket.cc: Shutting down client as we're running out of connections); connections and limit as logged, " +
			"failures since the first one (8.0.2+, which logs once a minute)",
		Attrs: attrs.Of(AttrConnType, AttrConnections, AttrFailures, AttrLimit)}
)

// slowOp reads the 7.x forms of daemon/cookie.cc's slow command, after the
// connection id:
//
//	{id}: Slow operation. {"cid":"{}/{:x}","duration":"{}","trace":"{}","command":"{}","peer":"{}","bucket":"{}","packet":{}}   7.0, built by hand (not always JSON)
//	{id}: Slow operation: {json}                                                                                                7.1–7.6, nlohmann::json
//
// The members are read by name from the object, whatever their order.
func (p *parser) slowOp(l *line, r []byte, emit forensics.Emit) error {
	obj := bytes.TrimLeft(r, " ")
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	c := &p.ctx
	if c.parse(obj) != nil {
		// 7.0's hand-made object, or a line cut short: read what it names.
		c.members = c.members[:0]
		for _, k := range [...]string{"bucket", "command", "duration", "response"} {
			if v, ok := looseString(obj, k); ok {
				c.members = append(c.members, ctxMember{[]byte(k), v})
			}
		}
	}
	if b := c.raw("bucket"); len(b) >= 2 && b[0] == '"' && bucketName(b[1:len(b)-1]) {
		l.bucket = b[1 : len(b)-1]
	}
	p.emitSlowOp(l, c, c.str("response"), emit)
	return nil
}

// looseString returns the quoted value of "key":"…" in b, quotes included,
// for objects that are not JSON.
func looseString(b []byte, key string) ([]byte, bool) {
	i := bytes.Index(b, []byte(`"`+key+`":"`))
	if i < 0 {
		return nil, false
	}
	v := b[i+len(key)+3:]
	j := bytes.IndexByte(v[1:], '"')
	if j < 0 {
		return nil, false
	}
	return v[:j+2], true
}

// emitSlowOp writes the event of a slow command from its members: 7.x
// names the response "response", 8.0 "status".
func (p *parser) emitSlowOp(l *line, c *lineContext, status string, emit forensics.Emit) {
	e := p.event(l, SlowOp)
	if op := c.str("command"); op != "" {
		e.Set(AttrOpcode, op)
	}
	if d := c.str("duration"); d != "" {
		e.Set(AttrDuration, d)
		if ms, ok := durationMS(d); ok {
			e.Set(AttrDurationMS, strconv.FormatFloat(ms, 'f', -1, 64))
		}
	}
	if status != "" {
		e.Set(AttrStatus, status)
	}
	if peer := c.raw("peer"); len(peer) > 0 {
		e.Set(AttrPeer, l.txt.Str(peer))
	}
	emit(e)
}

// durationMS reads a duration as cb::time2text writes it (platform
// timeutils.cc): "{n} ns", "{n} us", "{n} ms", "{n} s", "{m}m:{s}s" or
// "{h}h:{m}m:{s}s", in milliseconds.
func durationMS(s string) (float64, bool) {
	b := []byte(s)
	if n, r, ok := number(b); ok && len(r) > 1 && r[0] == ' ' {
		v, _ := strconv.ParseFloat(string(n), 64)
		switch string(r[1:]) {
		case "ns":
			return v / 1e6, true
		case "us":
			return v / 1e3, true
		case "ms":
			return v, true
		case "s":
			return v * 1e3, true
		}
		return 0, false
	}
	total := 0.0
	for _, unit := range [...]struct {
		suffix string
		ms     float64
	}{{"h:", 3600e3}, {"m:", 60e3}, {"s", 1e3}} {
		n, r, ok := number(b)
		if !ok || !scan.HasPrefix(r, unit.suffix) {
			if unit.suffix == "h:" {
				continue // no hours
			}
			return 0, false
		}
		v, _ := strconv.ParseFloat(string(n), 64)
		total += v * unit.ms
		b = r[len(unit.suffix):]
	}
	return total, len(b) == 0
}

// connRejected reads daemon/server_socket.cc's refusal of a new client:
//
//	Shutting down client as we're running out of connections: {} of {}                       7.1–7.6, every refusal
//	Shutting down client as we're running out of connections on system interface: {} of {}
//	Shutting down client as we're running out of connections {"system":…,"current":…,"limit":…}   8.0.0
//	Shutting down client as we're running out of connections {"system":…,"failures":…,"success":…,"first_failure":"…","limit":…}   8.0.2+, once a minute
func (p *parser) connRejected(l *line, r []byte, emit forensics.Emit) {
	e := p.event(l, ConnRejected)
	typ := "user"
	if rest, ok := scan.Cut(r, " on system interface"); ok {
		typ, r = "system", rest
	}
	e.Set(AttrConnType, typ)
	if rest, ok := scan.Cut(r, ": "); ok {
		if cur, rest, ok := number(rest); ok {
			e.Set(AttrConnections, l.txt.Str(cur))
			if rest, ok := scan.Cut(rest, " of "); ok {
				if lim, _, ok := number(rest); ok {
					e.Set(AttrLimit, l.txt.Str(lim))
				}
			}
		}
	}
	emit(e)
}

// connRejected8 reads the 8.0 form, its numbers in the context.
func (p *parser) connRejected8(l *line, c *lineContext, emit forensics.Emit) {
	e := p.event(l, ConnRejected)
	if c.str("system") == "true" {
		e.Set(AttrConnType, "system")
	} else {
		e.Set(AttrConnType, "user")
	}
	for _, m := range [...]struct {
		member string
		key    forensics.AttrKey
	}{{"current", AttrConnections}, {"limit", AttrLimit}, {"failures", AttrFailures}} {
		if v := c.str(m.member); v != "" {
			if _, rest, ok := number([]byte(v)); ok && len(rest) == 0 {
				e.Set(m.key, v)
			}
		}
	}
	emit(e)
}
