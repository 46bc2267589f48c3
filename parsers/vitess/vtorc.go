package vitess

import (
	"strings"

	"forensics"
	"forensics/parsers/scan"
)

// KindRecovery is a step of one of VTOrc's recoveries: which problem it
// analysed on which shard, and how the recovery went.
const KindRecovery forensics.Kind = "vtorc.recovery"

// The outcomes of a recovery step (AttrOutcome).
const (
	OutcomeDetected     = "detected"      // the problem was found: "proceeding with … detection"
	OutcomeStarted      = "started"       // checkAndRecover began
	OutcomeLock         = "lock"          // the shard lock was asked for
	OutcomeAttempted    = "attempted"     // "Analysis: …, <recovery> …": the recovery runs
	OutcomeSucceeded    = "succeeded"     // "Recovery succeeded", or the lock released after success
	OutcomeFailed       = "failed"        // "Failed to recover: …", "Error running ERS - …", the lock released with an error
	OutcomeNotAttempted = "not_attempted" // "Recovery not attempted: …"
	OutcomeLockFailed   = "lock_failed"   // the shard lock could not be taken: another process holds it
	OutcomeAlreadyFixed = "already_fixed" // "No longer valid, some other agent must have fixed the problem."
)

var recoveryDoc = forensics.KindDoc{Kind: KindRecovery, Category: forensics.CategoryStep, Label: "VTOrc recovery", Component: "vtorc",
	Doc:   "a step of a VTOrc recovery: the problem it analysed (analysis: DeadPrimary, ClusterHasNoPrimary, …), the shard, the recovery it runs and its outcome (detected, started, lock, attempted, succeeded, failed, not_attempted, lock_failed, already_fixed); go/vt/vtorc/logic/topology_recovery.go",
	Attrs: attrs.Of(AttrAnalysis, AttrCaller, AttrError, AttrKeyspace, AttrLevel, AttrOutcome, AttrReason, AttrRecovery, AttrShard, AttrTablet)}

// ReparentAnalysis returns the reparent a VTOrc recovery of the analysis
// runs (topology_recovery.go getCheckAndRecoverFunctionCode: the dead
// primary's analyses run EmergencyReparentShard, ClusterHasNoPrimary elects
// a primary with PlannedReparentShard), or "" for the recoveries that fix a
// single tablet.
func ReparentAnalysis(analysis string) string {
	switch analysis {
	case "DeadPrimary", "DeadPrimaryAndSomeReplicas", "PrimaryDiskStalled", "PrimarySemiSyncBlocked", "PrimaryTabletDeleted":
		return "EmergencyReparentShard"
	case "ClusterHasNoPrimary":
		return "PlannedReparentShard"
	}
	return ""
}

// recoveryPrefix cuts the prefix VTOrc's recovery logger puts before every
// line of a recovery from v22 (log.NewPrefixedLogger in
// executeCheckAndRecoverFunction): "Recovery for <analysis> on
// <keyspace>/<shard>: ".
func recoveryPrefix(first []byte) (analysis, ks, shard string, rest []byte, ok bool) {
	r, found := cut(first, "Recovery for ")
	if !found {
		return "", "", "", nil, false
	}
	analysis, target, found := strings.Cut(r, " on ")
	if !found || strings.ContainsRune(analysis, ' ') {
		return "", "", "", nil, false
	}
	target, _, found = strings.Cut(target, ": ")
	if !found {
		return "", "", "", nil, false
	}
	ks, shard, _ = strings.Cut(target, "/")
	return analysis, ks, shard, first[len("Recovery for ")+len(analysis)+len(" on ")+len(target)+len(": "):], true
}

// classifyRecovery reads VTOrc's lines about its recoveries; first is the
// entry's first line (after the v22 prefix, which gave analysis, keyspace
// and shard), msg all of it.
func classifyRecovery(first, msg []byte, analysis, ks, shard string) (step, bool) {
	// The emergency reparent's own lines come through the recovery's
	// logger as "ERS - <line>" (runEmergencyReparentOp), and before v22
	// also as "topology_recovery: <line>" (AuditTopologyRecovery).
	for _, p := range []string{"ERS - ", "topology_recovery: "} {
		if rest, ok := cut(first, p); ok && len(rest) > 0 {
			if s, ok := classifyOps([]byte(rest), msg); ok {
				if s.keyspace == "" {
					s.keyspace, s.shard = ks, shard
				}
				return s, true
			}
			if p == "ERS - " {
				return step{}, false
			}
		}
	}
	rec := func(outcome string, extra ...attr) (step, bool) {
		return recoveryStep(outcome, ks, shard, analysis, extra...), true
	}
	failed := func(outcome, errText string) (step, bool) {
		return recoveryFailed(outcome, ks, shard, analysis, errText+continuation(msg)), true
	}
	switch first[0] {
	case 'S':
		if scan.HasPrefix(first, "Starting checkAndRecover") {
			return rec(OutcomeStarted)
		}
	case 'R':
		switch {
		case scan.HasPrefix(first, "Recovery succeeded"):
			return rec(OutcomeSucceeded)
		case scan.HasPrefix(first, "Recovery not attempted: "):
			return failed(OutcomeNotAttempted, string(first[len("Recovery not attempted: "):]))
		}
	case 'F':
		if rest, ok := cut(first, "Failed to recover: "); ok {
			return failed(OutcomeFailed, rest)
		}
		if rest, ok := cut(first, "Failed to lock shard, aborting recovery: "); ok {
			return failed(OutcomeLockFailed, rest)
		}
	case 'E':
		if rest, ok := cut(first, "Error running ERS - "); ok {
			return failed(OutcomeFailed, rest)
		}
	case 'A':
		// "Analysis: %v, %v %+v" (runEmergencyReparentOp: the recovery's
		// name and the tablet), "Analysis: %v, will elect a new primary for
		// %v:%v" (electNewPrimary), "Analysis: %v on tablet %v - No longer
		// valid, some other agent must have fixed the problem."
		rest, ok := cut(first, "Analysis: ")
		if !ok {
			break
		}
		code, what, _ := strings.Cut(rest, ", ")
		if c, t, ok := strings.Cut(rest, " on tablet "); ok && strings.Contains(t, "No longer valid") {
			analysis = c
			tablet, _, _ := strings.Cut(t, " ")
			return rec(OutcomeAlreadyFixed, attr{AttrTablet, tablet})
		}
		analysis = code
		if target, ok := strings.CutPrefix(what, "will elect a new primary for "); ok {
			if k, sh, ok := strings.Cut(strings.TrimSpace(target), ":"); ok && ks == "" {
				ks, shard = k, sh
			}
			return rec(OutcomeAttempted, attr{AttrRecovery, "ElectNewPrimary"})
		}
		name, tablet, _ := strings.Cut(what, " ")
		return rec(OutcomeAttempted, attr{AttrRecovery, name}, attr{AttrTablet, strings.TrimSpace(tablet)})
	case 'e':
		// "executeCheckAndRecoverFunction: proceeding with %+v detection on
		// %+v; isActionable?: %+v"
		if rest, ok := cut(first, "executeCheckAndRecoverFunction: proceeding with "); ok {
			code, on, ok := strings.Cut(rest, " detection on ")
			if !ok {
				break
			}
			analysis = code
			tablet, _, _ := strings.Cut(on, ";")
			return rec(OutcomeDetected, attr{AttrTablet, strings.TrimSpace(tablet)})
		}
	case 'L', 'U', 'n':
		return recoveryLock(first, msg)
	}
	return step{}, false
}

// recoveryLock reads the shard lock of a recovery: go/vt/topo/locks.go's
// "Locking shard <ks>/<shard> for action VTOrc Recovery for <analysis> on
// <tablet>" and its unlock, and the lock another process holds.
func recoveryLock(first, msg []byte) (step, bool) {
	switch first[0] {
	case 'L':
		if rest, ok := cut(first, "Locking shard "); ok {
			k, sh, action := shardLock(rest)
			if code, tablet, ok := vtorcAction(action); ok {
				return recoveryStep(OutcomeLock, k, sh, code, attr{AttrTablet, tablet}), true
			}
		}
	case 'U':
		if rest, ok := cut(first, "Unlocking shard "); ok {
			if target, action, ok := strings.Cut(rest, " for successful action "); ok {
				if code, tablet, ok := vtorcAction(action); ok {
					k, sh, _ := strings.Cut(target, "/")
					return recoveryStep(OutcomeSucceeded, k, strings.TrimSpace(sh), code, attr{AttrTablet, tablet}), true
				}
				break
			}
			head, errText, ok := strings.Cut(rest, " with error ")
			if !ok {
				break
			}
			k, sh, action := shardLock(head)
			if code, tablet, ok := vtorcAction(action); ok {
				return recoveryFailed(OutcomeFailed, k, sh, code, errText+continuation(msg), attr{AttrTablet, tablet}), true
			}
		}
	case 'n':
		// The shard lock held by another process (topo's NodeExists
		// error, logged by the recovery): "node already exists: lock already
		// exists at path keyspaces/<ks>/shards/<shard>".
		if rest, ok := cut(first, "node already exists: lock already exists at path keyspaces/"); ok {
			k, sh, _ := strings.Cut(rest, "/shards/")
			return recoveryFailed(OutcomeLockFailed, k, strings.TrimSpace(sh), "", string(first)+continuation(msg)), true
		}
	}
	return step{}, false
}

// recoveryStep is a recovery event of the outcome.
func recoveryStep(outcome, ks, shard, analysis string, extra ...attr) step {
	return step{kind: KindRecovery, keyspace: ks, shard: shard, attrs: append([]attr{{AttrOutcome, outcome}, {AttrAnalysis, analysis}}, extra...)}
}

// recoveryFailed is a recovery event of an outcome that failed, with the error.
func recoveryFailed(outcome, ks, shard, analysis, errText string, extra ...attr) step {
	s := recoveryStep(outcome, ks, shard, analysis, append(extra, attr{AttrReason, ReparentReason(errText)})...)
	s.err = errText
	return s
}

// vtorcAction reads the lock action of a VTOrc recovery, "VTOrc Recovery for
// <analysis> on <tablet>" (topology_recovery.go getLockAction).
func vtorcAction(action string) (analysis, tablet string, ok bool) {
	rest, ok := strings.CutPrefix(action, "VTOrc Recovery for ")
	if !ok {
		return "", "", false
	}
	analysis, tablet, _ = strings.Cut(rest, " on ")
	tablet, _, _ = strings.Cut(tablet, " ")
	return analysis, tablet, true
}
