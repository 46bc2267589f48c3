package vitess

import (
	"strings"

	"forensics"
)

// KindOnlineDDL is a step of an Online DDL migration, as the primary
// tablet's executor logs it (go/vt/vttablet/onlineddl/executor.go).
const KindOnlineDDL forensics.Kind = "vttablet.online_ddl"

var onlineDDLDoc = forensics.KindDoc{Kind: KindOnlineDDL, Category: forensics.CategoryStep, Label: "Online DDL", Component: "vttablet",
	Doc:   "a step of an Online DDL migration on the shard's primary (go/vt/vttablet/onlineddl/executor.go): step stage (updateMigrationStage: uuid=%s, stage=%s; cutover when the stage is \"starting cut-over\", each attempt), status (updateMigrationStatus: transitioning migration: %s into status: %s), message (updateMigrationMessage: uuid=%s, message=%s, the migration's last error); wait is the wait for a position that failed (go/vt/vttablet/tabletmanager/vreplication/engine.go WaitForPos: error waiting for pos: …, wait time: %v)",
	Attrs: attrs.Of(AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrShard, AttrStage, AttrStatus, AttrStep, AttrTablet, AttrUUID, AttrWait)}

// classifyOnlineDDL reads the executor's lines.
func classifyOnlineDDL(first, msg []byte) (step, bool) {
	if first[0] != 'u' {
		return step{}, false
	}
	if rest, ok := cut(first, "updateMigrationStage: uuid="); ok {
		uuid, stage, ok := strings.Cut(rest, ", stage=")
		if !ok || uuid == "" {
			return step{}, false
		}
		stage += continuation(msg)
		name := "stage"
		if stage == "starting cut-over" {
			name = "cutover"
		}
		s := step{kind: KindOnlineDDL, name: name, attrs: []attr{{AttrUUID, uuid}, {AttrStage, stage}}}
		if e, ok := strings.CutPrefix(stage, "timeout while waiting for post-lock pos: "); ok {
			s.err = e
			s.attrs = append(s.attrs, attr{AttrWait, waitTime(e)})
		}
		return s, true
	}
	if rest, ok := cut(first, "updateMigrationMessage: uuid="); ok {
		uuid, m, ok := strings.Cut(rest, ", message=")
		if !ok || uuid == "" {
			return step{}, false
		}
		m += continuation(msg)
		return step{kind: KindOnlineDDL, name: "message", err: m, attrs: []attr{{AttrUUID, uuid}, {AttrWait, waitTime(m)}}}, true
	}
	if rest, ok := cut(first, "updateMigrationStatus: transitioning migration: "); ok {
		uuid, status, ok := strings.Cut(rest, " into status: ")
		if !ok || uuid == "" {
			return step{}, false
		}
		return step{kind: KindOnlineDDL, name: "status", attrs: []attr{{AttrUUID, uuid}, {AttrStatus, strings.TrimSpace(status)}}}, true
	}
	return step{}, false
}

// waitTime returns the wait of "error waiting for pos: …, wait time: 10.0012s".
func waitTime(e string) string {
	_, w, ok := strings.Cut(e, "wait time: ")
	if !ok {
		return ""
	}
	w, _, _ = strings.Cut(w, " ")
	return strings.TrimRight(w, ",;)")
}
