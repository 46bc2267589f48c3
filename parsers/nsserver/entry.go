package nsserver

import (
	"time"

	"forensics"
)

// maxEntry bounds how much of one multi-line entry is kept for reading its
// message. Only entries whose first line starts a known template are kept;
// the largest real ones are ns_memcached's "Changed vbucket state" lists
// (about 100 bytes per vbucket). Lines past the bound are still on the
// timeline; only the event's text and the vbuckets listed there are cut.
const maxEntry = 1 << 20

// entry collects the lines of one log entry whose first line could start an
// event, so the message can be read whole: ~p wraps long terms over lines.
type entry struct {
	active bool
	line   int64 // line number of the first line
	stamp  forensics.Stamp
	buf    []byte // the lines, joined with '\n'
	starts []int  // offset in buf of each line after the first
	msg    int    // offset in buf where the message starts
	node   []byte // node as logged, in buf; nil when the format has none here
	full   bool
}

// start begins collecting an entry whose first line is text, with the
// message at offset msg and the node at node[0]:node[1].
func (e *entry) start(n int64, st forensics.Stamp, text []byte, msg int, node [2]int) {
	if msg > maxEntry {
		// A header that long is no header ns_server writes.
		e.active = false
		return
	}
	e.active = true
	e.line = n
	e.stamp = st
	e.buf = append(e.buf[:0], text[:min(len(text), maxEntry)]...)
	e.full = len(text) >= maxEntry
	e.starts = e.starts[:0]
	e.msg = msg
	e.node = e.buf[node[0]:node[1]]
}

// add appends a continuation line.
func (e *entry) add(text []byte) {
	if !e.active || e.full {
		return
	}
	if len(e.buf)+1+len(text) > maxEntry {
		e.full = true
		return
	}
	e.buf = append(e.buf, '\n')
	e.starts = append(e.starts, len(e.buf))
	e.buf = append(e.buf, text...)
}

// lineOf returns the line number of the byte at offset off in buf.
func (e *entry) lineOf(off int) int64 {
	n := e.line
	for _, s := range e.starts {
		if s > off {
			break
		}
		n++
	}
	return n
}

// emitter turns the events recognised in an entry into timeline events.
type emitter struct {
	ev    forensics.Event
	allow func(forensics.Kind) bool // nil: every kind
	via   string
	node  func(raw []byte) string // the event's node from the entry's node as logged
	// collected is when the file was collected, for the time a
	// certificate had left then (zero: unknown).
	collected time.Time
}

// collectedAt is when the file of an origin was collected: its
// cbcollect_info folder's stamp, else the file's modification time.
func collectedAt(o forensics.Origin) time.Time {
	if t, ok := forensics.CollectedAt(o.Path); ok {
		return t
	}
	return o.ModTime.UTC()
}

// line takes a line of a log of entries, given what its header parser made
// of it, and returns the line's stamp: a header ends the entry before it
// and starts one when its message could start an event; any other line
// continues the entry.
func (m *emitter) line(e *entry, n int64, text []byte, h header, st headerState, emit forensics.Emit) forensics.Stamp {
	if st == notHeader {
		e.add(text)
		return forensics.Stamp{}
	}
	m.flush(e, emit)
	if st == goodHeader && candidate(text[h.msg:]) {
		e.start(n, h.stamp, text, h.msg, h.node)
	}
	return h.stamp
}

// flush reads the collected entry, if any, and emits its events with the
// entry's time, line and node.
func (m *emitter) flush(e *entry, emit forensics.Emit) {
	if !e.active {
		return
	}
	e.active = false
	msg := e.buf[e.msg:]
	if len(msg) == 0 {
		return
	}
	var text, node string // made once for the entry's events
	named := false
	recognize(msg, &m.ev, func(ev *forensics.Event, part []byte) {
		if m.allow != nil && !m.allow(ev.Kind) {
			return
		}
		if !named {
			node, named = m.node(e.node), true
		}
		ev.Stamp = e.stamp
		ev.Node = node
		ev.Line = e.line
		if part != nil {
			ev.Line = e.lineOf(e.msg + offset(msg, part))
			ev.Text = string(part)
		} else {
			if text == "" {
				text = string(e.buf)
			}
			ev.Text = text
		}
		if m.via != "" {
			ev.Set(AttrVia, m.via)
		}
		if ev.Kind == CertAlert {
			setDaysLeft(ev, m.collected)
		}
		emit(ev)
	})
}

// offset returns where part, a subslice of b, starts in b.
func offset(b, part []byte) int {
	return cap(b) - cap(part)
}
