package memcached

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// Couchbase 8.0 (kv_engine MB-60861) logs a message followed by a JSON
// object of context: "<message> {"conn_id":382,"bucket":"test3",…}"
// (logger/spdlogger.cc Logger::logWithContext). The "382: " and "(test3) "
// prefixes and the DCP logger's "DCP (Producer) … -" header become the
// context's conn_id, bucket, dcp and dcp_name (engines/ep/src/bucket_logger.cc,
// dcp/producer.cc setLogContext), and vbuckets are strings ("vb:141").
// Messages logged the old fmt way get the same context (an empty one adds
// nothing), and every { and } in a message is written as [ and ], so the
// first " {" of a line starts its context. 8.0's file sink writes no
// "Opening logfile" or "Closing logfile" markers (logger/custom_rotating_file_sink.h
// v8.0.0), so a start after a kill is told by the missing graceful shutdown alone.

// ctxSplit splits an 8.0 line's message from its context.
func ctxSplit(msg []byte) (text, ctx []byte, ok bool) {
	i := bytes.Index(msg, []byte(" {"))
	if i <= 0 {
		return msg, nil, false
	}
	return msg[:i], msg[i+1:], true
}

// ctxMember is one top-level member of a context object; val is raw JSON.
type ctxMember struct {
	key, val []byte
}

// lineContext holds the members of one line's context. Its slices point into
// the line and are valid only while the line is read.
type lineContext struct {
	members []ctxMember
}

var errCtxCut = errors.New("context is not a whole JSON object (cut or malformed); the line is kept")

// parse reads a context object. Keys with escapes are kept raw: kv_engine's
// keys are plain snake_case words.
func (c *lineContext) parse(b []byte) error {
	c.members = c.members[:0]
	b = bytes.TrimRight(b, " \r")
	if !validJSON(b) || len(b) < 2 || b[0] != '{' {
		return errCtxCut
	}
	i := 1
	for {
		i = skipSpace(b, i)
		if b[i] == '}' {
			return nil
		}
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		kEnd := stringEnd(b, i)
		key := b[i+1 : kEnd-1]
		i = skipSpace(b, kEnd)
		i = skipSpace(b, i+1) // ':'
		vEnd := valueEnd(b, i)
		c.members = append(c.members, ctxMember{key, b[i:vEnd]})
		i = vEnd
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index after the JSON value starting at b[i]; b is valid JSON.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' {
		j++
	}
	return j
}

// raw returns the raw JSON value of key, or nil.
func (c *lineContext) raw(key string) []byte {
	for _, m := range c.members {
		if string(m.key) == key {
			return m.val
		}
	}
	return nil
}

// str returns key's value as text: a string unquoted, anything else raw.
func (c *lineContext) str(key string) string {
	v := c.raw(key)
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v[0] != '"' {
		return string(v)
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(v)
	}
	return s
}

// vb reads "vb":"vb:141" (Vbid's to_json); -1 when absent.
func (c *lineContext) vb() int {
	v := c.str("vb")
	if n, rest, ok := vbID([]byte(v)); ok && len(rest) == 0 {
		return n
	}
	return forensics.NoVB
}

// pair reads a two-number array ("snapshot":[4163,4168]).
func (c *lineContext) pair(key string) (a, b string, ok bool) {
	v := c.raw(key)
	if len(v) < 5 || v[0] != '[' || v[len(v)-1] != ']' {
		return "", "", false
	}
	x, y, found := strings.Cut(string(v[1:len(v)-1]), ",")
	if !found {
		return "", "", false
	}
	x, y = strings.TrimSpace(x), strings.TrimSpace(y)
	if _, _, ok := number([]byte(x)); !ok {
		return "", "", false
	}
	if _, _, ok := number([]byte(y)); !ok {
		return "", "", false
	}
	return x, y, true
}

// structured reads the 8.0 form of the lines forensics knows. It reports
// false for every other message, without reading its context, so a plain
// line costs a prefix test.
func (p *parser) structured(l *line, text, ctx []byte, prevClosing bool, emit forensics.Emit) (bool, error) {
	t := ctxTemplateOf(text)
	if t == nil {
		if p.live > 0 {
			p.resolveStructured(ctx, emit)
		}
		return false, nil
	}
	c := &p.ctx
	if err := c.parse(ctx); err != nil {
		return true, fmt.Errorf("%s: %w", clip(text, 60), err)
	}
	l.bucket = c.raw("bucket")
	if len(l.bucket) >= 2 && l.bucket[0] == '"' {
		l.bucket = l.bucket[1 : len(l.bucket)-1]
	} else {
		l.bucket = nil
	}
	l.cid = c.raw("conn_id")
	if len(l.cid) == 0 {
		l.cid = nil
	}
	if p.live > 0 && l.cid != nil {
		if name := c.str("dcp_name"); name != "" && c.str("dcp") == "producer" {
			p.resolve(l.cid, l.bucket, []byte(strings.TrimPrefix(name, "eq_dcpq:")), emit)
		}
	}
	l.body = text
	return true, t.read(p, l, c, text, prevClosing, emit)
}

// A ctxTemplate is a message 8.0 logs with a JSON context: the message, or
// its start when prefix is set; the kv_engine source that logs it; and how
// to read it, its context parsed into c.
type ctxTemplate struct {
	text   string
	prefix bool
	source string
	read   func(p *parser, l *line, c *lineContext, text []byte, prevClosing bool, emit forensics.Emit) error
}

var ctxTemplates = [...]ctxTemplate{
	{"Couchbase version starting", false, `daemon/memcached.cc: LOG_INFO_CTX("Couchbase version starting", {"version", …})`,
		func(p *parser, l *line, c *lineContext, _ []byte, prevClosing bool, emit forensics.Emit) error {
			v := c.str("version")
			if v == "" {
				return errors.New(`start line without "version" in its context`)
			}
			p.start(l, []byte(v), prevClosing, emit)
			return nil
		}},
	{"Create bucket", false, `daemon/buckets.cc: {"conn_id"}, {"bucket"}, {"type"}`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			if !bucketName(l.bucket) {
				return nil
			}
			p.traffic[string(l.bucket)] = trafficCreating
			e := p.event(l, BucketCreate)
			if t := c.str("type"); t != "" {
				e.Set(AttrType, t)
			}
			emit(e)
			return nil
		}},
	{"Compaction complete", false, `engines/ep/src/ep_bucket.cc compactInternal: {"vb"}, {"result"}, {"purged":{…}}, {"pre":{…}}, {"post":{…}}`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			p.compaction8(l, c, emit)
			return nil
		}},
	{"Creating stream", false, `dcp/active_stream.cc`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			p.streamCreated8(l, c, emit)
			return nil
		}},
	{"Bucket created successfully", false, `daemon/buckets.cc: {"conn_id"}, {"bucket"}`,
		func(p *parser, l *line, _ *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			if !bucketName(l.bucket) {
				return nil
			}
			if p.traffic[string(l.bucket)] == trafficCreating {
				p.traffic[string(l.bucket)] = trafficOff
			}
			emit(p.event(l, BucketCreated))
			return nil
		}},
	{"Initiating graceful shutdown", false, `daemon/memcached.cc: {"sigint"}, {"sigterm"}`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			p.graceful = true
			e := p.event(l, Shutdown)
			if v := c.str("sigint"); v != "" {
				e.Set(AttrSigint, v)
			}
			if v := c.str("sigterm"); v != "" {
				e.Set(AttrSigterm, v)
			}
			emit(e)
			return nil
		}},
	{"DCP connection opened successfully", false, `dcp_open_executor.cc`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			p.dcpOpen8(l, c, emit)
			return nil
		}},
	{"EventuallyPersistentEngine::enableTraffic", false, `ep_engine.cc: INFO {"state":"enabled"|"disabled"}; WARNING with "error":"traffic is already …" when the flag did not change`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			if c.raw("error") != nil {
				return nil
			}
			name := string(l.bucket)
			switch c.str("state") {
			case "enabled":
				p.traffic[name] = trafficOn
				emit(p.event(l, TrafficEnabled))
			case "disabled":
				p.traffic[name] = trafficOff
				emit(p.event(l, TrafficDisabled))
			}
			return nil
		}},
	{"Enough ", true, `ep_bucket.cc: Enough MB of data / number of items loaded to enable traffic`,
		func(p *parser, l *line, _ *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			p.warmupEnough(l, emit)
			return nil
		}},
	{"Stream request ", true, `dcp/producer.cc: the rollback and the refusals of a stream request`,
		func(p *parser, l *line, c *lineContext, text []byte, _ bool, emit forensics.Emit) error {
			p.streamRequest8(l, c, text, emit)
			return nil
		}},
	{"VBucket::setState: transitioning", false, `vbucket.cc: {"vb"}, {"high_seqno"}, {"from"}, {"to"}, {"meta"} (an object)`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			vb := c.vb()
			if vb < 0 {
				return nil
			}
			e := p.event(l, VBState)
			e.VB = vb
			e.Set(AttrHighSeqno, c.str("high_seqno"))
			e.Set(AttrFrom, c.str("from"))
			e.Set(AttrTo, c.str("to"))
			if m := c.raw("meta"); m != nil {
				e.Set(AttrMeta, l.txt.Str(m))
			}
			emit(e)
			return nil
		}},
	{"Warmup(", true, `warmup.cc: Warmup(Primary), Warmup(Secondary) with the fmt message`,
		func(p *parser, l *line, _ *lineContext, text []byte, _ bool, emit forensics.Emit) error {
			p.warmup8(l, text, emit)
			return nil
		}},
	{"HELO", false, `daemon/protocol/mcbp/hello_packet_executor.cc: {"conn_id"}, {"client"}, {"features"}, {"description"}`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			p.hello8(l, c, emit)
			return nil
		}},
	{"KVBucket::setVBucketState: ", true, `kv_bucket.cc: fmt message, context {"conn_id"?, "bucket"}`,
		func(p *parser, l *line, _ *lineContext, text []byte, _ bool, emit forensics.Emit) error {
			p.failoverEntry(l, text[len("KVBucket::setVBucketState: "):], "KVBucket::setVBucketState", emit)
			return nil
		}},
	{"Total memory use reached to the low water mark, stop warmup", true, `ep_bucket.cc maybeEnableTraffic: loading stops at the low water mark`,
		func(p *parser, l *line, _ *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			e := p.event(l, WarmupEnough)
			e.Set(AttrCriterion, "low water mark")
			emit(e)
			return nil
		}},
	{"Slow operation", false, `daemon/cookie.cc maybeLogSlowCommand: LOG_WARNING_CTX("Slow operation", {"conn_id"}, {"bucket"}, {"command"}, {"duration"}, {"trace"}, {"cid"}, {"peer"}, {"packet"}, {"worker_tid"}, {"status"}?)`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			status := c.str("status")
			if status == "" {
				status = c.str("response") // the 7.x name
			}
			p.emitSlowOp(l, c, status, emit)
			return nil
		}},
	{"Shutting down client as we're running out of connections", false, `daemon/server_socket.cc: {"system"}, {"current"} (8.0.0) or {"failures"}, {"success"}, {"first_failure"} (8.0.2+), {"limit"}`,
		func(p *parser, l *line, c *lineContext, _ []byte, _ bool, emit forensics.Emit) error {
			p.connRejected8(l, c, emit)
			return nil
		}},
	{"noop is mandatory for ", true, `dcp/producer.cc: a stream request refused on a connection without noop`,
		func(p *parser, l *line, c *lineContext, text []byte, _ bool, emit forensics.Emit) error {
			if vb := c.vb(); vb >= 0 {
				p.refuse(l, dcpName(c), vb, []byte(c.str("sid")), text, "not_supported", emit)
			}
			return nil
		}},
}

// ctxTemplatesByByte indexes ctxTemplates by the first byte of their text.
var ctxTemplatesByByte = func() (idx [256][]uint8) {
	for i, t := range ctxTemplates {
		idx[t.text[0]] = append(idx[t.text[0]], uint8(i))
	}
	return idx
}()

// ctxTemplateOf returns the template text is, or nil.
func ctxTemplateOf(text []byte) *ctxTemplate {
	if len(text) == 0 {
		return nil
	}
	for _, i := range ctxTemplatesByByte[text[0]] {
		t := &ctxTemplates[i]
		if t.prefix && scan.HasPrefix(text, t.text) || !t.prefix && string(text) == t.text {
			return t
		}
	}
	return nil
}

// dcpName is the consumer's name from a producer's context, without the
// "eq_dcpq:" prefix dcpconnmap.cc adds; nil when the context has none.
func dcpName(c *lineContext) []byte {
	name := c.str("dcp_name")
	if name == "" {
		return nil
	}
	return []byte(strings.TrimPrefix(name, "eq_dcpq:"))
}

// resolveStructured names a waiting producer connection from any 8.0 line
// of its logger: the context starts with its conn_id, and "dcp_name"
// follows. The context is read only when the conn_id is a waiting one.
func (p *parser) resolveStructured(ctx []byte, emit forensics.Emit) {
	r, ok := scan.Cut(ctx, `{"conn_id":`)
	if !ok {
		return
	}
	cid, _, ok := number(r)
	if !ok {
		return
	}
	if !p.isWaiting(cid) || !bytes.Contains(ctx, []byte(`"dcp":"producer"`)) {
		return
	}
	c := &p.ctx
	if c.parse(ctx) != nil {
		return
	}
	bucket := []byte(c.str("bucket"))
	p.resolve(cid, bucket, dcpName(c), emit)
}

// dcpOpen8 reads dcp_open_executor.cc's 8.0 form: {"conn_id"}, {"flags":
// ["PRODUCER",…]}, {"description":{"peer":…,"socket":…,"user":{"name":…}}}.
func (p *parser) dcpOpen8(l *line, c *lineContext, emit forensics.Emit) {
	var flags []string
	if json.Unmarshal(c.raw("flags"), &flags) != nil || len(flags) == 0 || flags[0] != "PRODUCER" || l.cid == nil {
		return
	}
	e := p.event(l, DCPProducer)
	e.Set(AttrFlags, strings.Join(flags, ", "))
	var desc struct {
		Peer json.RawMessage `json:"peer"`
		User *struct {
			Name string `json:"name"`
		} `json:"user"`
	}
	if json.Unmarshal(c.raw("description"), &desc) == nil {
		if len(desc.Peer) > 0 {
			e.Set(AttrPeer, l.txt.Str(desc.Peer))
		}
		if desc.User != nil && desc.User.Name != "" {
			e.Set(AttrUser, desc.User.Name)
		}
	}
	p.wait(l, e, emit)
}

// sid8 is the stream id of an 8.0 stream line ("sid":"sid:3"), "" for none.
func sid8(c *lineContext) []byte {
	s, _ := strings.CutPrefix(c.str("sid"), "sid:")
	if s == "" || s == "none" {
		return nil
	}
	return []byte(s)
}

// streamCreated8 reads active_stream.cc's 8.0 "Creating stream" with
// {"vb"}, {"sid"}?, {"takeover"}, {"start_seqno"}, {"end_seqno"},
// {"requested_end_seqno"}, {"flags"}, {"snapshot":[a,b]}, {"filter"}.
func (p *parser) streamCreated8(l *line, c *lineContext, emit forensics.Emit) {
	vb := c.vb()
	start, end := c.str("start_seqno"), c.str("end_seqno")
	if vb < 0 || start == "" || end == "" {
		return
	}
	e := p.dcpEvent(l, StreamCreated, dcpName(c), vb, sid8(c))
	e.Set(AttrStartSeqno, start)
	e.Set(AttrEndSeqno, end)
	if v := c.str("requested_end_seqno"); v != "" {
		e.Set(AttrRequestedEndSeqno, v)
	}
	if a, b, ok := c.pair("snapshot"); ok {
		e.Set(AttrSnapStart, a)
		e.Set(AttrSnapEnd, b)
	}
	if v := c.str("flags"); v != "" {
		e.Set(AttrFlags, v)
	}
	if c.str("takeover") == "true" {
		e.Set(AttrTakeover, "true")
	} else {
		e.Set(AttrTakeover, "false")
	}
	emit(e)
}

// streamRequest8 reads producer.cc's 8.0 answers to a stream request: the
// rollback ({"rollback_seqno"}, {"rollback_reason"}, {"start_seqno"},
// {"end_seqno"}, {"snapshot"}, {"vb_uuid"}) and the refusals ("Stream
// request failed because …", "… due to vbucket state" with {"vb_state"}).
func (p *parser) streamRequest8(l *line, c *lineContext, text []byte, emit forensics.Emit) {
	vb := c.vb()
	if vb < 0 {
		return
	}
	name, sid := dcpName(c), sid8(c)
	switch {
	case string(text) == "Stream request requires rollback to seqno":
		e := p.dcpEvent(l, StreamRollback, name, vb, sid)
		e.Set(AttrRollbackSeqno, c.str("rollback_seqno"))
		e.Set(AttrReason, c.str("rollback_reason"))
		e.Set(AttrReqStart, c.str("start_seqno"))
		e.Set(AttrReqEnd, c.str("end_seqno"))
		if a, b, ok := c.pair("snapshot"); ok {
			e.Set(AttrSnapStart, a)
			e.Set(AttrSnapEnd, b)
		}
		e.Set(AttrUUID, c.str("vb_uuid"))
		emit(e)
	case string(text) == "Stream request failed due to vbucket state":
		p.refuse(l, name, vb, sid, []byte("the vbucket is in state:"+c.str("vb_state")), "not_my_vbucket", emit)
	case scan.HasPrefix(text, "Stream request failed because "):
		r := text[len("Stream request failed because "):]
		p.refuse(l, name, vb, sid, r, refusalStatus(r), emit)
	case scan.HasPrefix(text, "Stream request failed "):
		r := text[len("Stream request failed "):]
		p.refuse(l, name, vb, sid, r, refusalStatus(r), emit)
	case scan.HasPrefix(text, "Stream request for failed "):
		r := text[len("Stream request for failed "):]
		p.refuse(l, name, vb, sid, r, refusalStatus(r), emit)
	}
}

// warmup8 reads warmup.cc's 8.0 lines, which name the warmup
// ("Warmup(Primary)", "Warmup(Secondary)") and keep the fmt message.
func (p *parser) warmup8(l *line, text []byte, emit forensics.Emit) {
	i := bytes.IndexByte(text, ')')
	if i < 0 {
		return
	}
	phase, r := text[len("Warmup("):i], text[i+1:]
	switch {
	case scan.HasPrefix(r, "::createVBuckets: "):
		// "Warmup({})::createVBuckets: {vb} created new failover entry with uuid:{} and seqno:{} due to {}"
		p.failoverEntry(l, r[len("::createVBuckets: "):], "Warmup::createVBuckets", emit)
	case scan.HasPrefix(r, "::notifyWaitingCookies unblocking "):
		p.unblock(l, r[len("::notifyWaitingCookies unblocking "):], emit)
	case scan.HasPrefix(r, " completed: "):
		// "Warmup({}) completed: {} keys (total:{}) and {} values (total:{})
		// loaded in {} ({:.2f} keys/s {:.2f} values/s), mem_used now at {} ({})"
		r = r[len(" completed: "):]
		e := p.event(l, WarmupComplete)
		e.Set(AttrWarmup, l.txt.Str(phase))
		if d, r2, ok := number(r); ok {
			e.Set(AttrKeys, l.txt.Str(d))
			if j := bytes.Index(r2, []byte(" and ")); j >= 0 {
				if d, r2, ok = number(r2[j+len(" and "):]); ok {
					e.Set(AttrValues, l.txt.Str(d))
					if k := bytes.Index(r2, []byte(" loaded in ")); k >= 0 {
						r2 = r2[k+len(" loaded in "):]
						if m := bytes.Index(r2, []byte(" (")); m > 0 {
							e.Set(AttrDuration, l.txt.Str(r2[:m]))
						}
					}
				}
			}
		}
		emit(e)
	}
}
