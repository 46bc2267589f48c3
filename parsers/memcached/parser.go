package memcached

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"forensics"
	"forensics/logtime"
	"forensics/parsers/scan"
)

// parser reads one memcached.log. Besides single lines it follows the
// process (was the previous start ended cleanly?), each bucket's traffic
// state, and DCP producer connections whose name is not known yet.
type parser struct {
	ev forensics.Event

	started     bool   // a start was seen in this source
	release     string // the version of the last start ("7.6.4-5146")
	graceful    bool   // "Initiating graceful shutdown." since the last start
	prevClosing bool   // the last timestamped line was "Closing logfile"
	opened      bool   // an "Opening logfile" since the last start
	openedClean bool   // the last "Opening logfile" came right after a "Closing logfile"

	traffic map[string]traffic
	pending []openProducer // producers waiting for their name, from head on
	head    int
	live    int            // entries of pending not yet emitted
	waiting map[string]int // how many of pending have each connection id
	ctx     lineContext    // scratch for the context of an 8.0 line
	line    line           // the line being read
	crash   crashReport    // a crash report copied into the log, until its first frame

	// The minute of the last timestamp and its instant: most lines share
	// their minute with the line before, so only seconds are read for them.
	minute     [17]byte // "2022-07-21T17:39:"
	zone       [6]byte  // "-07:00"
	minuteTime time.Time
	minuteOff  int32
	minuteOK   bool
}

// traffic is what is known of a bucket's data traffic since the process started.
type traffic uint8

const (
	trafficUnknown  traffic = iota
	trafficCreating         // between "Create … bucket" and "created successfully"
	trafficOff
	trafficOn
)

func newParser(forensics.Origin) forensics.Parser {
	return &parser{traffic: map[string]traffic{}, waiting: map[string]int{}}
}

// line is one timestamped line, split into the parts every template needs.
type line struct {
	n      int64
	st     forensics.Stamp
	text   []byte
	cid    []byte    // connection id before ": ", or nil
	bucket []byte    // nil for "(No Engine)" and core lines
	body   []byte    // the message after the prefixes
	txt    scan.Text // text copied for the line's event; attributes are cut from it
}

func (p *parser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if len(text) == 0 || text[0] < '0' || text[0] > '9' {
		return forensics.Stamp{}, nil
	}
	st, i, ok := p.stamp(text)
	if !ok {
		if looksStamped(text) {
			return forensics.Stamp{}, fmt.Errorf("unreadable timestamp %q", clip(text, 32))
		}
		return forensics.Stamp{}, nil
	}
	if i >= len(text) || text[i] != ' ' {
		return st, errors.New("no log level after the timestamp")
	}
	lvl, msg, _ := level(text[i+1:])
	if lvl == 0 {
		return st, fmt.Errorf("unknown log level %q after the timestamp", clip(text[i+1:], 16))
	}

	prevClosing := p.prevClosing
	p.prevClosing = false
	if len(msg) == 0 {
		return st, nil
	}
	// The line lives in the parser: the 8.0 templates are read through
	// a table of functions, which a line on the stack would escape by.
	l := &p.line
	*l = line{n: n, st: st, text: text}
	if (p.crash.open || lvl == levelCritical) && p.crashLine(l, lvl, msg, emit) {
		return st, nil
	}
	if p.writeFailure(l, lvl, msg, emit) {
		return st, nil
	}
	switch c := msg[0]; {
	case c == '-':
		p.marker(l, msg, prevClosing, emit)
	case c == '(':
		l.body = msg
		return st, p.engineLine(l, emit)
	case c >= '0' && c <= '9':
		d, r, ok := number(msg)
		if !ok || !scan.HasPrefix(r, ": ") {
			return st, p.core(l, msg, prevClosing, emit)
		}
		l.cid = d
		r = r[2:]
		if len(r) > 0 && r[0] == '(' {
			l.body = r
			return st, p.engineLine(l, emit)
		}
		return st, p.core(l, r, prevClosing, emit)
	default:
		if text, ctx, ok := ctxSplit(msg); ok {
			if known, err := p.structured(l, text, ctx, prevClosing, emit); known {
				return st, err
			}
		}
		return st, p.core(l, msg, prevClosing, emit)
	}
	return st, nil
}

// stamp reads the timestamp at the start of b like logtime.ISO, taking the
// shortcut for memcached's exact shape ("2022-07-21T17:39:17.706652-07:00")
// when the minute and offset are the previous line's.
func (p *parser) stamp(b []byte) (forensics.Stamp, int, bool) {
	const size = 32
	if p.minuteOK && len(b) >= size && string(b[:17]) == string(p.minute[:]) && string(b[26:32]) == string(p.zone[:]) && b[19] == '.' {
		sec, ok1 := logtime.Digits(b[17:19])
		frac, ok2 := logtime.Digits(b[20:26])
		if ok1 && ok2 && sec < 60 {
			t := p.minuteTime.Add(time.Duration(sec)*time.Second + time.Duration(frac)*time.Microsecond)
			return forensics.Stamp{Time: t, Offset: p.minuteOff, Zone: forensics.ZoneLogged}, size, true
		}
	}
	st, n, ok := logtime.ISO(b)
	p.minuteOK = false
	if ok && n == size && b[19] == '.' && b[10] == 'T' && (b[26] == '+' || b[26] == '-') {
		sec, ok1 := logtime.Digits(b[17:19])
		if ok1 && sec < 60 {
			copy(p.minute[:], b[:17])
			copy(p.zone[:], b[26:32])
			p.minuteTime = st.Time.Add(-time.Duration(sec)*time.Second - time.Duration(st.Time.Nanosecond()))
			p.minuteOff = st.Offset
			p.minuteOK = true
		}
	}
	return st, n, ok
}

// Release is the version the last process start in the file announced: a
// file that spans an upgrade was written last by the newer release.
func (p *parser) Release() string { return p.release }

func (p *parser) End(emit forensics.Emit) error {
	p.flushCrash(emit)
	p.flushPending(emit, p.live)
	return nil
}

// looksStamped reports whether text starts like memcached's timestamp
// ("2022-07-21T…") so that failing to read it is an error, not a
// continuation line.
func looksStamped(b []byte) bool {
	if len(b) < 11 || b[4] != '-' || b[7] != '-' || b[10] != 'T' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if b[i] < '0' || b[i] > '9' {
			return false
		}
	}
	return true
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// event starts the scratch event for line l.
func (p *parser) event(l *line, kind forensics.Kind) *forensics.Event {
	e := &p.ev
	e.Reset()
	e.Kind = kind
	e.Line = l.n
	e.Stamp = l.st
	if l.txt.String() == "" {
		l.txt = scan.NewText(l.text)
	}
	e.Text = l.txt.String()
	if len(l.bucket) > 0 {
		e.Bucket = l.txt.Str(l.bucket)
	}
	if l.cid != nil {
		e.Set(AttrConnID, l.txt.Str(l.cid))
	}
	return e
}

// marker reads the lines custom_rotating_file_sink.cc writes when it opens
// and closes a file. The opening line was meant to carry the file name but
// carries none (the hook appends it to a copy it does not log).
func (p *parser) marker(l *line, msg []byte, prevClosing bool, emit forensics.Emit) {
	switch {
	case scan.HasPrefix(msg, "---------- Opening logfile"):
		p.opened, p.openedClean = true, prevClosing
		emit(p.event(l, LogOpened))
	case scan.HasPrefix(msg, "---------- Closing logfile"):
		p.prevClosing = true
		emit(p.event(l, LogClosed))
	}
}

// core reads lines the memcached daemon logs itself (daemon/*.cc): no bucket
// prefix, sometimes a connection id.
func (p *parser) core(l *line, msg []byte, prevClosing bool, emit forensics.Emit) error {
	if len(msg) == 0 {
		return nil
	}
	switch msg[0] {
	case 'C':
		if r, ok := scan.Cut(msg, "Couchbase version "); ok {
			// daemon/memcached.cc: "Couchbase version {} starting."
			v, ok := bytes.CutSuffix(r, []byte(" starting."))
			if !ok || len(v) == 0 {
				return errors.New(`start line without "<version> starting."`)
			}
			p.start(l, v, prevClosing, emit)
			return nil
		}
		if l.cid != nil {
			return p.bucketCreate(l, msg, emit)
		}
	case 'I':
		// daemon/memcached.cc: "Initiating graceful shutdown." (7.6 adds
		// " sigint:{} sigterm:{}").
		if r, ok := scan.Cut(msg, "Initiating graceful shutdown."); ok {
			p.graceful = true
			e := p.event(l, Shutdown)
			if v, ok := field(r, "sigint:", ' '); ok {
				e.Set(AttrSigint, l.txt.Str(v))
			}
			if v, ok := field(r, "sigterm:", ' '); ok {
				e.Set(AttrSigterm, l.txt.Str(v))
			}
			emit(e)
		}
	case 'B':
		// daemon/buckets.cc: "{cid}: Bucket [{}] created successfully"
		if l.cid == nil {
			return nil
		}
		r, ok := scan.Cut(msg, "Bucket [")
		if !ok {
			return nil
		}
		name, ok := bytes.CutSuffix(r, []byte("] created successfully"))
		if !ok || !bucketName(name) {
			return nil
		}
		l.bucket = name
		if p.traffic[string(name)] == trafficCreating {
			p.traffic[string(name)] = trafficOff
		}
		emit(p.event(l, BucketCreated))
	case 'D':
		if l.cid != nil {
			return p.dcpOpen(l, msg, emit)
		}
	case 'H':
		if r, ok := scan.Cut(msg, "HELO "); ok && l.cid != nil {
			p.hello7(l, r, emit)
		}
	case 'S':
		if l.cid != nil {
			// daemon/cookie.cc: "{id}: Slow operation. {…}" (7.0), "{id}: Slow operation: {…}" (7.1–7.6).
			if r, ok := scan.Cut(msg, "Slow operation"); ok && len(r) > 1 && (r[0] == ':' || r[0] == '.') {
				return p.slowOp(l, r[1:], emit)
			}
		} else if r, ok := scan.Cut(msg, "Shutting down client as we're running out of connections"); ok {
			p.connRejected(l, r, emit)
		}
	}
	return nil
}

// start handles "Couchbase version {} starting.". The process before it
// ended cleanly if it began a graceful shutdown or closed its log file; a
// killed process does neither. Files are concatenated in mtime order, so
// the new process's "Opening logfile" follows the old one's "Closing
// logfile" only after a clean exit (or a rotation, which the old process
// outlived: its later lines make the last Opening a different one).
func (p *parser) start(l *line, version []byte, prevClosing bool, emit forensics.Emit) {
	p.flushPending(emit, p.live)
	clear(p.traffic)
	e := p.event(l, Start)
	p.release = string(version)
	e.Set(AttrVersion, p.release)
	if p.started {
		closed := prevClosing
		if p.opened {
			closed = p.openedClean
		}
		if p.graceful || closed {
			e.Set(AttrUnclean, "false")
		} else {
			e.Set(AttrUnclean, "true")
		}
	}
	p.started, p.graceful, p.opened = true, false, false
	emit(e)
}

// bucketCreate reads daemon/buckets.cc's "{cid}: Create {type} bucket [{}]"
// (7.1+) and "{cid}: Create bucket [{}]" (7.0, daemon/memcached.cc). The
// same words followed by " failed - …" report a failure, not a creation.
func (p *parser) bucketCreate(l *line, msg []byte, emit forensics.Emit) error {
	r, ok := scan.Cut(msg, "Create ")
	if !ok || !scan.HasSuffix(r, "]") {
		return nil
	}
	i := bytes.LastIndex(r, []byte("bucket ["))
	if i < 0 || (i > 0 && r[i-1] != ' ') {
		return nil
	}
	typ := r[:max(i-1, 0)]
	name := r[i+len("bucket [") : len(r)-1]
	if !bucketName(name) {
		return nil
	}
	l.bucket = name
	p.traffic[string(name)] = trafficCreating
	e := p.event(l, BucketCreate)
	if len(typ) > 0 {
		e.Set(AttrType, l.txt.Str(typ))
	}
	emit(e)
	return nil
}

// bucketName reports whether b could be a bucket's name.
func bucketName(b []byte) bool {
	if len(b) == 0 || len(b) > 100 {
		return false
	}
	for _, c := range b {
		if !bucketNameByte(c) {
			return false
		}
	}
	return true
}

// engineLine reads lines logged through an ep-engine BucketLogger
// (engines/ep/src/bucket_logger.cc): "(bucket) " or "(No Engine) ", then
// the logger's prefix (a DCP connection's "DCP (Producer) eq_dcpq:… -"),
// then the message.
func (p *parser) engineLine(l *line, emit forensics.Emit) error {
	b := l.body
	if r, ok := scan.Cut(b, "(No Engine) "); ok {
		l.body = r
	} else {
		end := min(len(b), 102)
		i := 1
		for i < end && bucketNameByte(b[i]) {
			i++
		}
		if i == 1 || i+1 >= len(b) || b[i] != ')' || b[i+1] != ' ' {
			return nil
		}
		l.bucket, l.body = b[1:i], b[i+2:]
	}
	body := l.body
	if len(body) == 0 {
		return nil
	}
	switch body[0] {
	case 'D':
		if scan.HasPrefix(body, "DCP (Producer)") {
			return p.dcpLine(l, emit)
		}
	case 'W':
		p.warmup(l, emit)
	case 'E':
		if scan.HasPrefix(body, "Enough ") {
			p.warmupEnough(l, emit)
		} else if scan.HasPrefix(body, "EventuallyPersistentEngine::") {
			p.trafficLine(l, emit)
		}
	case 'T':
		// ep_bucket.cc maybeEnableTraffic: loading stops at the low water mark.
		if scan.HasPrefix(body, "Total memory use reached to the low water mark, stop warmup") {
			e := p.event(l, WarmupEnough)
			e.Set(AttrCriterion, "low water mark")
			emit(e)
		}
	case 'V':
		if scan.HasPrefix(body, "VBucket::setState: transitioning ") {
			p.vbState(l, emit)
		}
	case 'C':
		// collections/manager.cc, called by Warmup::initialize, the first
		// warmup phase; nothing else about warmup's start is logged at INFO.
		// 7.0 adds " force:{}".
		if r, ok := scan.Cut(body, "Compaction of "); ok {
			p.compaction7(l, r, emit)
		} else if r, ok := scan.Cut(body, "Collections::Manager::warmupLoadManifest: starting at uid:"); ok {
			e := p.event(l, WarmupStart)
			uid := r
			if i := bytes.IndexByte(uid, ' '); i >= 0 {
				uid = uid[:i]
			}
			e.Set(AttrManifestUID, l.txt.Str(uid))
			if v, ok := field(r, " force:", ' '); ok {
				e.Set(AttrForce, l.txt.Str(v))
			}
			emit(e)
		}
	case 'K':
		if r, ok := scan.Cut(body, "KVBucket::setVBucketState: "); ok {
			p.failoverEntry(l, r, "KVBucket::setVBucketState", emit)
		}
	}
	return nil
}

// warmup reads warmup.cc's INFO lines.
func (p *parser) warmup(l *line, emit forensics.Emit) {
	body := l.body
	if r, ok := scan.Cut(body, "Warmup::createVBuckets: "); ok {
		p.failoverEntry(l, r, "Warmup::createVBuckets", emit)
		return
	}
	// "Warmup::processCreateVBucketsComplete unblocking {} cookie(s)" (7.0–7.2),
	// "Warmup::notifyWaitingCookies unblocking {} cookie(s) status:{}" (7.6).
	if r, ok := scan.Cut(body, "Warmup::processCreateVBucketsComplete unblocking "); ok {
		p.unblock(l, r, emit)
		return
	}
	if r, ok := scan.Cut(body, "Warmup::notifyWaitingCookies unblocking "); ok {
		p.unblock(l, r, emit)
		return
	}
	// "Warmup completed: {} keys and {} values loaded in {} ({} keys/s), mem_used now at {} MB ({} MB/s)"
	if r, ok := scan.Cut(body, "Warmup completed: "); ok {
		e := p.event(l, WarmupComplete)
		if d, r2, ok := number(r); ok {
			e.Set(AttrKeys, l.txt.Str(d))
			if r2, ok = scan.Cut(r2, " keys and "); ok {
				if d, r2, ok = number(r2); ok {
					e.Set(AttrValues, l.txt.Str(d))
					if r2, ok = scan.Cut(r2, " values loaded in "); ok {
						if i := bytes.Index(r2, []byte(" (")); i > 0 {
							e.Set(AttrDuration, l.txt.Str(r2[:i]))
						}
					}
				}
			}
		}
		emit(e)
	}
}

func (p *parser) unblock(l *line, r []byte, emit forensics.Emit) {
	d, r, ok := number(r)
	if !ok || !scan.HasPrefix(r, " cookie(s)") {
		return
	}
	e := p.event(l, WarmupUnblock)
	e.Set(AttrCookies, l.txt.Str(d))
	if v, ok := field(r, " status:", ' '); ok {
		e.Set(AttrStatus, l.txt.Str(v))
	}
	emit(e)
}

// warmupEnough reads ep_bucket.cc's "Enough MB of data loaded to enable
// traffic…" and "Enough number of items loaded to enable traffic (value|full
// eviction)…". Despite the words, traffic stays disabled until ns_server
// enables it.
func (p *parser) warmupEnough(l *line, emit forensics.Emit) {
	r := l.body[len("Enough "):]
	i := bytes.Index(r, []byte(" loaded to enable traffic"))
	if i <= 0 {
		return
	}
	e := p.event(l, WarmupEnough)
	e.Set(AttrCriterion, l.txt.Str(r[:i]))
	emit(e)
}

// failoverEntry reads "{vb} created new failover entry with uuid:{} and
// seqno:{}", followed by " due to {}" in warmup.cc (7.0 always says
// "unclean shutdown"; 7.1+ "unclean shutdown" or "manifest uid").
func (p *parser) failoverEntry(l *line, r []byte, origin string, emit forensics.Emit) {
	vb, r, ok := vbID(r)
	if !ok {
		return
	}
	r, ok = scan.Cut(r, " created new failover entry with uuid:")
	if !ok {
		return
	}
	uuid, r, ok := number(r)
	if !ok {
		return
	}
	r, ok = scan.Cut(r, " and seqno:")
	if !ok {
		return
	}
	seqno, r, ok := number(r)
	if !ok {
		return
	}
	e := p.event(l, FailoverEntry)
	e.VB = vb
	e.Set(AttrUUID, l.txt.Str(uuid))
	e.Set(AttrSeqno, l.txt.Str(seqno))
	if reason, ok := scan.Cut(r, " due to "); ok {
		e.Set(AttrReason, l.txt.Str(reason))
	}
	e.Set(AttrOrigin, origin)
	emit(e)
}

// trafficLine reads ep_engine.cc's traffic lines.
//
// 7.0–7.2 log "EventuallyPersistentEngine::enableTraffic() result true"
// whenever the traffic flag flips, on or off, then for ENABLE_TRAFFIC only
// "EventuallyPersistentEngine::handleTrafficControlCmd() Data traffic to
// persistence engine is enabled". So the first line alone means: enabled
// while the bucket is being created (data_traffic_enabled=true, not how
// ns_server configures buckets), disabled when traffic was on, and nothing
// yet otherwise. 7.6 (MB-51916) logs "EventuallyPersistentEngine::enableTraffic:
// Traffic successfully enabled|disabled".
func (p *parser) trafficLine(l *line, emit forensics.Emit) {
	r := l.body[len("EventuallyPersistentEngine::"):]
	name := string(l.bucket)
	switch {
	case scan.HasPrefix(r, "handleTrafficControlCmd() Data traffic to persistence engine is enabled"):
		p.traffic[name] = trafficOn
		emit(p.event(l, TrafficEnabled))
	case scan.HasPrefix(r, "enableTraffic() result true"):
		switch p.traffic[name] {
		case trafficCreating:
			p.traffic[name] = trafficOn
			emit(p.event(l, TrafficEnabled))
		case trafficOn:
			p.traffic[name] = trafficOff
			emit(p.event(l, TrafficDisabled))
		}
	case scan.HasPrefix(r, "enableTraffic: Traffic successfully enabled"):
		p.traffic[name] = trafficOn
		emit(p.event(l, TrafficEnabled))
	case scan.HasPrefix(r, "enableTraffic: Traffic successfully disabled"):
		p.traffic[name] = trafficOff
		emit(p.event(l, TrafficDisabled))
	}
}

// vbState reads vbucket.cc's "VBucket::setState: transitioning {vb} with
// high seqno:{} from:{} to:{}" with " meta:{json}" when ns_server sent one.
func (p *parser) vbState(l *line, emit forensics.Emit) {
	r := l.body[len("VBucket::setState: transitioning "):]
	vb, r, ok := vbID(r)
	if !ok {
		return
	}
	r, ok = scan.Cut(r, " with high seqno:")
	if !ok {
		return
	}
	high, r, ok := number(r)
	if !ok {
		return
	}
	r, ok = scan.Cut(r, " from:")
	if !ok {
		return
	}
	i := bytes.Index(r, []byte(" to:"))
	if i <= 0 {
		return
	}
	from, r := r[:i], r[i+len(" to:"):]
	to, meta := r, []byte(nil)
	if j := bytes.IndexByte(r, ' '); j >= 0 {
		to, meta = r[:j], r[j+1:]
	}
	if len(to) == 0 {
		return
	}
	e := p.event(l, VBState)
	e.VB = vb
	e.Set(AttrHighSeqno, l.txt.Str(high))
	e.Set(AttrFrom, l.txt.Str(from))
	e.Set(AttrTo, l.txt.Str(to))
	if m, ok := scan.Cut(meta, "meta:"); ok {
		e.Set(AttrMeta, l.txt.Str(m))
	}
	emit(e)
}
