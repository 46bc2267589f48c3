package vitess

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"forensics"
	"forensics/logtime"
)

// maxSnapshot bounds the bytes of one snapshot file held for decoding.
const maxSnapshot = 64 << 20

// maxErrors bounds the problems reported for one file.
const maxErrors = 20

// maxText bounds an event's Text; the whole document stays on the timeline
// as lines.
const maxText = 1 << 20

type snapshotParser struct {
	release  string
	origin   forensics.Origin
	stamp    forensics.Stamp
	snapshot string
	buf      []byte
	over     bool
	ev       forensics.Event
}

func newSnapshot(o forensics.Origin) forensics.Parser {
	p := &snapshotParser{origin: o}
	p.snapshot, p.stamp = snapshotOf(o.Path)
	if p.stamp.IsZero() && !o.ModTime.IsZero() {
		p.stamp = forensics.Stamp{Time: o.ModTime.UTC(), Zone: forensics.ZoneUTC}
	}
	return p
}

// Line holds the file for End; the first line carries the snapshot's time,
// the others continue it.
func (p *snapshotParser) Line(n int64, text []byte, emit forensics.Emit) (forensics.Stamp, error) {
	if !p.over {
		if len(p.buf)+len(text)+1 > maxSnapshot {
			p.over = true
		} else {
			p.buf = append(p.buf, text...)
			p.buf = append(p.buf, '\n')
		}
	}
	if n == 1 {
		return p.stamp, nil
	}
	return forensics.Stamp{}, nil
}

func (p *snapshotParser) End(emit forensics.Emit) error {
	var errs []error
	s := lineIndex{buf: p.buf, line: 1}
	var cmd command
	pos := 0
	if bytes.HasPrefix(p.buf, []byte("\xef\xbb\xbf")) {
		pos = 3 // a byte order mark, as some editors save
	}
	for pos < len(p.buf) {
		for pos < len(p.buf) && isSpace(p.buf[pos]) {
			pos++
		}
		if pos >= len(p.buf) {
			break
		}
		if c := p.buf[pos]; c == '{' || c == '[' {
			dec := json.NewDecoder(bytes.NewReader(p.buf[pos:]))
			dec.UseNumber()
			var doc any
			if err := dec.Decode(&doc); err != nil {
				errs = append(errs, p.syntaxError(&s, pos, err))
				pos = resync(p.buf, pos)
				continue
			}
			end := pos + int(dec.InputOffset())
			line := s.lineOf(pos)
			if err := p.document(doc, p.buf[pos:end], line, cmd, emit); err != nil {
				errs = append(errs, fmt.Errorf("line %d: %w", line, err))
			}
			cmd = command{}
			pos = end
			continue
		}
		end := lineEnd(p.buf, pos)
		text := p.buf[pos:end]
		if r := versionOf(text); r != "" && p.release == "" {
			p.release = r
		}
		if c, ok := parseCommand(text); ok {
			cmd = c
			pos = end
			continue
		}
		if next, ok := p.textBlock(&s, pos, cmd, emit); ok {
			cmd = command{}
			pos = next
			continue
		}
		pos = end
	}
	if len(errs) > maxErrors {
		errs = append(errs[:maxErrors], fmt.Errorf("and %d more documents that could not be read", len(errs)-maxErrors))
	}
	if p.over {
		errs = append(errs, fmt.Errorf("file larger than %d MiB: only the documents in the first %d MiB were read", maxSnapshot>>20, maxSnapshot>>20))
	}
	return errors.Join(errs...)
}

func (p *snapshotParser) syntaxError(s *lineIndex, pos int, err error) error {
	start := s.lineOf(pos)
	off := len(p.buf)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off = pos + int(se.Offset)
		if off > 0 {
			off-- // Offset counts the byte that was wrong
		}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		if p.over {
			return fmt.Errorf("line %d: JSON document cut at %d MiB, the most read from one file", start, maxSnapshot>>20)
		}
		err = errors.New("unexpected end of JSON input")
		if off > 0 && p.buf[off-1] == '\n' {
			off-- // the end of the last line, not the line after it
		}
	}
	line, col := s.lineCol(off)
	return fmt.Errorf("line %d, column %d: malformed JSON document (started on line %d): %v", line, col, start, err)
}

// resync skips a malformed document: reading resumes at the next line that
// starts with '{' or '[' in its first column, as a document printed by
// vtctldclient does.
func resync(buf []byte, pos int) int {
	for {
		i := bytes.IndexByte(buf[pos:], '\n')
		if i < 0 {
			return len(buf)
		}
		pos += i + 1
		if pos < len(buf) && (buf[pos] == '{' || buf[pos] == '[') {
			return pos
		}
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func lineEnd(buf []byte, pos int) int {
	if i := bytes.IndexByte(buf[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(buf)
}

// lineIndex maps byte offsets in the held file to line numbers. Offsets asked
// for mostly increase, so counting resumes where it stopped.
type lineIndex struct {
	buf  []byte
	off  int   // offset counted up to
	line int64 // line number at off
}

func (s *lineIndex) lineOf(off int) int64 {
	if off < s.off {
		s.off, s.line = 0, 1
	}
	s.line += int64(bytes.Count(s.buf[s.off:off], []byte{'\n'}))
	s.off = off
	return s.line
}

func (s *lineIndex) lineCol(off int) (int64, int) {
	if off > len(s.buf) {
		off = len(s.buf)
	}
	line := s.lineOf(off)
	start := bytes.LastIndexByte(s.buf[:off], '\n') + 1
	return line, off - start + 1
}

// document turns one JSON document, decoded as doc from raw, into events.
func (p *snapshotParser) document(doc any, raw []byte, line int64, cmd command, emit forensics.Emit) error {
	text := string(raw[:min(len(raw), maxText)])
	if l, ok := doc.([]any); ok {
		return p.list(l, line, text, cmd, emit)
	}
	o, _, err := fields(doc, "$")
	if err != nil {
		return err
	}
	switch {
	case isMigrations(o):
		return p.migrations(o, line, text, emit)
	case isDebugVars(o):
		p.debugVars(o, line, text, emit)
		return nil
	case has(o, "tablets"):
		l, err := o.list("tablets", "$")
		if err != nil {
			return err
		}
		if len(l) == 0 {
			return nil
		}
		return p.list(l, line, text, cmd, emit)
	case isVSchema(o):
		v, err := decode(doc, "$", readVSchema)
		if err != nil {
			return err
		}
		v.Keyspace = vschemaKeyspace(cmd, p.origin.Name)
		p.vschema(v, line, text, emit)
		return nil
	case has(o, "rules"):
		return p.rules(o, line, text, cmd, emit)
	case has(o, "workflows"):
		wfs, err := o.list("workflows", "$")
		if err != nil {
			return err
		}
		if len(wfs) == 0 {
			p.workflowList([]string{}, cmd, line, text, emit) // GetWorkflows of a keyspace without workflows
			return nil
		}
		for i, wraw := range wfs {
			w, err := decode(wraw, fmt.Sprintf("$.workflows[%d]", i), readWorkflow)
			if err != nil {
				return err
			}
			ev := p.start(KindWorkflow, line, text)
			ev.Keyspace = w.Target
			set(ev, AttrWorkflow, w.Name)
			set(ev, AttrKeyspace, w.Target)
			set(ev, AttrSourceKeyspace, w.Source)
			set(ev, AttrTables, strings.Join(w.Tables, ","))
			p.finish(ev, w, emit)
		}
		return nil
	case has(o, "summary") && (has(o, "start_state") || has(o, "current_state") || has(o, "dry_run_results")):
		r, err := decode(doc, "$", readSwitchResponse)
		if err != nil {
			return err
		}
		p.switchResult(r, line, text, emit)
		return nil
	case has(o, "traffic_state") || has(o, "shard_streams") || has(o, "table_copy_state"):
		ws, err := decode(doc, "$", readWorkflowStatus)
		if err != nil {
			return err
		}
		if ks := cmd.flag("target-keyspace", "keyspace", "k"); ws.Keyspace == "" && ks != "" {
			ws.Keyspace = ks
		}
		ws.Workflow = cmd.flag("workflow", "w")
		p.workflowStatus(ws, line, text, emit)
		return nil
	case has(o, "shard") && has(o, "keyspace") && has(o, "name"):
		s, err := decode(doc, "$", readShard)
		if err != nil {
			return err
		}
		p.shard(s, line, text, emit)
		return nil
	case has(o, "name") && isObject(o.get("keyspace")):
		k, err := decode(doc, "$", readKeyspace)
		if err != nil {
			return err
		}
		p.keyspaces([]Keyspace{k}, line, text, emit)
		return nil
	case has(o, "keyspaces") || has(o, "routing_rules") || has(o, "shard_routing_rules") || has(o, "keyspace_routing_rules") || has(o, "mirror_rules"):
		v, err := decode(doc, "$", readSrvVSchema)
		if err != nil {
			return err
		}
		cell := ""
		if cmd.is("GetSrvVSchema") && len(cmd.args) > 0 {
			cell = cmd.args[0]
		} else if c, ok := strings.CutPrefix(baseName(p.origin.Name), "srv_vschema_"); ok {
			cell = c
		}
		p.srvVSchemas(map[string]SrvVSchema{cell: v}, line, text, emit)
		return nil
	case has(o, "partitions"):
		k, err := decode(doc, "$", readSrvKeyspace)
		if err != nil {
			return err
		}
		p.srvKeyspaces(map[string]SrvKeyspace{"": k}, cmd, line, text, emit)
		return nil
	}
	if len(o) == 0 {
		if cmd.is("GetWorkflows") || WorkflowListKeyspace(p.origin.Name) != "" {
			p.workflowList([]string{}, cmd, line, text, emit) // GetWorkflows of a keyspace without workflows
		}
		return nil
	}
	return p.dataMap(o, line, text, cmd, emit)
}

// dataMap reads the documents printed as a Go map: GetSrvKeyspaces (cell →
// SrvKeyspace), GetSrvVSchemas (cell → SrvVSchema), FindAllShardsInKeyspace
// (shard → Shard).
func (p *snapshotParser) dataMap(o object, line int64, text string, cmd command, emit forensics.Emit) error {
	m := map[string]any(o)
	var srvKs, srvVs, shards, other int
	for _, v := range m {
		vo, ok, err := fields(v, "$")
		if err != nil || !ok {
			other++
			continue
		}
		switch {
		case has(vo, "partitions") || len(vo) == 0:
			srvKs++
		case has(vo, "keyspaces") || has(vo, "routing_rules"):
			srvVs++
		case has(vo, "shard") && has(vo, "keyspace") && has(vo, "name"):
			shards++
		default:
			other++
		}
	}
	switch {
	case len(m) > 0 && other == 0 && srvKs == len(m):
		out := map[string]SrvKeyspace{}
		for _, cell := range sortedKeys(m) {
			k, err := decode(m[cell], "$["+cell+"]", readSrvKeyspace)
			if err != nil {
				return err
			}
			out[cell] = k
		}
		p.srvKeyspaces(out, cmd, line, text, emit)
		return nil
	case len(m) > 0 && other == 0 && srvVs+srvKs == len(m) && srvVs > 0:
		out := map[string]SrvVSchema{}
		for _, cell := range sortedKeys(m) {
			vs, err := decode(m[cell], "$["+cell+"]", readSrvVSchema)
			if err != nil {
				return err
			}
			out[cell] = vs
		}
		p.srvVSchemas(out, line, text, emit)
		return nil
	case len(m) > 0 && other == 0 && shards == len(m):
		for _, name := range sortedKeys(m) {
			s, err := decode(m[name], "$["+name+"]", readShard)
			if err != nil {
				return err
			}
			p.shard(s, line, text, emit)
		}
		return nil
	}
	keys := sortedKeys(o)
	if len(keys) > 6 {
		keys = append(keys[:6], "…")
	}
	return fmt.Errorf("JSON document with keys %s is not a vtctldclient output forensics reads", strings.Join(keys, ", "))
}

// list reads a top-level JSON list: GetKeyspaces.
func (p *snapshotParser) list(l []any, line int64, text string, cmd command, emit forensics.Emit) error {
	if len(l) == 0 {
		if cmd.is("GetKeyspaces") {
			p.keyspaces(nil, line, text, emit)
		}
		if cmd.is("Workflow") || WorkflowListKeyspace(p.origin.Name) != "" {
			p.workflowList([]string{}, cmd, line, text, emit)
		}
		return nil // GetKeyspaces or GetSrvVSchemas with nothing to list
	}
	if names, ok := stringList(l); ok {
		p.workflowList(names, cmd, line, text, emit)
		return nil
	}
	if isTabletRecord(l[0]) {
		ts := make([]Tablet, 0, len(l))
		for i, e := range l {
			t, err := decode(e, fmt.Sprintf("$[%d]", i), readTablet)
			if err != nil {
				return err
			}
			ts = append(ts, t)
		}
		p.tablets(ts, line, text, emit)
		return nil
	}
	kss := make([]Keyspace, 0, len(l))
	for i, e := range l {
		path := fmt.Sprintf("$[%d]", i)
		o, ok, err := fields(e, path)
		if err != nil {
			return fmt.Errorf("JSON list is not a GetKeyspaces output: %w", err)
		}
		if !ok || !has(o, "name") || !isObject(o.get("keyspace")) {
			return fmt.Errorf("JSON list is not a GetKeyspaces output: %s has no name and keyspace", path)
		}
		k, err := decode(e, path, readKeyspace)
		if err != nil {
			return err
		}
		kss = append(kss, k)
	}
	p.keyspaces(kss, line, text, emit)
	return nil
}

// rules reads {"rules": […]}: routing rules, shard routing rules, or
// keyspace routing rules, told apart by the fields of the rules. With no
// rules the document is the same for all three; it is taken for routing
// rules unless the echoed command line or the file name says otherwise.
func (p *snapshotParser) rules(o object, line int64, text string, cmd command, emit forensics.Emit) error {
	l, err := o.list("rules", "$")
	if err != nil {
		return err
	}
	kind := KindRoutingRules
	if len(l) > 0 {
		r, _, err := fields(l[0], "$.rules[0]")
		if err != nil {
			return err
		}
		switch {
		case has(r, "from_table"):
		case has(r, "shard"):
			kind = KindShardRoutingRules
		case has(r, "from_keyspace"):
			return nil // keyspace routing rules: multi-tenant MoveTables only
		default:
			return errors.New("JSON document has rules without from_table or from_keyspace")
		}
	} else {
		name := baseName(p.origin.Name)
		switch {
		case cmd.is("GetShardRoutingRules") || (!cmd.known() && strings.Contains(name, "shard_routing")):
			kind = KindShardRoutingRules
		case cmd.is("GetKeyspaceRoutingRules") || (!cmd.known() && strings.Contains(name, "keyspace_routing")):
			return nil
		}
	}
	var doc any
	if kind == KindRoutingRules {
		doc, err = decode(map[string]any(o), "$", readRoutingRules)
	} else {
		doc, err = decode(map[string]any(o), "$", readShardRoutingRules)
	}
	if err != nil {
		return err
	}
	p.finish(p.start(kind, line, text), doc, emit)
	return nil
}

func (p *snapshotParser) shard(s Shard, line int64, text string, emit forensics.Emit) {
	ev := p.start(KindShard, line, text)
	ev.Keyspace, ev.Shard = s.Keyspace, s.Name
	set(ev, AttrKeyspace, s.Keyspace)
	set(ev, AttrShard, s.Name)
	p.finish(ev, s, emit)
}

func (p *snapshotParser) keyspaces(kss []Keyspace, line int64, text string, emit forensics.Emit) {
	if kss == nil {
		kss = []Keyspace{}
	}
	names := make([]string, len(kss))
	for i, k := range kss {
		names[i] = k.Name
	}
	ev := p.start(KindKeyspaces, line, text)
	set(ev, AttrKeyspaces, strings.Join(names, ","))
	p.finish(ev, Keyspaces{Keyspaces: kss}, emit)
}

func (p *snapshotParser) srvKeyspaces(cells map[string]SrvKeyspace, cmd command, line int64, text string, emit forensics.Emit) {
	d := SrvKeyspaces{Cells: cells}
	if cmd.is("GetSrvKeyspaces") && len(cmd.args) > 0 {
		d.Keyspace = cmd.args[0]
	} else if rest, ok := strings.CutPrefix(baseName(p.origin.Name), "srv_keyspace_"); ok {
		// srv_keyspace_<cell>_<keyspace>.json (the snapshot layout)
		for _, cell := range sortedKeys(cells) {
			if ks, ok := strings.CutPrefix(rest, cell+"_"); ok && cell != "" && ks != "" {
				d.Keyspace = ks
				break
			}
		}
	}
	ev := p.start(KindSrvKeyspace, line, text)
	ev.Keyspace = d.Keyspace
	set(ev, AttrKeyspace, d.Keyspace)
	set(ev, AttrCells, strings.Join(sortedKeys(cells), ","))
	p.finish(ev, d, emit)
}

func (p *snapshotParser) srvVSchemas(cells map[string]SrvVSchema, line int64, text string, emit forensics.Emit) {
	ev := p.start(KindSrvVSchema, line, text)
	set(ev, AttrCells, strings.Join(sortedKeys(cells), ","))
	p.finish(ev, SrvVSchemas{Cells: cells}, emit)
}

func (p *snapshotParser) workflowStatus(ws WorkflowStatus, line int64, text string, emit forensics.Emit) {
	ev := p.start(KindWorkflowStatus, line, text)
	ev.Keyspace = ws.Keyspace
	set(ev, AttrKeyspace, ws.Keyspace)
	set(ev, AttrWorkflow, ws.Workflow)
	set(ev, AttrTrafficState, ws.TrafficState)
	p.finish(ev, ws, emit)
}

func (p *snapshotParser) switchResult(r SwitchResult, line int64, text string, emit forensics.Emit) {
	ev := p.start(KindSwitchResult, line, text)
	ev.Keyspace = r.Keyspace
	set(ev, AttrCommand, r.Command)
	set(ev, AttrKeyspace, r.Keyspace)
	set(ev, AttrWorkflow, r.Workflow)
	set(ev, AttrStartState, r.StartState)
	set(ev, AttrCurrentState, r.CurrentState)
	p.finish(ev, r, emit)
}

func (p *snapshotParser) start(kind forensics.Kind, line int64, text string) *forensics.Event {
	ev := &p.ev
	ev.Reset()
	ev.Stamp = p.stamp
	ev.Kind = kind
	ev.Line = line
	ev.Text = text
	return ev
}

func (p *snapshotParser) finish(ev *forensics.Event, doc any, emit forensics.Emit) {
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // the doc types marshal
	}
	set(ev, AttrSnapshot, p.snapshot)
	set(ev, AttrDoc, string(b))
	emit(ev)
}

// set adds an attribute that has a value.
func set(ev *forensics.Event, key forensics.AttrKey, value string) {
	if value != "" {
		ev.Set(key, value)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// baseName is a file name without its extension.
func baseName(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// snapshotOf finds the snapshot folder in a display path: the last
// component named snapshot-<UTC time>, in RFC 3339
// (snapshot-2024-12-02T16:45:00Z), compact (snapshot-20241202T164500Z) or
// colon-free form (snapshot-2024-12-02T16-45-00Z); an archive named so
// (snapshot-….tar.gz) counts too. It returns the folder's display path and
// its time. Without one, the folder is the file's parent and the time is
// zero.
func snapshotOf(path string) (string, forensics.Stamp) {
	var folder string
	var stamp forensics.Stamp
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' && path[i] != '\\' && path[i] != '!' {
			continue
		}
		comp := path[start:i]
		if t, ok := strings.CutPrefix(comp, "snapshot-"); ok {
			if st, ok := snapshotTime(t); ok {
				folder, stamp = path[:i], st
			}
		}
		start = i + 1
	}
	if folder == "" {
		if i := strings.LastIndexAny(path, "/\\!"); i > 0 {
			folder = path[:i]
		}
	}
	return folder, stamp
}

func snapshotTime(s string) (forensics.Stamp, bool) {
	if len(s) >= 20 && s[13] == '-' && s[16] == '-' && s[10] == 'T' {
		// colon-free: 2024-12-02T16-45-00Z
		b := []byte(s)
		b[13], b[16] = ':', ':'
		s = string(b)
	}
	if st, n, ok := logtime.ISO([]byte(s)); ok && (n == len(s) || s[n] == '.') {
		if st.Offset == 0 {
			st.Zone = forensics.ZoneUTC
		}
		return st, true
	}
	// compact: 20241202T164500Z
	if len(s) >= 16 && s[8] == 'T' && s[15] == 'Z' && (len(s) == 16 || s[16] == '.') {
		year, ok1 := logtime.Digits([]byte(s[0:4]))
		month, ok2 := logtime.Digits([]byte(s[4:6]))
		day, ok3 := logtime.Digits([]byte(s[6:8]))
		hour, ok4 := logtime.Digits([]byte(s[9:11]))
		minute, ok5 := logtime.Digits([]byte(s[11:13]))
		sec, ok6 := logtime.Digits([]byte(s[13:15]))
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour < 24 && minute < 60 && sec <= 60 {
			t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
			return forensics.Stamp{Time: t, Zone: forensics.ZoneUTC}, true
		}
	}
	return forensics.Stamp{}, false
}

// stringList reports whether a JSON list holds only strings, and returns them.
func stringList(l []any) ([]string, bool) {
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// workflowList reads what `vtctldclient Workflow --keyspace <ks> list`
// prints (go/cmd/vtctldclient/command/vreplication/workflow/get.go: the
// workflow names as a JSON array), or an empty GetWorkflows.
func (p *snapshotParser) workflowList(names []string, cmd command, line int64, text string, emit forensics.Emit) {
	d := WorkflowList{Workflows: names}
	switch {
	case cmd.flag("keyspace", "k") != "":
		d.Keyspace = cmd.flag("keyspace", "k")
	case cmd.is("GetWorkflows") && len(cmd.args) > 0:
		d.Keyspace = cmd.args[0]
	default:
		d.Keyspace = WorkflowListKeyspace(p.origin.Name)
	}
	if len(names) == 0 && d.Keyspace == "" {
		return // an empty list that names no keyspace says nothing
	}
	ev := p.start(KindWorkflowList, line, text)
	ev.Keyspace = d.Keyspace
	set(ev, AttrKeyspace, d.Keyspace)
	set(ev, AttrWorkflows, strings.Join(names, ","))
	p.finish(ev, d, emit)
}

// WorkflowListKeyspace returns the keyspace a file of a snapshot is named
// after when it holds what `Workflow --keyspace <ks> list` or `GetWorkflows
// <ks>` printed (workflow_list_<ks>.json, workflows_<ks>.json,
// workflow-list-<ks>.json), or "". An empty output ([], {}, {"workflows":
// []}) says which keyspace has no workflow only through that name.
func WorkflowListKeyspace(name string) string {
	base := baseName(name)
	for _, pre := range []string{"workflow_list_", "workflows_", "workflow-list-"} {
		if ks, ok := strings.CutPrefix(base, pre); ok && ks != "" {
			return ks
		}
	}
	return ""
}

// versionOf reads the release from what `vtctldclient --version` prints
// (go/vt/servenv/buildinfo.go versionInfo, as quoted in
// vitessio/vitess#17127): "vtctldclient version Version: 19.0.0-SNAPSHOT (Git
// revision b30be77 branch 'latest-19.0') built on … using go1.22.4
// darwin/arm64".
func versionOf(line []byte) string {
	i := bytes.Index(line, []byte("Version: "))
	if i < 0 || (i > 0 && !bytes.HasSuffix(line[:i], []byte(" version "))) || !bytes.Contains(line[i:], []byte(" (Git revision ")) {
		return ""
	}
	v := line[i+len("Version: "):]
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return ""
	}
	end := bytes.IndexByte(v, ' ')
	if end < 0 {
		return ""
	}
	return string(v[:end])
}

// Release returns the release of the vtctldclient that printed the file,
// when the file holds its --version output, or "".
func (p *snapshotParser) Release() string { return p.release }
