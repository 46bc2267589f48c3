package goxdcr

import (
	"bytes"
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// maxEntry bounds the text kept of an entry that continues over lines (an
// error map of every part of a pipeline); the lines past it stay on the
// timeline.
const maxEntry = 64 << 10

// The templates, goxdcr trinity (7.6) and morpheus (8.0), the same in both:
//
//	pipeline_manager.go update():   "Try to fix Pipeline %v. Current error(s)=%v \n"   base.FlattenErrorMap: "part : error", one a line
//	pipeline_manager.go update():   "Failed to update pipeline %v, err=%v\n"
//	pipeline_manager.go update():   "Replication %v has been updated. Back to business\n"
//	pipeline_svc/checkpoint_manager.go: "Pre_replicate failed for %v. err=%v\n"        (the vbucket; the topic is in the context)
//	pipeline_svc/checkpoint_manager.go: "populateTargetVBOpaque(pre_replicate) failed for %v. err=%v\n"  (7.6)
//
// A pipeline's name is the replication id, metadata.ReplicationId:
// targetClusterUUID/sourceBucket/targetBucket, prefixed with "backfill_"
// for its backfill pipeline (base.CompileBackfillPipelineSpecId).
const (
	fixPrefix     = "Try to fix Pipeline "
	failedPrefix  = "Failed to update pipeline "
	updatedPrefix = "Replication "
	preRepPrefix  = "Pre_replicate failed for "
	opaquePrefix  = "populateTargetVBOpaque(pre_replicate) failed for "
	topicContext  = "pipelineFullTopic=" // base.PipelineFullTopic, added by xdcr_factory to a pipeline's loggers
)

type parser struct {
	ev  forensics.Event
	ent entry
}

// entry is a message that may go on over lines, held until the next header.
type entry struct {
	open bool
	kind forensics.Kind
	n    int64
	st   forensics.Stamp
	buf  []byte // the message from the template's prefix on, lines joined with '\n'
	text []byte // the whole entry as logged
}

func (p *parser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	st, msg, ok := header(text)
	if !ok {
		if p.ent.open && len(p.ent.text)+len(text) < maxEntry {
			p.ent.buf = append(append(p.ent.buf, '\n'), text...)
			p.ent.text = append(append(p.ent.text, '\n'), text...)
		}
		return forensics.Stamp{}, nil
	}
	p.flush(emit)
	var topic []byte
	if r, ok := scan.Cut(msg, topicContext); ok {
		if i := bytes.Index(r, []byte(", ")); i > 0 {
			topic, msg = r[:i], r[i+2:]
		}
	}
	if len(msg) == 0 {
		return st, nil // a header alone, or a pipeline's context and nothing after it
	}
	switch msg[0] {
	case 'T':
		if r, ok := scan.Cut(msg, fixPrefix); ok {
			p.open(PipelineFix, n, st, r, text)
		}
	case 'F':
		if r, ok := scan.Cut(msg, failedPrefix); ok {
			p.open(UpdateFailed, n, st, r, text)
		}
	case 'R':
		if r, ok := scan.Cut(msg, updatedPrefix); ok {
			if id, ok := bytes.CutSuffix(bytes.TrimRight(r, " "), []byte(" has been updated. Back to business")); ok {
				e := p.event(PipelineUpdated, n, st, text)
				setPipeline(e, string(id))
				emit(e)
			}
		}
	case 'P', 'p':
		r, ok := scan.Cut(msg, preRepPrefix)
		if !ok {
			r, ok = scan.Cut(msg, opaquePrefix)
		}
		if ok {
			p.checkpointFailed(n, st, text, topic, r, emit)
		}
	}
	return st, nil
}

func (p *parser) End(emit forensics.Emit) error {
	p.flush(emit)
	return nil
}

func (p *parser) open(k forensics.Kind, n int64, st forensics.Stamp, rest, text []byte) {
	p.ent = entry{open: true, kind: k, n: n, st: st,
		buf: append(p.ent.buf[:0], rest...), text: append(p.ent.text[:0], text...)}
}

// flush reads the open entry: the pipeline's name, then its errors.
func (p *parser) flush(emit forensics.Emit) {
	en := &p.ent
	if !en.open {
		return
	}
	en.open = false
	sep := ". Current error(s)="
	if en.kind == UpdateFailed {
		sep = ", err="
	}
	i := bytes.Index(en.buf, []byte(sep))
	if i <= 0 {
		return
	}
	e := p.event(en.kind, en.n, en.st, en.text)
	setPipeline(e, string(en.buf[:i]))
	errs := errorList(en.buf[i+len(sep):])
	if errs != "" {
		e.Set(AttrError, errs)
		e.Set(AttrCause, cause(errs))
	}
	emit(e)
}

func (p *parser) checkpointFailed(n int64, st forensics.Stamp, text, topic, r []byte, emit forensics.Emit) {
	vb, rest, ok := bytes.Cut(r, []byte(". err="))
	if !ok || len(vb) == 0 || len(vb) > 5 {
		return
	}
	v := 0
	for _, c := range vb {
		if c < '0' || c > '9' {
			return
		}
		v = v*10 + int(c-'0')
	}
	e := p.event(CheckpointFailed, n, st, text)
	e.VB = v
	if len(topic) > 0 {
		setPipeline(e, string(topic))
	}
	if errs := errorList(rest); errs != "" {
		e.Set(AttrError, errs)
		e.Set(AttrCause, cause(errs))
	}
	emit(e)
}

func (p *parser) event(k forensics.Kind, n int64, st forensics.Stamp, text []byte) *forensics.Event {
	e := &p.ev
	e.Reset()
	e.Kind, e.Line, e.Stamp, e.Text = k, n, st, string(text)
	return e
}

// setPipeline sets what a pipeline's name says: the replication, which of
// its pipelines, the source bucket (the event's bucket), the target cluster
// and bucket.
func setPipeline(e *forensics.Event, name string) {
	pipeline := "main"
	if id, ok := strings.CutPrefix(name, "backfill_"); ok {
		pipeline, name = "backfill", id
	}
	e.Set(AttrReplication, name)
	e.Set(AttrPipeline, pipeline)
	parts := strings.Split(name, "/")
	if len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "" {
		e.Set(AttrTargetCluster, parts[0])
		e.Bucket = parts[1]
		e.Set(AttrTargetBucket, parts[2])
	}
}

// errorList joins the errors of an error map, one a line as logged, with
// "; ".
func errorList(b []byte) string {
	var out []string
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, string(l))
		}
	}
	return strings.Join(out, "; ")
}

// causes are the words of the errors goxdcr reports most, in the order
// they are tried: Go's net errors (dial tcp …: connect: connection
// refused, i/o timeout), goxdcr's base.RemoteClusterAuthErrString
// ("Authentication failed") and utils.NonExistentBucketError ("Bucket
// doesn't exist"), the topology change detector's errors.
var causes = []struct {
	cause string
	words []string
}{
	{"topology", []string{"Topology has changed", "topology change"}},
	{"auth", []string{"Authentication failed", "authentication failure", "Unauthorized", "status=401", "401 Unauthorized"}},
	{"tls", []string{"x509:", "tls:", "certificate"}},
	{"bucket_missing", []string{"Bucket doesn't exist", "presumed deleted", "bucket not found", "Bucket not found", "does not exist", "doesn't exist"}},
	{"connection_refused", []string{"connection refused"}},
	{"timeout", []string{"i/o timeout", "timed out", "Timeout", "timeout", "deadline exceeded"}},
	{"network", []string{"no route to host", "network is unreachable", "connection reset", "broken pipe", "EOF", "no such host"}},
}

// cause names what an error text says, as a word (AttrCause).
func cause(errs string) string {
	for _, c := range causes {
		for _, w := range c.words {
			if strings.Contains(errs, w) {
				return c.cause
			}
		}
	}
	return "other"
}
