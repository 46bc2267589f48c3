package nsserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"forensics"
)

// master_events.log is cbcollect_info's copy of GET /diag/masterEvents?o=1
// (master_activity_events:format_some_history/1): one JSON object per line,
// written with sorted keys by master_activity_events:event_to_jsons/2, on the
// node that was orchestrator when the events happened. "ts" is epoch seconds
// (a number in 7.x; a string in old releases, doc/master-events.txt); "host"
// and chains name a node by its memcached address, host:port.

var (
	errMasterTS   = errors.New("master event has no readable \"ts\"")
	errMasterJSON = errors.New("master event is not a valid JSON object")
)

type masterEvent struct {
	Type        string          `json:"type"`
	Bucket      string          `json:"bucket"`
	Host        string          `json:"host"`
	Hosts       []string        `json:"hosts"`
	VBucket     json.RawMessage `json:"vbucket"`
	State       string          `json:"state"`
	ChainBefore []string        `json:"chainBefore"`
	ChainAfter  []string        `json:"chainAfter"`
}

type masterParser struct {
	ev forensics.Event
}

func newMaster(forensics.Origin) forensics.Parser { return &masterParser{} }

func (p *masterParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	b := trimSpace(text)
	if len(b) == 0 || b[0] != '{' {
		return forensics.Stamp{}, nil
	}
	ts, ok := epoch(jsonValue(b, tsKey))
	if !ok {
		return forensics.Stamp{}, errMasterTS
	}
	st := forensics.Stamp{Time: ts, Zone: forensics.ZoneUTC}
	var kind forensics.Kind
	typ := jsonValue(b, typeKey)
	switch string(bytes.Trim(typ, `"`)) {
	case "vbucketStateChange":
		kind = VBucketState
	case "updateMap":
		kind = VBucketMap
	case "failover":
		kind = FailoverStart // or FailoverEnd: see below
	case "bucketFailoverStarted":
		kind = BucketFailoverStart
	case "bucketFailoverEnded":
		kind = BucketFailoverEnd
	case "rebalanceStart":
		kind = RebalanceStart
	case "rebalanceEnd":
		kind = RebalanceEnd
	default:
		return st, nil
	}
	if kind == RebalanceStart || kind == RebalanceEnd {
		ev := &p.ev
		ev.Reset()
		ev.Stamp, ev.Line, ev.Text = st, n, string(text)
		if ok, err := p.rebalance(b, kind, ev); !ok {
			return st, err
		}
		ev.Set(AttrVia, "master_events")
		emit(ev)
		return st, nil
	}
	var m masterEvent
	if err := json.Unmarshal(b, &m); err != nil {
		return st, errMasterJSON
	}
	ev := &p.ev
	ev.Reset()
	ev.Stamp = st
	ev.Line = n
	ev.Text = string(text)
	ev.Kind = kind
	ev.Bucket = m.Bucket
	hosts := m.Hosts
	if len(hosts) == 0 && m.Host != "" {
		hosts = []string{m.Host}
	}
	switch kind {
	case VBucketState:
		if !setVB(ev, bytes.Trim(m.VBucket, `"`)) {
			return st, nil
		}
		ev.Set(AttrState, m.State)
		ev.Set(AttrHost, m.Host)
		if node := hostNode(m.Host); node != "" {
			ev.Set(AttrVBNode, node)
		}
	case VBucketMap:
		if !setVB(ev, bytes.Trim(m.VBucket, `"`)) {
			return st, nil
		}
		ev.Set(AttrChainBefore, strings.Join(m.ChainBefore, ","))
		ev.Set(AttrChainAfter, strings.Join(m.ChainAfter, ","))
		if len(m.ChainBefore) > 0 && m.ChainBefore[0] != "" {
			ev.Set(AttrActiveBefore, hostNode(m.ChainBefore[0]))
		}
		if len(m.ChainAfter) > 0 && m.ChainAfter[0] != "" {
			ev.Set(AttrActiveAfter, hostNode(m.ChainAfter[0]))
		}
	case FailoverStart:
		// {failover, Nodes} carries hosts; {failover_ended} has the same
		// type and no hosts (master_activity_events:event_to_jsons/2).
		if len(hosts) == 0 {
			ev.Kind = FailoverEnd
		}
		fallthrough
	default:
		if len(hosts) > 0 {
			ev.Set(AttrHosts, strings.Join(hosts, ","))
			nodes := make([]string, len(hosts))
			for i, h := range hosts {
				nodes[i] = hostNode(h)
			}
			ev.Set(AttrNodes, strings.Join(nodes, ","))
		}
	}
	ev.Set(AttrVia, "master_events")
	emit(ev)
	return st, nil
}

func (p *masterParser) End(forensics.Emit) error { return nil }

// hostNode turns a memcached address into the node's Erlang name.
// master_activity_events:node_to_host/2 prints the address part of the node
// name (misc:extract_node_address) with memcached's port, so
// "10.0.0.1:11210" was 'ns_1@10.0.0.1'; ns_1 is the name every production
// node has. A node without a port was printed as the node name itself.
func hostNode(host string) string {
	if host == "" || strings.Contains(host, "@") {
		return host
	}
	if strings.HasPrefix(host, "[") {
		if i := strings.Index(host, "]"); i > 0 {
			return NodeName(host[1:i])
		}
	}
	if i := strings.LastIndexByte(host, ':'); i > 0 && strings.Count(host, ":") == 1 {
		host = host[:i]
	}
	return NodeName(host)
}

var (
	tsKey   = []byte(`"ts"`)
	typeKey = []byte(`"type"`)
)

// jsonValue finds the member key (quoted) of the JSON object b
// and returns its value up to the next ',' or '}' (strings keep their
// quotes). It is a cheap look-up for flat members such as "ts" and "type":
// a key is taken where it follows '{' or ',', which a nested object can
// also offer, so callers decode the line before trusting more than that.
func jsonValue(b []byte, key []byte) []byte {
	for off := 0; ; {
		i := bytes.Index(b[off:], key)
		if i < 0 {
			return nil
		}
		i += off
		off = i + len(key)
		prev := trimSpace(b[:i])
		if len(prev) == 0 || (prev[len(prev)-1] != '{' && prev[len(prev)-1] != ',') {
			continue
		}
		v := skipSpace(b[off:])
		if len(v) == 0 || v[0] != ':' {
			continue
		}
		v = skipSpace(v[1:])
		if len(v) > 0 && v[0] == '"' {
			end, _ := quoteEnd(v)
			if end < 0 {
				return nil
			}
			return v[:end+1]
		}
		j := 0
		for j < len(v) && v[j] != ',' && v[j] != '}' && !isSpace(v[j]) {
			j++
		}
		return v[:j]
	}
}

// epoch reads seconds since the epoch with an optional fraction, quoted or not.
func epoch(b []byte) (time.Time, bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	sec, rest := digits(b)
	if sec == nil || sec[0] == '-' || len(sec) > 12 {
		return time.Time{}, false
	}
	var s int64
	for _, c := range sec {
		s = s*10 + int64(c-'0')
	}
	var ns int64
	if len(rest) > 0 && rest[0] == '.' {
		frac, r := digits(rest[1:])
		if frac == nil || frac[0] == '-' {
			return time.Time{}, false
		}
		scale := int64(100000000)
		for _, c := range frac {
			ns += int64(c-'0') * scale
			scale /= 10
		}
		rest = r
	}
	if len(rest) > 0 {
		// 1.658450358e9 and the like: not written by ns_server.
		return time.Time{}, false
	}
	return time.Unix(s, ns).UTC(), true
}

func detectMaster(name string, head []byte) int {
	named := name == "master_events.log"
	objects, events := 0, 0
	for len(head) > 0 && objects < 5 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			break
		}
		line = trimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			return 0
		}
		objects++
		if jsonValue(line, typeKey) != nil && jsonValue(line, tsKey) != nil {
			events++
		}
	}
	switch {
	case events > 0 && events == objects && named:
		return 95
	case events > 0 && events == objects:
		return 70
	case named && objects == 0:
		return 20
	}
	return 0
}
