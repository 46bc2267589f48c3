package crdb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"forensics"
)

// A trace exported to or through Zipkin (its v2 JSON API, which Jaeger and
// the OpenTelemetry collector also write) is an array of spans:
//
//	[{"traceId":"5982fe77008310cc","parentId":"…","id":"bd7a977555f6b982","name":"/cockroach.roachpb.Internal/Batch",
//	  "timestamp":1472470996199000,"duration":207000,"localEndpoint":{"serviceName":"node 1"},
//	  "annotations":[{"timestamp":1472470996238000,"value":"r52: sending batch 1 Put to (n2,s2):3"}],
//	  "tags":{"node":"1"}}]
//
// Times are µs since the epoch. Support engineers save such a file as
// trace-jaeger.json when they pull a trace from the collector of a cluster
// that sends its spans to Zipkin (trace.zipkin.collector).

// zipkinSpans reads the array of spans at the top of the document.
func (w *docWalker) zipkinSpans() error {
	seen := false
	err := w.array(func(at int64) error {
		ok, err := w.zipkinSpan(at)
		seen = seen || ok
		return err
	})
	if err == nil && !seen {
		return errNotTrace
	}
	return err
}

// zipkinSpan reads one span, and reports whether it was one (it has a
// traceId or a name).
func (w *docWalker) zipkinSpan(at int64) (bool, error) {
	var traceID, id, name, service string
	var start, dur json.Number
	var tags map[string]any
	var logs []pendingLog
	err := w.object(func(key string) error {
		switch key {
		case "traceId":
			return w.dec.Decode(&traceID)
		case "id":
			return w.dec.Decode(&id)
		case "name":
			return w.dec.Decode(&name)
		case "timestamp":
			return w.dec.Decode(&start)
		case "duration":
			return w.dec.Decode(&dur)
		case "tags":
			return w.dec.Decode(&tags)
		case "localEndpoint":
			var ep struct {
				ServiceName string `json:"serviceName"`
			}
			err := w.dec.Decode(&ep)
			service = ep.ServiceName
			return err
		case "annotations":
			return w.array(func(at int64) error {
				var a struct {
					Timestamp json.Number `json:"timestamp"`
					Value     string      `json:"value"`
				}
				if err := w.dec.Decode(&a); err != nil {
					return err
				}
				l := pendingLog{line: w.lineAt(at), msg: a.Value}
				if us, err := a.Timestamp.Int64(); err == nil && us > 0 {
					l.when = time.UnixMicro(us)
				}
				logs = append(logs, l)
				return nil
			})
		}
		return w.skip()
	})
	if err != nil || (traceID == "" && name == "") {
		return false, err
	}
	node := ""
	if m := jaegerProcess.FindStringSubmatch(service); m != nil {
		node = "n" + m[1]
	} else if v, ok := tags["node"]; ok {
		node = "n" + fmt.Sprint(v)
	}
	key := id
	if key == "" {
		key = name + " " + start.String()
	}
	span := traceSpan{key: key, node: node}
	st := forensics.Stamp{}
	if us, err := start.Int64(); err == nil && us > 0 {
		st = forensics.Stamp{Time: time.UnixMicro(us).UTC(), Zone: forensics.ZoneUTC}
	}
	var extra []forensics.Attr
	if traceID != "" {
		extra = append(extra, forensics.NewAttr(AttrTraceID, traceID))
	}
	if us, err := dur.Int64(); err == nil {
		extra = append(extra, forensics.NewAttr(AttrDurationUs, dur.String()),
			forensics.NewAttr(AttrElapsed, strconv.FormatFloat(float64(us)/1e6, 'f', 6, 64)))
	}
	w.spanStart(w.lineAt(at), st, name, span, extra)
	for _, l := range logs {
		w.log(l, span)
	}
	return true, nil
}

// isZipkin reports whether t (trimmed, opening with '[') is an array of
// Zipkin spans: a traceId and what only spans have next to it.
func isZipkin(t []byte) bool {
	return len(t) > 0 && t[0] == '[' && bytes.Contains(t, []byte(`"traceId"`)) &&
		(bytes.Contains(t, []byte(`"localEndpoint"`)) || bytes.Contains(t, []byte(`"annotations"`)))
}
